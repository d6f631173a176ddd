"""Folding an item's versions in a re-review queue: one row per item, with its story.

A benchmark re-published as a dated snapshot, or re-released elsewhere, gives each item
one version per release, linked by ``snapshot`` or ``re_release`` edges
(:data:`VERSION_ACTIVITIES`). A maintainer reads them as one item: the queue's text and
HTML views show one row for the versions that a routed finding reaches together, with a
note from the edges between them ("key unchanged since 2024-10-16", "key changed on
2025-10-01"). The queue's ``rows`` (``--json``, ``--expand``) keep every version.

The rules: versions fold when they are rows of the same finding joined by version edges,
none of them at rank 0 (a finding to amend is always its own row). The row shown is the
version nearest to the finding's item (the item itself when it is one of them; ties go to
the older). A version's key changed where its edge says the key was not inherited, its
stem where the edge says the stem changed; dates are the datasets' dates in the family
spec (the dataset name when it has none).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from croissant_lineage.family.spec import VERSION_ACTIVITIES
from croissant_lineage.lineage.graph import Edge, LineageGraph

__all__ = ["VERSION_ACTIVITIES", "RowLike", "VersionFold", "fold_versions"]


class RowLike(Protocol):
    """What folding and the queue's view read of a row (a
    :class:`~croissant_lineage.findings.routing.QueueRow`)."""

    @property
    def rank(self) -> int: ...

    @property
    def ref(self) -> str: ...

    @property
    def dataset(self) -> str: ...

    @property
    def relation(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def certainty(self) -> str: ...

    @property
    def letter(self) -> str | None: ...

    @property
    def transformation(self) -> str: ...

    @property
    def depth(self) -> int: ...

    @property
    def finding(self) -> str | None: ...

    @property
    def note(self) -> str: ...


@dataclass(frozen=True)
class VersionFold:
    """The versions of one item that a queue shows as one row.

    Attributes:
        finding: The routed finding (None: the item was routed as a whole).
        head: The ref of the row shown.
        versions: Every version's ref, oldest first (``head`` among them).
        labels: Each version's date (its dataset's name when undated), same order.
        key_changed: The labels of the versions whose key changed from the previous one.
        stem_edited: The labels of the versions whose stem changed from the previous one.
        key_since: The label since which the key is unchanged.
        note: One line: ``"key unchanged since 2024-10-16"``, ``"key changed on 2025-10-01"``.
    """

    finding: str | None
    head: str
    versions: tuple[str, ...]
    labels: tuple[str, ...]
    key_changed: tuple[str, ...]
    stem_edited: tuple[str, ...]
    key_since: str
    note: str

    @property
    def folded(self) -> tuple[str, ...]:
        """The versions hidden under ``head``."""
        return tuple(v for v in self.versions if v != self.head)

    def to_dict(self) -> dict[str, Any]:
        return {
            "finding": self.finding,
            "head": self.head,
            "versions": list(self.versions),
            "labels": list(self.labels),
            "key_changed": list(self.key_changed),
            "stem_edited": list(self.stem_edited),
            "key_since": self.key_since,
            "note": self.note,
        }


def _dates(graph: LineageGraph) -> dict[str, str]:
    return {d.name: d.date for d in graph.lineage.family.datasets if d.date}


def _version_parent(graph: LineageGraph, ref: str, members: set[str]) -> Edge | None:
    """The edge to the item ``ref`` is a later version of: a version activity's edge, unless
    its parent has several children in ``ref``'s dataset (variants, not versions)."""
    dataset = ref.partition(":")[0]
    for e in graph.parents(ref):
        if e.activity in VERSION_ACTIVITIES and e.parent in members:
            if sum(1 for c in graph.children(e.parent) if c.child.partition(":")[0] == dataset) > 1:
                continue
            return e
    return None


def _components(graph: LineageGraph, refs: Sequence[str]) -> list[list[str]]:
    """Groups of ``refs`` joined by version edges (each group sorted, groups of 2+ only)."""
    members = set(refs)
    root: dict[str, str] = {r: r for r in refs}

    def find(r: str) -> str:
        while root[r] != r:
            root[r] = root[root[r]]
            r = root[r]
        return r

    for ref in refs:
        e = _version_parent(graph, ref, members)
        if e is not None:
            a, b = find(ref), find(e.parent)
            if a != b:
                root[max(a, b)] = min(a, b)
    groups: dict[str, list[str]] = defaultdict(list)
    for ref in refs:
        groups[find(ref)].append(ref)
    return [sorted(g) for _, g in sorted(groups.items()) if len(g) > 1]


def _oldest_first(graph: LineageGraph, group: list[str]) -> list[tuple[str, Edge | None]]:
    """The group's versions from the one with no version parent down, with each one's edge."""
    members = set(group)
    parent_of = {r: _version_parent(graph, r, members) for r in group}
    children: dict[str, list[str]] = defaultdict(list)
    for r, e in parent_of.items():
        if e is not None:
            children[e.parent].append(r)
    order: list[tuple[str, Edge | None]] = []
    stack = sorted((r for r in group if parent_of[r] is None), reverse=True)
    while stack:
        r = stack.pop()
        order.append((r, parent_of[r]))
        stack += sorted(children[r], reverse=True)
    return order


def _fold(
    graph: LineageGraph, group: list[str], rows: dict[str, RowLike], dates: dict[str, str]
) -> VersionFold:
    order = _oldest_first(graph, group)

    def label(ref: str) -> str:
        dataset = ref.partition(":")[0]
        return dates.get(dataset, dataset)

    key_changed = tuple(label(r) for r, e in order if e is not None and e.key_inherited is False)
    stem_edited = tuple(label(r) for r, e in order if e is not None and e.stem_changed)
    key_since = key_changed[-1] if key_changed else label(order[0][0])
    note = f"key changed on {key_since}" if key_changed else f"key unchanged since {key_since}"
    if stem_edited:
        note += f"; stem edited on {', '.join(stem_edited)}"
    position = {r: i for i, (r, _) in enumerate(order)}
    head = min(group, key=lambda r: (rows[r].depth, position[r]))
    versions = tuple(r for r, _ in order)
    return VersionFold(
        finding=rows[head].finding,
        head=head,
        versions=versions,
        labels=tuple(label(r) for r in versions),
        key_changed=key_changed,
        stem_edited=stem_edited,
        key_since=key_since,
        note=note,
    )


def fold_versions(graph: LineageGraph, rows: Sequence[RowLike]) -> list[VersionFold]:
    """The version groups among a queue's rows (see the module rules).

    Args:
        graph: The lineage graph the rows were routed on.
        rows: The queue's rows (of one or several findings).

    Returns:
        One :class:`VersionFold` per group of two or more versions, in row order of their heads.
    """
    dates = _dates(graph)
    by_finding: dict[str | None, dict[str, RowLike]] = defaultdict(dict)
    for r in rows:
        if r.rank > 0 and r.relation != "documented" and r.ref in graph:
            by_finding[r.finding].setdefault(r.ref, r)
    folds = []
    for mine in by_finding.values():
        for group in _components(graph, list(mine)):
            folds.append(_fold(graph, group, mine, dates))
    order = {(r.finding, r.ref): i for i, r in enumerate(rows)}
    return sorted(folds, key=lambda f: order.get((f.finding, f.head), 0))
