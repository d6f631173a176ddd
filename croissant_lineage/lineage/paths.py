"""Following an option across derivation edges, through their ``option_map``.

An edge's ``option_map`` has one entry per child option: the index of the parent option
it was copied from, or ``-1`` when the option was added at that step. A parent option
whose index appears nowhere in the map was dropped. This module is the one place that
reads the map to carry an option (or the key, as the index of the key's option) from
one side of an edge to the other, one edge at a time (:func:`step_option`) or down a
path of edges (:func:`follow_option`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from croissant_lineage.lineage.graph import Edge

__all__ = ["OptionStep", "follow_option", "step_option"]

#: What became of an option across one edge.
StepStatus = Literal["carried", "added", "dropped", "unknown"]


@dataclass(frozen=True)
class OptionStep:
    """An option carried across one edge.

    Attributes:
        status: ``carried``: the option is on the far side, at ``index``; ``added``
            (going up only): the child option was added at this step, no parent option
            corresponds; ``dropped`` (going down only): the parent option is not among
            the child's; ``unknown``: the edge has no ``option_map``, the index is None or
            negative, or (going up) it is past the end of the map.
        index: The option's index on the far side; None unless ``carried``.
    """

    status: StepStatus
    index: int | None = None


def step_option(option_map: Sequence[int] | None, index: int | None, *, up: bool = False) -> OptionStep:
    """Carry option ``index`` across one edge whose map is ``option_map``.

    Args:
        option_map: The edge's ``option_map`` (None or empty: correspondence unknown).
        index: The option's index on the near side: the parent's when going down, the
            child's when going up (None: unknown).
        up: True to go from child to parent, False (default) from parent to child.

    Returns:
        The :class:`OptionStep`. Going down, a parent option copied to several child
        options is carried to the first of them.
    """
    if not option_map or index is None or index < 0:
        return OptionStep("unknown")
    if up:
        if index >= len(option_map):
            return OptionStep("unknown")
        parent_index = option_map[index]
        return OptionStep("added") if parent_index < 0 else OptionStep("carried", parent_index)
    if index in option_map:
        return OptionStep("carried", list(option_map).index(index))
    return OptionStep("dropped")


def follow_option(path: Iterable[Edge], index: int | None) -> int | None:
    """Follow a parent option index down a path of edges, ancestor side first.

    Args:
        path: The edges from an item down to one of its descendants, nearest first
            (e.g. :attr:`croissant_lineage.lineage.graph.Relative.path` of a descendant).
        index: The option's index on the first edge's parent (e.g. the key's option).

    Returns:
        The option's index in the last edge's child; None as soon as one edge does not
        carry it (the option was dropped, or an edge has no ``option_map``) or when
        ``index`` is None. An empty path returns ``index`` unchanged.
    """
    for edge in path:
        index = step_option(edge.option_map, index).index
        if index is None:
            return None
    return index
