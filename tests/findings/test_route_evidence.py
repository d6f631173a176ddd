"""Routing by the edges' per-content statuses, on edges the linker builds from the items:
a reformatted copy (certain), a number-perturbed child (re-check: key recomputed), 50
templated variants of one parent (one grouped line), a re-annotated key (unaffected)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from croissant_lineage.family.spec import Derivation, LinkRule
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import ROUTE_STATUSES, route
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.linking.linker import link_derivation
from tests.findings_helpers import lineage
from tests.helpers import items_table

REVIEWER = Source("Invented reviewer", kind="person")


def _n(item: str, stem: str, value: float, **kw: Any) -> dict[str, Any]:
    return {"item": item, "stem": stem, "key_kind": "number", "key_text": f"{value:g}", "key_value": value, **kw}


STEM = "Ann has {} apples and buys 5 more. How many apples has she?"
ROOT = [_n("0", STEM.format(3), 8.0), _n("1", "A train runs 60 km an hour for 2 hours. How far?", 120.0)]


def _linked(name: str, rows: list[dict[str, Any]], activity: str, child_field: str | None = None) -> tuple[pa.Table, list[dict[str, Any]]]:
    child, parent = items_table(name, rows), items_table("root", ROOT)
    deriv = Derivation(name, "root", activity, LinkRule(by="id", child_field=child_field))
    edges = link_derivation(deriv, child, parent)[0]
    return child, edges.to_pylist()


@pytest.fixture(scope="module")
def graph() -> LineageGraph:
    parts = [
        _linked("copy", ROOT, "format_conversion"),
        _linked("pert", [_n("0", STEM.format(4), 9.0), ROOT[1]], "perturbation"),
        _linked("tmpl", [{**_n(str(i), STEM.format(i), i + 5.0), "subject": "0"} for i in range(50)],
                "templated_variants", child_field="subject"),
        _linked("ann", [_n("0", STEM.format(3), 9.0)], "re_annotation"),
    ]
    tables = [items_table("root", ROOT), *(t for t, _ in parts)]
    return LineageGraph(lineage(tables, [e for _, es in parts for e in es]))


def _key_finding() -> Finding:
    return Finding(item="root:0", target="key", kind="wrong_key", source=REVIEWER, proposed="9")


def test_a_key_finding_reaches_copies_certainly_and_recomputed_keys_for_re_check(graph: LineageGraph) -> None:
    q = route(graph, _key_finding())
    assert (q.row("copy:0").status, q.row("copy:0").certainty) == ("inherited", "certain")
    pert = q.row("pert:0")
    assert (pert.status, pert.certainty, pert.rank) == ("re-check", "unverified", 3)
    assert pert.note.startswith("re-check: key recomputed")
    assert "re-check" in ROUTE_STATUSES
    assert q.row("ann:0").status == "unaffected"  # a re-annotated key: not the questioned one
    assert (q.row("tmpl:3").status, q.row("tmpl:3").certainty) == ("inherited", "certain")  # 3 + 5 = 8
    assert {q.row(f"tmpl:{i}").status for i in range(50) if i != 3} == {"re-check"}


def test_notes_name_no_options_where_the_items_have_none(graph: LineageGraph) -> None:
    q = route(graph, _key_finding())
    assert not [r.ref for r in q.rows if "option" in r.note]


def test_templated_variants_are_one_grouped_line_not_versions(graph: LineageGraph) -> None:
    q = route(graph, _key_finding())
    assert q.folds == []
    lines = [ln for ln in q.lines() if "tmpl" in ln.datasets]
    grouped = [ln for ln in lines if ln.kind == "group"]
    assert [(ln.count, ln.status) for ln in grouped] == [(49, "re-check")]
    assert grouped[0].note.startswith("49 variants of root:0")
    assert [ln.refs for ln in lines if ln.kind == "row"] == [("tmpl:3",)]


def test_a_stem_finding_is_unverified_across_an_edited_stem(graph: LineageGraph) -> None:
    q = route(graph, Finding(item="root:0", target="stem", kind="bad_question_clarity", source=REVIEWER))
    assert (q.row("copy:0").status, q.row("copy:0").certainty) == ("inherited", "certain")
    pert = q.row("pert:0")
    assert (pert.status, pert.certainty, pert.rank, pert.letter) == ("unverified", "unverified", 3, None)
    assert pert.note.startswith("unverified: stem edited at perturbation")
    assert {q.row(f"tmpl:{i}").status for i in range(50) if i != 3} == {"unverified"}
    assert q.row("tmpl:3").status == "inherited"  # the parent's stem, word for word
    (group,) = [ln for ln in q.lines() if ln.kind == "group"]
    assert (group.count, group.status, group.rank) == (49, "unverified", 3)
