"""The MMLU family linked from ../shared/data (the foundation issue's acceptance checks)."""

from __future__ import annotations

import pyarrow.compute as pc
import pytest

from croissant_lineage.lineage.graph import relatives_of
from croissant_lineage.lineage.items import LETTERS
from tests.golden.figures import load as pinned_figures

pytestmark = pytest.mark.realdata


def _stats(lineage, child, parent):
    (s,) = [s for s in lineage.summary.to_dict()["derivations"] if s["child"] == child and s["parent"] == parent]
    return s


def _pinned(child, parent):
    """The derivation's summary pinned in tests/real_figures.json (python3 -m tests.golden.figures)."""
    return pinned_figures()["link"]["derivations"][f"{child}<-{parent}"]


def test_mmlu_pro_links_to_mmlu(mmlu_lineage) -> None:
    s = _stats(mmlu_lineage, "mmlu-pro", "mmlu")
    assert s["selected"] == 6810  # src starts with ori_mmlu
    assert s["linked"] == _pinned("mmlu-pro", "mmlu")["linked"]
    assert s["linked"] + s["unmatched"] == s["selected"]


def test_mmlu_redux_links_to_mmlu(mmlu_lineage) -> None:
    s = _stats(mmlu_lineage, "mmlu-redux", "mmlu")
    assert s["selected"] == 5700
    assert s["linked"] == _pinned("mmlu-redux", "mmlu")["linked"]
    assert _stats(mmlu_lineage, "mmlu-redux-2.0", "mmlu")["linked"] == _pinned("mmlu-redux-2.0", "mmlu")["linked"]


def test_hub_release_links_to_2020_release_by_text(mmlu_lineage) -> None:
    s = _stats(mmlu_lineage, "mmlu", "mmlu-2020")
    # 14 rows of the Hub release are new; everything else has a 2020 counterpart.
    assert s["linked"] == _pinned("mmlu", "mmlu-2020")["linked"]
    assert s["linked"] >= 14042 - 20
    e = mmlu_lineage.edges
    shifted = e.filter(
        pc.and_(pc.equal(e["child_dataset"], "mmlu"), pc.not_equal(e["child_item"], e["parent_item"]))
    )
    # 11 subjects do not line up row for row: the links must not assume index alignment.
    subjects = {i.split("/")[0] for i in shifted.column("child_item").to_pylist()}
    assert {"professional_psychology", "miscellaneous", "high_school_physics"} <= subjects


def test_3542_options_copied_added_and_key_inherited(mmlu_graph) -> None:
    (edge,) = mmlu_graph.parents("mmlu-pro:3542")
    assert edge.parent == "mmlu:college_chemistry/test/86"
    assert (edge.options_copied, edge.options_added, edge.key_inherited) == (4, 6, True)
    assert edge.activity == "option_expansion"


def test_6268_key_inherited_and_near_copy_option_added(mmlu_graph) -> None:
    (edge,) = mmlu_graph.parents("mmlu-pro:6268")
    child = mmlu_graph.item("mmlu-pro:6268")
    parent = mmlu_graph.item(edge.parent)
    assert child.key_text == "> 95%" and parent.key_text == "> 95%"
    assert edge.key_inherited is True
    added = [child.options[i] for i, m in enumerate(edge.option_map) if m == -1]
    assert "95-100%" in added
    assert edge.option_map[LETTERS.index(child.key)] == LETTERS.index(parent.key)


def test_1932_and_1933_are_duplicates(mmlu_graph, mmlu_lineage) -> None:
    assert mmlu_graph.duplicates("mmlu-pro:1932") == ["mmlu-pro:1933"]
    fam = relatives_of(mmlu_graph, "mmlu-pro:1933")
    assert fam.duplicates == ("mmlu-pro:1932",)
    assert fam.ancestors[0].ref == mmlu_graph.parents("mmlu-pro:1932")[0].parent


def test_family_lookup_reaches_snapshots_translations_and_documented(mmlu_graph) -> None:
    fam = relatives_of(mmlu_graph, "mmlu:college_chemistry/test/86")
    refs = {r.ref: r for r in fam.descendants}
    assert "mmlu-pro:3542" in refs
    assert refs["mmlu-pro@2025-10-01:3542"].depth == 3
    assert "global-mmlu-fr:college_chemistry/test/86" in refs
    assert {d["child"] for d in fam.documented} == {"mmmlu", "global-mmlu"}


def test_null_option_keeps_its_letter(mmlu_graph) -> None:
    # Global-MMLU's subset stores the option text "None" as null: it stays an (empty) option,
    # so the letters after it do not shift and the key names the same option as in MMLU.
    item = mmlu_graph.item("global-mmlu-en:college_mathematics/test/21")
    parent = mmlu_graph.item("mmlu:college_mathematics/test/21")
    assert len(item.options) == len(parent.options) == 4
    assert item.options[0] == "" and item.key_text == parent.key_text
