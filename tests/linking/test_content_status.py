"""Per-content statuses of edges, from the items: a number-perturbed child, a reformatted
copy, 50 templated variants of one parent, a translated code item, a re-annotated key."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from croissant_lineage.family.spec import Derivation, LinkRule
from croissant_lineage.lineage.schema import EDGES_SCHEMA
from croissant_lineage.linking.content_status import CONTENT_STATUSES, CONTENTS
from croissant_lineage.linking.linker import link_derivation
from tests.helpers import items_table

STATUS_COLUMNS = [f"{c}_status" for c in CONTENTS]


def _number(item: str, stem: str, value: float, solution: str | None = None) -> dict[str, Any]:
    return {"item": item, "stem": stem, "key_kind": "number", "key_text": f"{value:g}", "key_value": value,
            "solution": solution}


ROOT = [
    _number("0", "Ann has 3 apples and buys 5 more. How many apples has she?", 8.0, "3 + 5 = 8\n#### 8"),
    _number("1", "A train runs 60 km an hour for 2 hours. How far does it go?", 120.0, "60 * 2 = 120\n#### 120"),
]


def _edges(child: pa.Table, parent: pa.Table, activity: str, *, tolerance: float = 0.0) -> list[dict[str, Any]]:
    deriv = Derivation("c", "p", activity, LinkRule(by="id"), key_tolerance=tolerance)
    edges, _unmatched, _stats = link_derivation(deriv, child, parent)
    assert edges.schema == EDGES_SCHEMA
    return sorted(edges.to_pylist(), key=lambda e: e["child_item"])


def _statuses(e: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(e[c] for c in STATUS_COLUMNS)


def test_a_reformatted_copy_copies_every_content() -> None:
    parent = items_table("p", ROOT)
    child = items_table("c", [{**r, "solution": r["solution"].replace("\n", "  \n ")} for r in ROOT])
    got = _edges(child, parent, "format_conversion")
    assert [_statuses(e) for e in got] == [("copied", "absent", "copied", "copied", "absent")] * 2
    assert [e["key_inherited"] for e in got] == [True, True]


def test_a_number_perturbed_child_has_its_key_recomputed() -> None:
    parent = items_table("p", ROOT)
    child = items_table("c", [
        _number("0", "Ann has 4 apples and buys 5 more. How many apples has she?", 9.0, "4 + 5 = 9\n#### 9"),
        # a number changed whose answer stays the same within the tolerance
        _number("1", "A train runs 60 km an hour for 2 hours. How far does it go?", 120.0004, "60 * 2 = 120\n#### 120"),
    ])
    e0, e1 = _edges(child, parent, "perturbation", tolerance=0.001)
    assert _statuses(e0) == ("edited", "absent", "recomputed", "edited", "absent")
    assert e0["key_inherited"] is False
    assert e1["key_status"] == "copied" and e1["key_inherited"] is True


def test_a_re_annotated_key_on_a_copied_stem_is_edited() -> None:
    parent = items_table("p", ROOT)
    child = items_table("c", [_number("0", ROOT[0]["stem"], 9.0, ROOT[0]["solution"])])
    (e,) = _edges(child, parent, "re_annotation")
    assert (e["stem_status"], e["key_status"], e["solution_status"]) == ("copied", "edited", "copied")
    assert e["key_inherited"] is False


def test_fifty_templated_variants_of_one_parent() -> None:
    parent = items_table("p", ROOT[:1])
    rows = [_number(str(i), f"Ann has {i} apples and buys 5 more. How many apples has she?", i + 5.0) for i in range(50)]
    # the variants name their parent by a field (here the subject column)
    child = items_table("c", [{**r, "subject": "0"} for r in rows])
    edges, _u, _s = link_derivation(Derivation("c", "p", "templated_variants", LinkRule(by="id", child_field="subject")), child, parent)
    got = edges.to_pylist()
    assert len(got) == 50 and {e["parent_item"] for e in got} == {"0"}
    keys = {e["child_item"]: e["key_status"] for e in got}
    assert keys["3"] == "copied"  # 3 + 5 = 8: the parent's answer
    assert {k for k, v in keys.items() if v == "recomputed"} == {str(i) for i in range(50) if i != 3}
    assert {e["stem_status"] for e in got} == {"edited", "copied"}


def test_a_translated_code_item() -> None:
    parent = items_table("p", [{"item": "HumanEval/0", "stem": 'def add(a, b):\n    """Add a and b."""\n',
                                 "key_kind": "tests", "solution": "    return a + b\n",
                                 "tests": "def check(f):\n    assert f(1, 2) == 3\n"}])
    child = items_table("c", [{"item": "HumanEval/0", "stem": "int add(int a, int b) {\n  // Add a and b.\n",
                                "key_kind": "tests", "solution": "  return a + b;\n}\n",
                                "tests": "int main() { assert(add(1, 2) == 3); }\n"}])
    deriv = Derivation("c", "p", "code_translation", LinkRule(by="id"))
    assert deriv.is_translation
    edges, _u, _s = link_derivation(deriv, child, parent)
    (e,) = edges.to_pylist()
    assert _statuses(e) == ("translated", "absent", "translated", "translated", "translated")
    assert e["key_inherited"] is None


def test_options_and_option_keys_copied_edited_added() -> None:
    parent = items_table("p", [
        {"item": "0", "stem": "Pick one.", "options": ["Ash", "Birch", "Cedar"], "key": "B"},
        {"item": "1", "stem": "Pick two.", "options": ["Ash", "Birch"], "key": "A"},
        {"item": "2", "stem": "Pick three.", "options": None, "key": None},
    ])
    child = items_table("c", [
        {"item": "0", "stem": "Pick one.", "options": ["Ash", "Birch", "Cedar"], "key": "B"},
        {"item": "1", "stem": "Pick two.", "options": ["Birch", "Ash", "Yew"], "key": "A"},
        {"item": "2", "stem": "Pick three.", "options": ["Yes", "No"], "key": "A"},
    ])
    e0, e1, e2 = _edges(child, parent, "option_expansion")
    assert (e0["options_status"], e0["key_status"]) == ("copied", "copied")
    # the key moved to another option while the stem stayed: edited (recomputed needs a changed stem)
    assert (e1["options_status"], e1["key_status"], e1["key_inherited"]) == ("edited", "edited", False)
    assert (e2["options_status"], e2["key_status"]) == ("added", "added")


_TEXT = st.sampled_from([None, "", "x = 1", "x  =  1", "y = 2"])
_VALUE = st.sampled_from([None, 1.0, 2.0, 1.0000001])


@given(st.lists(st.tuples(_TEXT, _TEXT, _VALUE, _VALUE), min_size=1, max_size=6), st.booleans())
def test_statuses_agree_with_key_inherited_and_presence(rows: list[tuple[Any, ...]], translated: bool) -> None:
    """Every status is one of CONTENT_STATUSES (or a null key status), ``key_inherited`` agrees
    with ``key_status``, and added/dropped/absent follow which side has the content."""
    def item(i: int, solution: Any, value: Any) -> dict[str, Any]:
        return {"item": str(i), "stem": "Q", "key_kind": "number", "key_value": value,
                "key_text": None if value is None else str(value), "solution": solution}

    parent = items_table("p", [item(i, r[0], r[2]) for i, r in enumerate(rows)])
    child = items_table("c", [item(i, r[1], r[3]) for i, r in enumerate(rows)])
    deriv = Derivation("c", "p", "translation" if translated else "copy", LinkRule(by="id"), key_tolerance=1e-6)
    edges = link_derivation(deriv, child, parent)[0].to_pylist()
    for e, (psol, csol, pv, cv) in zip(sorted(edges, key=lambda e: int(e["child_item"])), rows, strict=True):
        assert {e[c] for c in STATUS_COLUMNS} - {None} <= set(CONTENT_STATUSES)
        ki, ks = e["key_inherited"], e["key_status"]
        assert (ki is True) == (ks == "copied")  # number keys compare across languages too
        assert (ki is False) == (ks in ("edited", "recomputed"))
        want = {(True, True): None, (True, False): "dropped", (False, True): "added", (False, False): "absent"}
        if want[(pv is not None, cv is not None)] is not None:
            assert ks == want[(pv is not None, cv is not None)]
        has = (bool(psol and psol.strip()), bool(csol and csol.strip()))
        if has == (True, True):
            same = " ".join(psol.split()) == " ".join(csol.split())
            assert e["solution_status"] == ("copied" if same else "translated" if translated else "edited")
        else:
            assert e["solution_status"] == want[has]


@pytest.mark.parametrize("activity", ["perturbation", "templated_variants", "paraphrase", "format_conversion",
                                      "test_augmentation"])
def test_the_new_activities_parse_and_map_to_prov(activity: str) -> None:
    from croissant_lineage.family.spec import ACTIVITIES
    from croissant_lineage.prov.vocab import activity_class

    assert activity in ACTIVITIES
    assert activity_class(activity) != "cl:Activity"


def _reference_same(kind: str, c: dict[str, Any], p: dict[str, Any], tolerance: float, translated: bool) -> bool | None:
    """The per-pair comparison keys_inherited.py computes over columns."""
    import math

    from croissant_lineage.linking.normalize import normalize_option

    if kind == "number":
        cv, pv = c["key_value"], p["key_value"]
        return None if cv is None or pv is None else math.isclose(cv, pv, rel_tol=1e-9, abs_tol=tolerance)
    field = {"text": "key_text", "set": "key_answers", "tests": "solution"}[kind]
    cv, pv = c[field], p[field]
    if translated or cv is None or pv is None:
        return None
    if kind == "set":
        return {normalize_option(x) for x in cv} == {normalize_option(x) for x in pv}
    if kind == "tests":
        return " ".join(cv.split()) == " ".join(pv.split())
    return normalize_option(cv) == normalize_option(pv)


_KIND = st.sampled_from(["number", "text", "set", "tests"])
_WORD = st.sampled_from(["Paris", "paris.", " Paris ", "x =\u20031", "x = 1", "Lyon"])
_KEY_ITEM = st.tuples(_KIND, st.one_of(st.none(), _WORD), st.one_of(st.none(), st.sampled_from([1.0, 1.0004, 2.0, -0.0, 0.0])),
                      st.one_of(st.none(), st.lists(_WORD, max_size=3)))


@given(st.lists(st.tuples(_KEY_ITEM, _KEY_ITEM), min_size=1, max_size=8), st.booleans(), st.sampled_from([0.0, 0.001]))
def test_free_keys_compared_over_columns_as_pair_by_pair(pairs: list[Any], translated: bool, tolerance: float) -> None:
    from croissant_lineage.linking.keys_inherited import free_key_inherited

    def row(i: int, k: Any) -> dict[str, Any]:
        kind, text, value, answers = k
        return {"item": str(i), "stem": "Q", "key_kind": kind, "key_text": text, "key_value": value,
                "key_answers": answers, "solution": text}

    child = items_table("c", [row(i, c) for i, (c, _p) in enumerate(pairs)])
    parent = items_table("p", [row(i, p) for i, (_c, p) in enumerate(pairs)])
    rows = list(range(len(pairs)))
    got = free_key_inherited(child, parent, rows, rows, tolerance=tolerance, translated=translated)
    assert got is not None
    want = [
        _reference_same(c[0], row(0, c), row(0, p), tolerance, translated) if c[0] == p[0] else None
        for c, p in pairs
    ]
    assert got.to_pylist() == want


def test_a_translated_text_key_among_its_options_is_carried_by_its_place() -> None:
    """A text key that is one of its item's options is followed across a translation by its
    option's place, as an option letter is; elsewhere it stays unknown."""
    def text(item: str, options: list[str] | None, key: str) -> dict[str, Any]:
        return {"item": item, "stem": "Q", "options": options, "key_kind": "text", "key_text": key}

    parent = items_table("p", [text("0", ["red", "blue", "green"], "blue"), text("1", ["red", "blue", "green"], "blue"),
                               text("2", None, "blue"), text("3", ["red", "blue"], "blue")])
    child = items_table("c", [text("0", ["rot", "blau", "gruen"], "blau"), text("1", ["rot", "blau", "gruen"], "gruen"),
                              text("2", None, "blau"), text("3", ["rot", "blau", "gruen"], "blau")])
    deriv = Derivation("c", "p", "translation", LinkRule(by="id"))
    edges = sorted(link_derivation(deriv, child, parent)[0].to_pylist(), key=lambda e: e["child_item"])
    assert [e["key_inherited"] for e in edges] == [True, False, None, None]
    assert [e["key_status"] for e in edges] == ["translated", "edited", "translated", "translated"]
