"""The snapshot chain of a dataset, and how consecutive snapshots' items join.

A family spec declares later snapshots of a dataset as derivations whose activity is in
:data:`SNAPSHOT_ACTIVITIES`; :func:`snapshot_chain` lines them up oldest first. Snapshots
whose ids differ (MMLU 2020 -> the Hub release) join through the lineage edges
(:func:`joins_from_edges`).
"""

from __future__ import annotations

import pyarrow as pa

from croissant_lineage.errors import SpecError
from croissant_lineage.family.spec import VERSION_ACTIVITIES
from croissant_lineage.lineage.info import DerivationInfo, FamilyInfo
from croissant_lineage.linking.itemdiff import REPLACED_BELOW

__all__ = [
    "SNAPSHOT_ACTIVITIES",
    "joins_from_edges",
    "needs_joins",
    "resolve_chain",
    "snapshot_chain",
]


#: Derivation activities that make a dataset a later snapshot of its parent: the family
#: spec's :data:`~croissant_lineage.family.spec.VERSION_ACTIVITIES`, under the audit's name.
SNAPSHOT_ACTIVITIES = VERSION_ACTIVITIES


def snapshot_chain(family: FamilyInfo, dataset: str) -> list[DerivationInfo]:
    """The snapshot derivations (activity in :data:`SNAPSHOT_ACTIVITIES`) linking
    ``dataset`` to its earlier and later snapshots, oldest first.

    Returns:
        Derivations ``d`` with ``d.parent`` the older snapshot; empty when the dataset
        has no other snapshot.

    Raises:
        SpecError: the dataset is unknown, or a snapshot has several later snapshots.
    """
    family.dataset(dataset)
    snaps = [d for d in family.derivations if d.activity in SNAPSHOT_ACTIVITIES and d.method is not None]
    by_child = {d.child: d for d in snaps}
    by_parent: dict[str, list[DerivationInfo]] = {}
    for d in snaps:
        by_parent.setdefault(d.parent, []).append(d)
    first = dataset
    while first in by_child:
        first = by_child[first].parent
    chain: list[DerivationInfo] = []
    cur = first
    while cur in by_parent:
        nxt = by_parent[cur]
        if len(nxt) > 1:
            raise SpecError(
                f"snapshot {cur!r} has several later snapshots ({', '.join(d.child for d in nxt)})",
                path=family.path,
                hint="a snapshot chain must be linear",
            )
        chain.append(nxt[0])
        cur = nxt[0].child
    return chain


def _default_dataset(family: FamilyInfo) -> str:
    best: tuple[int, str] | None = None
    for name in family.dataset_names():
        n = len(snapshot_chain(family, name))
        if n and (best is None or n > best[0]):
            best = (n, name)
    if best is None:
        raise SpecError(f"family {family.name!r} declares no snapshot derivations", path=family.path)
    return best[1]


def resolve_chain(family: FamilyInfo, dataset: str | None = None) -> list[DerivationInfo]:
    """The snapshot chain of ``dataset`` (default: the family's longest chain).

    Returns:
        The chain's derivations, oldest first (never empty).

    Raises:
        SpecError: unknown dataset, or it has no other snapshot.
    """
    name = dataset or _default_dataset(family)
    chain = snapshot_chain(family, name)
    if not chain:
        raise SpecError(
            f"dataset {name!r} has no other snapshot in family {family.name!r}",
            path=family.path,
            hint=f"give one of: {', '.join(sorted({d.child for d in family.derivations if d.activity in SNAPSHOT_ACTIVITIES}))}",
        )
    return chain


def needs_joins(d: DerivationInfo) -> bool:
    """True when a snapshot derivation's items join through lineage edges (ids differ)."""
    return not d.joins_by_own_id


def joins_from_edges(
    edges: pa.Table,
    child_dataset: str,
    parent_dataset: str,
    *,
    unmatched: pa.Table | None = None,
    min_score: float = REPLACED_BELOW,
) -> dict[str, str]:
    """A one-to-one ``new id -> old id`` mapping from lineage edges ``child -> parent``.

    Edges may link several children to one parent (identical items within a dataset are
    linked ambiguously, with the tied parents as ``alternatives``); a snapshot join must
    be one-to-one. Children whose own id is among their candidates take it first; the
    rest take their first free candidate, best edge score first. Children the linker
    left unmatched join their best candidate when it is free and scores at least
    ``min_score`` (a re-release's heavily edited item is still the same item).

    Args:
        edges: An edges table (``EDGES_SCHEMA``).
        child_dataset: The newer snapshot (the edges' child).
        parent_dataset: The older snapshot (the edges' parent).
        unmatched: The linker's unmatched table (``UNMATCHED_SCHEMA``), optional.
        min_score: Lowest ``best_score`` of an unmatched child that still joins.

    Returns:
        The mapping; children left without a free candidate are not in it.
    """

    def side(table: pa.Table, child_col: str, parent_col: str) -> pa.Table:
        mask = pa.compute.and_(
            pa.compute.equal(table.column(child_col), child_dataset),
            pa.compute.equal(table.column(parent_col), parent_dataset),
        )
        return table.filter(mask)

    sub = side(edges, "child_dataset", "parent_dataset")
    cands: list[tuple[float, int, str, list[str]]] = []
    for n, r in enumerate(sub.select(["child_item", "parent_item", "score", "alternatives"]).to_pylist()):
        cands.append((-(r["score"] or 0.0), n, r["child_item"], [r["parent_item"], *(r["alternatives"] or [])]))
    if unmatched is not None and unmatched.num_rows:
        extra = side(unmatched, "child_dataset", "parent_dataset").to_pylist()
        for n, r in enumerate(extra, start=len(cands)):
            if r["best_parent_item"] is not None and (r["best_score"] or 0.0) >= min_score:
                cands.append((-(r["best_score"] or 0.0), n, r["child_item"], [r["best_parent_item"]]))
    cands.sort()
    out: dict[str, str] = {}
    taken: set[str] = set()
    for _s, _n, child, options in cands:
        if child not in out and child in options and child not in taken:
            out[child] = child
            taken.add(child)
    for _s, _n, child, options in cands:
        if child in out:
            continue
        free = next((p for p in options if p not in taken), None)
        if free is not None:
            out[child] = free
            taken.add(free)
    return out
