"""The linking rules on the real cases that show them (the MMLU family)."""

from __future__ import annotations

from collections import Counter

import pytest

pytestmark = pytest.mark.realdata


def _edges(lineage, child_dataset: str, parent_dataset: str) -> dict[str, dict]:
    rows = lineage.edges.to_pylist()
    return {r["child_item"]: r for r in rows if r["child_dataset"] == child_dataset and r["parent_dataset"] == parent_dataset}


@pytest.fixture(scope="module")
def pro_edges(mmlu_lineage) -> dict[str, dict]:
    return _edges(mmlu_lineage, "mmlu-pro", "mmlu")


@pytest.fixture(scope="module")
def hub_edges(mmlu_lineage) -> dict[str, dict]:
    return _edges(mmlu_lineage, "mmlu", "mmlu-2020")


@pytest.mark.parametrize(("child", "parent", "loser"), [
    ("2152", "professional_psychology/test/485", "professional_psychology/test/127"),  # "Adler’s ... psychology."
    ("10063", "conceptual_physics/test/127", "conceptual_physics/test/19"),  # options end in "."
    ("10207", "astronomy/test/52", "astronomy/test/29"),  # "differentiated", not "sank"
])
def test_rule1_mmlu_pro_links_to_the_parent_it_copies_exactly(pro_edges, child, parent, loser) -> None:
    e = pro_edges[child]
    assert (e["parent_item"], e["method"]) == (parent, "exact")
    assert loser in e["alternatives"]
    assert e["key_inherited"] is True


def test_rule1_hub_astronomy_52_links_to_its_byte_identical_2020_row(hub_edges) -> None:
    e = hub_edges["astronomy/test/52"]
    assert e["parent_item"] == "astronomy/test/52"
    assert e["option_map"] == [0, 1, 2, 3]


def test_rule2_each_2020_row_has_at_most_one_hub_child(mmlu_lineage, hub_edges) -> None:
    claims = Counter(e["parent_item"] for e in hub_edges.values())
    assert claims.most_common(1)[0][1] == 1
    # "largest" is not a copy of "smallest": 2020 row 52 keeps its exact Hub copy only.
    assert "high_school_computer_science/test/31" not in hub_edges
    assert hub_edges["high_school_computer_science/test/52"]["parent_item"] == "high_school_computer_science/test/52"
    (u,) = [r for r in mmlu_lineage.unmatched.to_pylist()
            if r["child_dataset"] == "mmlu" and r["child_item"] == "high_school_computer_science/test/31"]
    assert u["best_parent_item"] == "high_school_computer_science/test/52"
    assert "one child per parent" in u["reason"]


@pytest.mark.parametrize("child", ["3056", "7152", "8788"])
def test_rule3_identical_key_text_is_inherited(pro_edges, child) -> None:
    assert pro_edges[child]["key_inherited"] is True


@pytest.mark.parametrize(("child", "child_option", "parent_option"), [
    ("3056", 0, 1),  # "Bb × Bb" is the parent's "Bb × Bb", not its "bb × bb"
    ("2806", 6, 0),  # "BB BB"
    ("5545", 8, 3),  # "ii", not "II"
    ("5545", 9, 1),
    ("10814", 9, 3),  # "Tl ⊃ El", not "tL ⊃ eL"
    ("8788", 6, 1),  # "$6,049 " byte for byte, not "$6049"
])
def test_rule3_case_exact_option_pairs(pro_edges, child, child_option, parent_option) -> None:
    assert pro_edges[child]["option_map"][child_option] == parent_option


def test_rule3_tl_el_is_an_added_option(pro_edges) -> None:
    assert pro_edges["10814"]["option_map"][4] == -1  # "tL ⊃ eL" is not in the parent


def test_rule4_nan_is_the_text_of_mmlu_pro_9682s_key(mmlu_graph, pro_edges) -> None:
    assert mmlu_graph.item("mmlu-pro:9682").key_text == "nan"
    e = pro_edges["9682"]
    assert e["key_inherited"] is True  # pandas' "nan" for MMLU's option "None"
    assert e["option_map"][4] == 3


def test_rule5_mmmlu_en_us_copies_with_mojibake_copy_their_options(mmlu_graph, mmlu_lineage) -> None:
    edges = _edges(mmlu_lineage, "mmmlu-en-us-balanced", "mmlu")
    mojibake = [e for e in edges.values() if any("â€" in o for o in mmlu_graph.item(f"mmmlu-en-us-balanced:{e['child_item']}").options)]
    assert len(mojibake) >= 14  # the 14 copies that showed 0 (or some) options copied, and more
    assert all(e["text_repaired"] and e["options_copied"] == 4 and e["key_inherited"] for e in mojibake)
    # No copy adds an option (college_computer_science/test/94 stores MMLU's "None" as empty).
    assert [e["child_item"] for e in edges.values() if e["options_added"]] == []
