"""Boundary tests of the linking thresholds and of the stem normaliser, rule by rule.

Each test is built so that one threshold or one rule alone decides the
outcome, at the boundary (at, just below, just above). Stems are invented; their
RapidFuzz ``ratio`` is exact by construction (``1 - k / L`` for ``k`` single-character
substitutions in a stem of ``L`` characters), and each test asserts the score it relies on.
"""

from __future__ import annotations

import pytest
from rapidfuzz import fuzz

from croissant_lineage.family.spec import Derivation, LinkRule
from croissant_lineage.linking.linker import link_derivation
from croissant_lineage.linking.match import NEAR
from croissant_lineage.linking.normalize import (
    normalize_option,
    normalize_option_cased,
    normalize_stem,
    was_repaired,
)
from croissant_lineage.linking.options import diff_options
from tests.helpers import items_table

#: 20 characters: 3 substitutions score exactly 85.0.
STEM20 = "which moon is larger"
#: 100 characters: each substitution costs exactly one point.
STEM100 = (
    "which planet in the zorblat system has the longest orbital year among all of its known rocky moons??"
)
POSITIONS = (3, 20, 40, 60, 80, 90, 95)


def _sub(stem: str, k: int) -> str:
    chars = list(stem)
    for p in (POSITIONS if len(stem) == 100 else (2, 9, 16))[:k]:
        chars[p] = "#"
    return "".join(chars)


def _item(item: str, stem: str, options: list[str], key: str = "A") -> dict:
    return {"item": item, "subject": "s", "stem": stem, "options": options, "key": key}


def _link(children: list[dict], parents: list[dict], threshold: float = 85.0, activity: str = "option_expansion"):
    d = Derivation("child", "parent", activity, LinkRule(by="text", threshold=threshold))
    edges, unmatched, stats = link_derivation(d, items_table("child", children), items_table("parent", parents))
    return {r["child_item"]: r for r in edges.to_pylist()}, {r["child_item"]: r for r in unmatched.to_pylist()}, stats


# --- the fuzzy threshold: a stem scoring exactly the threshold is linked -------------

def test_constructed_scores_are_exact() -> None:
    assert len(STEM20) == 20 and len(STEM100) == 100
    assert fuzz.ratio(STEM20, _sub(STEM20, 3)) == 85.0
    assert [fuzz.ratio(STEM100, _sub(STEM100, k)) for k in range(6)] == [100.0, 99.0, 98.0, 97.0, 96.0, 95.0]


@pytest.mark.parametrize(
    ("threshold", "linked"),
    [(85.0, True), (84.99, True), (85.01, False)],
    ids=["at", "just-below", "just-above"],
)
def test_fuzzy_threshold_boundary(threshold: float, linked: bool) -> None:
    opts = ["Ash", "Birl", "Corr", "Dun"]
    edges, unmatched, stats = _link([_item("c", STEM20, opts)], [_item("p", _sub(STEM20, 3), opts)], threshold)
    if linked:
        assert edges["c"]["parent_item"] == "p" and edges["c"]["method"] == "fuzzy"
        assert edges["c"]["score"] == 85.0
        assert stats["unmatched"] == 0
    else:
        assert "c" not in edges
        assert unmatched["c"]["best_parent_item"] == "p"
        assert unmatched["c"]["reason"] == "best stem score 85.0 < threshold 85.01"


# --- the near-tie window: options decide among stems within NEAR points of the best ---

@pytest.mark.parametrize(
    ("k_other", "chosen"),
    [(3, "p-options"), (4, "p-options"), (5, "p-stem")],
    ids=["inside", "at-window", "outside"],
)
def test_near_tie_window_lets_options_decide(k_other: int, chosen: str) -> None:
    assert NEAR == 3.0  # the parametrisation puts 96 exactly at the edge of the window
    child = _item("c", STEM100, ["Ash", "Birl", "Corr", "Dun"])
    parents = [
        _item("p-stem", _sub(STEM100, 1), ["Fir", "Gor", "Hul", "Ix"]),  # best stem (99), wrong options
        _item("p-options", _sub(STEM100, k_other), ["Ash", "Birl", "Corr", "Dun"]),  # 97/96/95, same options
    ]
    edges, _, _ = _link([child], parents)
    assert edges["c"]["parent_item"] == chosen
    # a parent outside the window is not a candidate at all (not even an alternative)
    assert edges["c"]["alternatives"] == (["p-stem"] if chosen == "p-options" else [])
    assert edges["c"]["ambiguous"] is False


def test_near_tie_with_equal_options_goes_to_the_closer_stem() -> None:
    opts = ["Ash", "Birl", "Corr", "Dun"]
    parents = [_item("p-far", _sub(STEM100, 2), opts), _item("p-near", _sub(STEM100, 1), opts)]
    edges, _, _ = _link([_item("c", STEM100, opts)], parents)
    assert edges["c"]["parent_item"] == "p-near"
    assert edges["c"]["alternatives"] == ["p-far"] and edges["c"]["ambiguous"] is False


def test_exact_tie_is_ambiguous() -> None:
    opts = ["Ash", "Birl", "Corr", "Dun"]
    parents = [_item("p1", _sub(STEM100, 1), opts), _item("p0", _sub(STEM100, 1), opts)]
    edges, _, _ = _link([_item("c", STEM100, opts)], parents)
    assert edges["c"]["parent_item"] == "p1" and edges["c"]["ambiguous"] is True
    assert edges["c"]["alternatives"] == ["p0"]


# --- the Unicode rules of normalize_stem, one at a time --------------------------------

@pytest.mark.parametrize(
    ("text", "key"),
    [
        # NFKC alone: casefold leaves fullwidth, superscript and circled forms as they are.
        ("\uff38\uff1d\uff11\uff12", "x=12"),  # fullwidth X = 1 2
        ("x\u00b2 + y\u00b3 \u00e9", "x2 + y3 \u00e9"),  # superscripts (the é keeps the non-ASCII path)
        ("\u2460 \u00e9", "1 \u00e9"),  # circled digit one
        ("\u2153 \u00e9", "1\u20443 \u00e9"),  # vulgar fraction one third
        # casefold alone (lower() keeps ß; NFKC keeps it)
        ("Stra\u00dfe", "strasse"),
        # each character of the translation table
        ("it\u2019s \u2018a\u2019", "it's 'a'"),
        ("\u201aa\u201b \u2032", "'a' '"),
        # (NFKC comes first: the double prime becomes two primes, then two apostrophes)
        ("\u201cq\u201d \u201eq\u201d \u2033", '"q" "q" \'\''),
        ("a\u2010b\u2011c\u2012d\u2013e\u2014f\u2212g", "a-b-c-d-e-f-g"),
        ("the \u00d5code\u00d5", "the 'code'"),
        ("a\u0085b\u00a0c\u200bd", "a b cd"),
        ("`tick` \u00e9", "'tick' \u00e9"),
        # white space: runs collapse, ends trimmed, on both paths
        ("  a \t\n b  ", "a b"),
        ("  \u00e9 \t\n b  ", "\u00e9 b"),
        # encoding repair (UTF-8 read as Windows-1252) before anything else
        ("5\u00e2\u20ac\u00b2 tall", "5' tall"),
        # ASCII fast path: lower, backtick, white space
        ("What `IS` X?", "what 'is' x?"),
    ],
)
def test_normalize_stem_rule_by_rule(text: str, key: str) -> None:
    assert normalize_stem(text) == key


def test_nfkc_is_what_decides_fullwidth_and_superscripts() -> None:
    # casefold alone does not map these: only NFKC makes the keys equal.
    assert "\uff11".casefold() != "1" and "\u00b2".casefold() != "2"
    assert normalize_stem("What is \uff11\uff10\u00b2?") == normalize_stem("What is 102?")
    assert normalize_option("\uff21\uff4e\uff53") == normalize_option("ans")
    assert normalize_option_cased("\uff21\uff4e\uff53") == "Ans"


@pytest.mark.parametrize("text", [None, "", "   ", "\u200b"])
def test_normalize_stem_of_nothing(text: str | None) -> None:
    assert normalize_stem(text) == ""


@pytest.mark.parametrize(
    ("a", "b"),
    [("x = 1", "x = 2"), ("a-b", "a b"), ("it's", "its"), ("\u00e9", "e"), ("Bb", "bbb")],
)
def test_normalize_stem_keeps_what_is_not_presentation(a: str, b: str) -> None:
    assert normalize_stem(a) != normalize_stem(b)


@pytest.mark.parametrize(
    ("text", "repaired"),
    [(None, False), ("", False), ("plain", False), ("caf\u00e9", False), ("5\u00e2\u20ac\u00b2", True)],
)
def test_was_repaired(text: str | None, repaired: bool) -> None:
    # mutmut 2026-12-01: `if not text: return True` survived (nothing asked about empty text)
    assert was_repaired(text) is repaired


# --- option pairing: the fuzzy threshold (90 by default) of diff_options -------------

OPT20 = "abcdefghijklmnopqrst"


@pytest.mark.parametrize(
    ("parent_option", "threshold", "paired"),
    [
        (OPT20[:19] + "#", 90.0, True),  # 95
        (OPT20[:18] + "##", 90.0, True),  # 90: at
        (OPT20[:17] + "###", 90.0, False),  # 85: below
        (OPT20[:18] + "##", 90.01, False),  # 90 just below a threshold of 90.01
        (OPT20[:18] + "##", 89.99, True),
    ],
    ids=["above", "at", "below", "just-below", "just-above"],
)
def test_option_fuzzy_threshold_boundary(parent_option: str, threshold: float, paired: bool) -> None:
    # the similar option moves, so that nothing pairs it by position
    d = diff_options(["Birl", OPT20], [parent_option, "Birl"], fuzzy_threshold=threshold)
    assert d.option_map == ((1, 0) if paired else (1, -1))
    assert d.paired_by == (("bytes", "fuzzy") if paired else ("bytes", None))
    assert (d.copied, d.added, d.dropped, d.score) == ((2, 0, 0, 100.0) if paired else (1, 1, 1, 50.0))
