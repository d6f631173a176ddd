"""How a finding's content travels along the lineage: which edges carry it (with the
option index on the far side), which relatives carry it, and the tree of every relative
of the routed item with the steps that reach it.

:mod:`croissant_lineage.findings.routing` ranks what this finds into the re-review queue.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from croissant_lineage.errors import InputError
from croissant_lineage.family.spec import TRANSLATION_KINDS
from croissant_lineage.lineage.graph import Edge, LineageGraph
from croissant_lineage.lineage.paths import step_option
from croissant_lineage.linking.normalize import normalize_option

__all__ = [
    "Carry",
    "CarryNode",
    "TreeStep",
    "carry_along",
    "carry_mode",
    "edge_sure",
    "find_carriers",
    "path_doubts",
    "relation_of",
    "relatives_tree",
]


@dataclass(frozen=True)
class Carry:
    """Whether an edge carries the content, and the option index on the far side."""

    carried: bool
    known: bool = True  # False: edge evidence missing, carried on probability
    index: int | None = None
    why: str = ""
    recheck: bool = False  # not carried, but the far side was made from it (a recomputed key)
    unverified: bool = False  # carried perhaps: rewritten on the way (an edited stem)


def subject_of(graph: LineageGraph, ref: str) -> str | None:
    if ref not in graph:
        return None
    subject = graph.item(ref).subject
    return " ".join(subject.replace("_", " ").casefold().split()) if subject else None


def carry_along(graph: LineageGraph, edge: Edge, mode: str, index: int | None, *, up: bool) -> Carry:
    """Does ``edge`` carry the questioned content from one side to the other?

    Args:
        graph: The lineage graph (for subjects and duplicates).
        edge: The derivation edge.
        mode: The finding's target, or ``duplicate`` for a duplicate finding (the defect
            is the identical copy itself: it travels only where the far side has one too).
        index: For ``option``: the option's index on the near side (None: unknown).
        up: True when moving from child to parent.
    """
    far = edge.parent if up else edge.child
    if mode == "key":
        return _carry_key(edge, up=up)
    if mode == "option":
        step = step_option(edge.option_map, index, up=up)
        if step.status == "unknown":
            return Carry(True, known=False, why="option correspondence unknown")
        if step.status == "carried":
            return Carry(True, index=step.index)
        return Carry(False, why=f"option {step.status} at {edge.activity}")
    if mode == "category":
        child, parent = subject_of(graph, edge.child), subject_of(graph, edge.parent)
        if child is None or parent is None:
            return Carry(True, known=False, why="subject unknown")
        if child == parent:
            return Carry(True)
        return Carry(
            False, why=f"subject/category changed at {edge.activity} ({parent} -> {child})"
        )
    if mode == "duplicate":
        if graph.duplicates(far):
            return Carry(True)
        return Carry(False, why="no identical copy beside it")
    if mode in ("solution", "tests"):
        return _carry_content(mode, getattr(edge, f"{mode}_status"), edge.activity)
    if mode == "stem" and _stem_edited(edge):
        return Carry(True, known=False, why=f"stem edited at {edge.activity}", unverified=True)
    if mode == "stem" and edge.stem_status == "translated":
        return Carry(True, known=False, why=f"stem translated at {edge.activity}, not compared")
    return Carry(True)


def _carry_content(content: str, status: str | None, activity: str) -> Carry:
    """A solution or tests finding along an edge, by the edge's status of that content:
    copied, carried; edited or translated, carried but not compared (probable); added,
    dropped or absent, not carried (the far side's content, if any, is not the questioned
    one); unknown (a lineage written before the statuses), probable."""
    if status == "copied":
        return Carry(True)
    if status in ("edited", "translated"):
        return Carry(True, known=False, why=f"{content} {status} at {activity}, not compared")
    if status in ("added", "dropped", "absent"):
        return Carry(False, why=f"{content} {status} at {activity}")
    return Carry(True, known=False, why=f"{content} inheritance unknown")


def _stem_edited(edge: Edge) -> bool:
    """The edge rewrote the stem: its ``stem_status`` says so; on a lineage written before
    the statuses, its ``stem_changed`` outside a translation."""
    if edge.stem_status is not None:
        return edge.stem_status == "edited"
    return bool(edge.stem_changed) and edge.activity not in TRANSLATION_KINDS


def _carry_key(edge: Edge, *, up: bool) -> Carry:
    """A key finding along ``edge``, by its evidence: its ``key_status`` (copied: carried;
    translated: carried by the option map, else probable; recomputed: not carried, the
    child to re-check; edited: not carried), else its ``key_inherited``."""
    status = edge.key_status
    if status == "recomputed":
        return Carry(False, why=f"key recomputed at {edge.activity}", recheck=not up)
    if status == "translated" and edge.key_inherited is None:
        return Carry(True, known=False, why=f"key translated at {edge.activity}, not compared")
    if status in ("added", "dropped", "absent"):
        return Carry(False, why=f"key {status} at {edge.activity}")
    if edge.key_inherited is None:
        return Carry(True, known=False, why="key inheritance unknown")
    if edge.key_inherited:
        return Carry(True)
    return Carry(False, why=f"key changed at {edge.activity}")


def path_doubts(graph: LineageGraph, path: Iterable[TreeStep], mode: str) -> list[str]:
    """Why the content is only probably carried along ``path``: each step whose edge
    carries it without evidence (a translated or edited content, an unknown status)."""
    out: list[str] = []
    for s in path:
        if s.edge is not None and s.kind in ("up", "down"):
            c = carry_along(graph, s.edge, mode, None, up=s.kind == "up")
            if c.carried and not c.known and c.why and mode != "option":
                out.append(c.why)
    return out


def carry_mode(target: str, kind: str | None) -> str:
    """What the carrying rules follow: the target, except for duplicate findings."""
    return "duplicate" if kind == "duplicate" else target


def edge_sure(edge: Edge) -> bool:
    return edge.method not in ("fuzzy", "unverified") and not edge.ambiguous


@dataclass
class CarryNode:
    ref: str
    index: int | None  # the questioned option's index here (option target)
    sure: bool
    proposed: int | None = None  # the proposed answer's option index here, if traced
    origin: bool = False
    unverified: str | None = None  # why the content may not be here (rewritten on the way), if so


def _unverified(node: CarryNode, c: Carry) -> str | None:
    """Why the far side of a carry from ``node`` is unverified: the node's reason, else the
    carry's (a rewritten content), else None."""
    return node.unverified or (c.why if c.unverified else None)


def follow_edge(graph: LineageGraph, edge: Edge, index: int | None, *, up: bool) -> int | None:
    """An option index carried across ``edge`` by its option map (None if not carried)."""
    c = carry_along(graph, edge, "option", index, up=up)
    return c.index if c.carried else None


def find_carriers(
    graph: LineageGraph, start: str, mode: str, index: int | None, proposed: int | None
) -> dict[str, CarryNode]:
    """Every item carrying the content: up from ``start`` to the origin(s), then down.

    Each node also traces where the proposed answer (an option of ``start``) sits. A
    carrier found going down that is also an ancestor of ``start`` (a diamond: reached
    through an edge that does not carry the content) is followed up too, so that the
    ancestors the queue lists are judged by their own edges.
    """
    nodes: dict[str, CarryNode] = {start: CarryNode(start, index, True, proposed)}
    climbs = {start, *(a.ref for a in graph.ancestors(start))}
    up, down = deque([start]), deque[str]()
    while up:
        while up:
            ref = up.popleft()
            node = nodes[ref]
            carried_up = False
            for e in graph.parents(ref):
                c = carry_along(graph, e, mode, node.index, up=True)
                if not c.carried:
                    continue
                carried_up = True
                if e.parent not in nodes:
                    sure = node.sure and c.known and edge_sure(e)
                    nodes[e.parent] = CarryNode(
                        e.parent, c.index, sure, follow_edge(graph, e, node.proposed, up=True),
                        unverified=_unverified(node, c),
                    )
                    up.append(e.parent)
            node.origin = not carried_up
            down.append(ref)
        while down:  # from every carrier found so far, the start's line included
            ref = down.popleft()
            for new in find_carriers_down(graph, nodes, ref, mode):
                (up if new in climbs else down).append(new)
    return nodes


def find_carriers_down(graph: LineageGraph, nodes: dict[str, CarryNode], ref: str, mode: str) -> list[str]:
    """Add the children and duplicates of carrier ``ref`` that carry the content; their refs."""
    node = nodes[ref]
    added: list[str] = []
    for e in graph.children(ref):
        if e.child in nodes:
            continue
        c = carry_along(graph, e, mode, node.index, up=False)
        if c.carried:
            sure = node.sure and c.known and edge_sure(e)
            nodes[e.child] = CarryNode(e.child, c.index, sure, follow_edge(graph, e, node.proposed, up=False),
                                       unverified=_unverified(node, c))
            added.append(e.child)
    for dup in graph.duplicates(ref):
        if dup not in nodes:
            nodes[dup] = CarryNode(
                dup,
                same_option(graph, ref, dup, node.index),
                node.sure,
                same_option(graph, ref, dup, node.proposed),
                unverified=node.unverified,
            )
            added.append(dup)
    return added


def same_option(graph: LineageGraph, ref: str, dup: str, index: int | None) -> int | None:
    """The index of ``ref``'s option ``index`` among the options of its duplicate."""
    if index is None or ref not in graph or dup not in graph:
        return None
    try:
        text = normalize_option(graph.item(ref).options[index])
        return [normalize_option(o) for o in graph.item(dup).options].index(text)
    except (IndexError, ValueError, InputError):
        return None




@dataclass(frozen=True)
class TreeStep:
    kind: str  # "up", "down", "duplicate", "related"
    edge: Edge | None
    target: str

    def label(self) -> str:
        if self.edge is None:
            return self.kind
        extra = "" if edge_sure(self.edge) else f" ({self.edge.method} {self.edge.score:.0f}"
        if extra and self.edge.ambiguous:
            extra += ", ambiguous"
        return f"{self.kind}:{self.edge.activity}{extra + ')' if extra else ''}"


def relatives_tree(graph: LineageGraph, start: str, extra: Iterable[str] = ()) -> dict[str, list[TreeStep]]:
    """Every relative of ``start`` with the steps to it: ancestors, their descendants,
    the start's descendants, duplicates of any of them, and ``extra`` refs.

    An ancestor of ``start`` is only ever reached by climbing (its path is all ``up``
    steps), even where a descendant of another ancestor reaches it first (a diamond):
    otherwise the climb would stop there and the ancestor's other parents be missed.
    """
    ancestors = {a.ref for a in graph.ancestors(start)}
    paths: dict[str, list[TreeStep]] = {start: []}
    queue: deque[tuple[str, bool]] = deque([(start, True)])
    while queue:
        ref, may_go_up = queue.popleft()
        path = paths[ref]
        moves: list[tuple[str, TreeStep, bool]] = []
        if may_go_up:
            moves += [(e.parent, TreeStep("up", e, e.parent), True) for e in graph.parents(ref)]
        moves += [(e.child, TreeStep("down", e, e.child), False) for e in graph.children(ref)]
        moves += [(d, TreeStep("duplicate", None, d), False) for d in graph.duplicates(ref)]
        for nxt, step, up_ok in sorted(moves, key=lambda m: (m[1].kind, m[0])):
            if nxt not in paths and (step.kind == "up" or nxt not in ancestors):
                paths[nxt] = [*path, step]
                queue.append((nxt, up_ok))
    for ref in extra:
        if ref not in paths and ref in graph:
            head = TreeStep("related", None, ref)
            paths[ref] = [head]
            for d in graph.descendants(ref):
                paths.setdefault(d.ref, [head, *(TreeStep("down", e, e.child) for e in d.path)])
    return paths


def relation_of(path: list[TreeStep]) -> str:
    kinds = [s.kind for s in path]
    if not kinds:
        return "finding_item"
    if "related" in kinds:
        return "related"
    if kinds[-1] == "duplicate":
        return "duplicate"
    if all(k == "up" for k in kinds):
        return "ancestor"
    if all(k == "down" for k in kinds):
        return "descendant"
    return "collateral"
