"""Corrections, pinned exactly (``findings.corrections``).

Every reason code with its detail, the summary's counts, the key table column by column,
each output format byte for byte, and the error messages with their hints.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from croissant_lineage.errors import ArgumentError, InputError, OutputExistsError
from croissant_lineage.family.spec import DatasetSpec
from croissant_lineage.findings.corrections import Change, NotApplied, apply_corrections
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import KEYS_SCHEMA
from tests.findings_helpers import BASE, PRO, edge, items_lineage, lineage, toy_lineage
from tests.helpers import items_table

REVIEW = Source("Invented reviewer", kind="person")


def _kf(fid: str, item: str = "base:s/0", proposed: str | None = "Cedar", status: str = "confirmed_fixed",
        target: str = "key") -> Finding:
    return Finding(id=fid, item=item, target=target, kind="wrong_key" if target == "key" else "other",
                   source=REVIEW, proposed=proposed, status=status, status_date="2025-01-01",
                   status_reason="reviewed")


def test_summary_of_every_reason() -> None:
    base = items_table("base", BASE)
    findings = [
        _kf("f-open", status="proposed"),
        _kf("f-stem", target="stem"),
        _kf("f-none", proposed=None),
        _kf("f-empty", proposed=""),
        _kf("f-away", item="elsewhere:1"),
        _kf("f-zin", proposed="Zinnia"),
        _kf("f-birch", proposed="Birch"),
        _kf("f-elm", item="base:s/1", proposed="Elm"),
        _kf("f-fir", item="base:s/1", proposed="Fir"),
    ]
    c = apply_corrections(items_lineage(base), findings)
    assert c.to_dict() == {
        "dataset": "base",
        "items": 2,
        "changed": 0,
        "changes": [],
        "not_applied_by_reason": {
            "already_the_key": 1, "conflict": 2, "no_proposed_answer": 2, "not_a_key_finding": 1,
            "not_an_option": 1, "not_confirmed": 1, "not_in_dataset": 1,
        },
        "not_applied": [
            {"finding": "f-open", "item": "base:s/0", "reason": "not_confirmed", "detail": "status proposed"},
            {"finding": "f-stem", "item": "base:s/0", "reason": "not_a_key_finding", "detail": "target stem"},
            {"finding": "f-none", "item": "base:s/0", "reason": "no_proposed_answer", "detail": ""},
            {"finding": "f-empty", "item": "base:s/0", "reason": "no_proposed_answer", "detail": ""},
            {"finding": "f-away", "item": "elsewhere:1", "reason": "not_in_dataset", "detail": "dataset base"},
            {"finding": "f-zin", "item": "base:s/0", "reason": "not_an_option", "detail": "Zinnia"},
            {"finding": "f-birch", "item": "base:s/0", "reason": "already_the_key", "detail": "B"},
            {"finding": "f-elm", "item": "base:s/1", "reason": "conflict", "detail": "proposes A"},
            {"finding": "f-fir", "item": "base:s/1", "reason": "conflict", "detail": "proposes B"},
        ],
    }


def test_changes_and_same_change() -> None:
    base = items_table("base", BASE)
    # the second finding proposes the same answer, written differently: one change, one same_change
    findings = [_kf("f-1", item="base:s/1", proposed="Hazel"), _kf("f-2", item="base:s/1", proposed="  HAZEL. "),
                _kf("f-3", proposed="cedar")]
    c = apply_corrections(items_lineage(base), findings)
    assert c.changes == [Change("base:s/0", "B", "C", "cedar", "f-3", None),
                         Change("base:s/1", "C", "D", "Hazel", "f-1", None)]
    assert c.not_applied == [NotApplied("f-2", "base:s/1", "same_change", "as f-1")]
    d = c.to_dict()
    assert d["changed"] == 2 and d["not_applied_by_reason"] == {"same_change": 1}
    assert d["changes"][1] == {"item": "base:s/1", "original_key": "C", "key": "D",
                               "proposed": "Hazel", "finding": "f-1", "via": None}
    assert c.keys.to_pydict() == {
        "dataset": ["base", "base"],
        "item": ["s/0", "s/1"],
        "key": ["C", "D"],
        "original_key": ["B", "C"],
        "finding": ["f-3", "f-1"],
    }


def test_an_item_without_options_takes_no_key() -> None:
    rows = [{"item": "q", "stem": "Invented?", "options": None, "key": None}]
    c = apply_corrections(items_lineage(items_table("bare", rows)), [_kf("f", item="bare:q", proposed="Ash")])
    assert c.changes == []
    assert c.not_applied == [NotApplied("f", "bare:q", "not_an_option", "Ash")]
    assert c.keys.to_pydict() == {"dataset": ["bare"], "item": ["q"], "key": [None], "original_key": [None],
                                  "finding": [None]}
    assert c.keys.schema.equals(KEYS_SCHEMA)  # typed, even where every value is null


def test_lineage_changes_with_via_and_probable_detail() -> None:
    lin = lineage(
        [items_table("base", BASE), items_table("pro", PRO)],
        [edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3]),
         edge("pro:11", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3], method="fuzzy", score=91)],
    )
    c = apply_corrections(lin, [_kf("f-up", proposed="Cedar")], dataset="pro")
    assert c.changes == [Change("pro:10", "A", "D", "Cedar", "f-up", "base:s/0")]
    assert c.not_applied == [NotApplied("f-up", "pro:11", "probable_link_only", "down:option_expansion (fuzzy 91)")]
    assert c.keys.column("finding").to_pylist() == ["f-up", None, None]
    assert c.keys.column("dataset").to_pylist() == ["pro"] * 3
    # the same finding without the lineage reaches nothing in pro
    c2 = apply_corrections(items_lineage(lin.items_of("pro")), [_kf("f-up", proposed="Cedar")], dataset="pro")
    assert c2.not_applied == [NotApplied("f-up", "base:s/0", "not_in_dataset", "dataset pro")]
    # a finding on an item the lineage does not know
    c3 = apply_corrections(LineageGraph(lin), [_kf("f-x", item="other:1")], dataset="pro")
    assert c3.not_applied == [NotApplied("f-x", "other:1", "not_in_dataset", "dataset pro")]


def test_a_finding_naming_the_item_wins_over_the_lineage() -> None:
    lin = toy_lineage()
    # pro:10 is named directly; its key Birch (A) -> Dogwood (F); nothing goes via base
    c = apply_corrections(lin, [_kf("f-pro", item="pro:10", proposed="Dogwood")], dataset="pro")
    assert c.changes == [Change("pro:10", "A", "F", "Dogwood", "f-pro", None)]
    # a finding on the base item whose answer is already pro's key, and a changed key elsewhere
    c2 = apply_corrections(lin, [_kf("f-b", proposed="Birch")], dataset="pro")
    assert c2.changes == []
    assert [(n.item, n.reason, n.detail) for n in c2.not_applied] == [
        ("pro:10", "already_the_key", "A"), ("pro:11", "already_the_key", "A")]


def test_a_finding_whose_copies_are_all_probable_is_not_also_not_in_dataset() -> None:
    fuzzy = lineage([items_table("base", BASE), items_table("pro", PRO[:1])],
                    [edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3], ambiguous=True)])
    c = apply_corrections(fuzzy, [_kf("f", proposed="Cedar")], dataset="pro")
    assert [(n.item, n.reason) for n in c.not_applied] == [("pro:10", "probable_link_only")]


def test_every_output_format_byte_for_byte(tmp_path: Path) -> None:
    c = apply_corrections(items_lineage(items_table("base", BASE)), [_kf("f-1")])
    jsonl = c.write(tmp_path / "keys.JSONL")
    lines = jsonl.read_text(encoding="utf-8").split("\n")
    assert len(lines) == 3 and lines[2] == "" and all("\n" not in x and x == x.strip() for x in lines[:2])
    assert [json.loads(x) for x in lines[:2]] == [
        {"dataset": "base", "item": "s/0", "key": "C", "original_key": "B", "finding": "f-1"},
        {"dataset": "base", "item": "s/1", "key": "C", "original_key": "C", "finding": None},
    ]
    csv = c.write(tmp_path / "keys.Csv").read_text(encoding="utf-8").splitlines()
    assert csv[0].replace('"', "") == "dataset,item,key,original_key,finding"
    assert csv[1].replace('"', "") == "base,s/0,C,B,f-1" and len(csv) == 3
    assert pq.read_table(c.write(tmp_path / "keys.PARQUET")).to_pylist() == c.keys.to_pylist()
    doc = json.loads(c.write(tmp_path / "k.json").read_text(encoding="utf-8"))
    assert doc == {**c.to_dict(), "keys": c.keys.to_pylist()}
    # overwrite replaces an existing (non-input) file; without it the file is kept
    target = tmp_path / "k.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(OutputExistsError, match=r"k\.json: exists and was not written by croissant-lineage"):
        c.write(target)
    assert target.read_text(encoding="utf-8") == "old"
    assert c.write(target, force=True) == target and json.loads(target.read_text(encoding="utf-8")) == doc


def test_write_errors_say_what_to_do(tmp_path: Path) -> None:
    c = apply_corrections(items_lineage(items_table("base", BASE)), [])
    src = tmp_path / "in.csv"
    with pytest.raises(OutputExistsError) as e:
        c.write(src, inputs=[tmp_path / "other.csv", src])
    assert str(e.value).endswith("in.csv: is an input of this run; corrections go to a new file")
    assert not src.exists()
    with pytest.raises(InputError) as e2:
        c.write(tmp_path / "keys.txt")
    assert str(e2.value).endswith("keys.txt: unknown output format '.txt' (use .parquet, .csv, .jsonl or .json)")
    assert not (tmp_path / "keys.txt").exists()


def _many(n: int) -> Lineage:
    return items_lineage(*[items_table(f"d{i:02d}", BASE[:1]) for i in range(n)])


def test_dataset_errors_name_the_datasets() -> None:
    with pytest.raises(InputError) as e:
        apply_corrections(_many(13), [])
    names = ", ".join(f"d{i:02d}" for i in range(12))
    assert str(e.value) == f"CL-E001 the lineage holds 13 datasets; say which one (datasets: {names})"
    with pytest.raises(InputError) as e2:
        apply_corrections(_many(14), [], dataset="nope")
    assert str(e2.value) == f"CL-E001 no items of dataset 'nope' (datasets: {names})"
    with pytest.raises(InputError) as e3:
        apply_corrections(items_lineage(items_table("base", BASE)), [], dataset="pro")
    assert str(e3.value) == "CL-E001 no items of dataset 'pro' (datasets: base)"
    with pytest.raises(InputError) as e4:
        apply_corrections(items_lineage(items_table("base", [])), [])
    assert str(e4.value) == "CL-E001 the lineage holds 0 datasets; say which one (datasets: )"


def test_one_dataset_of_several_is_chosen_by_name() -> None:
    c = apply_corrections(_many(3), [_kf("f", item="d01:s/0")], dataset="d01")
    assert c.dataset == "d01" and c.keys.column("dataset").to_pylist() == ["d01"]
    assert [x.item for x in c.changes] == ["d01:s/0"]
    assert apply_corrections(_many(1), []).dataset == "d00"
    assert apply_corrections(toy_lineage(), [], dataset="trans").keys.column("item").to_pylist() == ["s/0"]


def test_a_spec_is_refused_with_a_hint() -> None:
    spec = DatasetSpec(name="base", iri="https://example.org/base")
    with pytest.raises(ArgumentError) as e:
        apply_corrections(spec, [])  # type: ignore[arg-type]
    assert e.value.code == "CL-E011" and e.value.message.startswith("lineage must be ")
    with pytest.raises(ArgumentError):
        apply_corrections(items_table("base", BASE), [])  # type: ignore[arg-type]  # a table: not a lineage


def test_a_finding_on_an_equally_named_item_of_another_dataset_changes_nothing() -> None:
    c = apply_corrections(items_lineage(items_table("base", BASE)), [_kf("f", item="other:s/0")])
    assert c.changes == [] and c.not_applied == [NotApplied("f", "other:s/0", "not_in_dataset", "dataset base")]


def test_item_ids_with_a_colon() -> None:
    rows = [{"item": "x:1", "stem": "Invented?", "options": ["Ash", "Birch"], "key": "A"}]
    c = apply_corrections(items_lineage(items_table("base", rows)), [_kf("f", item="base:x:1", proposed="Birch")])
    assert c.changes == [Change("base:x:1", "A", "B", "Birch", "f", None)]
    lin = lineage([items_table("base", BASE[:1]), items_table("pro", [{**PRO[0], "item": "p:10"}])],
                  [edge("pro:p:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3])])
    c2 = apply_corrections(lin, [_kf("f")], dataset="pro")
    assert c2.changes == [Change("pro:p:10", "A", "D", "Cedar", "f", "base:s/0")]


def test_a_finding_on_a_copy_corrects_the_origin_where_the_key_entered() -> None:
    lin = toy_lineage()
    # pro:10 inherited base:s/0's key: base:s/0 is where it was "added"
    c = apply_corrections(lin, [_kf("f", item="pro:10", proposed="Cedar")], dataset="base")
    assert c.changes == [Change("base:s/0", "B", "C", "Cedar", "f", "pro:10")]
    assert c.not_applied == []
