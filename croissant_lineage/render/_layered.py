"""A small layered (Sugiyama-style) layout for drawing derivation graphs left to right.

Nodes go into columns by generation (the longest path from a root), are ordered within
a column by the mean position of their neighbours (a few sweeps, ties broken by a sort
key so the result is deterministic), then placed: each node as close as possible to the
mean position of its parents (then of its children) while keeping the nodes of a column
apart. The placement is the least-squares fit under those spacing constraints, found by
pool-adjacent-violators (isotonic regression).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Generic, TypeVar

__all__ = ["Layout", "layered_layout"]

N = TypeVar("N", bound=Hashable)


@dataclass(frozen=True)
class Layout(Generic[N]):
    """Where each node goes.

    Attributes:
        layer: Node -> column (0 = roots).
        center: Node -> vertical centre (0 at the top, growing downwards, in the units
            of the sizes given).
        columns: The nodes of each column, top to bottom.
        height: Extent from the top of the highest node to the bottom of the lowest.
    """

    layer: Mapping[N, int]
    center: Mapping[N, float]
    columns: tuple[tuple[N, ...], ...]
    height: float


def _layers(nodes: Sequence[N], parents: Mapping[N, Sequence[N]]) -> dict[N, int]:
    layer: dict[N, int] = {}
    visiting: set[N] = set()

    def depth(n: N) -> int:
        if n in layer:
            return layer[n]
        if n in visiting:  # a cycle: cut it here
            return 0
        visiting.add(n)
        ps = [p for p in parents.get(n, ()) if p != n]
        layer[n] = 1 + max((depth(p) for p in ps), default=-1)
        visiting.discard(n)
        return layer[n]

    for n in nodes:
        depth(n)
    return layer


def _isotonic(values: Sequence[float]) -> list[float]:
    """Least-squares non-decreasing fit of ``values`` (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [sum, count]
    for v in values:
        blocks.append([v, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    out: list[float] = []
    for s, c in blocks:
        out.extend([s / c] * int(c))
    return out


def _place(column: Sequence[N], desired: Mapping[N, float], size: Mapping[N, float], gap: float) -> dict[N, float]:
    """Centres closest (least squares) to ``desired`` with neighbours at least ``gap`` apart."""
    offsets = [0.0]
    for a, b in pairwise(column):
        offsets.append(offsets[-1] + (size[a] + size[b]) / 2 + gap)
    fit = _isotonic([desired[n] - o for n, o in zip(column, offsets, strict=True)])
    return {n: f + o for n, f, o in zip(column, fit, offsets, strict=True)}


def _neighbours(nodes: Sequence[N], parents: Mapping[N, Sequence[N]]) -> tuple[dict[N, list[N]], dict[N, list[N]]]:
    """Each node's parents among ``nodes`` (no self-loops), and each node's children."""
    known = set(nodes)
    ups: dict[N, list[N]] = {n: [p for p in parents.get(n, ()) if p in known and p != n] for n in nodes}
    downs: dict[N, list[N]] = defaultdict(list)
    for n in nodes:
        for p in ups[n]:
            downs[p].append(n)
    return ups, downs


def _ordered_columns(
    nodes: Sequence[N],
    layer: Mapping[N, int],
    ups: Mapping[N, Sequence[N]],
    downs: Mapping[N, Sequence[N]],
    key: Mapping[N, tuple[object, ...]],
    sweeps: int,
) -> list[list[N]]:
    """Nodes per column, ordered by the mean rank of their neighbours (barycentre sweeps,
    down then up; ties broken by ``key``)."""
    n_layers = 1 + max(layer.values(), default=-1)
    columns: list[list[N]] = [[] for _ in range(n_layers)]
    for n in sorted(nodes, key=lambda n: key[n]):
        columns[layer[n]].append(n)

    rank = {n: float(i) for col in columns for i, n in enumerate(col)}

    def reorder(col: list[N], neighbours: Mapping[N, Sequence[N]]) -> None:
        def bary(n: N) -> float:
            ns = neighbours.get(n, ())
            return sum(rank[m] for m in ns) / len(ns) if ns else rank[n]

        col.sort(key=lambda n: (bary(n), key[n]))
        for i, n in enumerate(col):
            rank[n] = float(i)

    for s in range(sweeps):
        if s % 2 == 0:
            for col in columns[1:]:
                reorder(col, ups)
        else:
            for col in reversed(columns[:-1]):
                reorder(col, downs)
    return columns


def _centres(
    columns: Sequence[Sequence[N]],
    layer: Mapping[N, int],
    ups: Mapping[N, Sequence[N]],
    downs: Mapping[N, Sequence[N]],
    size: Mapping[N, float],
    gap: float,
) -> dict[N, float]:
    """Vertical centres: each node under its parents (a pass down), then each parent
    centred on its children in the next column (a pass up)."""
    center: dict[N, float] = {}
    for i, col in enumerate(columns):  # down: under the parents
        desired = {}
        for n in col:
            ps = [center[p] for p in ups[n] if p in center]
            desired[n] = sum(ps) / len(ps) if ps else 0.0
        if i == 0:
            desired = {n: 0.0 for n in col}
        center.update(_place(col, desired, size, gap))
    for col in reversed(columns[:-1]):  # up: parents centred on their children
        desired = {}
        for n in col:
            cs = [center[c] for c in downs.get(n, ()) if layer[c] == layer[n] + 1]
            desired[n] = sum(cs) / len(cs) if cs else center[n]
        center.update(_place(col, desired, size, gap))
    return center


def layered_layout(
    nodes: Sequence[N],
    parents: Mapping[N, Sequence[N]],
    *,
    size: Mapping[N, float],
    gap: float,
    sort_key: Mapping[N, tuple[object, ...]] | None = None,
    sweeps: int = 4,
) -> Layout[N]:
    """Lay a directed graph out in columns.

    Args:
        nodes: Every node (parents not listed here are ignored).
        parents: Node -> its parents among ``nodes``.
        size: Node -> its height.
        gap: Least free space between two nodes of a column.
        sort_key: Node -> a tuple ordering nodes that compete for the same place
            (default: their position in ``nodes``).
        sweeps: Ordering sweeps (down then up count as two).

    Returns:
        The :class:`Layout`.
    """
    ups, downs = _neighbours(nodes, parents)
    key = sort_key or {n: (i,) for i, n in enumerate(nodes)}
    layer = _layers(nodes, ups)
    columns = _ordered_columns(nodes, layer, ups, downs, key, sweeps)
    center = _centres(columns, layer, ups, downs, size, gap)
    if center:
        top = min(center[n] - size[n] / 2 for n in nodes)
        bottom = max(center[n] + size[n] / 2 for n in nodes)
        center = {n: c - top for n, c in center.items()}
        height = bottom - top
    else:
        height = 0.0
    return Layout(
        layer=layer,
        center=center,
        columns=tuple(tuple(c) for c in columns),
        height=height,
    )
