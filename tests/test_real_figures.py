"""The real MMLU figures pinned exactly: tests/real_figures.json.

Regenerate with ``python3 -m tests.golden.figures`` after a deliberate change, in a commit
that says why. The link summary and the report use the session fixtures; the witness
figures admit the 29 prediction archives (a ``slow`` test).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.golden import figures

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def pinned() -> dict[str, Any]:
    return figures.load()


@pytest.fixture(scope="module")
def real_admission(shared_data: Path, mmlu_lineage: Any) -> Any:
    return figures.admission_of(shared_data, figures.mmlu_pro_snapshot(mmlu_lineage))


def test_link_summary_per_derivation_is_pinned(mmlu_lineage: Any, pinned: dict[str, Any]) -> None:
    got = figures.link_figures(mmlu_lineage)
    # one derivation at a time, so that a failure names the derivation that moved
    assert sorted(got["derivations"]) == sorted(pinned["link"]["derivations"])
    for name, stats in pinned["link"]["derivations"].items():
        assert got["derivations"][name] == stats, name
    assert got["duplicates"] == pinned["link"]["duplicates"]
    assert got["totals"] == pinned["link"]["totals"]


def test_family_report_figures_are_pinned(mmlu_graph: Any, shared_data: Path, pinned: dict[str, Any]) -> None:
    got = figures.report_figures(mmlu_graph, shared_data)
    assert got["findings"] == pinned["report"]["findings"]
    for name, fig in pinned["report"]["figures"].items():
        assert got["figures"][name] == fig, name
    assert sorted(got["figures"]) == sorted(pinned["report"]["figures"])


def test_translation_figures_are_pinned(mmlu_lineage: Any, pinned: dict[str, Any]) -> None:
    assert figures.translation_figures(mmlu_lineage) == pinned["translations"]


def test_witness_headline_figures_are_pinned(
    mmlu_lineage: Any, shared_data: Path, real_admission: Any, pinned: dict[str, Any]
) -> None:
    got = figures.witness_figures(mmlu_lineage, shared_data, real_admission)
    assert got == pinned["witnesses"]


def test_pinned_figures_agree_with_what_the_data_documents(pinned: dict[str, Any]) -> None:
    """Figures known independently of this code (the data's own documentation)."""
    d = pinned["link"]["derivations"]
    assert d["mmlu-pro<-mmlu"]["selected"] == 6810  # MMLU-Pro rows whose src starts with ori_mmlu
    assert d["mmlu-redux<-mmlu"]["selected"] == 5700
    w = pinned["witnesses"]
    assert (w["archives"], w["records"]) == (29, 347_258)
    assert pinned["report"]["figures"]["flagged_parents"]["by_kind"] == {"no_correct_answer": 35, "wrong_key": 107}
