"""A picture of an item's family: items as boxes, derivations as arrows, routed findings as styles.

:func:`family_picture` draws every known relative of an item (its ancestors, their
descendants, its own descendants, identical copies, and datasets known only from
documented coverage) left to right, oldest first. Each box names the dataset, the item
id and the start of its stem; each arrow names the activity and its evidence (link
method and score, options added, key kept or changed). When findings are given (or a
routed :class:`~croissant_lineage.findings.routing.Queue`), each box shows whether the questioned
content was *inherited*, *added*, is *unaffected* or *unverified* there, in styles that
differ in colour (Okabe-Ito, safe for colour-blind readers), border line and marker
shape, so they read in greyscale too; the items a finding names carry a flag.

Drawn with matplotlib alone (no Graphviz). :meth:`FamilyPicture.to_svg` keeps the text
as SVG ``<text>`` (searchable, every item ref is in it) and is byte-identical for the
same inputs; :meth:`FamilyPicture.save` writes ``.svg`` or ``.png``.
"""

from __future__ import annotations

import io
import re
import warnings
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from croissant_lineage._io import atomic_write_bytes
from croissant_lineage._results import Result, register_html
from croissant_lineage.croissant.descriptor import ensure_replaceable
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.graph import Edge, LineageGraph, LineageLike, as_graph
from croissant_lineage.render._evidence import edge_evidence
from croissant_lineage.render._fonts import clean_text, drawable, fit_text, picture_rc, wrap_text
from croissant_lineage.render._layered import layered_layout
from croissant_lineage.render._picture_draw import (
    _FLAG,
    _GAP,
    _LINE,
    _MUTED,
    _PAD,
    _W,
    STATUS_STYLES,
    StatusStyle,
    draw_family,
)
from croissant_lineage.render._picture_parts import Line, PictureEdge, PictureNode

__all__ = [
    "MARK",
    "STATUS_STYLES",
    "FamilyPicture",
    "PictureEdge",
    "PictureNode",
    "StatusStyle",
    "family_picture",
    "is_our_picture",
    "picture_html",
]


@dataclass(eq=False)
class FamilyPicture(Result):
    """A drawn family (see :func:`family_picture`).

    Attributes:
        ref: The item the picture is about.
        nodes: The boxes, column by column, top to bottom.
        edges: The arrows and copy links.
        omitted: Relatives left out to respect ``max_items``.
        figure: The matplotlib figure (no pyplot state is touched).
    """

    ref: str
    nodes: tuple[PictureNode, ...]
    edges: tuple[PictureEdge, ...]
    omitted: int
    figure: Figure = field(repr=False)

    def node(self, ref: str) -> PictureNode:
        """The box of ``ref``.

        Raises:
            KeyError: ``ref`` is not drawn.
        """
        for n in self.nodes:
            if n.ref == ref:
                return n
        raise KeyError(ref)

    def to_svg(self) -> str:
        """The picture as SVG text (text kept as ``<text>``; same inputs, same bytes)."""
        buf = io.BytesIO()
        with picture_rc(), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            self.figure.savefig(buf, format="svg", metadata={"Date": None, "Description": MARK})
        return buf.getvalue().decode("utf-8")

    def to_png(self, dpi: int = 110) -> bytes:
        """The picture as PNG bytes at ``dpi`` dots per inch."""
        buf = io.BytesIO()
        with picture_rc(), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            self.figure.savefig(buf, format="png", dpi=dpi, metadata={"Software": None, "Description": MARK})
        return buf.getvalue()

    def save(self, path: str | Path, *, force: bool = False, overwrite: bool | None = None) -> Path:
        """Write the picture to ``path`` (``.png`` writes PNG, anything else SVG), atomically.

        A picture this library wrote before (it carries :data:`MARK`) is replaced; any
        other existing file only with ``force`` (``overwrite``: its former name, deprecated).

        Returns:
            The path written.

        Raises:
            OutputExistsError: ``path`` is a folder, or a file this library did not
                write and ``force`` is false.
        """
        if overwrite is not None:
            warnings.warn("overwrite= is now force=", DeprecationWarning, stacklevel=2)
            force = force or overwrite
        out = Path(path)
        ensure_replaceable(out, force=force, ours=is_our_picture)
        data = self.to_png() if out.suffix.lower() == ".png" else self.to_svg().encode("utf-8")
        atomic_write_bytes(out, data)
        return out

    def _repr_svg_(self) -> str:
        return self.to_svg()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the item, its boxes and arrows (as dicts) and the relatives left out."""
        return {
            "ref": self.ref,
            "nodes": [{**asdict(n), "marks": list(n.marks)} for n in self.nodes],
            "edges": [asdict(e) for e in self.edges],
            "omitted": self.omitted,
        }


@register_html(FamilyPicture)
def picture_html(picture: FamilyPicture) -> str:
    """The picture as inline SVG in a horizontally scrolling ``<div>`` (a notebook's view)."""
    svg = picture.to_svg()
    svg = svg[svg.index("<svg") :]
    return f'<div style="overflow-x:auto;max-width:100%">{svg}</div>'


#: Written into every picture's metadata; a file carrying it may be replaced by :meth:`FamilyPicture.save`.
MARK = "croissant-lineage family picture"


def is_our_picture(path: str | Path) -> bool:
    """True when ``path`` is an SVG or PNG file written by :meth:`FamilyPicture.save`."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(65536)
    except OSError:
        return False
    svg = head.lstrip().startswith((b"<?xml", b"<svg"))
    png = head.startswith(b"\x89PNG\r\n\x1a\n")
    return (svg or png) and MARK.encode("ascii") in head


# ------------------------------------------------------------------------------ content


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _marks(findings: Iterable[Any], refs: set[str]) -> dict[str, list[str]]:
    """Finding marks per drawn item: the item a finding names, and its source annotation."""
    out: dict[str, list[str]] = {}
    for f in findings:
        item, kind, target, status = (_get(f, k) for k in ("item", "kind", "target", "status"))
        if item in refs:
            where = str(target)
            idx = _get(f, "option_index")
            if target == "option" and isinstance(idx, int) and 0 <= idx < 26:
                where = f"option {chr(ord('A') + idx)}"
            out.setdefault(item, []).append(f"⚑ {kind} on {where} ({status})")
        source = _get(f, "source")
        src_item = _get(source, "item") if source is not None else None
        if src_item in refs:
            name = _get(source, "name") or "source"
            out.setdefault(src_item, []).append(f"✎ source annotation ({name}: {kind}, {status})")
    return out


def _edge_kind(e: Edge) -> str:
    if e.ambiguous:
        return "ambiguous"
    return "fuzzy" if e.method == "fuzzy" else "link"


def _edge_label(e: Edge) -> tuple[str, str]:
    return e.activity, edge_evidence(e.to_dict())


#: Which status a box shows when several findings reach it (strongest first).
_STRENGTH = {"added": 0, "inherited": 1, "re-check": 2, "unverified": 2, "unaffected": 3}


def _status_text(row: Any, targets: Mapping[Any, Any]) -> str:
    """``inherited · certain · key C`` for a queue row."""
    text = row.status if row.certainty in (None, "none", "unverified") else f"{row.status} · {row.certainty}"
    if row.letter:
        target = targets.get(row.finding, "")
        text += f" · {target} {row.letter}" if target in ("key", "option") else f" · at {row.letter}"
    return str(text)


def _stem(graph: LineageGraph, ref: str) -> str:
    try:
        return clean_text(graph.item(ref).stem)
    except InputError:  # an edge endpoint without item data
        return ""


def _natural(item: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", item))


# ------------------------------------------------------------------------------ collecting


def _relatives(graph: LineageGraph, ref: str) -> list[str]:
    """``ref``, its ancestors, everything descending from any of them, and identical
    copies, breadth first (nearest first)."""
    order = [ref]
    seen = {ref}
    queue: deque[tuple[str, bool]] = deque([(ref, True)])
    while queue:
        cur, up_ok = queue.popleft()
        moves: list[tuple[str, bool]] = []
        if up_ok:
            moves += [(e.parent, True) for e in graph.parents(cur)]
        moves += [(e.child, False) for e in graph.children(cur)]
        moves += [(d, False) for d in graph.duplicates(cur)]
        for nxt, up in sorted(moves, key=lambda m: (not m[1], m[0])):
            if nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
                queue.append((nxt, up))
    return order


@dataclass(frozen=True)
class _Routing:
    """What a routed queue says about each drawn box.

    Attributes:
        queue: The queue (None: nothing routed, boxes keep the neutral style).
        per_ref: Item ref -> its queue rows (one per finding routed).
        rows: Item ref -> the row whose status the box takes (the strongest).
        several: More than one finding was routed (one status line per finding).
        targets: Finding id -> what it questions (``key``, ``option``...).
    """

    queue: Any
    per_ref: dict[str, list[Any]]
    rows: dict[str, Any]
    several: bool
    targets: dict[Any, Any]


def _routing(graph: LineageGraph, ref: str, found: list[Any], findings: Any, queue: Any) -> _Routing:
    """Route ``found`` from ``ref`` when no queue is given, and index the queue's rows."""
    if queue is None and findings is not None:
        from croissant_lineage.findings.routing import route_item

        queue = route_item(graph, ref, found)
        if not queue.findings:  # no finding concerns this family: nothing to colour
            queue = None
    per_ref: dict[str, list[Any]] = {}
    for r in getattr(queue, "rows", []):
        per_ref.setdefault(r.ref, []).append(r)
    # the box takes the strongest status over the findings routed; each finding gets a line
    rows = {ref_: min(rs, key=lambda r: _STRENGTH.get(r.status, 9)) for ref_, rs in per_ref.items()}
    several = len(getattr(queue, "findings", None) or []) > 1
    targets = {_get(f, "id"): _get(f, "target") for f in found}
    return _Routing(queue, per_ref, rows, several, targets)


def _drawn_items(graph: LineageGraph, ref: str, routed: Iterable[str], max_items: int) -> tuple[list[str], int]:
    """The items drawn (relatives nearest first, then routed items outside the family) and
    how many were left out."""
    every = _relatives(graph, ref)
    extra = [r for r in routed if r in graph and r not in set(every)]
    every += extra
    items = every[:max_items]
    return items, len(every) - len(items)


def _item_arrows(graph: LineageGraph, items: list[str]) -> tuple[dict[str, list[str]], list[PictureEdge]]:
    """Parent -> child arrows between drawn items, and each item's drawn parents."""
    drawn = set(items)
    parents: dict[str, list[str]] = {}
    edges: list[PictureEdge] = []
    for r in items:
        for e in graph.parents(r):
            if e.parent in drawn:
                parents.setdefault(r, []).append(e.parent)
                act, detail = _edge_label(e)
                edges.append(PictureEdge(e.parent, r, _edge_kind(e), f"{act}: {detail}"))
    return parents, edges


def _documented(
    graph: LineageGraph, items: list[str], ds_order: Mapping[str, int], parents: dict[str, list[str]], edges: list[PictureEdge]
) -> dict[str, dict[str, Any]]:
    """Datasets known only from documented coverage, each hung under the first drawn item
    of its parent dataset (their parents and arrows are added to ``parents`` and ``edges``)."""
    drawn = set(items)
    documented: dict[str, dict[str, Any]] = {}
    first_of: dict[str, str] = {}
    for r in items:
        first_of.setdefault(r.partition(":")[0], r)
    for ds in sorted(first_of, key=lambda d: (ds_order.get(d, len(ds_order)), d)):
        for doc in graph.documented_children(ds):
            name = doc["child"]
            if name in documented or name in drawn:
                continue
            documented[name] = doc
            parents[name] = [first_of[ds]]
            langs = f"{doc['languages']} languages" if doc.get("languages") else "no item data"
            edges.append(PictureEdge(first_of[ds], name, "documented", f"{doc['activity']}: documented only, {langs}"))
    return documented


def _copy_links(graph: LineageGraph, items: list[str]) -> list[PictureEdge]:
    """Links between identical copies that are both drawn (each pair once)."""
    drawn = set(items)
    return [
        PictureEdge(r, d, "duplicate", "identical copy")
        for r in items
        for d in graph.duplicates(r)
        if d in drawn and r < d
    ]


_ROOM = _W - 2 * _PAD  # text width inside a box


def _documented_box(name: str, doc: Mapping[str, Any], status: str | None, certainty: str | None) -> tuple[list[Line], PictureNode]:
    """Lines and node of a documented-coverage box."""
    n_lang = doc.get("languages")
    lines = [
        Line(fit_text(name, 7.5, _ROOM, "bold"), 7.5, "bold"),
        Line("documented coverage only", 6.5, style="italic", color=_MUTED),
        Line(fit_text(f"{n_lang} languages · no item data here" if n_lang else "no item data here", 6.5, _ROOM), 6.5, color=_MUTED),
    ]
    return lines, PictureNode(name, name, None, 0, status, certainty, (), False, True)


def _stem_lines(graph: LineageGraph, r: str, languages: Sequence[str]) -> list[Line]:
    """The start of an item's stem (or why it cannot be drawn) as box lines."""
    stem = _stem(graph, r)
    if stem and not drawable(stem):
        lang = "/".join(languages) or "its"
        return [Line(f"[{lang} stem: no font here for its script]", 6.5, style="italic", color=_MUTED)]
    if stem:
        return [Line(t, 6.5, style="italic", color=_MUTED) for t in wrap_text(f"“{stem}”", 6.5, _ROOM, 2, style="italic")]
    return []


def _item_box(
    graph: LineageGraph, r: str, ref: str, languages: Mapping[str, list[str]], node_marks: tuple[str, ...],
    status: str | None, certainty: str | None,
) -> tuple[list[Line], PictureNode]:
    """Lines and node of an item's box: dataset, item id, stem, finding marks."""
    dataset, _, item = r.partition(":")
    lines = [
        Line(fit_text(dataset, 7.5, _ROOM, "bold"), 7.5, "bold"),
        Line(fit_text(item, 7, _ROOM), 7),
    ]
    lines += _stem_lines(graph, r, languages.get(dataset, []))
    for m in node_marks:
        lines += [Line(t, 6.5, "bold", color=_FLAG) for t in wrap_text(m, 6.5, _ROOM, 2, weight="bold")]
    return lines, PictureNode(r, dataset, item, 0, status, certainty, node_marks, r == ref, False)


def _status_lines(routing: _Routing, r: str) -> list[Line]:
    """The routing status line(s) of a box: one per finding when several were routed."""
    row = routing.rows.get(r)
    qrows = routing.per_ref.get(r, []) if routing.several else [row] if row is not None else []
    lines = []
    for qrow in qrows:
        text = _status_text(qrow, routing.targets)
        if routing.several:  # one line per finding: keep it short
            text = f"{qrow.finding}: {text.replace(' · certain', '')}"
        lines.append(Line(fit_text(text, 6.5, _ROOM - 0.12), 6.5, status=qrow.status))
    return lines


def _boxes(
    graph: LineageGraph, ref: str, items: list[str], documented: Mapping[str, Mapping[str, Any]],
    routing: _Routing, marks: Mapping[str, list[str]],
) -> tuple[dict[str, list[Line]], dict[str, PictureNode]]:
    """Each box's lines of text and its node (layer still 0), items first, then documented."""
    info = graph.lineage.family
    languages = {d.name: list(d.languages) for d in info.datasets}
    content: dict[str, list[Line]] = {}
    node_objs: dict[str, PictureNode] = {}
    for r in [*items, *documented]:
        row = routing.rows.get(r)
        status, certainty = getattr(row, "status", None), getattr(row, "certainty", None)
        if r in documented:
            lines, node = _documented_box(r, documented[r], status, certainty)
        else:
            lines, node = _item_box(graph, r, ref, languages, tuple(marks.get(r, ())), status, certainty)
        content[r] = lines + _status_lines(routing, r)
        node_objs[r] = node
    return content, node_objs


def family_picture(
    lineage_or_graph: LineageLike,
    ref: str,
    *,
    findings: Iterable[Any] | None = None,
    queue: Any = None,
    max_items: int = 60,
) -> FamilyPicture:
    """Draw the family of ``ref`` (e.g. ``"mmlu-pro:3542"``).

    Args:
        lineage_or_graph: The linked family (build a ``LineageGraph`` once for many pictures).
        ref: The item the picture is about.
        findings: Findings (:class:`~croissant_lineage.findings.model.Finding` or dicts with
            the same fields). The items they name are flagged; when no ``queue`` is
            given they are routed from ``ref`` (:func:`~croissant_lineage.findings.routing.route`)
            and every box takes its routing status.
        queue: A routed :class:`~croissant_lineage.findings.routing.Queue` whose statuses colour
            the boxes (items of the queue outside the family are drawn too).
        max_items: Most item boxes to draw (nearest relatives first); the rest are
            counted in :attr:`FamilyPicture.omitted`.

    Returns:
        The :class:`FamilyPicture`.

    Raises:
        InputError: ``ref`` is not in the lineage, or ``max_items`` is below 1.
    """
    if max_items < 1:
        raise InputError("max_items must be at least 1")
    graph = as_graph(lineage_or_graph, "lineage_or_graph", refs=[ref])  # (a folder: its family rows alone)
    graph.ancestors(ref)  # raises InputError for an unknown item
    found = list(findings or [])
    routing = _routing(graph, ref, found, findings, queue)
    items, omitted = _drawn_items(graph, ref, routing.rows, max_items)
    ds_order = {name: i for i, name in enumerate(graph.lineage.family.dataset_names())}
    parents, edges = _item_arrows(graph, items)
    documented = _documented(graph, items, ds_order, parents, edges)
    all_edges = tuple(edges + _copy_links(graph, items))
    content, node_objs = _boxes(graph, ref, items, documented, routing, _marks(found, set(items)))

    nodes_order = list(content)
    heights = {r: 2 * _PAD + sum(ln.size * _LINE for ln in content[r]) for r in nodes_order}
    key = {
        r: (ds_order.get(node_objs[r].dataset, len(ds_order)), node_objs[r].dataset, _natural(node_objs[r].item or ""))
        for r in nodes_order
    }
    layout = layered_layout(nodes_order, parents, size=heights, gap=_GAP, sort_key=key)
    nodes = tuple(replace(node_objs[r], layer=layout.layer[r]) for col in layout.columns for r in col)
    fig = draw_family(
        nodes, content, heights, layout, all_edges,
        title=_title(ref, routing.queue), subtitle=_subtitle(nodes, omitted), with_status=bool(routing.rows),
    )
    return FamilyPicture(ref, nodes, all_edges, omitted, fig)


def _title(ref: str, queue: Any) -> str:
    title = f"Family of {ref}"
    fids = list(getattr(queue, "findings", None) or [])
    if len(fids) == 1:
        return f"{title}: where finding {fids[0]} reaches"
    if fids:
        return f"{title}: where {len(fids)} findings reach"
    if queue is not None:
        return f"{title}: where the whole item reaches"
    return title


def _subtitle(nodes: Iterable[PictureNode], omitted: int) -> str:
    nodes = list(nodes)
    items = sum(1 for n in nodes if not n.documented)
    text = f"{items} items, {len(nodes) - items} datasets with documented coverage only; oldest on the left"
    if omitted:
        text += f"; {omitted} more relatives not drawn (raise max_items)"
    return text
