"""Importers: MMLU-Redux annotations and the MMLU-Pro errata lists as findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.errors import InputError
from croissant_lineage.family.spec import DatasetSpec, FamilySpec
from croissant_lineage.findings.importers import (
    Importer,
    ImporterArgument,
    ImportResult,
    import_mmlu_pro_errata,
    import_redux,
    importers,
    normalize_label,
    register_importer,
    resolve_answer,
    unregister_importer,
)
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.lineage.graph import LineageGraph
from tests.findings_helpers import ANN, toy_lineage
from tests.helpers import items_table

OPTS = ["Ash", "Birch", "Cedar", "Dogwood"]
TOY = FamilySpec(
    name="toy",
    path=None,
    datasets={
        "ann": DatasetSpec(name="ann", iri="https://example.org/ann", date="2024-01-02"),
        "pro": DatasetSpec(name="pro", iri="https://example.org/pro"),
    },
    derivations=(),
)


@pytest.mark.parametrize(
    ("raw", "label"),
    [("Wrong Groundtruth", "wrong_groundtruth"), ("wrong_groundtruth ", "wrong_groundtruth"), ("OK ", "ok"),
     ("No correct Answer", "no_correct_answer"), ("bad  options-clarity", "bad_options_clarity"), (None, "")],
)
def test_label_spellings_normalise(raw, label) -> None:
    assert normalize_label(raw) == label


@pytest.mark.parametrize(
    ("raw", "label", "form", "answers"),
    [
        ("C", "wrong_groundtruth", "letter", ("Cedar",)),
        ("2", "wrong_groundtruth", "index", ("Cedar",)),
        ("B,C", "multiple_correct_answers", "several", ("Birch", "Cedar")),
        ("0 1 3", "multiple_correct_answers", "several", ("Ash", "Birch", "Dogwood")),
        ("2 and 3", "multiple_correct_answers", "several", ("Cedar", "Dogwood")),
        ("(0, 1)", "multiple_correct_answers", "several", ("Ash", "Birch")),
        ("1 or 2", "multiple_correct_answers", "several", ("Birch", "Cedar")),
        ("2", "no_correct_answer", "text", ()),  # a value, not an index
        ("birch", "no_correct_answer", "option_text", ("Birch",)),
        ("7", "wrong_groundtruth", "text", ()),  # out of range: not an index
        ("depends on the reading", "multiple_correct_answers", "text", ()),
        ("", "wrong_groundtruth", "empty", ()),
        (None, "expert", "empty", ()),
    ],
)
def test_correct_answer_resolution(raw, label, form, answers) -> None:
    res = resolve_answer(raw, OPTS, label)
    assert (res.form, res.answers) == (form, answers)


def test_redux_rows_attach_to_the_parent_through_the_lineage() -> None:
    graph = LineageGraph(toy_lineage())
    result = import_redux(items_table("ann", ANN), family=TOY, dataset="ann", lineage=graph, parent_dataset="base")
    assert result.counts == {"ok": 1, "wrong_groundtruth": 1}
    assert len(result) == 1 and not result.unattached
    f = next(iter(result))
    assert (f.item, f.target, f.kind, f.label) == ("base:s/0", "key", "wrong_key", "wrong_groundtruth")
    assert f.proposed == "Cedar" and f.answers == ["Cedar"]
    assert f.source.item == "ann:s/7" and f.source.url == "https://example.org/ann"
    assert (f.status, f.status_date) == ("proposed", "2024-01-02")
    assert any("an invented reason" in e for e in f.evidence)
    # Re-importing gives the same ids.
    again = import_redux(items_table("ann", ANN), family=TOY, dataset="ann", lineage=graph, parent_dataset="base")
    assert [x.id for x in again] == [f.id]


def test_redux_rows_without_a_lineage_stay_on_the_row_and_are_reported() -> None:
    result = import_redux(items_table("ann", ANN), family=TOY, dataset="ann")
    assert [f.item for f in result] == ["ann:s/7"]
    assert [(u.ref, u.finding) for u in result.unattached] == [("ann:s/7", result.findings[0].id)]


def _errata(tmp_path: Path, lists: dict, post: str | None = None) -> Path:
    folder = tmp_path / "errata"
    folder.mkdir(parents=True)
    (folder / "problem_ids.json").write_text(json.dumps(lists), encoding="utf-8")
    if post is not None:
        (folder / "hf_discussion_post.md").write_text(post, encoding="utf-8")
    return folder


POST = """Intro.

### answer_format_wrong:
View SQL query [here](https://example.org/q1)

Option C is cut:

```json
"options": {"A": "Elm", "B": "Fir", "C": "Gum of", "D": "Hazel",}
```

Update to

```json
"options": {"A": "Elm", "B": "Fir", "C": "Gum of Hazel"}
```

---

### duplicates:
View SQL query [here](https://example.org/q2)
"""


def test_errata_lists_become_findings_and_unknown_ids_are_unattached(tmp_path: Path) -> None:
    pro = items_table("pro", [
        {"item": "1", "stem": "Q one?", "options": ["Elm", "Fir", "Gum of", "Hazel"], "key": "B"},
        {"item": "2", "stem": "Q two?", "options": ["a", "b"], "key": "A"},
        {"item": "3", "stem": "Q two?", "options": ["a", "b"], "key": "A"},
    ])
    folder = _errata(tmp_path, {
        "answer_format_wrong": [1],
        "duplicates": [[2, 3]],
        "fact_or_stat_that_could_change": [2, 8],
        "weird_questions": [3, 3],
    }, POST)
    result = import_mmlu_pro_errata(folder, items=pro, family=TOY, dataset="pro")
    by = {(f.label, f.item): f for f in result}
    fix = by[("answer_format_wrong", "pro:1")]
    assert (fix.kind, fix.target, fix.option_index, fix.proposed) == ("bad_options_clarity", "option", 2, "Gum of Hazel")
    assert any("D removed" in e for e in fix.evidence)
    dup = by[("duplicates", "pro:3")]
    assert (dup.kind, dup.related) == ("duplicate", ["pro:2"])
    assert by[("fact_or_stat_that_could_change", "pro:2")].kind == "stale_fact"
    assert by[("weird_questions", "pro:3")].kind == "other"
    assert [u.ref for u in result.unattached] == ["pro:8"]
    assert {f.status for f in result} == {"submitted"}
    assert result.counts == {"answer_format_wrong": 1, "duplicates": 1, "fact_or_stat_that_could_change": 2,
                             "weird_questions": 2}
    assert len(result) == 4  # the repeated id 3 in weird_questions is merged
    # Without the post, the option finding has no proposed fix and targets the item.
    bare = import_mmlu_pro_errata(_errata(tmp_path / "b", {"answer_format_wrong": [1]}), items=pro,
                                  family=TOY, dataset="pro")
    assert [(f.target, f.proposed) for f in bare] == [("item", None)]


def test_errata_file_that_is_not_lists_is_an_input_error(tmp_path: Path) -> None:
    pro = items_table("pro", [{"item": "1", "stem": "Q?", "options": ["a"], "key": "A"}])
    with pytest.raises(InputError):
        import_mmlu_pro_errata(_errata(tmp_path, [1, 2]), items=pro, family=TOY, dataset="pro")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- registry


def _fixture_import(*, family, data_dir, lineage, note: str, count: int = 1) -> ImportResult:
    """An invented source: ``count`` findings on ``toy:1``..., with ``note`` as evidence."""
    source = Source("Fixture source", kind="other")
    found = [Finding(item=f"toy:{i}", target="item", kind="other", source=source, evidence=[note])
             for i in range(1, count + 1)]
    return ImportResult(source=source.name, findings=found, kinds={"other": count})


FIXTURE = Importer(
    name="fixture",
    help="an invented source (test only)",
    function=_fixture_import,
    arguments=(ImporterArgument("note", "evidence line", required=True),
               ImporterArgument("count", "how many findings", type=int)),
    examples=("croissant-lineage findings import fixture --note hi --out f.json",),
)


def test_shipped_importers_are_discovered_from_their_modules() -> None:
    found = importers()
    assert {"redux", "errata"} <= set(found)
    assert found["redux"].function is import_redux
    assert found["errata"].function is import_mmlu_pro_errata
    assert [a.flag for a in found["redux"].arguments] == ["--dataset"]
    assert [a.flag for a in found["errata"].arguments] == ["--folder"]


def test_a_registered_importer_gets_a_cli_subcommand_that_runs_it(tmp_path: Path, capsys) -> None:
    from croissant_lineage.cli import main
    from croissant_lineage.findings.files import load_findings

    register_importer(FIXTURE)
    try:
        with pytest.raises(InputError):
            register_importer(FIXTURE)  # the name is taken
        with pytest.raises(SystemExit):
            main(["findings", "import", "--help"])
        assert "fixture" in capsys.readouterr().out
        out = tmp_path / "fixture.json"
        assert main(["findings", "import", "fixture", "--note", "seen", "--count", "2", "--out", str(out),
                     "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["findings"] == 2
        assert [(f.item, f.evidence) for f in load_findings(out)] == [("toy:1", ["seen"]), ("toy:2", ["seen"])]
        with pytest.raises(SystemExit):  # --note is required
            main(["findings", "import", "fixture", "--out", str(tmp_path / "other.json")])
    finally:
        unregister_importer("fixture")
    assert "fixture" not in importers()


def test_an_importer_argument_may_not_shadow_a_common_flag() -> None:
    with pytest.raises(InputError):
        Importer(name="bad", help="", function=_fixture_import, arguments=(ImporterArgument("out", ""),))


def test_a_missing_data_folder_is_an_error_that_names_the_flag(tmp_path: Path, capsys) -> None:
    from croissant_lineage.cli import main

    with pytest.raises(InputError, match="data_dir"):
        import_redux(family="mmlu")  # the shipped family's files are relative to a data folder
    with pytest.raises(InputError, match="data_dir"):
        import_mmlu_pro_errata(items=items_table("pro", []), family=TOY, dataset="pro")
    for source in ("redux", "errata"):
        assert main(["findings", "import", source, "--out", str(tmp_path / "f.json")]) == 2
        assert "--data-dir" in capsys.readouterr().err
    assert not (tmp_path / "f.json").exists()


# ----------------------------------------------------------------------------- real data


@pytest.mark.realdata
def test_real_redux_labels_and_attachment(mmlu_redux) -> None:
    result = mmlu_redux
    # The seven labels of the README, from 27 spellings.
    assert result.counts == {
        "bad_options_clarity": 25, "bad_question_clarity": 132, "expert": 32, "multiple_correct_answers": 39,
        "no_correct_answer": 35, "ok": 5330, "wrong_groundtruth": 107,
    }
    assert "27 spellings of 7 labels" in result.notes
    assert len(result) == 370 and not result.unattached
    assert len({f.id for f in result}) == 370
    assert all(f.item.startswith("mmlu:") and f.source.item.startswith("mmlu-redux:") for f in result)
    assert {f.status for f in result} == {"proposed"}
    by_source = {f.source.item: f for f in result}
    chem = by_source["mmlu-redux:college_chemistry/99"]
    assert (chem.item, chem.kind, chem.target) == ("mmlu:college_chemistry/test/86", "bad_question_clarity", "stem")
    law = by_source["mmlu-redux:international_law/19"]
    assert (law.item, law.kind) == ("mmlu:international_law/test/61", "wrong_key")
    assert law.proposed == "It is jurisdiction based on where the offence was committed"
    # no_correct_answer digits are values, not indices
    assert by_source["mmlu-redux:college_chemistry/0"].proposed == "6"
    assert by_source["mmlu-redux:formal_logic/69"].answers and by_source["mmlu-redux:formal_logic/69"].proposed is None


@pytest.mark.realdata
def test_real_redux_2_excerpt_has_only_ok_rows(shared_data: Path) -> None:
    result = import_redux(data_dir=shared_data, dataset="mmlu-redux-2.0")
    assert result.counts == {"ok": 570} and len(result) == 0


@pytest.mark.realdata
def test_real_errata(shared_data: Path, mmlu_lineage) -> None:
    result = import_mmlu_pro_errata(data_dir=shared_data, items=mmlu_lineage.items)
    assert result.counts["duplicates"] == 94
    assert result.kinds["duplicate"] == 94
    assert [u.ref for u in result.unattached] == ["mmlu-pro:8"]
    fix = next(f for f in result if f.label == "answer_format_wrong")
    assert (fix.item, fix.target, fix.option_index) == ("mmlu-pro:6065", "option", 2)
    assert fix.proposed == "Should receive both breast milk and other foods as tolerated in the first 6 months"
    dup = next(f for f in result if f.item == "mmlu-pro:6132")
    assert dup.related == ["mmlu-pro:6131"]


@pytest.mark.realdata
def test_cli_import_redux_writes_a_findings_file(shared_data: Path, mmlu_lineage_dir: Path, tmp_path: Path,
                                                 capsys) -> None:
    from croissant_lineage.cli import main
    from croissant_lineage.findings.files import load_findings

    out = tmp_path / "redux.json"
    args = ["findings", "import", "redux", "--lineage", str(mmlu_lineage_dir), "--data-dir", str(shared_data),
            "--out", str(out)]
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == 370
    assert len(load_findings(out)) == 370
    first = out.read_bytes()
    assert main([*args, "-q"]) == 0  # its own earlier output: replaced
    assert out.read_bytes() == first  # same inputs, same bytes
    out.write_text("a file this library did not write\n")
    assert main([*args, "-q"]) == 2  # a foreign file: refused without --force
    assert main([*args, "--force", "-q"]) == 0 and out.read_bytes() == first
