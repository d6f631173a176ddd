"""Findings checks: schema codes, items against the lineage, stale confirmed fixes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.parquet import findings_entries, findings_table
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.validate import validate
from croissant_lineage.validate.findings import stale_descendants
from croissant_lineage.workflows import link

REPO = Path(__file__).resolve().parents[2]
SOURCE = {"name": "Invented review", "kind": "community_review"}


@pytest.fixture(scope="module")
def toy_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("toy-lineage")
    link(REPO / "examples" / "toy" / "family.json").write(out)
    return out


@pytest.fixture(scope="module")
def toy_graph(toy_dir: Path) -> LineageGraph:
    return LineageGraph(Lineage.read(toy_dir))


def _fix(item: str, proposed: str, target: str = "key", **kw) -> Finding:
    return Finding(item=item, target=target, kind="wrong_key" if target == "key" else "other",
                   source=Source("Invented review"), proposed=proposed, status="confirmed_fixed",
                   status_date="2024-01-01", **kw)


def test_stale_key_reaches_every_inheriting_descendant(toy_graph: LineageGraph):
    stale = stale_descendants(_fix("toy-base:astronomy/test/0", "Sable"), toy_graph)
    assert {s.descendant for s in stale} == {
        "toy-fr:astronomy/test/0", "toy-pro:101", "toy-redux:astronomy/0", "toy-pro-v2:101"}
    assert {s.depth for s in stale if s.descendant == "toy-pro-v2:101"} == {2}


def test_fix_already_in_the_data_is_not_stale(toy_graph: LineageGraph):
    assert stale_descendants(_fix("toy-base:astronomy/test/0", "Rondo"), toy_graph) == []


def test_descendant_that_changed_the_key_is_not_inherited(toy_graph: LineageGraph):
    # toy-pro:105 changed the key on its own (key_inherited false): not a stale copy.
    stale = stale_descendants(_fix("toy-base:astronomy/test/5", "2:30"), toy_graph)
    assert [s.descendant for s in stale] == ["toy-redux:astronomy/4"]


def test_only_confirmed_fixes_can_be_stale(toy_graph: LineageGraph):
    f = Finding(item="toy-base:astronomy/test/0", target="key", kind="wrong_key", source=Source("x"),
                proposed="Sable", status="confirmed_documented", status_date="2024-01-01")
    assert stale_descendants(f, toy_graph) == []


def _write(path: Path, entries: list[dict]) -> Path:
    path.write_text(yaml.safe_dump({"findings": entries}, sort_keys=False), "utf-8")
    return path


def test_status_update_makes_a_fix_stale_in_the_report(tmp_path: Path, toy_dir: Path):
    entries = [
        {"id": "F-a", "item": "toy-base:astronomy/test/0", "target": "key", "kind": "wrong_key",
         "proposed": "Sable", "source": SOURCE, "status": "submitted"},
        {"id": "F-a", "status": "confirmed_fixed", "status_date": "2024-05-01"},
    ]
    report = validate([toy_dir, _write(tmp_path / "f.yaml", entries)])
    stale = [i for i in report.issues if i.code == "CLV404"]
    assert len(stale) == 4 and report.valid  # stale is a warning
    assert validate([toy_dir, _write(tmp_path / "f.yaml", entries)], strict=True).valid is False
    assert validate([_write(tmp_path / "f.yaml", entries)]).codes() == set()  # no lineage: not judged


def test_unknown_status_in_history_and_top_level(tmp_path: Path):
    entries = [{"id": "F-b", "item": "toy-base:astronomy/test/0", "target": "stem", "kind": "other",
                "source": SOURCE, "status": "proposed", "history": [{"status": "done"}]}]
    report = validate([_write(tmp_path / "f.yaml", entries)])
    assert [(i.code, i.where.split("#")[1]) for i in report.issues] == [("CLV402", "/findings/0/history/0/status")]


def test_item_refs_checked_including_related_and_source_item(tmp_path: Path, toy_dir: Path):
    entries = [{"id": "F-c", "item": "toy-base:astronomy/test/0", "target": "item", "kind": "duplicate",
                "related": ["toy-base:astronomy/test/99"], "source": {**SOURCE, "item": "toy-redux:nowhere/1"},
                "status": "proposed"}]
    report = validate([toy_dir, _write(tmp_path / "f.yaml", entries)])
    assert sorted(i.message.split()[0] for i in report.issues if i.code == "CLV403") == ["related", "source.item"]


def test_findings_table_round_trip_validates(tmp_path: Path, toy_dir: Path):
    import pyarrow.parquet as pq

    f = _fix("toy-base:astronomy/test/0", "Sable").with_status("confirmed_fixed", date="2024-06-01")
    table = findings_table([f])
    assert findings_entries(table) == [f.to_dict()]
    pq.write_table(table, tmp_path / "findings.parquet")
    report = validate([toy_dir, tmp_path / "findings.parquet"])
    assert [c.kind for c in report.checked] == ["lineage", "findings"]
    assert {i.code for i in report.issues} == {"CLV404"}
