"""The lineage graph: an item's parents, children, ancestors, descendants, duplicates.

:class:`LineageGraph` indexes a :class:`~croissant_lineage.lineage.model.Lineage` once
(ref numbers and NumPy arrays, see :class:`~croissant_lineage.lineage.refids.RefIds`),
after which every query is a few look-ups. :func:`relatives_of` gathers everything known about one item into a
:class:`Relatives`.
"""

from __future__ import annotations

import bisect
import itertools
from collections import defaultdict, deque
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from croissant_lineage._results import Result
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.model import Lineage, release_memory
from croissant_lineage.lineage.refids import EdgeIndex, RefIds, RefRows, joined_refs, number_refs
from croissant_lineage.lineage.schema import EDGES_SCHEMA, join_ref, split_ref

__all__ = ["FAMILY_COLUMNS", "Edge", "ItemRecord", "LineageGraph", "Relative", "Relatives", "relatives_of"]


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

    @property
    def key_text(self) -> str | None:
        """The text of the key option, if the key and options are known."""
        if self.key is None or not self.options:
            return None
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
        release_memory()  # the joined refs and the hash table, before the indexes
        self._ids = RefIds(refs)  # the edges' ends
        del refs
        # Edge rows by child (up) and by parent (down), in row order within a ref.
        self._up = EdgeIndex(self._child)
        self._down = EdgeIndex(self._parent)
        items = lineage.items
        self._items = RefRows(items.column("dataset"), items.column("item")) if with_items else None
        # Edge objects and item columns are built the first time a query touches them.
        self._edge_cols: dict[str, pa.Array] | None = None
        self._item_chunks: dict[str, tuple[list[pa.Array], list[int]]] | None = None
        self._edges: dict[int, Edge] = {}
        self._with_items = with_items
        self._dups: dict[str, tuple[str, ...]] = {}
        groups: dict[tuple[str, str], list[str]] = defaultdict(list)
        d = lineage.duplicates
        for dsn, item, group in zip(*(d.column(c).to_pylist() for c in ("dataset", "item", "group")), strict=True):
            groups[(dsn, group)].append(join_ref(dsn, item))
        for members in groups.values():
            for m in members:
                self._dups[m] = tuple(x for x in members if x != m)
        self._documented: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in lineage.family.get("derivations", []):
            if r.get("coverage") == "documented":
                self._documented[r["parent"]].append(dict(r))

    def _row(self, ref: str) -> int | None:
        """The items table's row of ``ref``, or None."""
        return None if self._items is None else self._items.find(ref)

    def __contains__(self, ref: object) -> bool:
        # (every numbered ref is an end of an edge)
        return isinstance(ref, str) and (self._row(ref) is not None or self._ids.find(ref) is not None)

    def item(self, ref: str) -> ItemRecord:
        """The item's record.

        Raises:
            InputError: no such item in the lineage, or no record of it: the graph was
                built with ``with_items=False``, or the item is named by an edge or a
                duplicate group but missing from the item table (e.g. a filtered lineage).
        """
        self._check(ref)
        if not self._with_items:
            raise InputError(
                f"item {ref!r}: this graph was built without the item texts",
                hint="build it with LineageGraph(lineage, with_items=True)",
            )
        n = self._row(ref)
        if n is None:
            raise InputError(
                f"item {ref!r} is linked in the lineage but not in its item table",
                hint="the lineage's items were filtered or lost: re-run link",
            )
        if self._item_chunks is None:
            # Indexing a chunked column searches its chunks on every call: keep each
            # column's chunks and their starts, and find the row once per column.
            self._item_chunks = {}
            for c in ("dataset", "item", "subject", "stem", "options", "key"):
                chunks = self.lineage.items.column(c).chunks
                starts = list(itertools.accumulate((len(ch) for ch in chunks), initial=0))[:-1]
                self._item_chunks[c] = (chunks, starts)
        item_chunks = self._item_chunks

        def value(c: str) -> Any:
            chunks, starts = item_chunks[c]
            k = bisect.bisect_right(starts, n) - 1
            return chunks[k][n - starts[k]].as_py()

        return ItemRecord(
            ref, value("dataset"), value("item"), value("subject"), value("stem"),
            tuple(value("options") or ()), value("key"),
        )

    def _edge(self, i: int) -> Edge:
        """The edge of row ``i`` (built once, then kept)."""
        edge = self._edges.get(i)
        if edge is not None:
            return edge
        if self._edge_cols is None:
            edges = self.lineage.edges
            skip = ("child_dataset", "child_item", "parent_item")
            self._edge_cols = {f.name: edges.column(f.name).combine_chunks() for f in EDGES_SCHEMA if f.name not in skip}
        cols = self._edge_cols

        def value(c: str) -> Any:
            return cols[c][i].as_py()

        pds = value("parent_dataset")
        edge = Edge(
            child=self._ids.ref(int(self._child[i])),
            parent=self._ids.ref(int(self._parent[i])),
            activity=value("activity"),
            method=value("method"),
            score=value("score"),
            options_score=value("options_score"),
            option_map=tuple(value("option_map") or ()),
            options_copied=value("options_copied"),
            options_added=value("options_added"),
            options_dropped=value("options_dropped"),
            key_inherited=value("key_inherited"),
            stem_changed=value("stem_changed"),
            ambiguous=bool(value("ambiguous")),
            alternatives=tuple(join_ref(pds, a) for a in value("alternatives") or ()),
        )
        self._edges[i] = edge
        return edge

    def _edge_rows(self, ref: str, up: bool) -> list[int]:
        """The rows of the edges to the item's parents (``up``) or from its children, in row order."""
        i = self._ids.find(ref)
        return [] if i is None else (self._up if up else self._down).rows(i).tolist()

    def parents(self, ref: str) -> list[Edge]:
        """Edges to the item's parents."""
        return [self._edge(i) for i in self._edge_rows(ref, up=True)]

    def children(self, ref: str) -> list[Edge]:
        """Edges from the item's children."""
        return [self._edge(i) for i in self._edge_rows(ref, up=False)]

    def _walk(self, ref: str, up: bool) -> list[Relative]:
        index, far = (self._up, self._parent) if up else (self._down, self._child)
        start = self._ids.find(ref)
        if start is None:
            return []
        seen = {start}
        out: list[Relative] = []
        queue: deque[tuple[int, tuple[Edge, ...]]] = deque([(start, ())])
        while queue:
            cur, path = queue.popleft()
            rows = index.rows(cur)
            # By the far end's ref (ids follow ref order), row order among equals.
            for i in rows[np.argsort(far[rows], kind="stable")].tolist():
                nxt = int(far[i])
                if nxt in seen:
                    continue
                seen.add(nxt)
                step = (*path, self._edge(i))
                out.append(Relative(self._ids.ref(nxt), len(step), step))
                queue.append((nxt, step))
        return out

    def ancestors(self, ref: str) -> list[Relative]:
        """Parents, grandparents... breadth first (nearest first)."""
        self._check(ref)
        return self._walk(ref, up=True)

    def descendants(self, ref: str) -> list[Relative]:
        """Children, grandchildren... breadth first (nearest first)."""
        self._check(ref)
        return self._walk(ref, up=False)

    def duplicates(self, ref: str) -> list[str]:
        """Identical items in the same dataset (same stem, same options as a multiset)."""
        return list(self._dups.get(ref, ()))

    def documented_children(self, dataset: str) -> list[dict[str, Any]]:
        """Dataset-level derivations from ``dataset`` with no item data here."""
        return [dict(d) for d in self._documented.get(dataset, ())]

    def _check(self, ref: str) -> None:
        try:
            split_ref(ref)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        if ref not in self:
            dataset = ref.partition(":")[0]
            known = sorted({d["name"] for d in self.lineage.family.get("datasets", [])})
            hint = "check the item id" if dataset in known else f"datasets are: {', '.join(known)}"
            raise InputError(f"item {ref!r} is not in the lineage", hint=hint)


def relatives_of(lineage: Lineage | LineageGraph, ref: str) -> Relatives:
    """Everything the lineage knows about ``ref`` (e.g. ``"mmlu-pro:3542"``).

    Args:
        lineage: A :class:`Lineage` or an already built :class:`LineageGraph`
            (build the graph once for many queries).
        ref: The item ref.

    Returns:
        A :class:`Relatives`: the item, its ancestors and descendants with the edge
        evidence on each path, its duplicates, and documented-coverage derivations of
        its own and its ancestors' datasets.

    Raises:
        InputError: the item is not in the lineage.
    """
    graph = lineage if isinstance(lineage, LineageGraph) else LineageGraph(lineage)
    ancestors = graph.ancestors(ref)
    item = graph.item(ref) if graph._row(ref) is not None else None
    datasets = [ref.partition(":")[0]] + [a.ref.partition(":")[0] for a in ancestors]
    documented: list[dict[str, Any]] = []
    for ds in dict.fromkeys(datasets):
        documented.extend(graph.documented_children(ds))
    return Relatives(
        ref=ref,
        item=item,
        ancestors=tuple(ancestors),
        descendants=tuple(graph.descendants(ref)),
        duplicates=tuple(graph.duplicates(ref)),
        documented=tuple(documented),
    )
