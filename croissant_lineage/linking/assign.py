"""One child per parent: a maximum-weight assignment where greedy choices collide.

For ``re_release`` and ``copy`` derivations a parent item has at most one child item.
Each child first picks its best parent on its own (:mod:`croissant_lineage.linking.match`);
where two children picked the same parent, the connected group of children and
candidate parents around them is solved as one assignment problem
(:func:`scipy.optimize.linear_sum_assignment`, maximum total weight), so that a
parent with an exact copy never also takes a fuzzy child. Groups without a collision
keep their choices.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = ["assign_one_to_one", "candidate_weight", "children_in_collision"]


def candidate_weight(exact: bool, evidence: Sequence[float], stem_score: float) -> float:
    """A candidate pair's weight, ordered as (equal normalised stems, option evidence
    of :func:`~croissant_lineage.linking.match.option_evidence` in its order, stem
    score): each term outweighs all those after it for the values linking produces."""
    same, score, n_bytes, n_cased, n_equal, copied = evidence
    return (
        1e10 * exact + 1e9 * bool(same) + 1e6 * float(score) + 1e4 * min(n_bytes, 99)
        + 1e3 * min(n_cased, 9) + 1e2 * min(n_equal, 9) + 10 * min(copied, 9) + float(stem_score) / 10
    )


def _find(root: dict[tuple[str, int], tuple[str, int]], x: tuple[str, int]) -> tuple[str, int]:
    while root.setdefault(x, x) != x:
        root[x] = root[root[x]]
        x = root[x]
    return x


def _components(cands: Mapping[int, Sequence[tuple[float, int]]]) -> dict[tuple[str, int], list[int]]:
    """Children grouped by the connected component of the child-candidate graph."""
    root: dict[tuple[str, int], tuple[str, int]] = {}
    for i, cs in cands.items():
        for _, j in cs:
            a, b = _find(root, ("c", i)), _find(root, ("p", j))
            if a != b:
                root[max(a, b)] = min(a, b)
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i in sorted(cands):
        groups[_find(root, ("c", i))].append(i)
    return groups


def children_in_collision(choices: Mapping[int, int], cands: Mapping[int, Sequence[tuple[Any, ...]]]) -> list[int]:
    """The children of the components of the child-candidate graph where two children
    chose the same parent (those :func:`assign_one_to_one` re-assigns), sorted.

    ``cands``: child -> its candidates, tuples whose second field is the parent (as
    :func:`assign_one_to_one`'s ``(weight, parent)``); a child's choice must be among them.

    Found from the parents chosen twice, through the graph's edges, so that a run
    without collisions costs one count of the choices.
    """
    claimed: dict[int, int] = defaultdict(int)
    for j in choices.values():
        claimed[j] += 1
    todo = [j for j, n in claimed.items() if n > 1]
    if not todo:
        return []
    kids_of: dict[int, list[int]] = defaultdict(list)
    for i, cs in cands.items():
        for c in cs:
            kids_of[c[1]].append(i)
    seen_parents, seen_kids = set(todo), set()
    while todo:
        j = todo.pop()
        for i in kids_of[j]:
            if i not in seen_kids:
                seen_kids.add(i)
                fresh = {c[1] for c in cands[i]} - seen_parents
                seen_parents |= fresh
                todo.extend(fresh)
    return sorted(seen_kids)


def assign_one_to_one(
    choices: Mapping[int, int], cands: Mapping[int, Sequence[tuple[float, int]]]
) -> dict[int, int | None]:
    """Re-assign the children whose greedy choices collide.

    Args:
        choices: Child -> the parent it picked on its own.
        cands: Child -> its candidate parents as ``(weight, parent)`` (weights > 0); a
            child's choice is among its candidates.

    Returns:
        For each child of a component with a collision, its assigned parent, or None
        when the assignment leaves it without one; children not listed keep their choice.
    """
    claimed: dict[int, int] = defaultdict(int)
    for j in choices.values():
        claimed[j] += 1
    out: dict[int, int | None] = {}
    for kids in _components(cands).values():
        if all(claimed[choices[i]] == 1 for i in kids if i in choices):
            continue
        parents = sorted({j for i in kids for _, j in cands[i]})
        col = {j: c for c, j in enumerate(parents)}
        weights = np.zeros((len(kids), len(parents)))
        for r, i in enumerate(kids):
            for w, j in cands[i]:
                weights[r, col[j]] = max(weights[r, col[j]], w)
        rows, cols = linear_sum_assignment(weights, maximize=True)
        got = {kids[r]: parents[c] for r, c in zip(rows, cols, strict=True) if weights[r, c] > 0}
        for i in kids:
            out[i] = got.get(i)
    return out
