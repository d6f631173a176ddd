"""A linked family: items, edges, duplicates and the unmatched, kept together.

A :class:`Lineage` is what :func:`croissant_lineage.workflows.link` returns and what a
lineage folder holds on disk::

    items.parquet       every item of every dataset (schema.ITEMS_SCHEMA)
    edges.parquet       child item -> parent item with evidence (schema.EDGES_SCHEMA)
    duplicates.parquet  groups of identical items within a dataset (schema.DUPLICATES_SCHEMA)
    unmatched.parquet   children with no parent above the threshold (schema.UNMATCHED_SCHEMA)
    family.json         the family at dataset level: datasets and derivations
    summary.json        counts per derivation and method
    index.parquet       where each item's rows are, by ref (:mod:`croissant_lineage.lineage.index`)

The tables are written in small row groups, so that a query of one item
(:mod:`croissant_lineage.lineage.query`) reads only the groups of its family's rows.

Files are written atomically and deterministically (same inputs, same bytes).
"""

from __future__ import annotations

import ctypes
import os
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from croissant_lineage._io import (
    atomic_folder,
    atomic_write_json,
    atomic_write_parquet,
    atomic_write_parquet_groups,
    check_output,
    note_input,
    probing_outputs,
    read_json,
)
from croissant_lineage._io.splice import RawGroups, atomic_write_parquet_spliced, copyable
from croissant_lineage._results import Result
from croissant_lineage.croissant.limits import check_cells, check_parquet
from croissant_lineage.errors import ArgumentError, InputError, OutputError, OutputExistsError
from croissant_lineage.lineage import index as query_index
from croissant_lineage.lineage.beside import beside
from croissant_lineage.lineage.footers import footers_path, write_footer_blocks
from croissant_lineage.lineage.hf import to_hf_dataset
from croissant_lineage.lineage.index import (
    INDEX_FILE,
    INDEX_SCHEMA,
    index_groups,
    query_groups,
)
from croissant_lineage.lineage.info import (
    INPUTS_FILE,
    FamilyInfo,
    LinkInputs,
    LinkSummary,
    family_info,
)
from croissant_lineage.lineage.kept import ItemsFile, KeptRows
from croissant_lineage.lineage.packed_records import PackedRecords
from croissant_lineage.lineage.schema import (
    DUPLICATES_SCHEMA,
    EDGES_SCHEMA,
    ITEMS_SCHEMA,
    UNMATCHED_SCHEMA,
    conform,
)

__all__ = [
    "GENERATOR",
    "GRAPH_SLOT",
    "LINEAGE_FILES",
    "FamilyInfo",
    "Lineage",
    "LinkSummary",
    "family_info",
    "is_lineage_folder",
    "items_without_records",
    "lineage_folder",
    "release_memory",
]

#: Where a :class:`Lineage` keeps its graph once a query built it
#: (:func:`croissant_lineage.lineage.graph.graph_of`); not a field: equality, pickling
#: and ``repr`` ignore it, and setting any field drops it.
GRAPH_SLOT = "_graph"

#: Marker written into ``summary.json``: files carrying it may be replaced by the library.
GENERATOR = "croissant_lineage"


def lineage_folder(value: object, param: str = "folder") -> Path:
    """``value`` as the path of a lineage folder (a ``str`` or :class:`os.PathLike`), not yet read.

    Raises:
        ArgumentError: it is no path (the message names ``param``).
    """
    if isinstance(value, (str, os.PathLike)):
        return Path(value)
    raise ArgumentError(
        f"{param} must be the path of a lineage folder, not {type(value).__name__}",
        hint="write one with 'croissant-lineage link --out DIR' or Lineage.write(DIR)",
    )


def is_lineage_folder(folder: str | Path) -> bool:
    """True when ``folder`` holds a ``summary.json`` written by this library."""
    path = Path(folder) / "summary.json"
    try:
        return bool(path.is_file() and read_json(path).get("generator") == GENERATOR)
    except (InputError, AttributeError):
        return False

#: Rows per row group of ``items.parquet``: more than a family as large as MMLU's (93,751
#: items: one group, as ``pq.write_table`` wrote it), few enough that writing builds the
#: raw records of one group at a time.
ITEMS_ROW_GROUP = 1 << 17

#: File name -> schema of the tables in a lineage folder.
LINEAGE_FILES: dict[str, pa.Schema] = {
    "items.parquet": ITEMS_SCHEMA,
    "edges.parquet": EDGES_SCHEMA,
    "duplicates.parquet": DUPLICATES_SCHEMA,
    "unmatched.parquet": UNMATCHED_SCHEMA,
}

#: The files a query of one item reads row groups of (those past a million rows get
#: footer blocks: :mod:`croissant_lineage.lineage.footers`).
_QUERIED = ("items.parquet", "edges.parquet", "duplicates.parquet", INDEX_FILE)

#: The columns of the lineage files written dictionary-encoded: those whose values repeat
#: (names, kinds, statuses, flags). Ids, texts, records, scores and option maps are written
#: plain: in row groups of a thousand rows a dictionary of values that seldom repeat costs
#: CPU and bytes and saves nothing. (Only the encoding: the content is the same.)
_DICTIONARY_COLUMNS: dict[str, tuple[str, ...]] = {
    "items.parquet": ("dataset", "subject", "key", "source_file", "key_kind"),
    "edges.parquet": ("child_dataset", "parent_dataset", "activity", "method", "key_inherited", "stem_changed",
                      "ambiguous", "text_repaired", "stem_status", "options_status", "key_status",
                      "solution_status", "tests_status", "options_copied", "options_added", "options_dropped"),
    "duplicates.parquet": ("dataset", "parent_dataset", "size"),
}


@dataclass(repr=False)
class Lineage(Result):
    """Items and their derivation edges for one family.

    Attributes:
        family: The family at dataset level (:class:`FamilyInfo`, see :func:`family_info`):
            its datasets, derivations and language rules.
        items, edges, duplicates, unmatched: Arrow tables with the schemas of
            :mod:`croissant_lineage.lineage.schema`.
        summary: Counts per derivation (:class:`LinkSummary`): linked per method,
            unmatched, ambiguous, duplicate groups.
        records: False when the items' raw records were not read (``read(records=False)``):
            the ``record`` column is all null, and :meth:`write` refuses the lineage.
    """

    family: FamilyInfo
    items: pa.Table
    edges: pa.Table
    duplicates: pa.Table = field(default_factory=DUPLICATES_SCHEMA.empty_table)
    unmatched: pa.Table = field(default_factory=UNMATCHED_SCHEMA.empty_table)
    summary: LinkSummary = field(default_factory=LinkSummary)
    records: bool = field(default=True, compare=False)

    def __post_init__(self) -> None:
        # The untyped form (a family.json / summary.json mapping) is still taken, read once here.
        if not isinstance(self.family, FamilyInfo):
            self.family = FamilyInfo.from_dict(self.family if isinstance(self.family, dict) else {})
        if not isinstance(self.summary, LinkSummary):
            self.summary = LinkSummary.from_dict(self.summary if isinstance(self.summary, dict) else {})

    def items_of(self, dataset: str, *, required: bool = False) -> pa.Table:
        """The items of one dataset (its rows of :attr:`items`, in order; none when it has none).

        Raises:
            InputError: ``required`` and the lineage holds no item of ``dataset``.
        """
        table = self.items
        rows = table.filter(pc.equal(table.column("dataset"), dataset))
        if required and not rows.num_rows:
            raise InputError(
                f"the lineage holds no items of dataset {dataset!r}",
                hint="link the family (croissant-lineage link) with this dataset's data",
            )
        return rows

    def __repr__(self) -> str:
        groups = self.duplicates.group_by(["dataset", "group"]).aggregate([]).num_rows
        return (  # the item count without building records held packed
            f"Lineage(items={_held_items(self).num_rows}, edges={self.edges.num_rows}, "
            f"duplicate_groups={groups}, unmatched={self.unmatched.num_rows})"
        )

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__.pop(GRAPH_SLOT, None)  # a kept graph describes the old tables
        super().__setattr__(name, value)

    def hold_packed_records(self, packed: Sequence[PackedRecords]) -> None:
        """Keep the items' raw records compressed, one part per chunk of :attr:`items`
        (each dataset's, in order), in place of the ``record`` column the items table
        holds now. :attr:`items` gives the same table as before (built on first access,
        then kept); :meth:`write` builds it without keeping it; readers that never look
        at records take :func:`items_without_records`.

        Raises:
            ValueError: the parts do not have the rows of the table's chunks.
        """
        base = self.__dict__["_items"] if self.__dict__.get("_packed") is None else None
        if base is None:
            raise ValueError("the records are already held packed")
        lengths = [len(c) for c in base.column("record").chunks]
        if lengths != [len(p) for p in packed]:
            raise ValueError(f"packed records of {[len(p) for p in packed]} rows for chunks of {lengths}")
        self.__dict__.update(
            _items=base.set_column(base.schema.get_field_index("record"), base.schema.field("record"),
                                   pa.chunked_array([pa.nulls(n, pa.string()) for n in lengths], pa.string())),
            _packed=tuple(packed),
        )

    def hold_kept_rows(self, kept: KeptRows) -> None:
        """Keep the rows ``kept`` names in the lineage file they were read from: the items
        table holds them light (without their texts and records: what a link update reads,
        :mod:`croissant_lineage.lineage.kept`). :attr:`items` gives the whole table (read on
        first access, then kept); :meth:`write` copies those rows from the file a row group
        at a time, then reads them from the file it wrote."""
        self.__dict__["_kept"] = kept

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with its items table whole (the records built)."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("_items", "_packed", "_kept", GRAPH_SLOT)}
        state["_items"] = self._items_table()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.update(_packed=None, _kept=None)

    def _write_items(self, path: Path) -> None:
        """Write ``items.parquet`` (:meth:`_item_groups`; with kept rows, :meth:`_item_parts`,
        those in whole row groups of their file copied as bytes) to ``path``."""
        schema = LINEAGE_FILES["items.parquet"]
        kept = self.__dict__.get("_kept")
        if kept is not None:
            atomic_write_parquet_spliced(path, schema, self._item_parts(schema, copyable(kept.file.path, schema)),
                                         dictionary=_DICTIONARY_COLUMNS["items.parquet"])
        else:
            atomic_write_parquet_groups(path, schema, self._item_groups(schema),
                                        dictionary=_DICTIONARY_COLUMNS["items.parquet"])

    def _item_groups(self, schema: pa.Schema) -> Iterator[pa.Table]:
        """The items table (cast to ``schema``) as the row groups of ``items.parquet``
        (:data:`~croissant_lineage.lineage.index.QUERY_ROW_GROUP` rows each), records held packed
        built :data:`ITEMS_ROW_GROUP` rows at a time (a million synthetic items: 60 MB of
        records alive, not 462)."""
        packed, kept = self.__dict__.get("_packed"), self.__dict__.get("_kept")
        table = self.items if packed is None and kept is None else self.__dict__["_items"]
        size = query_index.QUERY_ROW_GROUP  # (read when written: tests set it)
        for start in range(0, max(table.num_rows, 1), ITEMS_ROW_GROUP):
            group = table.slice(start, ITEMS_ROW_GROUP)
            if packed is not None:
                group = _with_records(group, packed, start)
            if kept is None:
                yield from query_groups(conform(group, schema), size)
            else:  # (kept rows copied from their file a query group at a time)
                for at in range(0, group.num_rows, size):
                    yield conform(kept.fill(group.slice(at, size), start + at), schema)
                if not group.num_rows:
                    yield conform(group, schema)
            del group  # the group's records, built for writing only
            release_memory()

    def _item_parts(self, schema: pa.Schema, raw: bool) -> Iterator[pa.Table | RawGroups]:
        """The items table (cast to ``schema``) as the parts of ``items.parquet`` when it
        holds kept rows (:meth:`hold_kept_rows`): the kept rows that are whole row groups of
        their file copied as bytes (unless not ``raw``), the others encoded in groups of
        :data:`~croissant_lineage.lineage.index.QUERY_ROW_GROUP` rows, each run of rows from its
        start, records held packed built :data:`ITEMS_ROW_GROUP` rows at a time."""
        packed, kept = self.__dict__.get("_packed"), self.__dict__["_kept"]
        table = self.__dict__["_items"]
        size = query_index.QUERY_ROW_GROUP
        for segment in kept.segments(table.num_rows, raw=raw):
            if len(segment) == 4:
                yield RawGroups(kept.file.path, segment[2], segment[3])
                continue
            start, stop = segment[0], segment[1]
            for block in range(start, max(stop, start + 1), ITEMS_ROW_GROUP):
                group = table.slice(block, min(ITEMS_ROW_GROUP, stop - block))
                if packed is not None:
                    group = _with_records(group, packed, block)
                for at in range(0, max(group.num_rows, 1), size):
                    yield conform(kept.fill(group.slice(at, size), block + at), schema)
                del group
                release_memory()

    def _items_table(self) -> pa.Table:
        """The items table with its records, built without keeping it when they are held
        packed (what writing and pickling need once)."""
        packed, kept = self.__dict__.get("_packed"), self.__dict__.get("_kept")
        if packed is None and kept is None:
            return self.items
        table = self.__dict__["_items"] if packed is None else _with_records(self.__dict__["_items"], packed)
        return table if kept is None else kept.fill(table)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: :attr:`summary`, the counts written to ``summary.json`` (what
        ``croissant-lineage link --json`` prints); the tables stay out."""
        return self.summary.to_dict()

    def to_pandas(self) -> Any:
        """The edges table (:data:`~croissant_lineage.lineage.schema.EDGES_SCHEMA`) as a
        ``pandas.DataFrame``, one row per child -> parent edge."""
        return self.edges.to_pandas()

    def to_hf_dataset(self, table: str = "edges") -> Any:
        """One of the tables (``items``, ``edges``, ``duplicates``, ``unmatched``) as a
        ``datasets.Dataset`` over the same Arrow data, no copy (see :mod:`~croissant_lineage.lineage.hf`)."""
        return to_hf_dataset(self, table)

    def write(self, folder: str | Path, *, force: bool = False, overwrite: bool | None = None,
              inputs: LinkInputs | None = None) -> Path:
        """Write the lineage folder (see module docstring); returns its path.

        Args:
            folder: Destination; created if missing.
            force: Replace the files of a non-empty folder that was not written by
                this library (one without our ``summary.json``).
            overwrite: The former name of ``force`` (deprecated).
            inputs: What the link read (:func:`croissant_lineage.lineage.inputs.link_inputs`),
                written as ``inputs.json`` (what ``link --update`` compares a spec with).

        Raises:
            OutputExistsError: ``folder`` holds other files and ``force`` is false.
        """
        if overwrite is not None:
            warnings.warn("overwrite= is now force=", DeprecationWarning, stacklevel=2)
            force = force or overwrite
        out = Path(folder)
        if not self.records:
            raise OutputError(
                "this lineage was read without its items' raw records; writing it would lose them",
                path=out,
                hint="read it with Lineage.read(folder) (records=True) to write it",
            )
        check_output(out, folder=True)
        if out.exists() and not out.is_dir():
            raise OutputExistsError("exists and is not a folder", path=out)
        with probing_outputs():  # reading the old folder to see whether it is ours: not an input
            foreign = out.is_dir() and any(out.iterdir()) and not force and not is_lineage_folder(out)
        if foreign:
            raise OutputExistsError(
                "folder exists, is not empty and was not written by croissant-lineage",
                path=out,
                hint="choose an empty folder or pass --force",
            )
        release_memory()  # before building the records the items file needs
        # (an earlier run's inputs.json is never carried over: it describes that run's inputs)
        with atomic_folder(out, drop=(INPUTS_FILE, *(footers_path(n).name for n in _QUERIED))) as tmp:  # a killed run leaves the old folder or the new one
            with beside(lambda: self._write_items(tmp / "items.parquet"), _held_items(self).num_rows):  # (on a thread)
                for name, schema in LINEAGE_FILES.items():
                    if name == "unmatched.parquet":
                        atomic_write_parquet(tmp / name, self.unmatched.cast(schema))
                    elif name != "items.parquet":
                        table = getattr(self, name.split(".")[0]).cast(schema)
                        atomic_write_parquet_groups(tmp / name, schema, query_groups(table),
                                                    dictionary=_DICTIONARY_COLUMNS[name])
                atomic_write_parquet_groups(tmp / INDEX_FILE, INDEX_SCHEMA, index_groups(_held_items(self), self.edges,
                                            self.duplicates), statistics=["ref"], dictionary=("kind",))
            for name in _QUERIED:  # (past a million rows: see lineage.footers)
                write_footer_blocks(tmp / name, "ref" if name == INDEX_FILE else None)
            atomic_write_json(tmp / "family.json", self.family.to_dict())
            if inputs is not None:
                atomic_write_json(tmp / INPUTS_FILE, inputs.to_dict())
            atomic_write_json(tmp / "summary.json", {"generator": GENERATOR, **self.summary.to_dict()})
        kept = self.__dict__.get("_kept")
        if kept is not None:  # (the file read from is gone when the folder written replaced it)
            self.__dict__["_kept"] = kept.moved_to(ItemsFile(out / "items.parquet"))
        return out

    @classmethod
    def read(cls, folder: str | Path, *, records: bool = True) -> Lineage:
        """Read a lineage folder written by :meth:`write`.

        Args:
            folder: The lineage folder.
            records: Read the items' raw records (the ``record`` column, about half of
                ``items.parquet``). With False the column is left unread and all null, which
                is what a reader that never looks at records needs (enrich, graphs): for a
                million synthetic items the read peaks at 761 MB instead of 1,481 MB. Such a
                lineage cannot be written back (:attr:`records`).

        Raises:
            InputError: the folder or one of its files is missing or unreadable.
        """
        src = lineage_folder(folder)
        if not src.is_dir():
            raise InputError("lineage folder not found", path=src, hint="run 'croissant-lineage link' first")
        note_input(src)  # every file in it is an input of the running command
        tables: dict[str, pa.Table] = {}
        for name, schema in LINEAGE_FILES.items():
            path = src / name
            if not path.exists():
                raise InputError("missing from lineage folder", path=path)
            try:
                tables[name.split(".")[0]] = _read_table(path, schema, records=records)
            except (pa.ArrowInvalid, OSError, ValueError) as exc:
                raise InputError(f"not a lineage table: {exc}", path=path) from None
        return cls(
            family=FamilyInfo.from_dict(read_json(src / "family.json")),
            summary=LinkSummary.from_dict(read_json(src / "summary.json"))
            if (src / "summary.json").exists()
            else LinkSummary(),
            **tables,
            records=records,
        )


def _items(self: Lineage) -> pa.Table:
    """The items table. With the records held packed (:meth:`Lineage.hold_packed_records`),
    the first access builds the ``record`` column and keeps it (the packed copy is
    dropped): the table is then the very same object on every access, as before."""
    state = self.__dict__
    if state.get("_packed") is not None:
        state.update(_items=_with_records(state["_items"], state["_packed"]), _packed=None)
    if state.get("_kept") is not None:
        state.update(_items=state["_kept"].fill(state["_items"]), _kept=None)
    table: pa.Table = state["_items"]
    return table


def _with_records(base: pa.Table, packed: Sequence[PackedRecords], start: int = 0) -> pa.Table:
    """``base`` with its ``record`` column built from ``packed`` (one chunk per part), when
    ``base`` holds the rows from ``start`` of the table the parts were held for: a dataset's
    records it holds whole are one chunk; of the others, only the parts it overlaps are
    built, each cut to its rows."""
    stop, chunks, at = start + base.num_rows, [], 0
    for p in packed:
        n = len(p)
        if at >= start and at + n <= stop:
            chunks.append(p.array())  # whole: one chunk, as the table held it
        elif at < stop and at + n > start:
            chunks.extend(p.chunks(max(start - at, 0), min(stop - at, n)))
        at += n
    column = pa.chunked_array(chunks, pa.string())
    return base.set_column(base.schema.get_field_index("record"), base.schema.field("record"), column)


def _set_items(self: Lineage, table: pa.Table) -> None:
    self.__dict__.update(_items=table, _packed=None, _kept=None)


# The dataclass field ``items`` read and set through a property (set by ``__init__``).
setattr(Lineage, "items", property(_items, _set_items, doc="The items table (ITEMS_SCHEMA)."))  # noqa: B010


def release_memory() -> None:
    """Hand back to the system the pages freed memory still holds: Arrow's pool's, and
    (with glibc) the C heap's (``malloc_trim``), so that the next large step does not
    add its peak on top of what earlier steps left (a link leaves ~0.3 GB of such pages
    at a million items)."""
    pa.default_memory_pool().release_unused()
    global _TRIM
    if _TRIM is None:
        try:
            _TRIM = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError):  # not glibc
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM: Any = None


def items_without_records(lineage: Lineage) -> pa.Table:
    """``lineage.items`` for a reader that never looks at the raw records: without building
    them when they are held packed (the ``record`` column is then all null)."""
    state = lineage.__dict__
    if state.get("_kept") is not None:  # (its kept rows read from the file, not kept)
        return state["_kept"].fill(state["_items"], records=False)
    base = state.get("_items")
    return base if base is not None and state.get("_packed") is not None else lineage.items


def _held_items(lineage: Lineage) -> pa.Table:
    """The items table as held, without building records or reading kept rows: its ids
    (``dataset``, ``item``) and keys are those of :attr:`Lineage.items`, row for row."""
    state = lineage.__dict__
    if state.get("_kept") is not None or state.get("_packed") is not None:
        table: pa.Table = state["_items"]
        return table
    return lineage.items


def _read_table(path: Path, schema: pa.Schema, *, records: bool) -> pa.Table:
    """One lineage table, cast to its schema; without ``record`` (read as nulls) unless
    ``records``. The columns read are held to the data limits of
    :mod:`croissant_lineage.croissant.tables` (the file's decompressed size, one cell's
    size; checked from the metadata first), as any data file is.

    Raises:
        SizeLimitError: a limit is exceeded.
    """
    if records or "record" not in schema.names:
        check_parquet(path)
        return conform(check_cells(pq.read_table(path), path), schema)
    present = set(pq.read_schema(path).names)
    names = [n for n in schema.names if n != "record" and n in present]
    check_parquet(path, names)
    table = check_cells(pq.read_table(path, columns=names), path)
    return conform(table, schema)


