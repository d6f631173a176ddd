"""The lineage graph: an item's parents, children, ancestors, descendants, duplicates.

:class:`LineageGraph` indexes a :class:`~croissant_lineage.lineage.model.Lineage` once
(ref numbers and NumPy arrays, see :class:`~croissant_lineage.lineage.refids.RefIds`),
after which every query is a few look-ups. :func:`relatives_of` gathers everything known about one item into a
:class:`Relatives`.
"""

from __future__ import annotations

import os
from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Union

import pyarrow as pa

from croissant_lineage._results import Result
from croissant_lineage.errors import ArgumentError, InputError
from croissant_lineage.lineage.cells import CodedRows, Rows, few_valued_rows
from croissant_lineage.lineage.info import DerivationInfo
from croissant_lineage.lineage.model import GRAPH_SLOT, Lineage, release_memory
from croissant_lineage.lineage.refids import EdgeIndex, RefIds, RefRows, joined_refs, number_refs
from croissant_lineage.lineage.schema import join_ref, split_ref

#: The edge columns an :class:`Edge` is read from (its ends come from the ref numbers):
#: those of few distinct values (read through one code a row), and the others.
_EDGE_KINDS = ("parent_dataset", "activity", "method", "options_copied", "options_added", "options_dropped",
               "key_inherited", "stem_changed", "ambiguous")
_EDGE_CELLS = ("score", "options_score", "option_map", "alternatives")
#: What the edge did to each content (``linking/content_status.py``), coded apart.
_EDGE_STATUSES = ("stem_status", "options_status", "key_status", "solution_status", "tests_status")
#: The same for the item columns an :class:`ItemRecord` is read from.
#: (The item's id is read from its ref: see :meth:`LineageGraph._record`.)
_ITEM_KINDS, _ITEM_CELLS = ("dataset", "subject", "key"), ("stem", "options")
#: A free-form key's kind and text (items tables written before them lack the columns).
_ITEM_KEYS = ("key_kind", "key_text")

__all__ = [
    "FAMILY_COLUMNS", "Edge", "ItemRecord", "LineageGraph", "LineageLike", "Relative", "Relatives", "as_graph",
    "as_lineage", "check_lineage_arg", "graph_of", "relatives_of",
]

#: An object without its ``__init__`` run: the graph fills its frozen dataclasses (none has a
#: ``__post_init__``) as ``obj = _new(cls); obj.__dict__.update(fields)`` with every field in
#: order, which is what ``cls(**fields)`` builds without the ``object.__setattr__`` call per
#: field of a frozen dataclass's ``__init__`` (half the cost of building an edge).
_new = object.__new__

#: Rows from which building the graph hands freed memory back (a family read for one
#: query is far smaller, and the hand-back would cost more than the query).
_LARGE = 1 << 16


@dataclass(frozen=True)
class ItemRecord:
    """One item: where it lives and what it says."""

    ref: str
    dataset: str
    item: str
    subject: str | None
    stem: str | None
    options: tuple[str, ...]
    key: str | None
    #: The key's kind (``option``, ``text``, ``number``, ``set``, ``tests``; None: no key role).
    key_kind: str | None = None
    #: A key that is not an option letter, as written (None for an option key).
    answer: str | None = None

    @property
    def key_text(self) -> str | None:
        """The key as text: the key option's text, or a free-form key as written."""
        if self.key is None or not self.options:
            return self.answer
        idx = ord(self.key) - ord("A")
        return self.options[idx] if 0 <= idx < len(self.options) else None


@dataclass(frozen=True)
class Edge:
    """A derivation edge child <- parent with its evidence (see ``schema.EDGES_SCHEMA``).

    ``child``, ``parent`` and ``alternatives`` are item refs (``dataset:item``).
    """

    child: str
    parent: str
    activity: str
    method: str
    score: float
    options_score: float | None
    option_map: tuple[int, ...]
    options_copied: int | None
    options_added: int | None
    options_dropped: int | None
    key_inherited: bool | None
    stem_changed: bool | None
    ambiguous: bool
    alternatives: tuple[str, ...]
    # What the edge did to each content: copied, edited, recomputed (key), translated,
    # added, dropped, absent (None: not comparable, or a lineage written before them).
    stem_status: str | None = None
    options_status: str | None = None
    key_status: str | None = None
    solution_status: str | None = None
    tests_status: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["option_map"] = list(self.option_map)
        d["alternatives"] = list(self.alternatives)
        return d


@dataclass(frozen=True)
class Relative:
    """A relative of the queried item.

    Attributes:
        ref: The relative's item ref.
        depth: Number of edges between them (1 = parent or child).
        path: The edges from the queried item to the relative, nearest first.
    """

    ref: str
    depth: int
    path: tuple[Edge, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"ref": self.ref, "depth": self.depth, "path": [e.to_dict() for e in self.path]}


#: Columns of :meth:`Relatives.to_pandas` (one row per relative).
FAMILY_COLUMNS = (
    "ref",
    "relation",
    "depth",
    "via",
    "activity",
    "method",
    "score",
    "options_copied",
    "options_added",
    "options_dropped",
    "key_inherited",
    "stem_changed",
    "ambiguous",
)


@dataclass(frozen=True)
class Relatives(Result):
    """Everything the lineage knows about one item.

    Attributes:
        item: The item itself (None when resolved from metadata that lacks item texts).
        ancestors: Parents, grandparents... nearest first.
        descendants: Children, grandchildren... nearest first.
        duplicates: Refs of identical items in the same dataset.
        documented: Dataset-level derivations from an ancestor's (or the item's) dataset
            that have no item data (documented coverage only), as dicts with child,
            parent, activity, languages, note.
        findings: Findings on the item or its relatives, when known (dicts).
    """

    ref: str
    item: ItemRecord | None
    ancestors: tuple[Relative, ...]
    descendants: tuple[Relative, ...]
    duplicates: tuple[str, ...]
    documented: tuple[dict[str, Any], ...] = ()
    findings: tuple[dict[str, Any], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (what ``croissant-lineage family --json`` prints)."""
        return {
            "ref": self.ref,
            "item": None if self.item is None else {**asdict(self.item), "options": list(self.item.options)},
            "ancestors": [r.to_dict() for r in self.ancestors],
            "descendants": [r.to_dict() for r in self.descendants],
            "duplicates": list(self.duplicates),
            "documented": [dict(d) for d in self.documented],
            "findings": [dict(f) for f in self.findings],
        }

    def rows(self) -> list[dict[str, Any]]:
        """One dict per relative (keys :data:`FAMILY_COLUMNS`), in :meth:`to_pandas` order."""
        rows: list[dict[str, Any]] = [{"ref": self.ref, "relation": "item", "depth": 0}]
        for relation, relatives in (("ancestor", self.ancestors), ("descendant", self.descendants)):
            for r in relatives:
                e = r.path[-1]
                row = {"ref": r.ref, "relation": relation, "depth": r.depth}
                row["via"] = e.child if relation == "ancestor" else e.parent
                for c in FAMILY_COLUMNS[4:]:
                    row[c] = getattr(e, c)
                rows.append(row)
        rows += [{"ref": d, "relation": "duplicate", "depth": 0} for d in self.duplicates]
        for d in self.documented:
            rows.append({"ref": d["child"], "relation": "documented", "depth": None, "via": d["parent"], "activity": d["activity"]})
        return [{c: r.get(c) for c in FAMILY_COLUMNS} for r in rows]

    def to_pandas(self) -> Any:
        """One row per relative (columns :data:`FAMILY_COLUMNS`).

        The item itself comes first (relation ``item``), then ancestors and descendants
        nearest first with the evidence of the edge that reaches them (``via`` is the item
        on the near side of that edge), duplicates, and documented-coverage datasets.
        """
        import pandas as pd

        frame = pd.DataFrame(self.rows(), columns=list(FAMILY_COLUMNS))
        for c in ("depth", "options_copied", "options_added", "options_dropped"):
            frame[c] = frame[c].astype("Int64")
        for c in ("key_inherited", "stem_changed", "ambiguous"):
            frame[c] = frame[c].astype("boolean")
        return frame


class LineageGraph:
    """Indexed queries over a lineage.

    Every ref the graph knows (items' and edges' ends) is numbered by its place in one
    sorted Arrow array, and the edges are indexed by those numbers in NumPy arrays: a
    million items cost ~0.1 GB, where dictionaries keyed by ref strings cost ~0.4.

    Args:
        lineage: A :class:`Lineage` (from ``link`` or ``Lineage.read``).
        with_items: Index the item texts too (needed by :meth:`item`).
    """

    def __init__(self, lineage: Lineage, *, with_items: bool = True):
        self.lineage = lineage
        e = lineage.edges
        refs, (self._child, self._parent) = number_refs([
            joined_refs(e.column("child_dataset"), e.column("child_item")),
            joined_refs(e.column("parent_dataset"), e.column("parent_item")),
        ])
        if e.num_rows >= _LARGE:
            release_memory()  # the joined refs and the hash table, before the indexes
        self._ids = RefIds(refs)  # the edges' ends
        del refs
        # The edges' ends by row, read as Python ints.
        self._child_at, self._parent_at = self._child.data, self._parent.data
        # Edge rows by child (up) and by parent (down), in row order within a ref.
        self._up = EdgeIndex(self._child)
        self._down = EdgeIndex(self._parent)
        items = lineage.items
        self._items = RefRows(items.column("dataset"), items.column("item")) if with_items else None
        # Item ids that are strings, none missing: the rest of the ref that found their row.
        ids = items.column("item")
        self._ids_in_refs = (pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type)) and not ids.null_count
        # Edge fields and cell readers are read the first time a query touches them.
        self._edge_cells: tuple[CodedRows | Rows, Rows, CodedRows | Rows | None] | None = None
        self._item_cells: tuple[CodedRows | Rows, Rows, Rows | None] | None = None
        # The fields of the edges read, by row (each query builds its Edge objects from
        # them): dicts of strings, numbers and shared tuples, which the cyclic GC leaves
        # untracked (from the start once the shared option maps are old), where kept Edge
        # objects stay tracked and every full collection walks them.
        self._edges: dict[int, dict[str, Any]] = {}
        self._option_maps: dict[tuple[int, ...], tuple[int, ...]] = {}  # each option map once
        self._with_items = with_items
        self._dups: dict[str, tuple[str, ...]] = {}
        groups: dict[tuple[str, str], list[str]] = defaultdict(list)
        d = lineage.duplicates
        for dsn, item, group in zip(*(d.column(c).to_pylist() for c in ("dataset", "item", "group")), strict=True):
            groups[(dsn, group)].append(join_ref(dsn, item))
        for members in groups.values():
            for m in members:
                self._dups[m] = tuple(x for x in members if x != m)
        self._documented: dict[str, list[DerivationInfo]] = defaultdict(list)
        for r in lineage.family.derivations:
            if r.coverage == "documented":
                self._documented[r.parent].append(r)

    def _row(self, ref: str) -> int | None:
        """The items table's row of ``ref``, or None."""
        return None if self._items is None else self._items.find(ref)

    def __contains__(self, ref: object) -> bool:
        # (every numbered ref is an end of an edge)
        return isinstance(ref, str) and (self._row(ref) is not None or self._ids.find(ref) is not None)

    def _locate(self, ref: str) -> tuple[int | None, int | None]:
        """The items table's row of ``ref`` and its number among the edges' ends.

        Raises:
            InputError: not a ref, or neither in the items nor an end of an edge.
        """
        try:
            split_ref(ref)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        row = None if self._items is None else self._items.find(ref)  # (self._row, inline)
        number = self._ids.find(ref)
        if row is None and number is None:
            dataset = ref.partition(":")[0]
            known = sorted(set(self.lineage.family.dataset_names()))
            hint = "check the item id" if dataset in known else f"datasets are: {', '.join(known)}"
            raise InputError(f"item {ref!r} is not in the lineage", hint=hint)
        return row, number

    def item(self, ref: str) -> ItemRecord:
        """The item's record.

        Raises:
            InputError: no such item in the lineage, or no record of it: the graph was
                built with ``with_items=False``, or the item is named by an edge or a
                duplicate group but missing from the item table (e.g. a filtered lineage).
        """
        n = self._locate(ref)[0]
        if not self._with_items:
            raise InputError(
                f"item {ref!r}: this graph was built without the item texts",
                hint="build it with LineageGraph(lineage, with_items=True)",
            )
        if n is None:
            raise InputError(
                f"item {ref!r} is linked in the lineage but not in its item table",
                hint="the lineage's items were filtered or lost: re-run link",
            )
        return self._record(ref, n)

    def _record(self, ref: str, n: int) -> ItemRecord:
        """The record of the items table's row ``n``, the row ``ref`` was found at (its
        dataset, ``:`` and its item id make ``ref``: the id is read from ``ref``)."""
        if self._item_cells is None:
            items = self.lineage.items
            keys = Rows(items, _ITEM_KEYS) if set(_ITEM_KEYS) <= set(items.column_names) else None
            self._item_cells = few_valued_rows(items, _ITEM_KINDS), Rows(items, _ITEM_CELLS), keys
            if items.num_rows >= _LARGE:
                release_memory()  # the coding's scratch (~50 MB at a million items)
        dataset, subject, key = self._item_cells[0].row(n)
        stem, options = self._item_cells[1].row(n)
        key_kind, answer = (None, None) if self._item_cells[2] is None else self._item_cells[2].row(n)
        if type(dataset) is str and self._ids_in_refs:
            item = ref[len(dataset) + 1 :]
        else:  # (a missing dataset or id joins as "None", an id of another type as its text)
            item = self._items.parts(n)[1]  # type: ignore[union-attr]
        record = _new(ItemRecord)  # (filled as _new says)
        record.__dict__.update({"ref": ref, "dataset": dataset, "item": item, "subject": subject, "stem": stem,
                                "options": tuple(options) if options else (), "key": key,
                                "key_kind": key_kind, "answer": answer})
        return record

    def _edge_fields(self, i: int, near: str | None = None, up: bool = True) -> dict[str, Any]:
        """The fields of the edge of row ``i``, in :class:`Edge`'s order (read once, then
        kept); ``near``: the ref of its child (``up``) or parent end, when the caller has it."""
        kept = self._edges.get(i)
        if kept is not None:
            return kept
        if near is not None and type(near) is not str:  # (a str subclass: keep the graph's own)
            near = None
        if self._edge_cells is None:
            edges = self.lineage.edges
            coded = few_valued_rows(edges, _EDGE_STATUSES) if set(_EDGE_STATUSES) <= set(edges.column_names) else None
            self._edge_cells = few_valued_rows(edges, _EDGE_KINDS), Rows(edges, _EDGE_CELLS), coded
            if edges.num_rows >= _LARGE:
                release_memory()  # the coding's scratch
        pds, activity, method, copied, added, dropped, key_inherited, stem_changed, ambiguous = self._edge_cells[0].row(i)
        score, options_score, option_map, alternatives = self._edge_cells[1].row(i)
        status_reader = self._edge_cells[2]
        statuses = (None,) * len(_EDGE_STATUSES) if status_reader is None else status_reader.row(i)
        option_map = self._option_maps.setdefault(m := tuple(option_map), m) if option_map else ()
        read = self._ids.ref
        kept = {
            "child": near if near is not None and up else read(self._child_at[i]),
            "parent": near if near is not None and not up else read(self._parent_at[i]),
            "activity": activity,
            "method": method,
            "score": score,
            "options_score": options_score,
            "option_map": option_map,
            "options_copied": copied,
            "options_added": added,
            "options_dropped": dropped,
            "key_inherited": key_inherited,
            "stem_changed": stem_changed,
            "ambiguous": bool(ambiguous),
            "alternatives": tuple([join_ref(pds, a) for a in alternatives]) if alternatives else (),
            **dict(zip(_EDGE_STATUSES, statuses, strict=True)),
        }
        self._edges[i] = kept
        return kept

    def _edge(self, i: int, near: str | None = None, up: bool = True) -> Edge:
        """The edge of row ``i`` (a new object, of the fields kept)."""
        edge = _new(Edge)
        edge.__dict__.update(self._edge_fields(i, near, up))
        return edge

    def _edge_rows(self, ref: str, up: bool) -> list[int]:
        """The rows of the edges to the item's parents (``up``) or from its children, in row order."""
        i = self._ids.find(ref)
        return [] if i is None else (self._up if up else self._down).rows(i)

    def parents(self, ref: str) -> list[Edge]:
        """Edges to the item's parents."""
        return [self._edge(i, ref, up=True) for i in self._edge_rows(ref, up=True)]

    def children(self, ref: str) -> list[Edge]:
        """Edges from the item's children."""
        return [self._edge(i, ref, up=False) for i in self._edge_rows(ref, up=False)]

    def _walk(self, start: int | None, ref: str, up: bool) -> list[Relative]:
        """The relatives of ``ref``, numbered ``start`` (none when None), breadth first."""
        index, far = (self._up, self._parent_at) if up else (self._down, self._child_at)
        if start is None or not (rows := index.rows(start)):
            return []
        seen = {start}
        out: list[Relative] = []
        queue: deque[tuple[int, str, tuple[Edge, ...]]] = deque()
        path: tuple[Edge, ...] = ()
        kept, end = self._edges, "parent" if up else "child"
        while True:
            if len(rows) > 1:  # by the far end's ref (numbers follow ref order), row order among equals
                rows.sort(key=far.__getitem__)
            for i in rows:
                nxt = far[i]
                if nxt in seen:
                    continue
                seen.add(nxt)
                # (self._edge, inline, filled as _new says: a walk builds most of a query's objects)
                fields = kept.get(i) or self._edge_fields(i, ref, up)
                e = _new(Edge)
                e.__dict__.update(fields)
                step = (*path, e)
                relative = fields[end]  # (the edge's far end is the relative's ref, already read)
                r = _new(Relative)
                d = r.__dict__  # (its fields set one by one: no dict built to copy)
                d["ref"], d["depth"], d["path"] = relative, len(step), step
                out.append(r)
                queue.append((nxt, relative, step))
            if not queue:
                return out
            cur, ref, path = queue.popleft()
            rows = index.rows(cur)

    def ancestors(self, ref: str) -> list[Relative]:
        """Parents, grandparents... breadth first (nearest first)."""
        return self._walk(self._locate(ref)[1], ref, up=True)

    def descendants(self, ref: str) -> list[Relative]:
        """Children, grandchildren... breadth first (nearest first)."""
        return self._walk(self._locate(ref)[1], ref, up=False)

    def duplicates(self, ref: str) -> list[str]:
        """Identical items in the same dataset (same stem, same options as a multiset)."""
        return list(self._dups.get(ref, ()))

    def documented_children(self, dataset: str) -> list[dict[str, Any]]:
        """Dataset-level derivations from ``dataset`` with no item data here."""
        return [d.to_dict() for d in self._documented.get(dataset, ())]


# --- what a ``lineage`` parameter accepts, converted in one place ---

#: What a public function's ``lineage`` parameter takes: a linked family, its graph, or
#: the path of a lineage folder (``str`` or :class:`os.PathLike`, as ``link`` wrote it).
LineageLike = Union[Lineage, "LineageGraph", str, "os.PathLike[str]"]


def graph_of(lineage: Lineage, *, with_items: bool = True) -> LineageGraph:
    """The graph of ``lineage``, built on first use and kept on it: every later query of
    the same ``Lineage`` reuses it (a field set on the lineage drops it)."""
    graph = lineage.__dict__.get(GRAPH_SLOT)
    if not isinstance(graph, LineageGraph) or (with_items and not graph._with_items):
        graph = LineageGraph(lineage, with_items=with_items)
        lineage.__dict__[GRAPH_SLOT] = graph
    return graph


def as_lineage(value: object, param: str = "lineage", *, records: bool = True) -> Lineage:
    """``value`` as a :class:`Lineage`: itself, a graph's lineage, or the lineage folder at
    that path read (its items' raw records only when ``records``).

    Raises:
        ArgumentError: ``value`` is none of these (the message names ``param``).
        InputError: the path is not a lineage folder.
    """
    if isinstance(value, Lineage):
        return value
    if isinstance(value, LineageGraph):
        return value.lineage
    return Lineage.read(Path(check_lineage_arg(value, param)), records=records)


def check_lineage_arg(value: Any, param: str = "lineage") -> Any:
    """``value`` when it is what a ``lineage`` parameter takes (:data:`LineageLike`), checked
    without reading anything (for a function that reads it only when it needs it).

    Raises:
        ArgumentError: it is not (the message names ``param`` and what it accepts).
    """
    if isinstance(value, (Lineage, LineageGraph, str, os.PathLike)):
        return value
    raise ArgumentError(
        f"{param} must be a Lineage, a LineageGraph or the path of a lineage folder, not {type(value).__name__}",
        hint="read one with Lineage.read(folder), or make one with link(...)",
    )


def as_graph(
    value: object, param: str = "lineage", *, with_items: bool = True, refs: Iterable[str] | None = None
) -> LineageGraph:
    """``value`` as a :class:`LineageGraph`: itself, or the (kept) graph of the lineage that
    :func:`as_lineage` makes of it.

    With ``refs``, a lineage folder is read for the family of those item refs alone (every
    item reachable from them through edges and duplicate groups, with
    :func:`~croissant_lineage.lineage.query.family_lineage`): a graph that answers every
    query about them (relatives, routing without findings, pictures) as the whole
    lineage's graph would. A ``Lineage`` or a graph is used as it is.

    Raises:
        ArgumentError: ``value`` is no lineage (the message names ``param``), or ``refs``
            is one string rather than a collection of refs.
        InputError: the path is not a lineage folder.
    """
    if isinstance(value, LineageGraph):
        return value
    if refs is not None and isinstance(value, (str, os.PathLike)):
        if isinstance(refs, str):
            raise ArgumentError("refs must be a collection of item refs, not one string", hint="as_graph(folder, refs=[ref])")
        # (the family reader, imported only for a folder)
        from croissant_lineage.lineage.query import family_lineage

        return LineageGraph(family_lineage(Path(value), list(refs), closure="component"), with_items=with_items)
    return graph_of(as_lineage(value, param), with_items=with_items)


def relatives_of(lineage: LineageLike, ref: str) -> Relatives:
    """Everything the lineage knows about ``ref`` (e.g. ``"mmlu-pro:3542"``).

    Args:
        lineage: A :class:`Lineage` (its graph is built on the first query and kept), a
            :class:`LineageGraph`, or the path of a lineage folder.
        ref: The item ref.

    Returns:
        A :class:`Relatives`: the item, its ancestors and descendants with the edge
        evidence on each path, its duplicates, and documented-coverage derivations of
        its own and its ancestors' datasets.

    Raises:
        InputError: the item is not in the lineage.
        ArgumentError: ``lineage`` is no lineage.
    """
    if isinstance(lineage, (str, os.PathLike)):
        from croissant_lineage.lineage.query import family_lineage

        # the item's family rows alone, the texts of the item asked about only (a folder
        # written without the reference index: read whole, without the raw records)
        lineage = LineageGraph(family_lineage(Path(lineage), ref, texts=[ref]))
    graph = as_graph(lineage)
    row, number = graph._locate(ref)  # once for the walks and the record
    ancestors = graph._walk(number, ref, up=True)
    item = None if row is None else graph._record(ref, row)
    documented: list[dict[str, Any]] = []
    if docs := graph._documented:  # (a family without documented derivations lists no datasets)
        datasets = [ref.partition(":")[0]] + [a.ref.partition(":")[0] for a in ancestors]
        for ds in dict.fromkeys(datasets):
            if ds in docs:
                documented.extend(d.to_dict() for d in docs[ds])  # (documented_children, inline)
    family = _new(Relatives)  # (filled as _new says)
    family.__dict__.update({
        "ref": ref,
        "item": item,
        "ancestors": tuple(ancestors),
        "descendants": tuple(graph._walk(number, ref, up=False)),
        "duplicates": graph._dups.get(ref, ()),  # (a tuple already)
        "documented": tuple(documented),
        "findings": (),
    })
    return family
