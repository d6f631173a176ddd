"""The column-by-column edges table equals the per-edge one it replaced.

:func:`croissant_lineage.linking.edges.edges_table` builds the edges of a derivation's
matches from whole columns; the per-edge implementation it replaced is kept here as the
reference, and the two are compared on Hypothesis-drawn item tables and matches (equal
and differing option lists, missing lists and keys, keys out of range, mojibake, every
link method, translations and same-language derivations).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz import fuzz

from croissant_lineage.family.spec import Derivation, LinkRule
from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.lineage.schema import EDGES_SCHEMA, ITEMS_BASE_SCHEMA
from croissant_lineage.linking.edges import edges_table
from croissant_lineage.linking.match import IdMatches, Match
from croissant_lineage.linking.options import OptionTexts, diff_options, diff_texts, positional_diff
from croissant_lineage.linking.sides import Side

_OPTION = st.sampled_from(["1/2", "1.0/2", "Paris", "paris.", "nan", "", "caf\u00c3\u00a9", "café", "Bb"])
_OPTIONS = st.one_of(st.none(), st.lists(_OPTION, max_size=5))
_KEY = st.sampled_from([None, "A", "B", "C", "E", "AB", ""])
_STEM = st.sampled_from([None, "", "What is x?", "what  is X?", "Wh\u00c3\u00a9re?", "Other stem"])
_ITEM = st.tuples(_STEM, _OPTIONS, _KEY)
_METHODS = st.sampled_from(["exact", "fuzzy", "id", "index", "index+shift", "unverified"])


def _table(name: str, rows: list[tuple[Any, Any, Any]]) -> pa.Table:
    n = len(rows)
    return pa.table(
        {
            "dataset": [name] * n, "item": [f"{name}/{i}" for i in range(n)], "subject": ["s"] * n,
            "stem": [r[0] for r in rows], "options": [r[1] for r in rows], "key": [r[2] for r in rows],
            "source_file": ["f"] * n, "source_row": list(range(n)), "record": ["{}"] * n,
        },
        schema=ITEMS_BASE_SCHEMA,
    )


def _key_index(key: str | None) -> int | None:
    return LETTERS.index(key) if key and key in LETTERS else None


def _text_status(cp: bool, pp: bool, equal: bool, translated: bool) -> str:
    if cp and pp:
        return "copied" if equal else ("translated" if translated else "edited")
    return "added" if cp else "dropped" if pp else "absent"


def _present(text: Any) -> bool:
    return bool(text and str(text).strip())


def _options_copied(diff: Any, copt: list[str], popt: list[str]) -> bool:
    """The stored lists are equal, or each child option pairs with the parent's at its
    place by equal bytes or case-preserving forms, none added or dropped."""
    if copt == popt:
        return True
    return (len(copt) == len(popt) and diff.dropped == 0 and list(diff.option_map) == list(range(len(copt)))
            and all(p in ("bytes", "cased") for p in diff.paired_by))


def _statuses(child: Side, parent: Side, m: Match, key_inh: bool | None, translated: bool, diff: Any) -> dict[str, Any]:
    """The per-edge reference of linking/content_status.py, from the items' texts."""
    cstem, pstem = child.norm_stems[m.child], parent.norm_stems[m.parent]
    # a translation's stems and options are not compared: translated where both have them
    stem = _text_status(_present(cstem), _present(pstem), cstem == pstem and not translated, translated)
    copt, popt = child.raw_options[m.child] or [], parent.raw_options[m.parent] or []
    same = not translated and bool(copt) and bool(popt) and _options_copied(diff, list(copt), list(popt))
    options = _text_status(bool(copt), bool(popt), same, translated)
    changed = stem == "edited"  # a key computed from an edited stem; beside a translated one: edited
    ck, pk = _present(child.keys[m.child]), _present(parent.keys[m.parent])
    if ck and pk:
        if key_inh is None:
            key = "translated" if translated else None
        elif key_inh:
            key = "translated" if translated else "copied"
        else:
            key = "recomputed" if changed else "edited"
    else:
        key = _text_status(ck, pk, False, translated)
    return {"stem_status": stem, "options_status": options, "key_status": key,
            "solution_status": "absent", "tests_status": "absent"}


def _reference(deriv: Derivation, child: Side, parent: Side, matches: list[Match], translated: bool) -> pa.Table:
    """The per-edge implementation edges.py replaced (linker._evidence + _edges_table)."""
    rows: dict[str, list[Any]] = {f.name: [] for f in EDGES_SCHEMA}
    empty = OptionTexts((), (), ())
    for m in matches:
        ck, pk = _key_index(child.keys[m.child]), _key_index(parent.keys[m.parent])
        if translated:
            diff = positional_diff(("",) * child.n_options[m.child], ("",) * parent.n_options[m.parent])
            key_inh, score, stem_changed = (None if ck is None or pk is None else ck == pk), m.score, None
        else:
            diff = diff_texts(child.option_texts(m.child) or empty, parent.option_texts(m.parent) or empty, keys=(ck, pk))
            cstem, pstem = child.norm_stems[m.child], parent.norm_stems[m.parent]
            same = cstem == pstem
            score = m.score if m.method in ("exact", "fuzzy") else (100.0 if same else round(fuzz.ratio(cstem, pstem), 2))
            key_inh, stem_changed = diff.key_inherited(ck, pk), not same
        for name, value in (
            ("child_dataset", deriv.child), ("child_item", child.ids[m.child]), ("parent_dataset", deriv.parent),
            ("parent_item", parent.ids[m.parent]), ("activity", deriv.activity), ("method", m.method),
            ("score", float(score)), ("options_score", diff.score), ("option_map", list(diff.option_map)),
            ("options_copied", diff.copied), ("options_added", diff.added), ("options_dropped", diff.dropped),
            ("key_inherited", key_inh), ("stem_changed", stem_changed), ("ambiguous", m.ambiguous),
            ("alternatives", [parent.ids[j] for j in m.alternatives]),
            ("text_repaired", None if translated else child.repaired(m.child) or parent.repaired(m.parent)),
            *_statuses(child, parent, m, key_inh, translated, diff).items(),
        ):
            rows[name].append(value)
    return pa.table(rows, schema=EDGES_SCHEMA)


@st.composite
def _case(draw: st.DrawFn) -> tuple[list[Any], list[Any], list[Match], bool]:
    children = draw(st.lists(_ITEM, min_size=1, max_size=6))
    parents = draw(st.lists(_ITEM, min_size=1, max_size=6))
    pairs = draw(st.lists(st.tuples(st.integers(0, len(children) - 1), st.integers(0, len(parents) - 1)), max_size=8))
    matches = [
        Match(i, j, draw(_METHODS), draw(st.sampled_from([100.0, 91.5, 0.0])),
              tuple(draw(st.lists(st.integers(0, len(parents) - 1), max_size=2))), draw(st.booleans()))
        for i, j in pairs
    ]
    return children, parents, matches, draw(st.booleans())


@given(_case())
def test_edges_table_is_the_per_edge_reference(case: tuple[list[Any], list[Any], list[Match], bool]) -> None:
    children, parents, matches, translated = case
    deriv = Derivation("c", "p", "translation" if translated else "copy", LinkRule(by="id"))
    child, parent = Side(_table("c", children)), Side(_table("p", parents))
    got = edges_table(deriv, child, parent, matches, translated=translated)
    want = _reference(deriv, Side(_table("c", children)), Side(_table("p", parents)), matches, translated)
    assert got.schema == EDGES_SCHEMA
    assert got.to_pylist() == want.to_pylist()


@given(_case(), st.sampled_from(["id", "index"]))
def test_id_matches_as_columns_give_the_edges_of_their_matches(
    case: tuple[list[Any], list[Any], list[Match], bool], method: str
) -> None:
    """An id link's matches as columns (:class:`IdMatches`: no Match object per edge) give
    the edges of the same matches as objects, and the per-edge reference's."""
    children, parents, drawn, translated = case
    pairs = sorted({m.child: m.parent for m in drawn}.items())
    columns = IdMatches(np.array([i for i, _ in pairs], np.int64), np.array([j for _, j in pairs], np.int64), method)
    matches = [Match(i, j, method, 100.0) for i, j in pairs]
    assert list(columns) == matches and columns[:] == matches and columns.by_child() is columns
    assert [columns[k] for k in range(len(matches))] == matches
    deriv = Derivation("c", "p", "translation" if translated else "copy", LinkRule(by=method))
    child, parent = Side(_table("c", children)), Side(_table("p", parents))
    got = edges_table(deriv, child, parent, columns, translated=translated)
    assert got.schema == EDGES_SCHEMA
    assert got.equals(edges_table(deriv, child, parent, matches, translated=translated))
    want = _reference(deriv, Side(_table("c", children)), Side(_table("p", parents)), matches, translated)
    assert got.to_pylist() == want.to_pylist()


def test_id_matches_by_child_sorts_as_a_list_sort() -> None:
    columns = IdMatches(np.array([3, 1, 2]), np.array([0, 5, 4]), "id")
    assert list(columns.by_child()) == sorted(columns, key=lambda m: m.child)
    assert list(columns) == [Match(3, 0, "id", 100.0), Match(1, 5, "id", 100.0), Match(2, 4, "id", 100.0)]


def test_no_matches_give_an_empty_table() -> None:
    side = Side(_table("c", [("x", ["a"], "A")]))
    deriv = Derivation("c", "p", "copy", LinkRule(by="id"))
    assert edges_table(deriv, side, side, [], translated=False).equals(EDGES_SCHEMA.empty_table())


_CITIES = ["Paris", "London", "Rome", "Berlin"]


@pytest.mark.parametrize(
    ("options", "key", "inherited"),
    [
        (_CITIES, "B", True),  # the same options: the identity
        (["Paris", "London", "Rome", "Madrid"], "B", True),  # another option edited
        (["London", "Paris", "Rome", "Berlin"], "A", True),  # the key moved with its text
        (["Paris", "London", "Rome", "Madrid"], "A", False),  # the key copies another parent option
        (["Paris", "London", "Rome", "Madrid"], "D", False),  # an added key option; London now a distractor
        (["Paris", "Lisbon", "Rome", "Berlin"], "B", None),  # both key texts unpaired: edited in place
        (["Paris", "London", "Rome", "Madrid"], None, None),  # no child key
        (["Paris", "London", "Rome", "Madrid"], "E", None),  # a key past the options
    ],
)
def test_key_inherited_compares_the_key_option_texts(options: list[str], key: str | None, inherited: bool | None) -> None:
    """An edge's ``key_inherited`` (parent key: London, B): whether the child's key option
    copies the parent's key option, for the edges table and the single option diff alike."""
    deriv = Derivation("c", "p", "copy", LinkRule(by="id"))
    child, parent = Side(_table("c", [("Capital?", options, key)])), Side(_table("p", [("Capital?", _CITIES, "B")]))
    edges = edges_table(deriv, child, parent, [Match(0, 0, "id", 100.0)], translated=False)
    assert edges.column("key_inherited").to_pylist() == [inherited]
    assert diff_options(options, _CITIES).key_inherited(_key_index(key), 1) is inherited
