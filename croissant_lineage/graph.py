"""The lineage graph: an item's parents, children, ancestors, descendants, duplicates.

:class:`LineageGraph` indexes a :class:`~croissant_lineage.lineage.Lineage` once
(dictionaries keyed by item ref), after which every query is a few dictionary
look-ups. :func:`family_of` gathers everything known about one item into a
:class:`Family`.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import InputError
from .lineage import Lineage
from .schema import EDGES_SCHEMA, join_ref, split_ref

__all__ = ["Edge", "Family", "ItemRecord", "LineageGraph", "Relative", "family_of"]


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


@dataclass(frozen=True)
class Family:
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

    def to_pandas(self) -> Any:
        """One row per relative with the edge evidence (see ``display.family_frame``)."""
        from .display import family_frame

        return family_frame(self)

    def _repr_html_(self) -> str:
        from .display import to_html

        return to_html(self)


def _edge_rows(lineage: Lineage) -> list[Edge]:
    cols = {f.name: lineage.edges.column(f.name).to_pylist() for f in EDGES_SCHEMA}
    out = []
    for i in range(lineage.edges.num_rows):
        out.append(
            Edge(
                child=join_ref(cols["child_dataset"][i], cols["child_item"][i]),
                parent=join_ref(cols["parent_dataset"][i], cols["parent_item"][i]),
                activity=cols["activity"][i],
                method=cols["method"][i],
                score=cols["score"][i],
                options_score=cols["options_score"][i],
                option_map=tuple(cols["option_map"][i] or ()),
                options_copied=cols["options_copied"][i],
                options_added=cols["options_added"][i],
                options_dropped=cols["options_dropped"][i],
                key_inherited=cols["key_inherited"][i],
                stem_changed=cols["stem_changed"][i],
                ambiguous=bool(cols["ambiguous"][i]),
                alternatives=tuple(join_ref(cols["parent_dataset"][i], a) for a in cols["alternatives"][i] or ()),
            )
        )
    return out


class LineageGraph:
    """Indexed queries over a lineage.

    Args:
        lineage: A :class:`Lineage` (from ``link`` or ``Lineage.read``).
        with_items: Index the item texts too (needed by :meth:`item`).
    """

    def __init__(self, lineage: Lineage, *, with_items: bool = True):
        self.lineage = lineage
        self._up: dict[str, list[Edge]] = defaultdict(list)
        self._down: dict[str, list[Edge]] = defaultdict(list)
        for e in _edge_rows(lineage):
            self._up[e.child].append(e)
            self._down[e.parent].append(e)
        self._items: dict[str, int] = {}
        if with_items:
            ds = lineage.items.column("dataset").to_pylist()
            it = lineage.items.column("item").to_pylist()
            self._items = {join_ref(d, i): n for n, (d, i) in enumerate(zip(ds, it, strict=True))}
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

    def __contains__(self, ref: object) -> bool:
        return isinstance(ref, str) and (ref in self._items or ref in self._up or ref in self._down)

    def item(self, ref: str) -> ItemRecord:
        """The item's record.

        Raises:
            InputError: no such item in the lineage.
        """
        self._check(ref)
        n = self._items[ref]
        row = {c: self.lineage.items.column(c)[n].as_py() for c in ("dataset", "item", "subject", "stem", "options", "key")}
        return ItemRecord(ref, row["dataset"], row["item"], row["subject"], row["stem"], tuple(row["options"] or ()), row["key"])

    def parents(self, ref: str) -> list[Edge]:
        """Edges to the item's parents."""
        return list(self._up.get(ref, ()))

    def children(self, ref: str) -> list[Edge]:
        """Edges from the item's children."""
        return list(self._down.get(ref, ()))

    def _walk(self, ref: str, up: bool) -> list[Relative]:
        index = self._up if up else self._down
        seen = {ref}
        out: list[Relative] = []
        queue: deque[tuple[str, tuple[Edge, ...]]] = deque([(ref, ())])
        while queue:
            cur, path = queue.popleft()
            for e in sorted(index.get(cur, ()), key=lambda x: x.parent if up else x.child):
                nxt = e.parent if up else e.child
                if nxt in seen:
                    continue
                seen.add(nxt)
                out.append(Relative(nxt, len(path) + 1, (*path, e)))
                queue.append((nxt, (*path, e)))
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


def family_of(lineage: Lineage | LineageGraph, ref: str) -> Family:
    """Everything the lineage knows about ``ref`` (e.g. ``"mmlu-pro:3542"``).

    Args:
        lineage: A :class:`Lineage` or an already built :class:`LineageGraph`
            (build the graph once for many queries).
        ref: The item ref.

    Returns:
        A :class:`Family`: the item, its ancestors and descendants with the edge
        evidence on each path, its duplicates, and documented-coverage derivations of
        its own and its ancestors' datasets.

    Raises:
        InputError: the item is not in the lineage.
    """
    graph = lineage if isinstance(lineage, LineageGraph) else LineageGraph(lineage)
    ancestors = graph.ancestors(ref)
    item = graph.item(ref) if ref in graph._items else None
    datasets = [ref.partition(":")[0]] + [a.ref.partition(":")[0] for a in ancestors]
    documented: list[dict[str, Any]] = []
    for ds in dict.fromkeys(datasets):
        documented.extend(graph.documented_children(ds))
    return Family(
        ref=ref,
        item=item,
        ancestors=tuple(ancestors),
        descendants=tuple(graph.descendants(ref)),
        duplicates=tuple(graph.duplicates(ref)),
        documented=tuple(documented),
    )
