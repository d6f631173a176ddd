"""The linking rules (exact copy first, one child per parent, option pairing, missing-value words, mojibake): each fixture is built so that the rule alone decides."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from croissant_lineage.croissant.tables import read_table
from croissant_lineage.family.spec import Derivation, LinkRule
from croissant_lineage.linking.assign import assign_one_to_one
from croissant_lineage.linking.linker import link_derivation
from croissant_lineage.linking.normalize import (
    normalize_option,
    normalize_stem,
    repair_text,
    was_repaired,
)
from croissant_lineage.linking.options import diff_options
from tests.helpers import items_table


def _link(children, parents, activity="option_expansion", rule=None):
    d = Derivation("child", "parent", activity, rule or LinkRule(by="text", threshold=85))
    edges, unmatched, stats = link_derivation(d, items_table("child", children), items_table("parent", parents))
    return {r["child_item"]: r for r in edges.to_pylist()}, {r["child_item"]: r for r in unmatched.to_pylist()}, stats


def _item(item, stem, options, key, subject="s"):
    return {"item": item, "subject": subject, "stem": stem, "options": options, "key": key}


# Rule 1: among parents sharing the normalised stem, the exact copy wins.

def test_rule1_byte_equal_options_win_over_normalised_equal() -> None:
    stem = "Which school did Alfred Adler found?"
    parents = [
        _item("p0", stem, ["Adler's individual psychology", "Freud", "Jung", "Rank"], "A"),
        _item("p1", stem, ["Adler’s individual psychology.", "Freud", "Jung", "Rank"], "A"),
    ]
    # The options of both parents are equal once normalised (quote, final full stop):
    # only the bytes tell p1 from p0.
    assert [normalize_option(o) for o in parents[0]["options"]] == [normalize_option(o) for o in parents[1]["options"]]
    child = _item("c", stem, ["Adler’s individual psychology.", "Freud", "Jung", "Rank", "Horney"], "A")
    edges, _, _ = _link([child], parents)
    assert edges["c"]["parent_item"] == "p1"
    assert edges["c"]["alternatives"] == ["p0"] and edges["c"]["ambiguous"] is False


def test_rule1_byte_identical_item_wins_over_permuted_duplicate() -> None:
    stem = "What is the brightest star in the night sky?"
    parents = [
        _item("p29", stem, ["Vega", "Sirius", "Polaris", "Rigel"], "B"),
        _item("p52", stem, ["Sirius", "Vega", "Polaris", "Rigel"], "A"),
    ]
    edges, _, _ = _link([dict(parents[1], item="c52")], parents, activity="re_release")
    assert edges["c52"]["parent_item"] == "p52"
    assert edges["c52"]["option_map"] == [0, 1, 2, 3]


# Rule 2: re_release / copy: one child per parent (maximum-weight assignment).

LARGEST = "Which of these numbers is the largest value in the list given below?"
SMALLEST = "Which of these numbers is the smallest value in the list given below?"
SMALLEST_EDITED = "Which of those numbers is the smallest value in the lists given here?"


def _rule2_items():
    parents = [
        _item("p-small", SMALLEST_EDITED, ["1", "2", "3", "4"], "A"),
        _item("p-large", LARGEST, ["5", "6", "7", "8"], "D"),
    ]
    children = [
        _item("c-large", LARGEST, ["5", "6", "7", "8"], "D"),  # the exact copy of p-large
        _item("c-small", SMALLEST, ["1", "2", "3", "4"], "A"),  # stem closer to p-large (94.9) than p-small (92.8)
    ]
    return children, parents


def test_rule2_parent_with_exact_child_takes_no_fuzzy_child() -> None:
    children, parents = _rule2_items()
    # Options would send c-small to p-small anyway: make them agree with neither parent.
    children[1]["options"] = ["9", "10", "11", "12"]
    edges, _, _ = _link(children, parents, activity="re_release")
    assert edges["c-large"]["parent_item"] == "p-large" and edges["c-large"]["method"] == "exact"
    assert edges["c-small"]["parent_item"] == "p-small" and edges["c-small"]["method"] == "fuzzy"
    assert edges["c-small"]["alternatives"] == ["p-large"]  # the displaced candidate is recorded
    # Without the rule (an option expansion may give a parent several children) the
    # closer stem wins.
    edges, _, _ = _link(children, parents, activity="option_expansion")
    assert edges["c-small"]["parent_item"] == "p-large"


def test_rule2_child_left_without_a_free_parent_is_unmatched_with_a_reason() -> None:
    children, parents = _rule2_items()
    children[1]["options"] = ["9", "10", "11", "12"]
    edges, unmatched, stats = _link(children, parents[1:], activity="copy")
    assert set(edges) == {"c-large"}
    assert unmatched["c-small"]["best_parent_item"] == "p-large"
    assert "one child per parent" in unmatched["c-small"]["reason"]
    assert stats["unmatched"] == 1


def test_assignment_only_touches_colliding_components() -> None:
    # children 0 and 1 both chose parent 10; child 2 is alone.
    out = assign_one_to_one({0: 10, 1: 10, 2: 30}, {0: [(5.0, 10), (4.0, 11)], 1: [(9.0, 10)], 2: [(1.0, 30)]})
    assert out == {0: 11, 1: 10}


# Rule 3: option pairing is case-sensitive first; duplicate options pair one to one.

def test_rule3_case_exact_pairs_before_case_folded() -> None:
    stem = "Which cross gives only heterozygous offspring?"
    parent = _item("p", stem, ["bb × bb", "Bb × Bb", "BB × bb", "none of these"], "C")
    child = _item("c", stem, ["Bb × Bb", "BB × bb", "bb × bb", "none of these", "BB × BB"], "B")
    edges, _, _ = _link([child], [parent])
    assert edges["c"]["option_map"] == [1, 2, 0, 3, -1]
    assert edges["c"]["key_inherited"] is True


def test_rule3_parent_with_two_equal_options_keeps_the_key() -> None:
    stem = "How many moons does the planet Quill have?"
    parent = _item("p", stem, ["4", "2", "2", "5"], "C")
    child = _item("c", stem, ["2", "4", "5", "7"], "A")
    edges, _, _ = _link([child], [parent])
    assert edges["c"]["key_inherited"] is True
    assert edges["c"]["option_map"][0] == 2 and sorted(edges["c"]["option_map"]) == [-1, 0, 2, 3]


def test_rule3_diff_options_prefers_case_exact() -> None:
    d = diff_options(["Tl ⊃ El", "tL ⊃ eL"], ["tL ⊃ eL", "Tl ⊃ El"])
    assert d.option_map == (1, 0)
    assert d.paired_by == ("bytes", "bytes")


# Rule 4: "nan", "None", "NA", "null" are text.

NA_WORDS = ["nan", "None", "NA", "null"]


def test_rule4_readers_keep_missing_value_words_as_text(tmp_path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("q,a\n" + "".join(f"q{i},{w}\n" for i, w in enumerate(NA_WORDS)), encoding="utf-8")
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text("".join(json.dumps({"q": f"q{i}", "a": w}) + "\n" for i, w in enumerate(NA_WORDS)))
    pq.write_table(read_table(csv, "text/csv"), tmp_path / "t.parquet")
    for path, fmt in ((csv, "text/csv"), (jsonl, "application/jsonlines"), (tmp_path / "t.parquet", "application/x-parquet")):
        assert read_table(path, fmt).column("a").to_pylist() == NA_WORDS, fmt


def test_rule4_nan_copied_from_none_is_the_inherited_key() -> None:
    stem = "Which harmonics survive once the pipe is closed at one end?"
    parent = _item("p", stem, ["50 Hz", "100 Hz", "150 Hz", "None"], "D")
    child = _item("c", stem, ["All", "50 Hz", "nan", "100 Hz", "150 Hz"], "C")
    edges, _, _ = _link([child], [parent])
    assert edges["c"]["option_map"] == [-1, 0, 3, 1, 2]
    assert edges["c"]["key_inherited"] is True
    # "nan" is never read as missing: a child whose key is the word "null" keeps its key.
    child2 = _item("c2", stem, ["null", "50 Hz", "100 Hz", "150 Hz"], "A")
    parent2 = _item("p", stem, ["null", "50 Hz", "100 Hz", "150 Hz"], "A")
    edges, _, _ = _link([child2], [parent2])
    assert edges["c2"]["key_inherited"] is True and edges["c2"]["options_copied"] == 4
    # pandas also writes NaN back as an empty cell.
    child3 = _item("c3", stem, ["", "50 Hz", "100 Hz", "150 Hz"], "A")
    edges, _, _ = _link([child3], [dict(parent, options=["None", "50 Hz", "100 Hz", "150 Hz"], key="A")])
    assert edges["c3"]["option_map"] == [0, 1, 2, 3] and edges["c3"]["key_inherited"] is True


# Rule 5: mojibake repaired by ftfy before normalising, and recorded on the edge.

def test_rule5_ftfy_repairs_mojibake_before_normalising() -> None:
    assert repair_text("5â€² 2â€³ tall") == "5′ 2″ tall"
    assert normalize_stem("Itâ€™s here") == normalize_stem("It’s here")
    assert was_repaired("Itâ€™s") and not was_repaired("It’s") and not was_repaired("café")
    assert normalize_option("the dogÕs bone") == normalize_option("the dog's bone")  # Mac Roman: not ftfy's


@pytest.mark.parametrize("activity", ["copy", "option_expansion"])
def test_rule5_repaired_options_are_copied_and_the_edge_says_so(activity) -> None:
    stem = "How tall is a person of five feet two inches?"
    parent = _item("p", stem, ["5′ 2″", "6′ 1″", "4′ 9″", "5′ 8″"], "A")
    child = _item("c", stem, ["5â€² 2â€³", "6â€² 1â€³", "4â€² 9â€³", "5â€² 8â€³"], "A")
    edges, _, _ = _link([child], [parent], activity=activity)
    e = edges["c"]
    assert (e["options_copied"], e["options_added"], e["key_inherited"]) == (4, 0, True)
    assert e["text_repaired"] is True
    plain, _, _ = _link([dict(parent, item="c")], [parent], activity=activity)
    assert plain["c"]["text_repaired"] is False
