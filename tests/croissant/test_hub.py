"""hub.descriptor_for: local paths never touch the network; ids download once, with a timeout."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from croissant_lineage.croissant import hub
from croissant_lineage.errors import DescriptorError, InputError, SizeLimitError

HUB_DOC = {
    "@context": {"@vocab": "https://schema.org/", "cr": "http://mlcommons.org/croissant/"},
    "@type": "sc:Dataset",
    "name": "Tiny",
    "distribution": [],
    "recordSet": [],
}


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float]]:
    """Sockets blocked; ``hub._fetch`` records its calls and serves HUB_DOC."""

    def blocked(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("network used")

    monkeypatch.setattr(socket.socket, "connect", blocked)
    monkeypatch.setattr(socket, "create_connection", blocked)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    calls: list[tuple[str, float]] = []

    def fake_fetch(url: str, timeout: float) -> bytes:
        calls.append((url, timeout))
        return json.dumps(HUB_DOC).encode()

    monkeypatch.setattr(hub, "_fetch", fake_fetch)
    return calls


@pytest.mark.parametrize(
    ("text", "is_id"),
    [
        ("hf://TIGER-Lab/MMLU-Pro", True),
        ("hf://cais/mmlu", True),
        ("hf://datasets/cais/mmlu", True),
        ("hf://edinburgh-dawg/mmlu-redux-2.0", True),
        ("TIGER-Lab/MMLU-Pro", False),  # a bare owner/name is a path, never an id
        ("cais/mmlu", False),
        ("hf://a/b/c", False),
        ("hf://owner/name.json", False),
        ("mmlu", False),
        ("a/b/c", False),
        ("./cais/mmlu", False),
        ("/abs/path", False),
        ("data/croissant.json", False),
        ("owner/name.jsonld", False),
        ("owner/-bad", False),
        ("owner\\name", False),
        ("", False),
    ],
)
def test_is_hub_id(text: str, is_id: bool) -> None:
    assert hub.is_hub_id(text) is is_id


def test_a_missing_bare_id_is_a_missing_file_not_a_download(tmp_path: Path, no_network: list[tuple[str, float]]) -> None:
    with pytest.raises(InputError) as info:
        hub.descriptor_for("TIGER-Lab/MMLU-Pro", cache_dir=tmp_path)
    assert info.value.code == "CL-E001" and "hf://" in (info.value.hint or "")
    assert no_network == []


def test_local_paths_never_fetch(tmp_path: Path, no_network: list[tuple[str, float]]) -> None:
    path = tmp_path / "croissant.json"
    path.write_text(json.dumps(HUB_DOC), encoding="utf-8")
    assert hub.descriptor_for(path) == path
    assert hub.descriptor_for(str(path)) == path
    assert hub.descriptor_for(tmp_path) == path  # a folder: its croissant.json
    # An id-shaped local path is read locally.
    local_id = tmp_path / "owner" / "name"
    local_id.mkdir(parents=True)
    (local_id / "metadata.json").write_text("{}", encoding="utf-8")
    assert hub.descriptor_for(local_id) == local_id / "metadata.json"
    assert no_network == []


def test_missing_local_path(tmp_path: Path, no_network: list[tuple[str, float]]) -> None:
    with pytest.raises(InputError) as info:
        hub.descriptor_for(tmp_path / "nope.json")
    assert info.value.code == "CL-E001"
    with pytest.raises(InputError):
        hub.descriptor_for(tmp_path / "owner" / "name")  # a Path is never an id
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError):
        hub.descriptor_for(tmp_path / "empty")
    assert no_network == []


def test_id_downloads_once_and_caches(tmp_path: Path, no_network: list[tuple[str, float]]) -> None:
    path = hub.descriptor_for("hf://TIGER-Lab/MMLU-Pro", cache_dir=tmp_path, timeout=7)
    assert path == tmp_path / "hub" / "TIGER-Lab" / "MMLU-Pro" / "croissant.json"
    assert json.loads(path.read_text(encoding="utf-8")) == HUB_DOC
    assert no_network == [("https://huggingface.co/api/datasets/TIGER-Lab/MMLU-Pro/croissant", 7)]
    assert hub.descriptor_for("hf://TIGER-Lab/MMLU-Pro", cache_dir=tmp_path) == path
    assert len(no_network) == 1
    hub.descriptor_for("hf://TIGER-Lab/MMLU-Pro", cache_dir=tmp_path, refresh=True)
    assert len(no_network) == 2


def test_default_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CROISSANT_LINEAGE_CACHE", str(tmp_path / "c"))
    assert hub.default_cache_dir() == tmp_path / "c"
    path = hub.descriptor_for("hf://cais/mmlu")
    assert path == tmp_path / "c" / "hub" / "cais" / "mmlu" / "croissant.json"


def test_offline_without_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_network: list[tuple[str, float]]) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputError):
        hub.descriptor_for("hf://cais/mmlu", cache_dir=tmp_path)
    assert no_network == []


def test_bad_answers_leave_no_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    target = tmp_path / "hub" / "o" / "n" / "croissant.json"
    monkeypatch.setattr(hub, "_fetch", lambda url, timeout: b"<html>not json</html>")
    with pytest.raises(InputError):
        hub.descriptor_for("hf://o/n", cache_dir=tmp_path)
    monkeypatch.setattr(hub, "_fetch", lambda url, timeout: b'{"@type": "Thing"}')
    with pytest.raises(DescriptorError):
        hub.descriptor_for("hf://o/n", cache_dir=tmp_path)
    monkeypatch.setattr(hub, "_fetch", lambda url, timeout: b" " * (hub.MAX_DESCRIPTOR_BYTES + 1))
    with pytest.raises(SizeLimitError):
        hub.descriptor_for("hf://o/n", cache_dir=tmp_path)
    assert not target.exists()


def test_real_fetch_turns_network_failure_into_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The undecorated fetch, against a blocked socket: a coded error, not a traceback."""
    monkeypatch.undo()  # restore hub._fetch; then block sockets again
    monkeypatch.setattr(socket, "create_connection", _refuse)
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    with pytest.raises(InputError) as info:
        hub._fetch("https://huggingface.co/api/datasets/cais/mmlu/croissant", timeout=1)
    assert info.value.code == "CL-E001"


def _refuse(*args: Any, **kwargs: Any) -> None:
    raise OSError("network blocked in tests")
