"""Translation joins verified item by item: evidence, statuses, shift detection, CLI.

Invented items for the rules; the MMLU family in ../shared/data for the figures the data
READMEs state (tests skip without the data).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from croissant_lineage.audits.translations import (
    SHIFTS,
    STATUSES,
    TranslationReport,
    detect_shift,
    evidence_score,
    extract_evidence,
    number_reader,
    verify_joins,
    verify_translations,
)
from croissant_lineage.cli import main
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import EDGES_SCHEMA, ITEMS_BASE_SCHEMA

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy" / "family.json"


# ------------------------------------------------------------------------- evidence


def test_numbers_are_canonical_across_languages() -> None:
    en = extract_evidence("Between 1,000 and 2.5 units, 3.0 in total", ["1.7 million", "0.50"], reader=number_reader("en"))
    fr = extract_evidence("Entre 1 000 et 2,5 unités, 3 au total", ["1,7 million", "0,5"], reader=number_reader("fr"))
    ja = extract_evidence("1000と2.5の間、合計3", ["170万", "0.5"], reader=number_reader("ja", (("万", 4),)))
    want = {"n:1000", "n:2.5", "n:3", "n:1700000", "n:0.5"}
    for ev in (en, fr, ja):
        first = {t.split("~")[0] for t in ev.tokens if t.startswith("n:")}  # the reading in the language
        assert first == want
    # without a language, "1.7 million" is the digits as written (and their significant digits)
    bare = extract_evidence("1.7 million").tokens
    assert bare == {"n:1.7~*17"}
    assert evidence_score(bare, en.tokens) == 100.0


def test_latin_names_acronyms_and_formulas() -> None:
    ev = extract_evidence("Which protein did Zorbin find? It binds H2O via \\frac{1}{2}.", ["DNA", "Quell"])
    assert {"w:zorbin", "w:DNA", "f:H2O", "f:\\frac"} <= ev.tokens
    assert "w:which" not in ev.tokens and "w:quell" not in ev.tokens  # sentence / option starts
    zh = extract_evidence("实质GDP增长了多少？", ["增加", "减少"])
    assert "w:GDP" in zh.tokens  # acronyms next to CJK letters still count
    assert zh.latin_share < 0.5 and ev.latin_share == 1.0


def test_evidence_score() -> None:
    assert evidence_score(frozenset({"n:12", "n:30"}), frozenset({"n:12", "n:30", "n:7"})) == 100.0
    assert evidence_score(frozenset({"n:12"}), frozenset({"n:13"})) == 0.0
    assert evidence_score(frozenset({"n:12"}), frozenset({"w:dna"})) is None  # no class in common
    assert evidence_score(frozenset(), frozenset({"n:1"})) is None
    weight = {"n:1": 0.1, "n:1848": 3.0}.get
    assert evidence_score(frozenset({"n:1", "n:1848"}), frozenset({"n:1848", "n:2"}), lambda t: weight(t, 1.0)) == 96.77


def test_detect_shift() -> None:
    agree = [0] * len(SHIFTS)
    agree[SHIFTS.index(-3)] = 6
    assert detect_shift(agree, 10) == (-3, True)
    agree[SHIFTS.index(0)] = 5
    assert detect_shift(agree, 10) == (-3, False)  # beats no shift, but not clearly
    assert detect_shift([0] * len(SHIFTS), 10) == (0, False)


# ------------------------------------------------------------------ invented family


def _items(dataset: str, rows: list[tuple[str, str, list[str], str]]) -> pa.Table:
    cols: dict[str, list[Any]] = {f.name: [] for f in ITEMS_BASE_SCHEMA}
    for i, (item, stem, options, key) in enumerate(rows):
        vals = {"dataset": dataset, "item": item, "subject": item.split("/")[0], "stem": stem, "options": options,
                "key": key, "source_file": "f", "source_row": i, "record": "{}"}
        for k in ITEMS_BASE_SCHEMA.names:
            cols[k].append(vals[k])
    return pa.table(cols, schema=ITEMS_BASE_SCHEMA)


def _edges(child: str, parent: str, pairs: list[tuple[str, str]], activity: str = "translation", method: str = "id") -> pa.Table:
    cols: dict[str, list[Any]] = {f.name: [] for f in EDGES_SCHEMA}
    for c, p in pairs:
        vals = {"child_dataset": child, "child_item": c, "parent_dataset": parent, "parent_item": p,
                "activity": activity, "method": method, "score": 100.0}
        for k in EDGES_SCHEMA.names:
            cols[k].append(vals.get(k))
    return pa.table(cols, schema=EDGES_SCHEMA)


def _numbers(subject: str, k: int) -> tuple[int, int, int]:
    off = 0 if subject == "alpha" else 5000
    return 1500 + 37 * k + off, 203 + 11 * k + off, 1000 + 3 * k + off


def _source(subject: str, k: int) -> tuple[str, str, list[str], str]:
    year, units, count = _numbers(subject, k)
    return (f"{subject}/test/{k}", f"In the year {year}, how many of the {units} crates were full?",
            [str(count), "none", "all", "half"], "ABCD"[k % 4])


def _translated(subject: str, k: int, source_row: int) -> tuple[str, str, list[str], str]:
    year, units, count = _numbers(subject, source_row)
    return (f"{subject}/test/{k}", f"Im Jahr {year}: wie viele der {units} Kisten waren voll?",
            [str(count), "keine", "alle", "halb"], "ABCD"[source_row % 4])


@pytest.fixture(scope="module")
def toy_report() -> TranslationReport:
    src = [_source(s, k) for s in ("alpha", "beta") for k in range(12)]
    tr = [_translated("alpha", k, k) for k in range(12) if k not in (3, 4, 5)]
    item3 = _translated("alpha", 3, 3)
    tr.append((item3[0], item3[1], item3[2], "B" if item3[3] != "B" else "C"))  # same question, other key
    item4 = _translated("alpha", 4, 4)
    tr.append((item4[0], item4[1], item4[2][:3], item4[3]))  # an option lost
    tr.append(("alpha/test/5", "Eine Frage ohne Zahlen?", ["ja", "nein", "vielleicht", "nie"], _source("alpha", 5)[3]))
    tr += [_translated("beta", k, k - 2) for k in range(2, 12)]  # beta is shifted by two rows
    cp = [(i, s, o, k) for i, s, o, k in src if i.startswith("alpha")][:6]
    cp[5] = (cp[5][0], "A wholly different English question about crates?", cp[5][2], cp[5][3])
    items = pa.concat_tables([_items("src", src), _items("tr", tr), _items("cp", cp)])
    edges = pa.concat_tables([
        _edges("tr", "src", [(i, i) for i, *_ in tr]),
        _edges("cp", "src", [(i, i) for i, *_ in cp], activity="copy", method="index"),
        _edges("other", "src", [("alpha/test/0", "alpha/test/0")], activity="option_expansion", method="exact"),
    ])
    family = {"datasets": [{"name": "src", "languages": ["en"]}, {"name": "tr", "languages": ["de"]},
                           {"name": "cp", "languages": ["en"]}]}
    return verify_translations(Lineage(family, items, edges))


def test_statuses_of_invented_joins(toy_report: TranslationReport) -> None:
    status = {v: toy_report.verification_for(f"tr:alpha/test/{v}").status for v in range(12)}  # type: ignore[union-attr]
    assert status[3] == "key_differs"
    assert status[4] == "options_differ"
    assert status[5] == "consistent"
    assert {status[k] for k in (0, 1, 2, 6, 7, 8, 9, 10, 11)} == {"verified"}
    assert set(toy_report.items.column("status").to_pylist()) <= set(STATUSES)
    assert [v.child_ref for v in toy_report.key_differences()] == ["tr:alpha/test/3"]


def test_shifted_subject_is_detected(toy_report: TranslationReport) -> None:
    bad = toy_report.misaligned_subjects()
    assert [(s.dataset, s.subject, s.best_shift) for s in bad] == [("tr", "beta", -2)]
    assert bad[0].agree_at_best == 10 and bad[0].agree_at_zero == 0
    v = toy_report.verification_for("tr:beta/test/7")
    assert v is not None and v.status == "misaligned" and v.realigned_parent == "src:beta/test/5"
    groups = {(r["dataset"], r["subject"]): r for r in toy_report.groups.to_pylist()}
    assert groups[("tr", "beta")]["misaligned"] == 10 and groups[("tr", "beta")]["shift"] == -2
    assert groups[("tr", "alpha")]["shift"] is None


def test_same_language_copies_compare_text(toy_report: TranslationReport) -> None:
    v = toy_report.verification_for("cp:alpha/test/0")
    assert v is not None and v.status == "verified" and v.evidence_score == 100.0
    other = toy_report.verification_for("cp:alpha/test/5")
    assert other is not None and other.status == "evidence_conflict"
    assert toy_report.verification_for("other:alpha/test/0") is None  # not a translation join


def test_report_tables_and_json(toy_report: TranslationReport) -> None:
    totals = {r["dataset"]: r for r in toy_report.totals.to_pylist()}
    assert totals["tr"]["joined"] == 22 and totals["tr"]["verified"] == 9 and totals["tr"]["language"] == "de"
    assert totals["cp"]["activity"] == "copy"
    assert len(toy_report.to_pandas()) == 28
    out = json.loads(json.dumps(toy_report.to_dict()))
    assert [s["subject"] for s in out["shifts"]] == ["beta"]
    assert {e["status"] for e in out["exceptions"]} == {"key_differs", "options_differ", "misaligned", "evidence_conflict"}


def test_verify_joins_skips_missing_items() -> None:
    items = pa.concat_tables([_items("src", [_source("alpha", 0)]), _items("tr", [_translated("alpha", 0, 0)])])
    edges = _edges("tr", "src", [("alpha/test/0", "alpha/test/0"), ("alpha/test/9", "alpha/test/9")])
    report = verify_joins(edges, items)
    assert report.items.num_rows == 1


def test_cli_translations_on_the_toy_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["translations", "--family", str(TOY), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(t["dataset"], t["joined"]) for t in out["totals"]] == [("toy-fr", 6)]
    assert main(["translations", "--family", str(TOY), "--subjects"]) == 0
    assert "toy-fr" in capsys.readouterr().out
    assert main(["translations", "--family", str(TOY), "--lineage", str(REPO / "no-such-folder")]) == 2
    assert "CL-E001" in capsys.readouterr().err


# ------------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def mmlu_report(mmlu_lineage: Lineage) -> TranslationReport:
    return verify_translations(mmlu_lineage)


def test_mmmlu_world_history_shift_is_detected(mmlu_report: TranslationReport) -> None:
    bad = [(s.dataset, s.subject, s.best_shift) for s in mmlu_report.misaligned_subjects()]
    assert bad == [
        ("mmmlu-zh-cn", "high_school_world_history", -3),
        ("mmmlu-zh-cn-balanced", "high_school_world_history", -3),
    ]
    # ../shared/data/mmmlu/README.md: ZH 109 is Global-MMLU 106; 165 and 169 are shifted by 2.
    assert mmlu_report.verification_for("mmmlu-zh-cn:high_school_world_history/test/109").realigned_parent == (  # type: ignore[union-attr]
        "mmlu:high_school_world_history/test/106"
    )
    assert mmlu_report.verification_for("mmmlu-zh-cn:high_school_world_history/test/169").best_shift == -2  # type: ignore[union-attr]
    zh = [v for v in mmlu_report.by_status("misaligned") if v.child_ref.startswith("mmmlu-zh-cn:")]
    assert len(zh) == 10 and all("high_school_world_history" in v.child_ref for v in zh)


def test_single_key_difference_global_mmlu_ja(mmlu_report: TranslationReport) -> None:
    assert [v.child_ref for v in mmlu_report.key_differences()] == ["global-mmlu-ja:professional_law/test/1225"]
    v = mmlu_report.verification_for("global-mmlu-ja:professional_law/test/1225")
    assert v is not None and (v.child_key, v.parent_key) == ("A", "B")


def test_join_figures_match_the_data_readmes(mmlu_report: TranslationReport) -> None:
    totals = {r["dataset"]: r for r in mmlu_report.totals.to_pylist()}
    for lang in ("en", "es", "fr", "ja", "ru"):
        assert totals[f"global-mmlu-{lang}"]["joined"] == 4215
        assert totals[f"global-mmlu-{lang}"]["key_match"] == (4214 if lang == "ja" else 4215)
    assert totals["mmmlu-zh-cn"]["joined"] == 600 and totals["mmmlu-zh-cn"]["key_match"] == 591
    assert totals["mmmlu-en-us-balanced"]["verified"] == 500
    assert totals["mmlu-prox-lite-en"]["joined"] == 588 and totals["mmlu-prox-lite-en"]["key_match"] == 588
    for row in totals.values():
        assert row["verified"] + row["consistent"] + row["evidence_conflict"] + row["options_differ"] + row[
            "key_differs"] + row["misaligned"] + row["no_key"] == row["joined"]
