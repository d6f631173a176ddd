from __future__ import annotations

import pytest

from croissant_lineage.family.spec import Derivation, LinkRule
from croissant_lineage.linking.duplicates import find_duplicates
from croissant_lineage.linking.linker import link_derivation
from croissant_lineage.linking.options import diff_options, positional_diff
from tests.helpers import items_table

PARENTS = [
    {"item": "p0", "subject": "astro", "stem": "Which planet has the shortest orbital period around the star Zeta?",
     "options": ["Quill", "Rondo", "Sable", "Tarn"], "key": "B"},
    {"item": "p1", "subject": "astro", "stem": "Which of the following is true?",
     "options": ["Moons glow", "Comets sing", "Stars hum", "Dust sleeps"], "key": "C"},
    {"item": "p2", "subject": "astro", "stem": "Which of the following is true?",
     "options": ["Red is blue", "Up is down", "Left is right", "Two is two"], "key": "D"},
    {"item": "p3", "subject": "geo", "stem": "What is the ratio of rivers to lakes on the isle of Wen?",
     "options": ["1/2", "1:4", "$1000", "3/4"], "key": "A"},
    {"item": "p4", "subject": "geo", "stem": "Which of the following is true?",
     "options": ["Hills roll", "Seas rest", "Winds nap", "Rocks run"], "key": "A"},
]


def _derive(children, rule=None, activity="option_expansion", translated=None):
    d = Derivation("child", "parent", activity, rule or LinkRule(by="text", threshold=85))
    return link_derivation(d, items_table("child", children), items_table("parent", PARENTS), translated=translated)


def _edge(edges, child):
    rows = [r for r in edges.to_pylist() if r["child_item"] == child]
    assert len(rows) == 1, rows
    return rows[0]


def test_exact_match_with_option_expansion_and_key_inherited() -> None:
    child = {"item": "c0", "subject": "astro", "stem": "Which planet has the shortest  orbital period around the star Zeta?",
             "options": ["Vale", "Rondo", "Quill", "Wisp", "Tarn", "Sable"], "key": "B"}
    edges, unmatched, stats = _derive([child])
    e = _edge(edges, "c0")
    assert (e["parent_item"], e["method"], e["score"]) == ("p0", "exact", 100.0)
    assert e["option_map"] == [-1, 1, 0, -1, 3, 2]
    assert (e["options_copied"], e["options_added"], e["options_dropped"]) == (4, 2, 0)
    assert e["key_inherited"] is True
    assert unmatched.num_rows == 0 and stats["by_method"] == {"exact": 1}


def test_key_changed_is_reported() -> None:
    child = dict(PARENTS[0], item="c1", key="A")
    e = _edge(_derive([child])[0], "c1")
    assert e["key_inherited"] is False


def test_generic_stem_is_resolved_by_options_and_alternatives_recorded() -> None:
    child = {"item": "c2", "subject": "astro", "stem": "Which of the following is TRUE?",
             "options": ["Two is two", "Up is down", "Left is right", "Red is blue", "Blue is red"], "key": "A"}
    e = _edge(_derive([child])[0], "c2")
    assert e["parent_item"] == "p2"
    assert e["alternatives"] == ["p1"]
    assert e["ambiguous"] is False
    assert e["key_inherited"] is True


def test_tie_on_all_evidence_is_ambiguous() -> None:
    child = {"item": "c3", "subject": "astro", "stem": "Which of the following is true?", "options": None, "key": None}
    e = _edge(_derive([child])[0], "c3")
    assert e["ambiguous"] is True
    assert set([e["parent_item"], *e["alternatives"]]) == {"p1", "p2"}


def test_fuzzy_match_above_threshold_and_unmatched_below() -> None:
    close = {"item": "c4", "subject": "astro", "stem": "Which planet has the shortest orbit period around star Zeta?",
             "options": ["Quill", "Rondo", "Sable", "Tarn"], "key": "B"}
    far = {"item": "c5", "subject": "astro", "stem": "How many moons does a gas giant usually keep in winter?",
           "options": ["1", "2"], "key": "A"}
    edges, unmatched, stats = _derive([close, far])
    e = _edge(edges, "c4")
    assert e["method"] == "fuzzy" and 85 <= e["score"] < 100 and e["parent_item"] == "p0"
    u = unmatched.to_pylist()
    assert [r["child_item"] for r in u] == ["c5"]
    assert u[0]["best_score"] < 85
    assert stats["unmatched"] == 1


def test_blocking_never_links_across_subjects() -> None:
    child = dict(PARENTS[3], item="c6", subject="astro")  # same text, other subject
    edges, unmatched, _ = _derive([child])
    assert edges.num_rows == 0
    (row,) = unmatched.to_pylist()
    assert row["best_parent_item"] != "p3"  # the identical text in "geo" is never a candidate


def test_select_and_block_expressions_from_record_fields() -> None:
    rule = LinkRule(by="text", select={"field": "src", "regex": "^ori-"},
                    child_block={"field": "src", "regex": "^ori-(.+)$"}, parent_block="subject")
    kids = [
        dict(PARENTS[3], item="c7", subject="other", record={"src": "ori-geo"}),
        dict(PARENTS[3], item="c8", subject="other", record={"src": "new-geo"}),
    ]
    edges, _, stats = _derive(kids, rule)
    assert [r["child_item"] for r in edges.to_pylist()] == ["c7"]
    assert stats["selected"] == 1


def test_option_diff_tolerates_formatting_damage() -> None:
    d = diff_options(["1.0/2", "1:04", "$1,000", "7/8", "3/4"], ["1/2", "1:4", "$1000", "3/4"])
    assert d.option_map == (0, 1, 2, -1, 3)
    assert (d.copied, d.added, d.dropped, d.score) == (4, 1, 0, 100.0)


def test_option_diff_dropped_and_small_edits() -> None:
    d = diff_options(["Alpha centauri", "Beta"], ["Alpha Centaury", "Beta", "Gamma"])
    assert d.option_map == (0, 1)
    assert d.dropped == 1
    assert d.score == pytest.approx(66.67)


def test_option_diff_uses_each_parent_option_once() -> None:
    d = diff_options(["same", "same"], ["same"])
    assert d.option_map == (0, -1)


def test_translation_pairs_options_by_position() -> None:
    d = positional_diff(["uno", "dos", "tres"], ["one", "two"])
    assert d.option_map == (0, 1, -1)
    child = dict(PARENTS[0], item="c9", stem="¿Qué planeta?", options=["a", "b", "c", "d"])
    rule = LinkRule(by="id", child_field={"field": "parent_id"})
    child["record"] = {"parent_id": "p0"}
    e = _edge(_derive([child], rule, activity="translation")[0], "c9")
    assert (e["method"], e["key_inherited"], e["stem_changed"]) == ("id", True, None)


def test_id_join_reports_missing_parent() -> None:
    kids = [dict(PARENTS[0], item="p0"), dict(PARENTS[0], item="zz")]
    edges, unmatched, _ = _derive(kids, LinkRule(by="id"), activity="snapshot")
    assert [r["child_item"] for r in edges.to_pylist()] == ["p0"]
    assert unmatched.to_pylist()[0]["reason"] == "no parent with that id"
    assert _edge(edges, "p0")["stem_changed"] is False


def test_duplicates_group_siblings_with_permuted_options() -> None:
    a = {"item": "d1", "subject": "astro", "stem": PARENTS[0]["stem"], "options": ["Quill", "Rondo", "Sable", "Tarn", "X"], "key": "B"}
    b = dict(a, item="d2", options=["X", "Tarn", "Sable", "Rondo", "Quill"], key="D")
    c = dict(a, item="d3", options=["Quill", "Rondo", "Sable", "Tarn", "Y"])
    edges, _, _ = _derive([a, b, c])
    dups = find_duplicates(items_table("child", [a, b, c]), edges).to_pylist()
    assert {(r["item"], r["group"], r["parent_item"], r["size"]) for r in dups} == {
        ("d1", "d1", "p0", 2),
        ("d2", "d1", "p0", 2),
    }


def test_null_padding_is_dropped_but_inner_and_keyed_nulls_are_kept() -> None:
    from croissant_lineage.lineage.items import _trim_padding

    assert _trim_padding(["a", "b", None, None], "A", "letter") == ["a", "b"]
    assert _trim_padding([None, "b", "c", "d"], "B", "letter") == ["", "b", "c", "d"]
    assert _trim_padding(["a", "b", "c", None], "D", "letter") == ["a", "b", "c", ""]
    assert _trim_padding(["a", None, "c"], 0, "index") == ["a", "", "c"]


@pytest.mark.parametrize(
    ("activity", "child_langs", "parent_langs", "expected"),
    [
        ("translation", ("fr",), ("en",), True),
        ("translation", (), ("en",), True),  # undeclared: taken as a translation
        ("translation", ("en",), ("en",), False),  # same declared languages: a copy in effect
        ("copy", ("fr",), ("en",), False),
    ],
)
def test_derivation_is_translation(activity, child_langs, parent_langs, expected):
    d = Derivation("c", "p", activity, child_languages=child_langs, parent_languages=parent_langs)
    assert d.is_translation is expected
