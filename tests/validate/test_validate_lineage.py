"""Lineage tables in both layouts: a lineage folder's edges (dataset and item columns) and
the edge table an enriched descriptor distributes (``child``/``parent`` item refs)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from croissant_lineage.validate import validate
from croissant_lineage.validate.lineage import check_cycles
from tests.validate_helpers import VALIDATE_FIXTURES, build_lineage

SPEC = json.loads((VALIDATE_FIXTURES / "clean" / "lineage.json").read_text("utf-8"))


def _ref_edges(rows: list[tuple[str, str, float]]) -> pa.Table:
    return pa.table({
        "child": [c for c, _, _ in rows], "parent": [p for _, p, _ in rows],
        "activity": ["copy"] * len(rows), "method": ["exact"] * len(rows),
        "score": pa.array([s for _, _, s in rows], pa.float64()),
    })


def test_enriched_edge_table_checked_against_known_items(tmp_path: Path):
    lineage = build_lineage(SPEC, tmp_path / "lineage")
    pq.write_table(_ref_edges([("fix:f1", "fix-parent:astro/0", 100.0), ("fix:f9", "fix-parent:astro/1", -3.0),
                               ("fix:f2", "elsewhere:42", 90.0)]), tmp_path / "croissant.lineage.parquet")
    report = validate([lineage, tmp_path / "croissant.lineage.parquet"])
    got = sorted((i.code, i.where.split("#")[1]) for i in report.issues)
    # f9 is no item of fix; 'elsewhere' is a dataset this run does not hold: not judged.
    assert got == [("CLV301", "row=1"), ("CLV304", "row=1")]
    assert [c.kind for c in report.checked] == ["lineage", "lineage-table"]


def test_lineage_folder_edges_into_an_unknown_dataset_are_errors(tmp_path: Path):
    spec = json.loads(json.dumps(SPEC))
    spec["edges"][0]["parent_dataset"] = "elsewhere"
    report = validate([build_lineage(spec, tmp_path / "lineage")])
    assert report.codes() == {"CLV301"}


def test_cycles_are_reported_once_each():
    pairs = [("a", "b"), ("b", "c"), ("c", "a"), ("x", "x"), ("d", "a")]
    cycles = check_cycles(pairs, "t")
    assert len(cycles) == 2 and {i.code for i in cycles} == {"CLV303"}
    assert check_cycles([("a", "b"), ("b", "c"), ("a", "c")], "t") == []


def test_cycle_across_edge_tables_found_once_at_its_file(tmp_path: Path):
    a, b = tmp_path / "a.lineage.parquet", tmp_path / "b.lineage.parquet"
    pq.write_table(_ref_edges([("a:1", "b:1", 100.0), ("a:2", "a:2", 100.0)]), a)  # a:2 -> a:2 within a
    pq.write_table(_ref_edges([("b:1", "a:1", 100.0)]), b)  # closes a:1 -> b:1 -> a:1 across files
    for paths in ([a, b], [tmp_path]):
        report = validate(paths)
        cycles = sorted((i.where.rsplit("/", 1)[1], i.message.split(": ")[1]) for i in report.issues if i.code == "CLV303")
        assert cycles == [("a.lineage.parquet#item=a:1", "a:1 -> b:1 -> a:1"), ("a.lineage.parquet#item=a:2", "a:2 -> a:2")]
        assert not report.valid
    assert validate([b]).codes() == set()  # each file alone has no cross-file cycle


def test_family_json_dataset_cycle(tmp_path: Path):
    spec = json.loads(json.dumps(SPEC))
    spec["family"]["derivations"].append({"child": "fix-parent", "parent": "fix", "activity": "copy"})
    report = validate([build_lineage(spec, tmp_path / "lineage")])
    assert [i.where.split("#")[1] for i in report.issues if i.code == "CLV303"] == ["dataset=fix"]
