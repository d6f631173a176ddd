"""parsing never fetches, at any depth.

A loopback HTTP listener (loopback stays open under ``tests/netguard.py``) counts every
connection made to it. Descriptors name it as a context scoped to a property, to a type,
through ``@import``, in a nested node, or in a list; a scoped ``file:`` context names a
local file. ``link``, ``validate``, ``enrich`` and rdflib/mlcroissant themselves (through
:func:`offline_documents`) must refuse each one with a code and never connect.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import rdflib

from croissant_lineage.cli import main
from croissant_lineage.croissant.descriptor import read_descriptor
from croissant_lineage.croissant.jsonld import (
    check_contexts,
    context_urls,
    offline_documents,
    read_graph,
)
from croissant_lineage.croissant.mlc import run_mlcroissant
from croissant_lineage.enrich import enrich_file
from croissant_lineage.errors import DescriptorError, LineageError
from croissant_lineage.validate import validate

GOOD = Path(__file__).resolve().parent / "_good"


class Listener:
    """A loopback TCP server that answers a JSON-LD context and counts connections."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/context.jsonld"

    def _serve(self) -> None:
        body = json.dumps({"@context": {"evil": "https://evil.example/ns#"}}).encode()
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            with conn, contextlib.suppress(OSError):
                conn.recv(65536)
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: application/ld+json\r\n\r\n" + body)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


@pytest.fixture()
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


def _scoped_property(url: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["@context"]["evil"] = {"@id": "cr:evil", "@context": url}
        doc["evil"] = {"name": "x"}
    return edit


def _scoped_type(url: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["@context"]["EvilType"] = {"@id": "cr:EvilType", "@context": url}
        doc["recordSet"][0]["@type"] = ["cr:RecordSet", "EvilType"]
    return edit


def _nested_import(url: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["recordSet"][0]["@context"] = {"@import": url}
    return edit


def _scoped_list(url: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["@context"]["evil"] = {"@id": "cr:evil", "@context": [{"x": "https://x.example/"}, url]}
        doc["evil"] = {"name": "x"}
    return edit


def _scoped_in_import(url: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["distribution"][0]["@context"] = {"deep": {"@id": "cr:deep", "@context": {"@import": url}}}
    return edit


EDITS = {
    "property-scoped": _scoped_property,
    "type-scoped": _scoped_type,
    "nested-import": _nested_import,
    "scoped-list": _scoped_list,
    "import-in-scoped": _scoped_in_import,
}


def _case(tmp_path: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    folder = tmp_path / "case"
    shutil.copytree(GOOD, folder)
    doc = json.loads((folder / "croissant.json").read_text())
    edit(doc)
    (folder / "croissant.json").write_text(json.dumps(doc))
    return folder


@pytest.mark.parametrize("name", sorted(EDITS))
def test_every_reader_refuses_a_context_url_at_any_depth(
    name: str, tmp_path: Path, listener: Listener, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _case(tmp_path, EDITS[name](listener.url))
    path = folder / "croissant.json"
    doc = json.loads(path.read_text())
    assert listener.url in [url for _, url in context_urls(doc)]
    for call in (
        lambda: check_contexts(doc),
        lambda: read_descriptor(path),
        lambda: read_graph(path),
        lambda: run_mlcroissant(doc),
        lambda: enrich_file(path, tmp_path / "out.json", derived_from=["https://example.org/p"]),
    ):
        with pytest.raises(LineageError) as info:
            call()
        assert info.value.code == "CL-E002"
    assert "CLV202" in {i.code for i in validate([path]).issues}
    assert main(["link", str(folder / "family.json"), "--out", str(tmp_path / "lineage"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "CL-E002" in err and "Traceback" not in err
    assert not (tmp_path / "lineage").exists() and not (tmp_path / "out.json").exists()
    assert listener.connections == 0


def test_a_scoped_file_context_is_never_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "secret.jsonld"
    secret.write_text(json.dumps({"@context": {"leak": "https://leak.example/"}}))
    folder = _case(tmp_path, _scoped_property(secret.as_uri()))
    path = folder / "croissant.json"
    opened: list[str] = []
    real_open = open

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file).endswith("secret.jsonld"):
            opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", spy)
    with pytest.raises(DescriptorError):
        read_descriptor(path)
    assert "CLV202" in {i.code for i in validate([path]).issues}
    assert opened == []


def test_rdflib_itself_loads_nothing_under_offline_documents(listener: Listener) -> None:
    """The processors' own loader is replaced: even a document no check saw stays offline."""
    doc = {
        "@context": {"sc": "https://schema.org/", "evil": {"@id": "sc:evil", "@context": listener.url}},
        "@id": "https://example.org/d",
        "evil": {"@id": "https://example.org/e", "sc:name": "x"},
    }
    with offline_documents(), pytest.raises(Exception, match="only bundled contexts"):
        rdflib.Graph().parse(data=json.dumps(doc), format="json-ld")
    assert listener.connections == 0


def test_offline_documents_serves_the_bundled_croissant_context(listener: Listener) -> None:
    doc = {
        "@context": [
            "http://mlcommons.org/croissant/1.1",
            {"x": {"@id": "cr:x", "@context": "https://mlcommons.org/croissant/1.0/context.jsonld"}},
        ],
        "@type": "sc:Dataset", "@id": "https://example.org/d", "name": "d", "x": {"name": "y"},
    }
    with offline_documents():
        graph = rdflib.Graph().parse(data=json.dumps(doc), format="json-ld")
    assert (rdflib.URIRef("https://example.org/d"), rdflib.URIRef("https://schema.org/name"), rdflib.Literal("d", lang="en")) in graph
    check_contexts(doc)  # bundled URLs pass the one rule
    assert listener.connections == 0
    from rdflib.plugins.shared.jsonld import context as rdflib_context
    from rdflib.plugins.shared.jsonld import util

    assert rdflib_context.source_to_json is util.source_to_json  # restored after the block
