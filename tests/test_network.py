"""Nothing fetched: the MMLU family is linked, enriched, resolved and validated offline.

Every test session runs with non-loopback sockets blocked (``tests/netguard.py``,
installed by ``tests/conftest.py``). Here every connection and DNS lookup attempt is
also recorded, so that an attempt the code under test catches and hides (a library
falling back quietly after a failed fetch) still fails the test.
"""

from __future__ import annotations

import contextlib
import json
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from croissant_lineage.cli import main
from croissant_lineage.croissant.jsonld import read_graph
from croissant_lineage.enrich import enrich_family, enrich_file
from croissant_lineage.errors import LineageError
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.graph import relatives_of
from croissant_lineage.resolve import resolve
from croissant_lineage.validate import validate
from croissant_lineage.workflows import link
from tests import netguard

BAD = Path(__file__).resolve().parent / "badinput" / "_good" / "croissant.json"


@pytest.fixture()
def attempts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """Non-local connection and lookup attempts made during the test (blocked or not)."""
    seen: list[tuple[str, Any]] = []
    connect, connect_ex, sendto = socket.socket.connect, socket.socket.connect_ex, socket.socket.sendto
    getaddrinfo = socket.getaddrinfo

    def remote(address: Any) -> bool:
        return isinstance(address, tuple) and bool(address) and not netguard._is_local(address[0])

    def rec_connect(self: socket.socket, address: Any) -> Any:
        if remote(address):
            seen.append(("connect", address))
        return connect(self, address)

    def rec_connect_ex(self: socket.socket, address: Any) -> Any:
        if remote(address):
            seen.append(("connect", address))
        return connect_ex(self, address)

    def rec_sendto(self: socket.socket, data: Any, *args: Any) -> Any:
        if remote(args[-1]):
            seen.append(("sendto", args[-1]))
        return sendto(self, data, *args)

    def rec_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not netguard._is_local(host):
            seen.append(("getaddrinfo", host))
        return getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", rec_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", rec_connect_ex)
    monkeypatch.setattr(socket.socket, "sendto", rec_sendto)
    monkeypatch.setattr(socket, "getaddrinfo", rec_getaddrinfo)
    return seen


def test_netguard_is_active(attempts: list[tuple[str, Any]]) -> None:
    assert netguard._saved, "tests/conftest.py must install tests/netguard.py for the whole session"
    with pytest.raises(netguard.NetworkBlocked):
        socket.create_connection(("192.0.2.1", 443), timeout=1)
    with pytest.raises(netguard.NetworkBlocked):
        socket.getaddrinfo("huggingface.co", 443)
    with pytest.raises((netguard.NetworkBlocked, urllib.error.URLError)):
        urllib.request.urlopen("https://mlcommons.org/croissant/1.1", timeout=1)
    assert [kind for kind, _ in attempts] == ["getaddrinfo", "getaddrinfo", "getaddrinfo"]  # recorded, then blocked


@pytest.mark.slow
def test_mmlu_family_links_enriches_resolves_and_validates_offline(
    shared_data: Path, tmp_path: Path, attempts: list[tuple[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    spec = load_family("mmlu")
    lineage = link(spec, data_dir=shared_data)
    lineage.write(tmp_path / "lineage")
    assert lineage.edges.num_rows > 50_000
    enriched = enrich_family(lineage, spec, tmp_path / "enriched")
    assert len(enriched.descriptors) == len({d.descriptor for d in spec.datasets.values() if d.has_items})
    ref = "mmlu-pro:3542"
    resolved = resolve(ref, tmp_path / "enriched")
    expected = relatives_of(lineage, ref)
    assert [a.ref for a in resolved.ancestors] == [a.ref for a in expected.ancestors]
    assert "mmlu:college_chemistry/test/86" in {a.ref for a in resolved.ancestors}
    assert [d.ref for d in resolved.descendants] == [d.ref for d in expected.descendants]
    shipped = sorted({str(d.descriptor) for d in spec.datasets.values() if d.descriptor})
    # the enriched copies sit apart from their data (CLV701 by design): their metadata is what is checked here
    args = [str(tmp_path / "lineage"), str(tmp_path / "enriched"), str(spec.path), *shipped]
    assert main(["validate", *args, "--metadata-only", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] and not [i for i in report["issues"] if i["severity"] == "error"]
    assert attempts == []


REMOTE = "https://croissant-lineage.invalid/context.jsonld"


@pytest.mark.parametrize(
    "context",
    [REMOTE, [REMOTE, {"cl": "https://w3id.org/croissant-lineage/ns#"}], {"@import": REMOTE, "sc": "https://schema.org/"}],
    ids=["url", "list", "import"],
)
def test_a_remote_context_is_never_fetched(context: Any, tmp_path: Path, attempts: list[tuple[str, Any]]) -> None:
    doc = json.loads(BAD.read_text())
    doc["@context"] = context
    path = tmp_path / "croissant.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(LineageError) as info:
        read_graph(path)
    assert info.value.code == "CL-E002"
    assert "CLV202" in {i.code for i in validate([path]).issues}
    with contextlib.suppress(LineageError):
        enrich_file(path, tmp_path / "out.json", derived_from=["https://example.org/parent"], validate=True)
    assert attempts == []


def test_the_croissant_context_url_resolves_locally(tmp_path: Path, attempts: list[tuple[str, Any]]) -> None:
    doc = json.loads(BAD.read_text())
    doc["@context"] = "http://mlcommons.org/croissant/1.1"
    path = tmp_path / "croissant.json"
    path.write_text(json.dumps(doc))
    assert len(read_graph(path)) > 0
    assert attempts == []
