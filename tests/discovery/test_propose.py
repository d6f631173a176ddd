"""Discovery on the toy family: parents, activities and edges against link's declared edges."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from croissant_lineage.croissant.describe import describe
from croissant_lineage.discovery.propose import discover
from croissant_lineage.lineage.model import Lineage

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"


def _datasets_only(tmp_path: Path, drop: tuple[str, ...]) -> Path:
    """The toy spec with no derivations and without ``drop``."""
    doc = json.loads((TOY / "family.json").read_text(encoding="utf-8"))
    datasets = [
        dict(d, descriptor=str(TOY / d["descriptor"])) for d in doc["datasets"] if "descriptor" in d and d["name"] not in drop
    ]
    path = tmp_path / "toy-datasets.json"
    path.write_text(json.dumps({"name": "toy-stripped", "datasets": datasets, "derivations": []}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def pro(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("disc")
    spec = _datasets_only(tmp, ("toy-pro", "toy-pro-v2"))
    return discover([TOY / "toy-pro" / "croissant.json"], [spec], out=tmp / "out"), tmp


def test_option_expansion_recovered(pro, toy_lineage: Lineage) -> None:
    result, _ = pro
    assert result.roles["toy-pro"].ok
    first = result.proposals[0]
    assert (first.child, first.parent, first.activity) == ("toy-pro", "toy-base", "option_expansion")
    assert first.evidence["options_added"] >= first.linked / 2
    e = toy_lineage.edges
    declared = {
        (c, p)
        for c, p, cd, pd in zip(*(e.column(k).to_pylist() for k in ("child_item", "parent_item", "child_dataset", "parent_dataset")), strict=True)
        if (cd, pd) == ("toy-pro", "toy-base")
    }
    d = result.lineage.edges
    found = {
        (c, p)
        for c, p, pd in zip(*(d.column(k).to_pylist() for k in ("child_item", "parent_item", "parent_dataset")), strict=True)
        if pd == "toy-base"
    }
    assert declared and len(found & declared) / len(declared) >= 0.9
    assert len(found & declared) / len(found) >= 0.9
    assert set(d.column("method").to_pylist()) == {"discovered"}


def test_files_written_and_reused(pro) -> None:
    result, tmp = pro
    out = tmp / "out"
    frag = json.loads((out / "family-fragment.json").read_text(encoding="utf-8"))
    assert frag["derivations"][0]["parent"] == "toy-base"
    assert pq.read_table(out / "lineage" / "edges.parquet").num_rows == result.lineage.edges.num_rows
    before = {p.name: p.read_bytes() for p in sorted((out).rglob("*")) if p.is_file()}
    spec = tmp / "toy-datasets.json"
    again = discover([TOY / "toy-pro" / "croissant.json"], [spec], out=out)
    assert again.index["reused"] and not result.index["reused"]
    after = {p.name: p.read_bytes() for p in sorted((out).rglob("*")) if p.is_file()}
    assert before == after  # same inputs, same bytes


def test_snapshot_recovered(tmp_path: Path) -> None:
    spec = _datasets_only(tmp_path, ("toy-pro-v2",))
    result = discover([TOY / "toy-pro-v2" / "croissant.json"], [spec])
    p = result.proposals[0]
    assert (p.parent, p.activity) == ("toy-pro", "snapshot")
    assert p.evidence["same_id"] >= 0.95 * p.linked


def test_no_relative_says_so(tmp_path: Path) -> None:
    data = tmp_path / "cooking"
    data.mkdir()
    rows = ["question,A,B,C,answer"] + [
        f"How long should pasta number {i} boil in salted water?,{i},{i + 1},{i + 2},B" for i in range(8)
    ]
    (data / "test.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (data / "croissant.json").write_text(json.dumps(describe(data)), encoding="utf-8")
    result = discover([data / "croissant.json"], [_datasets_only(tmp_path, ())])
    assert result.proposals == [] and result.lineage.edges.num_rows == 0
    assert result.no_relative == [next(iter(result.roles))]
    assert "no relative in the corpus" in str(result)


def test_refused_dataset_is_reported(tmp_path: Path) -> None:
    data = tmp_path / "numbers"
    data.mkdir()
    (data / "t.csv").write_text("x,y\n1,2\n3,4\n5,6\n", encoding="utf-8")
    (data / "croissant.json").write_text(json.dumps(describe(data)), encoding="utf-8")
    result = discover([data / "croissant.json"], [_datasets_only(tmp_path, ())])
    assert result.refused and result.proposals == []
    assert "roles not inferred" in str(result)


def test_cli_json(tmp_path: Path) -> None:
    spec = _datasets_only(tmp_path, ("toy-pro", "toy-pro-v2"))
    proc = subprocess.run(
        [sys.executable, "-m", "croissant_lineage", "discover", str(TOY / "toy-pro" / "croissant.json"),
         "--against", str(spec), "--out", str(tmp_path / "o"), "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout)
    assert got["proposals"][0]["activity"] == "option_expansion"
    bad = subprocess.run(
        [sys.executable, "-m", "croissant_lineage", "discover", str(TOY / "toy-pro" / "croissant.json"),
         "--against", str(spec), "--roles", "[1]"],
        capture_output=True, text=True, timeout=120,
    )
    assert bad.returncode != 0 and "--roles" in bad.stderr


def test_lineage_folder_as_corpus(toy_lineage_path: Path) -> None:
    result = discover([TOY / "toy-redux" / "croissant.json"], [toy_lineage_path])
    assert "toy-redux" in result.roles and result.roles["toy-redux"].ok
    assert result.proposals, "a lineage folder's items are a corpus"
    assert all(p.parent != "toy-redux" for p in result.proposals)  # the unknown dataset is left out
