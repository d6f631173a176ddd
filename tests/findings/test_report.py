"""The family report: figures with definitions, on an invented family and on MMLU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.report import DEFINITIONS, family_report
from tests.findings_helpers import toy_lineage

SRC = Source("Invented reviewer", kind="person")
WRONG = Finding(item="base:s/0", target="key", kind="wrong_key", proposed="Cedar", source=SRC)
NONE = Finding(item="base:s/1", target="key", kind="no_correct_answer", proposed="Oak", source=SRC)


def _values(report) -> dict:
    return {f.name: (f.value, f.by_dataset) for f in report.figures}


def test_toy_family_figures() -> None:
    r = family_report(toy_lineage(), [WRONG, NONE])
    v = _values(r)
    assert v["flagged_parents"] == (2, {"base": 2})
    assert r.figure("flagged_parents").by_kind == {"no_correct_answer": 1, "wrong_key": 1}
    # base:s/0's key survives in pro, its snapshot and the translation; the annotation is not counted
    assert v["flagged_keys_surviving"] == (1, {"pro": 1, "prosnap": 1, "trans": 1})
    # Cedar is among the options of each (traced through option_map; by position in the translation)
    assert v["proposed_answer_among_options"] == (1, {"pro": 1, "prosnap": 1, "trans": 1})
    assert r.figure("proposed_answer_among_options").by_kind == {"wrong_key": 1}
    # pro:12 changed base:s/1's key, but not to a proposed answer
    assert v["flagged_keys_changed"] == (1, {"pro": 1})
    assert v["flagged_keys_changed_to_proposed"] == (0, {})
    assert v["descendants_graded_on_flagged_keys"] == (5, {"pro": 2, "prosnap": 2, "trans": 1})
    # base:s/0 has two identical children in pro
    assert v["parents_with_identical_copies"] == (1, {"pro": 1})
    assert [f.name for f in r.figures] == list(DEFINITIONS)
    assert all(f.definition == DEFINITIONS[f.name] for f in r.figures)


def test_no_correct_answer_findings_propose_an_answer_too() -> None:
    # Redux-style: none of base:s/0's four options is right; the right one, "Xylo", is an
    # option MMLU-Pro-style expansion added (pro:10, pro:11 and their snapshots), not in trans.
    none_s0 = Finding(item="base:s/0", target="key", kind="no_correct_answer", proposed="Xylo", source=SRC)
    r = family_report(toy_lineage(), [none_s0])
    present = r.figure("proposed_answer_among_options")
    assert (present.value, present.by_dataset) == (1, {"pro": 1, "prosnap": 1})
    assert present.by_kind == {"no_correct_answer": 1}
    # pro:12 changed base:s/1's key to Hazel: the answer this finding proposes
    none_s1 = Finding(item="base:s/1", target="key", kind="no_correct_answer", proposed="Hazel", source=SRC)
    done = family_report(toy_lineage(), [none_s1]).figure("flagged_keys_changed_to_proposed")
    assert (done.value, done.by_dataset, done.by_kind) == (1, {"pro": 1}, {"no_correct_answer": 1})
    # a no-correct-answer finding that names no answer proposes nothing
    bare = Finding(item="base:s/0", target="key", kind="no_correct_answer", source=SRC)
    assert family_report(toy_lineage(), [bare]).figure("proposed_answer_among_options").value == 0


def test_a_proposal_equal_to_the_key_proposes_no_change() -> None:
    # base:s/0's key is Birch (kept in pro, prosnap and by position in trans): as MMLU-Redux
    # global_facts/33 (wrong_key) and professional_accounting/246 (no_correct_answer) do
    for kind in ("wrong_key", "no_correct_answer"):
        same = Finding(item="base:s/0", target="key", kind=kind, proposed="Birch", source=SRC)
        r = family_report(toy_lineage(), [same])
        assert r.figure("flagged_keys_surviving").value == 1
        assert r.figure("proposed_answer_among_options").value == 0, kind


def test_both_kinds_on_one_parent_count_it_once() -> None:
    none_s0 = Finding(item="base:s/0", target="key", kind="no_correct_answer", proposed="Xylo", source=SRC)
    present = family_report(toy_lineage(), [WRONG, none_s0]).figure("proposed_answer_among_options")
    assert (present.value, present.by_dataset) == (1, {"pro": 1, "prosnap": 1, "trans": 1})
    assert present.by_kind == {"no_correct_answer": 1, "wrong_key": 1}


def test_rejected_and_non_key_findings_flag_nothing() -> None:
    rejected = WRONG.with_status("rejected", reason="the key is right")
    clarity = Finding(item="base:s/0", target="stem", kind="bad_question_clarity", source=SRC)
    r = family_report(toy_lineage(), [rejected, clarity])
    assert r.figure("flagged_parents").value == 0
    assert r.figure("descendants_graded_on_flagged_keys").value == 0
    assert r.findings == {"status": {"proposed": 1, "rejected": 1},
                          "kind": {"bad_question_clarity": 1, "wrong_key": 1}}


def test_report_renders() -> None:
    r = family_report(toy_lineage(), [WRONG])
    doc = json.loads(json.dumps(r.to_dict()))
    assert [f["name"] for f in doc["figures"]] == list(DEFINITIONS)
    df = r.to_pandas()
    assert set(df["figure"]) == set(DEFINITIONS)
    assert all(DEFINITIONS[f.name] in str(r) for f in r.figures)


@pytest.mark.realdata
def test_real_mmlu_report(mmlu_redux, mmlu_graph) -> None:
    redux = mmlu_redux.findings
    r = family_report(mmlu_graph, redux)
    v = _values(r)
    # 107 wrong_groundtruth + 35 no_correct_answer rows, each on its own MMLU item
    assert v["flagged_parents"] == (142, {"mmlu": 142})
    assert r.figure("flagged_parents").by_kind == {"no_correct_answer": 35, "wrong_key": 107}
    surv, present = r.figure("flagged_keys_surviving"), r.figure("proposed_answer_among_options")
    assert 0 < present.value <= surv.value <= 142
    assert surv.by_dataset["mmlu-pro"] > 50
    assert all(present.by_dataset.get(d, 0) <= n for d, n in surv.by_dataset.items())
    # both kinds propose answers (measured: 69 wrong_key parents + 1 no_correct_answer,
    # college_chemistry/72, whose proposed "6" is an option MMLU-Pro added)
    assert present.by_kind.get("no_correct_answer", 0) >= 1 and present.by_kind["wrong_key"] >= 1
    graded = r.figure("descendants_graded_on_flagged_keys")
    assert graded.by_dataset["mmlu-pro"] >= surv.by_dataset["mmlu-pro"]
    assert "mmlu-redux" not in graded.by_dataset  # annotations are not graded copies
    assert r.figure("flagged_keys_changed_to_proposed").value <= r.figure("flagged_keys_changed").value
    assert r.figure("parents_with_identical_copies").by_dataset["mmlu-pro"] > 0


def test_cli_report_json(tmp_path: Path, capsys) -> None:
    from croissant_lineage.cli import main
    from croissant_lineage.findings.files import save_findings

    lin_dir = toy_lineage().write(tmp_path / "lineage")
    f = save_findings([WRONG, NONE], tmp_path / "f.yaml")
    assert main(["report", "--lineage", str(lin_dir), "--findings", str(f), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {x["name"]: x["value"] for x in doc["figures"]}["flagged_parents"] == 2


def test_annotation_datasets_are_read_from_the_spec_derivations() -> None:
    from croissant_lineage.lineage.model import Lineage

    toy = toy_lineage()

    def with_ann_activity(activity: str) -> Lineage:
        family = toy.family.to_dict()
        family["derivations"] = [dict(d, activity=activity) if d["child"] == "ann" else d for d in family["derivations"]]
        return Lineage(family=family, items=toy.items, edges=toy.edges, duplicates=toy.duplicates)

    # the spec says ann re-annotates base: its copies of the flagged key are not counted
    assert family_report(toy, [WRONG]).figure("flagged_keys_surviving").by_dataset == {"pro": 1, "prosnap": 1, "trans": 1}
    # the same edges, the spec calling ann a copy: a release users are graded on, counted
    copied = family_report(with_ann_activity("copy"), [WRONG])
    assert copied.figure("flagged_keys_surviving").by_dataset == {"ann": 1, "pro": 1, "prosnap": 1, "trans": 1}
    assert copied.figure("descendants_graded_on_flagged_keys").by_dataset["ann"] == 1


@pytest.mark.parametrize(("status", "inherited", "kept"), [
    ("copied", None, True), ("edited", None, False), ("recomputed", True, False),
    ("translated", True, True), ("translated", None, None), ("added", True, None), ("absent", None, None),
    (None, True, True), (None, False, False), (None, None, None),  # a lineage written before the statuses
])
def test_key_status_decides_over_key_inherited(status: str | None, inherited: bool | None, kept: bool | None) -> None:
    from croissant_lineage.findings.report import key_kept
    from croissant_lineage.lineage.graph import Edge

    edge = Edge(child="c:1", parent="p:1", activity="perturbation", method="id", score=100.0, options_score=None,
                option_map=(), options_copied=None, options_added=None, options_dropped=None,
                key_inherited=inherited, stem_changed=None, ambiguous=False, alternatives=(), key_status=status)
    assert key_kept(edge) is kept


def test_recomputed_keys_are_changed_and_copied_keys_survive_on_the_toy_family(toy_lineage) -> None:
    # toy-math-perturbed recomputed the keys of m1 and m2 (numbers changed) and copied m3's
    findings = [Finding(item=f"toy-math:{m}", target="key", kind="wrong_key", source=SRC) for m in ("m1", "m2", "m3")]
    r = family_report(toy_lineage, findings)
    assert r.figure("flagged_keys_changed").by_dataset.get("toy-math-perturbed") == 2
    assert r.figure("flagged_keys_surviving").by_dataset.get("toy-math-perturbed") == 1
