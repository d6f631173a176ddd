"""Corrections: keys change only from confirmed findings, each change names its finding."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from croissant_lineage.errors import ArgumentError, InputError, OutputExistsError
from croissant_lineage.findings.corrections import apply_corrections
from croissant_lineage.findings.model import CONFIRMED, STATUSES, Finding, Source
from croissant_lineage.lineage.graph import LineageGraph
from tests.findings_helpers import BASE, PRO, edge, items_lineage, lineage, toy_lineage
from tests.helpers import items_table

REVIEW = Source("Invented reviewer", kind="person")


def _key_finding(item: str = "base:s/0", proposed: str | None = "Cedar", status: str = "confirmed_fixed", **kw):
    extra = {"status_date": "2025-01-01", "status_reason": "reviewed"}
    return Finding(item=item, target="key", kind="wrong_key", source=kw.pop("source", REVIEW), proposed=proposed,
                   status=status, **extra, **kw)


def _keys(c) -> dict[str, str]:
    return dict(zip(c.keys.column("item").to_pylist(), c.keys.column("key").to_pylist(), strict=True))


@pytest.mark.parametrize("status", [s for s in STATUSES if s not in CONFIRMED])
def test_unconfirmed_findings_never_change_a_key(status: str) -> None:
    findings = [
        _key_finding("base:s/0", "Cedar", status),
        _key_finding("base:s/1", "Elm", status, source=Source("Other")),
    ]
    c = apply_corrections(toy_lineage(), findings, dataset="base")
    assert c.changes == []
    assert _keys(c) == {"s/0": "B", "s/1": "C"}
    assert c.keys.column("finding").null_count == 2
    assert {n.reason for n in c.not_applied} == {"not_confirmed"}
    assert len(c.not_applied) == 2


@pytest.mark.parametrize("status", CONFIRMED)
def test_confirmed_key_finding_changes_the_key_and_records_it(status: str) -> None:
    c = apply_corrections(items_lineage(items_table("base", BASE)), [_key_finding(status=status)])
    assert _keys(c) == {"s/0": "C", "s/1": "C"}
    assert [(x.item, x.original_key, x.key, x.finding) for x in c.changes] == [
        ("base:s/0", "B", "C", _key_finding(status=status).id)
    ]
    assert c.keys.column("original_key").to_pylist() == ["B", "C"]


def test_every_other_finding_is_reported_with_its_reason() -> None:
    base = items_table("base", BASE)
    findings = [
        _key_finding(proposed="Zinnia"),  # not an option
        _key_finding(proposed="Birch", source=Source("b")),  # already the key
        _key_finding(proposed=None, source=Source("c")),  # nothing proposed
        Finding(item="base:s/0", target="stem", kind="bad_question_clarity", source=REVIEW, status="confirmed_fixed"),
        _key_finding(item="elsewhere:1", source=Source("d")),
        _key_finding(item="base:s/1", proposed="Elm", source=Source("e")),
        _key_finding(item="base:s/1", proposed="Fir", source=Source("f")),  # conflicts with the one above
    ]
    c = apply_corrections(items_lineage(base), findings)
    reasons = sorted(n.reason for n in c.not_applied)
    assert reasons == sorted(["not_an_option", "already_the_key", "no_proposed_answer", "not_a_key_finding",
                              "not_in_dataset", "conflict", "conflict"])
    assert c.changes == [] and _keys(c) == {"s/0": "B", "s/1": "C"}


def test_lineage_carries_a_confirmed_parent_finding_to_certain_copies_only() -> None:
    lin = toy_lineage()
    c = apply_corrections(LineageGraph(lin), [_key_finding(proposed="Cedar")], dataset="pro")
    assert _keys(c) == {"10": "D", "11": "D", "12": "D"}  # Cedar is option D in the copies
    assert {x.via for x in c.changes} == {"base:s/0"}
    fuzzy = lineage([items_table("base", BASE), items_table("pro", PRO[:1])],
                    [edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3], method="fuzzy", score=90)])
    c2 = apply_corrections(fuzzy, [_key_finding(proposed="Cedar")], dataset="pro")
    assert c2.changes == [] and [n.reason for n in c2.not_applied] == ["probable_link_only"]


def test_write_goes_to_a_new_file_only(tmp_path: Path) -> None:
    c = apply_corrections(items_lineage(items_table("base", BASE)), [_key_finding()])
    out = c.write(tmp_path / "keys.parquet")
    assert pq.read_table(out).column("finding").to_pylist() == [c.changes[0].finding, None]
    assert c.write(out) == out  # its own earlier output (listed in the folder's manifest) is replaced
    (tmp_path / "foreign.parquet").write_bytes(b"not ours")
    with pytest.raises(OutputExistsError):
        c.write(tmp_path / "foreign.parquet")
    src = tmp_path / "findings.json"
    src.write_text("[]", encoding="utf-8")
    with pytest.raises(OutputExistsError):
        c.write(src, inputs=[src], force=True)
    assert src.read_text(encoding="utf-8") == "[]"
    doc = json.loads(c.write(tmp_path / "keys.json").read_text(encoding="utf-8"))
    assert doc["changed"] == 1 and doc["keys"][0]["key"] == "C"
    first = (tmp_path / "a.csv")
    c.write(first)
    c.write(tmp_path / "b.csv")
    assert first.read_bytes() == (tmp_path / "b.csv").read_bytes()
    with pytest.raises(InputError):
        c.write(tmp_path / "keys.txt")


def test_table_with_several_datasets_needs_a_name() -> None:
    with pytest.raises(InputError):
        apply_corrections(toy_lineage(), [])


# ----------------------------------------------------------------------------- real data


@pytest.mark.realdata
def test_real_redux_findings_change_no_key_until_confirmed(mmlu_redux, mmlu_lineage, mmlu_graph) -> None:
    redux = mmlu_redux.findings
    law = next(f for f in redux if f.source.item == "mmlu-redux:international_law/19")
    reviewed = [f.with_status("rejected", date="2025-01-01", reason="key is right") if f.id == law.id else f
                for f in redux]
    for ds in ("mmlu", "mmlu-pro"):
        c = apply_corrections(mmlu_graph, reviewed, dataset=ds)
        assert c.changes == []
        assert c.keys.column("key").to_pylist() == c.keys.column("original_key").to_pylist()
        assert {n.reason for n in c.not_applied} == {"not_confirmed"}
    # once confirmed, a wrong-key finding whose answer is an option changes MMLU and its certain copies
    wk = next(f for f in redux if f.kind == "wrong_key" and f.answers and mmlu_graph.item(f.item).key_text
              not in f.answers)
    ok = wk.with_status("confirmed_fixed", date="2025-02-02")
    c = apply_corrections(mmlu_graph, [ok], dataset="mmlu")
    assert [x.finding for x in c.changes] == [ok.id]


def test_cli_apply_writes_a_new_file_and_never_an_input(tmp_path: Path, capsys) -> None:
    from croissant_lineage.cli import main
    from croissant_lineage.findings.files import save_findings

    lin_dir = toy_lineage().write(tmp_path / "lineage")
    findings = save_findings([_key_finding(), _key_finding(item="base:s/1", proposed="Elm", status="proposed")],
                             tmp_path / "f.json")
    before = findings.read_bytes()
    out = tmp_path / "keys.csv"
    args = ["apply", "--lineage", str(lin_dir), "--dataset", "pro", "--findings", str(findings), "--out"]
    assert main([*args, str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["changed"] == 2 and doc["not_applied_by_reason"] == {"not_confirmed": 1}
    assert "D" in out.read_text(encoding="utf-8")
    assert main([*args, str(out)]) == 0  # its own earlier output: replaced
    (tmp_path / "foreign.csv").write_text("a,b\n")
    assert main([*args, str(tmp_path / "foreign.csv")]) == 2  # a file it did not write: kept
    assert main([*args, str(findings), "--force"]) == 2  # an input, even with --force
    assert findings.read_bytes() == before


def test_a_dataset_spec_is_not_loaded_here(tmp_path: Path, capsys) -> None:
    from croissant_lineage.cli import main
    from croissant_lineage.family.spec import DatasetSpec

    with pytest.raises(ArgumentError):
        apply_corrections(DatasetSpec(name="base", iri="https://example.org/base"), [])  # type: ignore[arg-type]
    # Without --lineage, the CLI loads the dataset's items; the shipped family needs --data-dir.
    findings = tmp_path / "f.json"
    findings.write_text('{"findings": []}', encoding="utf-8")
    argv = ["apply", "--dataset", "mmlu-pro", "--family", "mmlu", "--findings", str(findings),
            "--out", str(tmp_path / "k.csv")]
    assert main(argv) == 2
    assert "--data-dir" in capsys.readouterr().err


def test_cli_apply_without_a_lineage_loads_the_dataset(tmp_path: Path, capsys) -> None:
    from croissant_lineage.cli import main

    toy = Path(__file__).resolve().parents[2] / "examples" / "toy"
    out = tmp_path / "keys.json"
    argv = ["apply", "--family", str(toy / "family.json"), "--dataset", "toy-pro", "--findings",
            str(toy / "findings.yaml"), "--out", str(out), "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dataset"] == "toy-pro" and doc["items"] == len(json.loads(out.read_text())["keys"])
