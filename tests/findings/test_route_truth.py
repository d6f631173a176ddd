"""Route statuses against the synthetic generator's truth.

On families of every shape and any seed, a key finding and a stem finding on a root item
with children are routed through the linked lineage, and each child's row follows from
what the truth says its derivation did: a copied key is inherited (certain where the
link is), a translated key inherited too (certain where its option's place carries it, else
probable: not compared), a recomputed key is
``re-check``; a copied or translated stem is inherited, an edited (rewritten) stem leaves
a stem finding ``unverified``. Templated variants of one parent are one grouped line per
status with their count, never item versions, and no note names options on items without.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import Queue, route
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.testing.problems import SHAPES
from croissant_lineage.testing.synthetic import SyntheticFamily, generate_family
from croissant_lineage.workflows import link

REVIEWER = Source("Invented reviewer", kind="person")
ITEMS = 200
_ROOT = "syn-root"

#: The row a child gets, from the truth: (status, rank) per key fate of a key finding
#: (a translated key's rank: see ``_expected``)...
KEY_ROW = {"copied": ("inherited", None), "translated": ("inherited", 2), "recomputed": ("re-check", 3),
           "edited": ("unaffected", 4), "added": ("unaffected", 4), "dropped": ("unaffected", 4),
           "absent": ("unaffected", 4)}
#: ... and per stem fate of a stem finding (None: 1 or 2, as sure as the link).
#: A translated stem is not compared with its parent's: the defect may or may not survive it (probable).
STEM_ROW = {"copied": ("inherited", None), "translated": ("inherited", 2), "edited": ("unverified", 3)}
#: A seed is no smaller for being shrunk: a failing example is reported as drawn.
_NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


def _truth(fam: SyntheticFamily) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(fam.folder / "truth.parquet").to_pylist()
    return rows


def _parents(truth: list[dict[str, Any]]) -> list[str]:
    """Root items with children of every kind the family has: each variants' parent, the
    first perturbed, converted and translated parents (sorted, without repeats)."""
    picked = {r["parent_item"] for r in truth if r["child_dataset"] == "syn-variants"}
    for dataset in ("syn-perturbed", "syn-converted", "syn-xx"):
        picked.add(min((r["parent_item"] for r in truth if r["child_dataset"] == dataset), key=int))
    return sorted(picked, key=int)


def _sure(graph: LineageGraph, ref: str) -> bool:
    (edge,) = graph.parents(ref)
    return edge.method not in ("fuzzy", "unverified") and not edge.ambiguous


def _expected(graph: LineageGraph, child: str, table: dict[str, tuple[str, int | None]], t: dict[str, Any],
              target: str) -> tuple[str, int]:
    status, rank = table[t[target]]
    if target == "key" and t["key"] == "translated" and t["key_same"]:
        rank = None  # a translated key carried by its option's place: as sure as the link
    return status, rank if rank is not None else (1 if _sure(graph, child) else 2)


def _check(q: Queue, graph: LineageGraph, children: list[dict[str, Any]], target: str) -> Counter[str]:
    """Every child's (status, rank) against the truth; the statuses seen."""
    table = KEY_ROW if target == "key" else STEM_ROW
    seen: Counter[str] = Counter()
    wrong = []
    for t in children:
        ref = f"{t['child_dataset']}:{t['child_item']}"
        row = q.row(ref)
        want = _expected(graph, ref, table, t, target)
        if (row.status, row.rank) != want:
            wrong.append((ref, t["kind"], t[target], want, (row.status, row.rank), row.note))
        seen[row.status] += 1
    assert wrong == []
    return seen


def _check_variants(q: Queue, parent: str, children: list[dict[str, Any]]) -> None:
    """The templated variants of ``parent``: one grouped line per status (its count), no folds."""
    refs = {f"syn-variants:{t['child_item']}" for t in children if t["child_dataset"] == "syn-variants"}
    if not refs:
        return
    assert q.folds == []
    statuses = Counter(q.row(r).status for r in refs)
    lines = [ln for ln in q.lines() if set(ln.refs) & refs]
    assert sorted(ref for ln in lines for ref in ln.refs) == sorted(refs)  # each variant once
    for ln in lines:
        assert set(ln.refs) <= refs and ln.kind != "versions"
        if statuses[ln.status] > 1:
            assert (ln.kind, ln.count) == ("group", statuses[ln.status])
            assert ln.note.startswith(f"{ln.count} variants of {_ROOT}:{parent}")


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          phases=_NO_SHRINK)
@given(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**16))
def test_route_statuses_follow_the_truth(tmp_path: Path, shape: str, seed: int) -> None:
    fam = generate_family(tmp_path / f"{shape}-{seed}", ITEMS, seed=seed, shape=shape, force=True)
    truth = _truth(fam)
    graph = LineageGraph(link(fam.spec))
    seen: Counter[tuple[str, str]] = Counter()
    for parent in _parents(truth):
        children = [t for t in truth if t["parent_item"] == parent]
        key = route(graph, Finding(item=f"{_ROOT}:{parent}", target="key", kind="wrong_key", source=REVIEWER,
                                   proposed="42"))
        stem = route(graph, Finding(item=f"{_ROOT}:{parent}", target="stem", kind="bad_question_clarity",
                                    source=REVIEWER))
        for target, q in (("key", key), ("stem", stem)):
            seen.update((target, s) for s in _check(q, graph, children, target).elements())
            _check_variants(q, parent, children)
            if shape != "text":  # items without options: no note names one
                assert not [r.note for r in q.rows if "option" in r.note]
    assert seen[("key", "inherited")] and seen[("key", "re-check")]
    assert seen[("stem", "inherited")] and seen[("stem", "unverified")]
    _check_upwards(graph, truth)


#: A finding on a child: the root item's status per fate of the questioned content.
UP_ROW = {"key": {"copied": "added", "translated": "added", "recomputed": "unaffected"},
          "stem": {"copied": "added", "translated": "added", "edited": "unverified"}}


def _check_upwards(graph: LineageGraph, truth: list[dict[str, Any]]) -> None:
    """A finding on the first child of each derivation reaches the root where the content
    came from it: the key where copied or translated (there it first appears), a rewritten
    stem unverified, a recomputed key not at all."""
    wrong = []
    for dataset in sorted({t["child_dataset"] for t in truth}):
        t = next(r for r in truth if r["child_dataset"] == dataset)
        for target, kind in (("key", "wrong_key"), ("stem", "bad_question_clarity")):
            q = route(graph, Finding(item=f"{dataset}:{t['child_item']}", target=target, kind=kind, source=REVIEWER))
            root = q.row(f"{_ROOT}:{t['parent_item']}")
            if root.status != UP_ROW[target][t[target]]:
                wrong.append((dataset, target, t[target], root.status, root.note))
    assert wrong == []


@pytest.mark.parametrize("shape", SHAPES)
def test_each_child_kind_routes_as_a_reviewer_expects(tmp_path: Path, shape: str) -> None:
    """One family per shape, pinned per derivation: what a key and a stem finding on the
    variants' parent give each kind of child."""
    fam = generate_family(tmp_path / shape, ITEMS, seed=5, shape=shape)
    truth = _truth(fam)
    graph = LineageGraph(link(fam.spec))
    (parent,) = {r["parent_item"] for r in truth if r["child_dataset"] == "syn-variants"}
    key = route(graph, Finding(item=f"{_ROOT}:{parent}", target="key", kind="wrong_key", source=REVIEWER))
    stem = route(graph, Finding(item=f"{_ROOT}:{parent}", target="stem", kind="bad_question_clarity",
                                source=REVIEWER))

    def got(q: Queue, dataset: str) -> set[tuple[str, str]]:
        return {(r.status, r.certainty) for r in q.rows if r.dataset == dataset}

    for copy in ("syn-mirror", "syn-annotated"):
        assert got(key, copy) == got(stem, copy) == {("inherited", "certain")}
    assert got(key, "syn-variants") == {("re-check", "unverified")}
    assert got(stem, "syn-variants") == {("unverified", "unverified")}
    (line,) = [ln for ln in key.lines() if "syn-variants" in ln.datasets]
    assert (line.kind, line.count, line.status) == ("group", 50, "re-check")
    assert key.row(f"{_ROOT}:{parent}").status == "added"
