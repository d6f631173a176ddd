"""Items of a dataset named by its Hub id: descriptor and files come through huggingface_hub
(monkeypatched here: the tests never touch the network)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import croissant_lineage.lineage.items as items_mod
from croissant_lineage._io import atomic_write_json
from croissant_lineage.croissant.describe import DescribeOptions, describe
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items


@pytest.fixture
def hub_layout(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "snapshot"
    (repo / "default" / "test").mkdir(parents=True)
    pq.write_table(
        pa.table({"qid": [1, 2], "question": ["Is a stub true?", "Is a mock false?"],
                  "options": [["yes", "no"], ["yes", "no", "maybe"]], "answer": ["A", "B"]}),
        repo / "default" / "test" / "0000.parquet",
    )
    doc = describe(repo, DescribeOptions(name="owner-ds"))
    # Shape it like the Hub's own descriptor: files inside a git repository FileObject.
    doc["distribution"].insert(0, {
        "@type": "cr:FileObject", "@id": "repo", "name": "repo",
        "contentUrl": "https://huggingface.co/datasets/owner/ds/tree/refs%2Fconvert%2Fparquet",
        "encodingFormat": "git+https", "sha256": "https://github.com/mlcommons/croissant/issues/80",
    })
    for fs in doc["distribution"][1:]:
        fs["containedIn"] = {"@id": "repo"}
    desc = tmp_path / "cache" / "croissant.json"
    atomic_write_json(desc, doc)
    return repo, desc


def test_hub_id_descriptor_loads_items_through_snapshot_download(
    tmp_path: Path, hub_layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, desc = hub_layout
    calls: list[dict] = []

    def fake_snapshot_download(repo_id: str, **kwargs):
        calls.append({"repo_id": repo_id, **kwargs})
        return str(repo)

    monkeypatch.setattr(items_mod, "descriptor_for", lambda name: desc)
    monkeypatch.setattr("huggingface_hub.snapshot_download", fake_snapshot_download)
    spec_path = tmp_path / "family.json"
    spec_path.write_text(json.dumps({
        "name": "hubfam",
        "datasets": [{
            "name": "ds", "iri": "https://huggingface.co/datasets/owner/ds", "descriptor": "hf://owner/ds",
            "record_set": "default",
            "roles": {"id": "qid", "stem": "question", "options": "options", "key": "answer"},
        }],
    }))
    spec = load_family(spec_path).dataset("ds")
    assert spec.hub_id == "owner/ds" and spec.descriptor is None and spec.has_items
    table = load_items(spec)
    assert table.column("item").to_pylist() == ["1", "2"]
    assert table.column("options").to_pylist()[1] == ["yes", "no", "maybe"]
    (call,) = calls
    assert call["repo_id"] == "owner/ds"
    assert call["revision"] == "refs/convert/parquet"
    assert call["repo_type"] == "dataset"
    assert call["allow_patterns"] and all("parquet" in p for p in call["allow_patterns"])


def test_existing_local_path_is_never_a_hub_id(tmp_path: Path, hub_layout: tuple[Path, Path]) -> None:
    (tmp_path / "owner").mkdir()
    _, desc = hub_layout
    (tmp_path / "owner" / "ds").write_text(desc.read_text())
    spec_path = tmp_path / "family.json"
    spec_path.write_text(json.dumps({
        "name": "f", "datasets": [{"name": "ds", "iri": "https://e.org/ds", "descriptor": "owner/ds",
                                   "roles": {"id": "qid", "stem": "question"}}],
    }))
    spec = load_family(spec_path).dataset("ds")
    assert spec.hub_id is None and spec.descriptor == (tmp_path / "owner" / "ds").resolve()
