"""One item's family read from a lineage folder: only the rows of that family.

:func:`family_lineage` computes the family closure of one item (or a few) from the
folder's reference index (:mod:`croissant_lineage.lineage.index`), one step of edges at a
time, and reads the items, edges and duplicate rows of that closure alone: a
:class:`~croissant_lineage.lineage.model.Lineage` of the family, whose graph answers
every query about the item as the whole lineage's graph would.

Two closures:

* ``"relatives"``: the item, its parents, their parents... (edges where the ref is the
  child), its children, theirs... (edges where it is the parent), and its duplicates: what
  :func:`~croissant_lineage.lineage.graph.relatives_of` reads.
* ``"component"``: every item reachable through edges in either direction and duplicate
  groups: what routing reads (an ancestor's other descendants, a duplicate's relatives).
  ``more`` adds refs to follow once the closure is known (the items findings on it name),
  until nothing is added.

A folder written before the index existed is read whole (:meth:`Lineage.read`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pyarrow as pa

from croissant_lineage._io import note_input, read_json
from croissant_lineage.croissant.limits import check_cells
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.footers import GroupedFile
from croissant_lineage.lineage.index import (
    CHILD_OF,
    DUPLICATE,
    INDEX_FILE,
    ITEM,
    PARENT_OF,
    RefIndex,
    RowReader,
)
from croissant_lineage.lineage.info import FamilyInfo, LinkSummary
from croissant_lineage.lineage.model import LINEAGE_FILES, Lineage, lineage_folder
from croissant_lineage.lineage.schema import (
    DUPLICATES_SCHEMA,
    EDGES_SCHEMA,
    ITEMS_SCHEMA,
    UNMATCHED_SCHEMA,
    conform,
)

__all__ = ["CLOSURES", "Closure", "family_closure", "family_lineage", "has_index"]

CLOSURES = ("relatives", "component")


def has_index(folder: str | Path) -> bool:
    """True when the lineage folder holds a reference index."""
    return (Path(folder) / INDEX_FILE).is_file()


class Closure:
    """The refs of a family and the table rows that hold them."""

    def __init__(self) -> None:
        self.refs: set[str] = set()
        self.items: set[int] = set()
        self.edges: set[int] = set()
        self.duplicates: set[int] = set()

    def add(self, entries: list[tuple[int, int, str]], kinds: tuple[int, ...]) -> None:
        """The rows of ``entries`` of ``kinds`` (and the item's own row)."""
        for kind, row, _other in entries:
            if kind != ITEM and kind not in kinds:
                continue
            if kind == ITEM:
                self.items.add(row)
            elif kind == DUPLICATE:
                self.duplicates.add(row)
            else:
                self.edges.add(row)


def _walk(index: RefIndex, start: Iterable[str], closure: Closure, kinds: tuple[int, ...]) -> None:
    """From ``start``, follow the entries of ``kinds`` (their ``other`` ends) breadth first,
    one index look-up per step; every ref reached and its rows go into ``closure``."""
    frontier = set(start)
    seen: set[str] = set()
    while frontier:
        seen |= frontier
        found = index.lookup(sorted(frontier))
        nxt: set[str] = set()
        for ref, entries in found.items():
            closure.refs.add(ref)
            closure.add(entries, kinds)
            nxt.update(other for kind, _row, other in entries if kind in kinds)
        frontier = nxt - seen


def family_closure(
    index: RefIndex, refs: Iterable[str], closure: str = "relatives",
    more: Callable[[set[str]], Iterable[str]] | None = None,
) -> Closure:
    """The closure of ``refs`` (see the module docstring) from the index alone."""
    if closure not in CLOSURES:
        raise ValueError(f"closure must be one of {CLOSURES}, not {closure!r}")
    out = Closure()
    start = list(refs)
    if closure == "relatives":
        _walk(index, start, out, (CHILD_OF,))
        _walk(index, start, out, (PARENT_OF,))
        _walk(index, start, out, (DUPLICATE,))  # (the start's group: duplicates have no edges between them)
        out.refs.update(start)
        return out
    todo = set(start)
    while todo:
        _walk(index, todo, out, (CHILD_OF, PARENT_OF, DUPLICATE))
        out.refs.update(todo)
        todo = set(more(set(out.refs)) if more else ()) - out.refs
    return out


class _Opened:
    """A folder's index and table readers, kept between queries of one process while
    the folder's index is the same file (its size and modification time)."""

    def __init__(self, src: Path):
        self.index = RefIndex(src / INDEX_FILE)
        # the rows read are held to the cell limit as a whole-folder read is (Lineage.read),
        # each row group once, when it is decoded
        items = GroupedFile(src / "items.parquet")
        have = set(items.schema_arrow.names)
        self.items = RowReader(src / "items.parquet", [n for n in ITEMS_SCHEMA.names if n != "record" and n in have],
                               check=_checker(src / "items.parquet"), file=items)
        # the items' refs and few-valued columns alone: what a relatives query reads of
        # every member but the one asked about
        self.item_keys = RowReader(src / "items.parquet", [n for n in _ITEM_KEYS if n in have],
                                   check=_checker(src / "items.parquet"), file=items)
        self.edges = RowReader(src / "edges.parquet", check=_checker(src / "edges.parquet"))
        self.duplicates = RowReader(src / "duplicates.parquet", check=_checker(src / "duplicates.parquet"))
        self.family = FamilyInfo.from_dict(read_json(src / "family.json"))
        summary = read_json(src / "summary.json") if (src / "summary.json").exists() else {}
        self.summary = LinkSummary.from_dict({k: v for k, v in summary.items() if k != "generator"})


def _text_rows(opened: _Opened, texts: Iterable[str] | None) -> set[int] | None:
    """The items rows of the refs ``texts`` (None: every row's texts are read)."""
    if texts is None:
        return None
    found = opened.index.lookup(sorted(set([texts] if isinstance(texts, str) else texts)))
    return {row for entries in found.values() for kind, row, _other in entries if kind == ITEM}


def _checker(path: Path) -> Callable[[pa.Table, int], object]:
    return lambda table, first: check_cells(table, path, row_offset=first)


_OPENED: dict[tuple[str, int, int], _Opened] = {}

#: The item columns read for every member of a family when ``texts`` names the members
#: whose texts (stem, options, answers, code) are read.
_ITEM_KEYS = ("dataset", "item", "subject", "key", "source_row", "key_kind")


def _items(opened: _Opened, rows: set[int], texts: set[int] | None) -> pa.Table:
    """The items rows ``rows`` (ascending), every column but ``record``; with ``texts``,
    only those rows' text columns are read (the others' null)."""
    if texts is None or not rows - texts:
        return opened.items.rows(rows)
    full = conform(opened.items.rows(texts & rows), ITEMS_SCHEMA)
    others = sorted(rows - texts)
    keys = conform(opened.item_keys.rows(others), ITEMS_SCHEMA)
    both = pa.concat_tables([full, keys])
    # back into the folder's row order
    order = sorted(range(both.num_rows), key=[*sorted(texts & rows), *others].__getitem__)
    return both.take(pa.array(order, pa.int64()))


def _opened(src: Path) -> _Opened:
    stat = (src / INDEX_FILE).stat()
    key = (str(src.resolve()), stat.st_size, stat.st_mtime_ns)
    got = _OPENED.get(key)
    if got is None:
        _OPENED.clear()  # (one folder kept: a process querying another drops the first)
        got = _OPENED[key] = _Opened(src)
    return got


def family_lineage(
    folder: str | Path, refs: str | Iterable[str], *, closure: str = "relatives",
    more: Callable[[set[str]], Iterable[str]] | None = None, texts: Iterable[str] | None = None,
) -> Lineage:
    """The lineage of the family of ``refs`` read from the lineage folder: the rows of the
    closure's items, edges and duplicate groups, in the folder's row order, without the
    items' raw records (``records=False``) and without unmatched rows. Its graph gives the
    same relatives (``"relatives"``) or routing queue (``"component"``, with ``more`` naming
    what findings add) as the whole lineage's. A folder without an index is read whole.

    ``texts``, when given, names the items whose texts (stem, options, key text, answers,
    solution, tests, source file) are read; the other members' are null. A relatives
    query reads the texts of the item asked about only (``texts=[ref]``): the relatives it
    lists are edges, and decoding every member's texts is most of a query's cost.

    Raises:
        InputError: the folder or one of its files is missing or unreadable.
    """
    src = lineage_folder(folder)
    if not has_index(src):
        return Lineage.read(src, records=False)
    for name in (*LINEAGE_FILES, "family.json"):
        if not (src / name).exists():
            raise InputError("missing from lineage folder", path=src / name)
    note_input(src)
    try:
        opened = _opened(src)
        found = family_closure(opened.index, [refs] if isinstance(refs, str) else refs, closure, more)
        tables = {
            # the record column (not read) and older folders' absent ones null
            "items": conform(_items(opened, found.items, _text_rows(opened, texts)), ITEMS_SCHEMA),
            "edges": opened.edges.rows(found.edges).cast(EDGES_SCHEMA),
            "duplicates": opened.duplicates.rows(found.duplicates).cast(DUPLICATES_SCHEMA),
        }
    except (pa.ArrowInvalid, OSError, ValueError) as exc:
        raise InputError(f"not a lineage folder: {exc}", path=src) from None
    return Lineage(
        family=opened.family,
        summary=opened.summary,
        unmatched=UNMATCHED_SCHEMA.empty_table(),
        records=False,
        **tables,
    )
