"""Discovery on the toy family: parents, activities and edges against link's declared edges."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage.croissant.describe import describe
from croissant_lineage.discovery.activity import added_key_changes, guess_activity
from croissant_lineage.discovery.propose import discover
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import EDGES_SCHEMA, ITEMS_BASE_SCHEMA

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


def _keyed(dataset: str, records: list[dict], keys: list[str]) -> pa.Table:
    n = len(records)
    return pa.table({
        "dataset": [dataset] * n, "item": [f"q{k}" for k in range(n)], "subject": ["s"] * n,
        "stem": [f"Question number {k}?" for k in range(n)], "options": [["w", "x", "y", "z"]] * n, "key": keys,
        "source_file": ["f"] * n, "source_row": list(range(n)), "record": [json.dumps(r) for r in records],
    }, schema=ITEMS_BASE_SCHEMA)


def test_added_key_column_is_re_annotation() -> None:
    # the child keeps the parent's key (``answer``) and adds its verdict in ``correct_answer``
    # (an index, as MMLU-Redux does; free text on some items), different on 3 of 20 items
    n = 20
    parent = _keyed("p", [{"question": "q", "answer": "A"}] * n, ["A"] * n)
    verdicts = ["", "", "2", "0", "3", "see the source", "1"] + [""] * (n - 7)  # A, A, C, A, D, text, B
    child = _keyed("c", [{"question": "q", "answer": "0", "correct_answer": v} for v in verdicts], ["A"] * n)
    edges = pa.table({"child_item": [f"q{k}" for k in range(n)], "parent_item": [f"q{k}" for k in range(n)]})
    assert added_key_changes(edges, child, parent) == (3, ["correct_answer"])
    # a column the parent has too is not added; a column of free text is no key column
    free = _keyed("c", [{"question": "q", "answer": "0", "note": f"text {k}"} for k in range(n)], ["A"] * n)
    assert added_key_changes(edges, free, parent) == (0, [])
    sub = pa.table({"child_item": ["q2", "q3"], "parent_item": ["q2", "q3"]})  # under MIN_ITEMS read values
    assert added_key_changes(sub, child, parent) == (0, [])



def test_an_added_key_column_mostly_nan_is_read_from_its_keys() -> None:
    # a verdict column written through pandas holds "nan" where no verdict was given: those
    # cells are unset, so its 4 keys (3 of them changed) make it a key column
    n = 20
    parent = _keyed("p", [{"question": "q", "answer": "A"}] * n, ["A"] * n)
    verdicts = ["2", "0", "3", "1"] + ["nan"] * (n - 4)  # C, A, D, B against A
    child = _keyed("c", [{"question": "q", "answer": "0", "correct_answer": v} for v in verdicts], ["A"] * n)
    edges = pa.table({"child_item": [f"q{k}" for k in range(n)], "parent_item": [f"q{k}" for k in range(n)]})
    assert added_key_changes(edges, child, parent) == (3, ["correct_answer"])

def test_rekeyed_items_make_a_re_annotation() -> None:
    edges = _toy_edges(100)
    assert guess_activity(edges, 100, 1000)[0] == "filter"
    activity, counts = guess_activity(edges, 100, 1000, rekeyed=1)
    assert activity == "re_annotation" and counts["key_changed_added_column"] == 1


def _toy_edges(n: int) -> pa.Table:
    cols: dict[str, list] = {f.name: [None] * n for f in EDGES_SCHEMA}
    cols.update(child_dataset=["c"] * n, child_item=[f"c{k}" for k in range(n)], parent_dataset=["p"] * n,
                parent_item=[f"p{k}" for k in range(n)], activity=["filter"] * n, method=["text"] * n, score=[100.0] * n,
                stem_changed=[False] * n, options_added=[0] * n, options_dropped=[0] * n, key_inherited=[True] * n,
                ambiguous=[False] * n)
    return pa.table(cols, schema=EDGES_SCHEMA)
