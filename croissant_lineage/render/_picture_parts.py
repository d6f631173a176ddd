"""What a family picture is made of: its boxes, its arrows, and the lines of text in a box.

:mod:`croissant_lineage.render.picture` decides them, :mod:`croissant_lineage.render._picture_draw`
draws them; both import this module, neither imports the other's caller.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["INK", "Line", "PictureEdge", "PictureNode"]

#: Colour of ordinary text.
INK = "#1A1A1A"


@dataclass(frozen=True)
class PictureNode:
    """One box of the picture.

    Attributes:
        ref: The item ref, or the dataset name of a documented-coverage box.
        dataset: The dataset.
        item: The item id (None for documented coverage).
        layer: Column, 0 = oldest.
        status: Routing status (``inherited``, ``added``, ``unaffected``, ``unverified``, ``re-check``)
            or None when no finding was routed.
        certainty: ``certain``, ``probable``, ``unverified``, ``none`` or None.
        marks: Finding marks shown on the box (one line each).
        focus: True for the item the picture is about.
        documented: True for a dataset known only from documented coverage.
    """

    ref: str
    dataset: str
    item: str | None
    layer: int
    status: str | None = None
    certainty: str | None = None
    marks: tuple[str, ...] = ()
    focus: bool = False
    documented: bool = False


@dataclass(frozen=True)
class PictureEdge:
    """One arrow (parent -> child) or copy link of the picture.

    Attributes:
        parent, child: Node refs (for ``duplicate``: the two copies).
        kind: ``link`` (exact, id or index), ``fuzzy``, ``ambiguous``, ``documented``
            or ``duplicate``.
        label: The activity and evidence written on the arrow.
    """

    parent: str
    child: str
    kind: str
    label: str


@dataclass(frozen=True)
class Line:
    """One line of text in a box."""

    text: str
    size: float
    weight: str = "normal"
    style: str = "normal"
    color: str = INK
    status: str | None = None  # draw this routing status's marker before the text
