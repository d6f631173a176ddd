"""Drawing an item family with matplotlib: box and arrow styles, legend, layout to figure.

Used by :mod:`croissant_lineage.render.picture`, which decides what to draw; this module
only draws it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch
from matplotlib.path import Path as MplPath

from croissant_lineage.render._fonts import clean_text, fit_text, picture_rc, wrap_text
from croissant_lineage.render._layered import Layout
from croissant_lineage.render._palette import STATUS_PALETTE
from croissant_lineage.render._picture_parts import INK, Line, PictureEdge, PictureNode

__all__ = ["STATUS_STYLES", "StatusStyle", "draw_family", "legend_handles", "legend_statuses"]


@dataclass(frozen=True)
class StatusStyle:
    """How a routing status is drawn: colour, border, marker (legend text in ``label``)."""

    label: str
    edgecolor: str
    facecolor: str
    linestyle: Any
    linewidth: float
    marker: str
    filled: bool


#: Routing status -> style (``None``: no finding routed). Okabe-Ito colours; borders and
#: markers differ too, so the styles stay apart in greyscale.
_P = STATUS_PALETTE
STATUS_STYLES: dict[str | None, StatusStyle] = {
    "added": StatusStyle("added: the questioned content entered here", _P["added"].edge, _P["added"].fill, "solid", 2.6, "^", True),
    "inherited": StatusStyle("inherited: carries it from its parent", _P["inherited"].edge, _P["inherited"].fill, "solid", 1.5, "o", True),
    "unaffected": StatusStyle("unaffected: the content does not reach it", _P["unaffected"].edge, _P["unaffected"].fill, (0, (1, 1.2)), 1.4, "o", False),
    "unverified": StatusStyle("unverified: documented coverage, no item data", _P["unverified"].edge, _P["unverified"].fill, (0, (4, 2)), 1.4, "s", False),
    "re-check": StatusStyle("re-check: made from the questioned content (key recomputed)", _P["re-check"].edge, _P["re-check"].fill, (0, (3, 1, 1, 1)), 1.6, "D", True),
    None: StatusStyle("no finding routed", _P[None].edge, _P[None].fill, "solid", 0.9, "", False),
}

_INK = INK
_MUTED = "#4D4D4D"
_FLAG = "#9E3A00"  # dark vermillion: finding marks
_EDGE = "#3C3C3C"
_DUP = "#009E73"  # bluish green: identical copies
_DOC = "#7F7F7F"

# Geometry, in inches (the axes use inches as data units).
_W = 2.1  # box width
_G = 1.45  # free space between columns (holds the arrow labels)
_PAD = 0.07
_GAP = 0.2  # between boxes of a column
_FAN = 0.16  # arrows leave a box and fan out this far to the right of it
_MARGIN = 0.25
_LINE = 1.28 / 72  # line height per point of font size


#: The routing statuses every routed picture's legend lists; the others (``re-check``) are
#: listed when the picture shows them.
_LEGEND_ALWAYS = ("added", "inherited", "unaffected", "unverified")


def legend_statuses(with_status: bool, used: Iterable[str | None] = ()) -> list[str | None]:
    """The statuses a legend lists: the usual four, and any other the picture uses, in
    :data:`STATUS_STYLES` order; without routing, the neutral style alone."""
    if not with_status:
        return [None]
    shown = set(_LEGEND_ALWAYS) | set(used)
    return [s for s in STATUS_STYLES if s is not None and s in shown]


def legend_handles(with_status: bool, used: Iterable[str | None] = ()) -> tuple[list[Any], list[str]]:
    """The legend's handles and labels: the statuses of :func:`legend_statuses` (``used``:
    the statuses of the picture's boxes and lines), the marks and the arrow styles."""
    handles: list[Any] = []
    labels: list[str] = []
    statuses = legend_statuses(with_status, used)
    for s in statuses:
        st = STATUS_STYLES[s]
        patch = Patch(facecolor=st.facecolor, edgecolor=st.edgecolor, linestyle=st.linestyle, linewidth=st.linewidth)
        if st.marker:
            mark = Line2D([], [], linestyle="none", marker=st.marker, markersize=5, markeredgecolor=st.edgecolor,
                          markerfacecolor=st.edgecolor if st.filled else "white")
            handles.append((patch, mark))
        else:
            handles.append(patch)
        labels.append(st.label)
    handles.append(Patch(facecolor="white", edgecolor=_INK, linewidth=2.4))
    labels.append("the item this picture is about (double border)")
    handles.append(Line2D([], [], color=_FLAG, linestyle="none", marker="$⚑$", markersize=7))
    labels.append("⚑ a finding names this item · ✎ its source annotation")
    edge_styles: tuple[tuple[Any, str, str], ...] = (
        ("solid", _EDGE, "derived from (exact, id or index link)"),
        ((0, (5, 2)), _EDGE, "derived from (fuzzy link)"),
        ((0, (5, 2, 1, 2)), _EDGE, "derived from (ambiguous link)"),
        ((0, (1, 1.5)), _DOC, "documented coverage only"),
        ((0, (2, 1)), _DUP, "identical copy in the same dataset"),
    )
    for ls, color, text in edge_styles:
        handles.append(Line2D([], [], color=color, linestyle=ls, linewidth=1.2))
        labels.append(text)
    return handles, labels


_ARROW_STYLES: dict[str, tuple[Any, str]] = {
    "link": ("solid", _EDGE),
    "fuzzy": ((0, (5, 2)), _EDGE),
    "ambiguous": ((0, (5, 2, 1, 2)), _EDGE),
    "documented": ((0, (1, 1.5)), _DOC),
}


def _draw_arrows(ax: Any, edges: Sequence[PictureEdge], pos: Mapping[str, tuple[float, float]]) -> None:
    """Parent -> child arrows, each labelled with its activity and evidence."""
    arrows = [pe for pe in edges if pe.kind != "duplicate"]
    incoming: dict[str, list[PictureEdge]] = {}
    for pe in arrows:
        incoming.setdefault(pe.child, []).append(pe)
    for pe in arrows:
        if pe.parent not in pos or pe.child not in pos:
            continue
        (px, py), (cx, cy) = pos[pe.parent], pos[pe.child]
        siblings = incoming[pe.child]
        k = siblings.index(pe)
        cy += (k - (len(siblings) - 1) / 2) * 0.12
        x1, xm, x2 = px + _W, px + _W + _FAN, cx
        style = _ARROW_STYLES[pe.kind]
        path = MplPath([(x1, py), (xm, py), (xm, cy), (x2, cy)])
        ax.add_patch(
            FancyArrowPatch(path=path, arrowstyle="-|>", mutation_scale=7, linewidth=1.0,
                            linestyle=style[0], color=style[1], shrinkA=0, shrinkB=1)
        )
        activity, _sep, detail = pe.label.partition(": ")
        lx = xm + 0.06
        room = x2 - lx - 0.15
        ax.text(lx, cy - 0.03, fit_text(activity, 6.5, room, "bold"), fontsize=6.5,
                fontweight="bold", color=_INK, va="bottom", ha="left")
        ax.text(lx, cy + 0.03, "\n".join(wrap_text(detail, 6, room, 2)), fontsize=6, color=_MUTED,
                va="top", ha="left", linespacing=1.15)


def _draw_copies(
    ax: Any, nodes: Sequence[PictureNode], edges: Sequence[PictureEdge],
    pos: Mapping[str, tuple[float, float]], heights: Mapping[str, float],
) -> None:
    """Double-headed links between identical copies, from the lower edge of the upper box."""
    for pe in (e for e in edges if e.kind == "duplicate"):
        if pe.parent not in pos or pe.child not in pos:
            continue
        (ax_, ay), (bx, by) = pos[pe.parent], pos[pe.child]
        if by < ay:
            (ax_, ay), (bx, by) = (bx, by), (ax_, ay)
            upper, lower = pe.child, pe.parent
        else:
            upper, lower = pe.parent, pe.child
        focus = {n.ref for n in nodes if n.focus}
        ya = ay + heights[upper] / 2 + (0.05 if upper in focus else 0.0)  # clear the double border
        yb = by - heights[lower] / 2 - (0.05 if lower in focus else 0.0)
        xa = ax_ + _W * 0.55
        ax.add_patch(
            FancyArrowPatch((xa, ya), (bx + _W * 0.55, yb), arrowstyle="<|-|>", mutation_scale=6,
                            linewidth=1.1, linestyle=(0, (2, 1)), color=_DUP, shrinkA=0, shrinkB=0,
                            connectionstyle="arc3,rad=0" if ax_ == bx else "arc3,rad=-0.25")
        )
        ax.text(xa + 0.05, (ya + yb) / 2, "identical copy", fontsize=6, color=_DUP, va="center", ha="left")


def _draw_lines(ax: Any, x: float, top: float, lines: Sequence[Line]) -> None:
    """A box's lines of text, a status marker before the lines that carry one."""
    y = top + _PAD
    for ln in lines:
        tx = x + _PAD
        ms = STATUS_STYLES.get(ln.status) if ln.status else None
        if ms is not None and ms.marker:
            ax.plot([tx + 0.035], [y + ln.size * _LINE / 2], marker=ms.marker, markersize=4.5,
                    markeredgecolor=ms.edgecolor, markeredgewidth=1.0,
                    markerfacecolor=ms.edgecolor if ms.filled else "white", zorder=4)
            tx += 0.11
        ax.text(tx, y, clean_text(ln.text), fontsize=ln.size, fontweight=ln.weight, fontstyle=ln.style,
                color=ln.color, va="top", ha="left", zorder=4)
        y += ln.size * _LINE


def _draw_boxes(
    ax: Any, nodes: Sequence[PictureNode], content: Mapping[str, Sequence[Line]],
    pos: Mapping[str, tuple[float, float]], heights: Mapping[str, float],
) -> None:
    """Each box in its routing style (the focus item with a double border), then its text."""
    for n in nodes:
        x, cy = pos[n.ref]
        h = heights[n.ref]
        top = cy - h / 2
        st = STATUS_STYLES[n.status if n.status in STATUS_STYLES else None]
        if n.focus:
            ax.add_patch(FancyBboxPatch((x - 0.05, top - 0.05), _W + 0.1, h + 0.1,
                                        boxstyle="round,pad=0,rounding_size=0.07", facecolor="none",
                                        edgecolor=_INK, linewidth=1.2, zorder=2))
        ax.add_patch(FancyBboxPatch((x, top), _W, h, boxstyle="round,pad=0,rounding_size=0.05",
                                    facecolor=st.facecolor, edgecolor=st.edgecolor,
                                    linestyle=st.linestyle, linewidth=st.linewidth, zorder=3))
        _draw_lines(ax, x, top, content[n.ref])


def draw_family(
    nodes: Sequence[PictureNode],
    content: Mapping[str, Sequence[Line]],
    heights: Mapping[str, float],
    layout: Layout[str],
    edges: Sequence[PictureEdge],
    *,
    title: str,
    subtitle: str,
    with_status: bool,
) -> Figure:
    """Draw laid-out boxes, arrows and copy links with a title and a legend.

    Args:
        nodes: The boxes (``layer`` set).
        content: Node ref -> its lines of text.
        heights: Node ref -> box height (inches).
        layout: Where the boxes go (centres in inches from the top).
        edges: Arrows (``link``, ``fuzzy``, ``ambiguous``, ``documented``) and copy
            links (``duplicate``).
        title, subtitle: Printed above the drawing.
        with_status: Show the routing styles in the legend (else the neutral style).

    Returns:
        A matplotlib :class:`~matplotlib.figure.Figure` (not registered with pyplot).
    """
    n_cols = max(len(layout.columns), 1)
    used = {n.status for n in nodes} | {ln.status for lines in content.values() for ln in lines}
    handles, labels = legend_handles(with_status, used)
    legend_cols = 3
    legend_rows = -(-len(labels) // legend_cols)
    plot_w = n_cols * _W + (n_cols - 1) * _G
    width = max(plot_w + 2 * _MARGIN, 9.0)
    head = 0.55
    foot = 0.25 + legend_rows * 0.19
    plot_h = layout.height + 2 * _MARGIN
    height = head + plot_h + foot
    x0 = _MARGIN + (width - 2 * _MARGIN - plot_w) / 2

    with picture_rc():
        fig = Figure(figsize=(width, height))
        ax = fig.add_axes((0.0, foot / height, 1.0, plot_h / height))
        ax.set_xlim(0, width)
        ax.set_ylim(plot_h, 0)
        ax.set_axis_off()

        pos: dict[str, tuple[float, float]] = {}  # ref -> (left x, centre y)
        for n in nodes:
            pos[n.ref] = (x0 + n.layer * (_W + _G), _MARGIN + layout.center[n.ref])

        _draw_arrows(ax, edges, pos)
        _draw_copies(ax, nodes, edges, pos, heights)
        _draw_boxes(ax, nodes, content, pos, heights)

        title, subtitle = clean_text(title), clean_text(subtitle)  # ids in them: no control characters
        fig.text(_MARGIN / width, 1 - 0.2 / height, title, fontsize=10, fontweight="bold", va="top", ha="left")
        fig.text(_MARGIN / width, 1 - 0.4 / height, subtitle, fontsize=7, color=_MUTED, va="top", ha="left")
        fig.legend(handles, labels, loc="lower center", ncol=legend_cols, fontsize=6.5, frameon=False,
                   handler_map={tuple: HandlerTuple(ndivide=None, pad=0)}, handlelength=2.6,
                   bbox_to_anchor=(0.5, 0.05 / height * 2), columnspacing=1.5)
    return fig
