"""The data files an enriched descriptor carries beside it, and their RecordSets.

For each descriptor of a family, :func:`croissant_lineage.enrich.family.enrich_family` writes
three Parquet files next to the enriched descriptor and declares RecordSets over them
that ``mlcroissant`` loads with ``records()``:

================  ==========================  ==============================================
RecordSet         file                        one record per
================  ==========================  ==============================================
``lineage_items`` ``<stem>.items.parquet``    item of the descriptor's datasets: ref, IRI,
                                              duplicate group
``item_texts``    ``<stem>.items.parquet``    the same items: subject, stem, options, key,
                                              data file and row
``lineage``       ``<stem>.lineage.parquet``  derivation edge whose child is one of those
                                              items: parent, activity, method, score, option
                                              diff, key inheritance (a ``prov:Derivation``)
``findings``      ``<stem>.findings.parquet`` finding on one of those items, with status
                                              and source
================  ==========================  ==============================================

Keys that cross files are item refs (``mmlu-pro:3542``): strings that no reader can
take for numbers. A field holding an item ref (``lineage/child``, ``findings/item``,
``item_texts/ref``) says in its description that it joins ``lineage_items/ref`` (a file
of ours, never the original data, so ``records("lineage")`` works without the
benchmark's own files), but declares no Croissant ``references`` (mlcroissant 1.1.1 would yield 0 rows on a
second read: see the comment above :data:`FILE_KINDS`).

The findings file is :data:`croissant_lineage.findings.parquet.FINDINGS_SCHEMA`, the
table ``publish`` writes too. :func:`write_files` writes them (the items and lineage files in
row groups of 1,024 rows), and beside them ``<stem>.index.parquet``, the reference index of
the items and lineage files (:mod:`croissant_lineage.enrich.index`), which no RecordSet
declares. :func:`read_tables` reads the files back with pyarrow, whole (what
:class:`~croissant_lineage.resolve.Resolver` does); ``resolve`` reads one item's rows
through the index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from croissant_lineage._io import atomic_write_parquet, atomic_write_parquet_groups
from croissant_lineage.croissant.namespaces import MARK as _MARK
from croissant_lineage.enrich.index import INDEX_KIND, index_table
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.footers import write_footer_blocks
from croissant_lineage.lineage.index import INDEX_ROW_GROUP, INDEX_SCHEMA, query_groups
from croissant_lineage.lineage.model import release_memory
from croissant_lineage.lineage.refs import iri_column, ref_column, take_last
from croissant_lineage.lineage.schema import (
    FINDINGS_SCHEMA,
    ITEMS_FILE_SCHEMA,
    LINEAGE_FILE_SCHEMA,
)

__all__ = [
    "FILE_KINDS",
    "ITEMS_FILE_SCHEMA",
    "LINEAGE_FILE_SCHEMA",
    "RECORD_SETS",
    "WRITTEN_KINDS",
    "FileTables",
    "is_lineage_file",
    "items_table",
    "lineage_table",
    "read_tables",
    "record_set_node",
    "write_files",
]


# Why the added RecordSets declare no ``references`` (mlcroissant 1.1.1). A RecordSet with a
# ``references`` field gets a ``Join`` operation, so its operation graph is not a path and
# ``Records.__iter__`` runs ``execute_operations_sequentially``; that calls the target's
# ``ReadFields`` with ``set_output_in_memory=False``, and ``Operation.__call__`` caches the
# returned generator in ``_output`` all the same. A second ``records(...)`` on the same
# ``mlc.Dataset`` gets the cached, exhausted generator back: 0 rows. Without ``references``
# the graph is a path, read by ``execute_operations_in_streaming``, which caches nothing.


#: File kind -> schema; the file beside descriptor ``<stem>.json`` is ``<stem>.<kind>.parquet``.
FILE_KINDS: dict[str, pa.Schema] = {
    "items": ITEMS_FILE_SCHEMA,
    "lineage": LINEAGE_FILE_SCHEMA,
    "findings": FINDINGS_SCHEMA,
}

#: Every file written beside an enriched descriptor, kind -> schema: the three tables, and
#: the reference index of the first two (:mod:`croissant_lineage.enrich.index`), which
#: no RecordSet declares (a reader's look-up structure, not data).
WRITTEN_KINDS: dict[str, pa.Schema] = {**FILE_KINDS, "index": INDEX_SCHEMA}


@dataclass(frozen=True)
class _RecordSetSpec:
    """How one file is declared: RecordSet id, file suffix, schema, key, links."""

    id: str
    kind: str  # a key of FILE_KINDS
    schema: pa.Schema
    data_type: str
    description: str
    key: tuple[str, ...]
    references: Mapping[str, str]
    equivalent: Mapping[str, str]
    urls: tuple[str, ...]
    columns: tuple[str, ...] = ()  # the file's columns this RecordSet declares (all if empty)


#: The RecordSets an enriched descriptor gains, by id.
RECORD_SETS: dict[str, _RecordSetSpec] = {
    "lineage_items": _RecordSetSpec(
        "lineage_items",
        "items",
        ITEMS_FILE_SCHEMA,
        "prov:Entity",
        "Every item of this descriptor's datasets as a PROV entity: its ref "
        "(dataset:item), IRI and group of identical items in the same dataset "
        "(croissant-lineage). Its texts are in the item_texts RecordSet (same file).",
        ("ref",),
        {},
        {},
        ("iri",),
        ("ref", "dataset", "item", "iri", "duplicate_group", "duplicate_parent_dataset",
         "duplicate_parent_item", "duplicate_size"),
    ),
    "item_texts": _RecordSetSpec(
        "item_texts",
        "items",
        ITEMS_FILE_SCHEMA,
        "sc:Thing",
        "What each item says, as the family spec's roles read it: subject, stem, options, "
        "key letter, the key's kind and a free-form key as text, number or acceptable answers, "
        "and the data file and row it was read from (croissant-lineage).",
        ("ref",),
        {"ref": "lineage_items/ref"},
        {},
        (),
        ("ref", "subject", "stem", "options", "key", "key_kind", "key_text", "key_value", "key_answers",
         "source_file", "source_row"),
    ),
    "lineage": _RecordSetSpec(
        "lineage",
        "lineage",
        LINEAGE_FILE_SCHEMA,
        "prov:Derivation",
        "Item-level derivations (PROV qualified derivations) whose child is an item of "
        "this descriptor: the parent item (prov:entity), the activity, how the link was "
        "found (method, score 0-100), the option diff (option_map: per child option the "
        "parent option it copies, -1 if added), whether the key was inherited and what the "
        "derivation did to each content (stem, options, key, solution, tests: copied, edited, "
        "recomputed, translated, added, dropped, absent) (croissant-lineage).",
        ("child", "parent"),
        {"child": "lineage_items/ref"},
        {"parent_iri": "prov:entity"},
        ("child_iri", "parent_iri"),
    ),
    "findings": _RecordSetSpec(
        "findings",
        "findings",
        FINDINGS_SCHEMA,
        "cl:Finding",
        "Audit findings on items of this descriptor, with their source, evidence and "
        "review status (croissant-lineage).",
        ("id",),
        {"item": "lineage_items/ref"},
        {},
        ("item_iri", "source_url"),
    ),
}


def _data_type(name: str, typ: pa.DataType, urls: Sequence[str]) -> str:
    if name in urls:
        return "sc:URL"
    if pa.types.is_floating(typ):
        return "sc:Float"
    if pa.types.is_integer(typ):
        return "sc:Integer"
    if pa.types.is_boolean(typ):
        return "sc:Boolean"
    return "sc:Text"


def record_set_node(rs_id: str, file_id: str, mark: str) -> dict[str, Any]:
    """The JSON-LD of one of :data:`RECORD_SETS`, reading file ``file_id``.

    Args:
        rs_id: A key of :data:`RECORD_SETS`.
        file_id: The ``@id`` of the FileObject holding its Parquet file.
        mark: The ``@index`` marker of added nodes.
    """
    spec = RECORD_SETS[rs_id]
    fields: list[dict[str, Any]] = []
    for f in spec.schema:
        if spec.columns and f.name not in spec.columns:
            continue
        typ = f.type.value_type if pa.types.is_list(f.type) else f.type
        node: dict[str, Any] = {
            "@type": "cr:Field",
            "@id": f"{rs_id}/{f.name}",
            "name": f.name,
            "dataType": _data_type(f.name, typ, spec.urls),
        }
        if f.name in spec.equivalent:
            node["equivalentProperty"] = spec.equivalent[f.name]
        if pa.types.is_list(f.type):
            node["isArray"] = True
            node["arrayShape"] = "-1"
        node["source"] = {"fileObject": {"@id": file_id}, "extract": {"column": f.name}}
        if f.name in spec.references:
            # Not a Croissant ``references``: see the comment above FILE_KINDS.
            node["description"] = f"An item ref; joins {spec.references[f.name]}."
        fields.append(node)
    key = [{"@id": f"{rs_id}/{k}"} for k in spec.key]
    return {
        "@index": mark,
        "@type": "cr:RecordSet",
        "@id": rs_id,
        "name": rs_id,
        "description": spec.description,
        "dataType": spec.data_type,
        "key": key[0] if len(key) == 1 else key,
        "field": fields,
    }


def _rows_of(table: pa.Table, column: str, datasets: Iterable[str], columns: Iterable[str]) -> pa.Table:
    """``columns`` of the rows of ``table`` whose ``column`` is one of ``datasets``, in table order
    (only the columns asked for are filtered: the items' raw ``record`` is never copied)."""
    keep = pa.array(sorted(set(datasets)), pa.string())
    return table.select(list(columns)).filter(pc.is_in(table[column], value_set=keep))


def _file_table(columns: Mapping[str, Any], schema: pa.Schema) -> pa.Table:
    """``columns`` as one table of ``schema``, one chunk per column (the bytes Parquet
    gets do not depend on how the inputs were chunked)."""
    arrays = [pc.cast(columns[f.name], f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema).combine_chunks()


#: The item table's columns the items file copies as they are.
_ITEM_COLUMNS = ("dataset", "item", "subject", "stem", "options", "key", "key_kind", "key_text", "key_value",
                 "key_answers", "source_file", "source_row")


def items_table(
    items: pa.Table, duplicates: pa.Table, iris: Mapping[str, str], datasets: Iterable[str]
) -> pa.Table:
    """The items file of some datasets (:data:`ITEMS_FILE_SCHEMA`), in lineage order.

    Built with Arrow compute (a filter, a join by item ref, string kernels), not row by row.

    Args:
        items: The lineage's item table (``schema.ITEMS_SCHEMA``).
        duplicates: The lineage's duplicates table (``schema.DUPLICATES_SCHEMA``); an item
            listed twice takes its last row.
        iris: Dataset name -> IRI.
        datasets: Which datasets to keep.

    Raises:
        KeyError: a kept dataset has no IRI in ``iris``.
    """
    for c in _ITEM_COLUMNS:  # (an items table read before the typed key columns: nulls)
        if c not in items.column_names:
            items = items.append_column(ITEMS_FILE_SCHEMA.field(c), pa.nulls(items.num_rows, ITEMS_FILE_SCHEMA.field(c).type))
    sel = _rows_of(items, "dataset", datasets, _ITEM_COLUMNS)
    refs = ref_column(sel["dataset"], sel["item"])
    dup_row = take_last(refs, ref_column(duplicates["dataset"], duplicates["item"]))
    cols: dict[str, Any] = {c: sel[c] for c in _ITEM_COLUMNS}
    cols["ref"] = refs
    cols["iri"] = iri_column(sel["dataset"], sel["item"], iris)
    for c, dup_c in (("duplicate_group", "group"), ("duplicate_parent_dataset", "parent_dataset"),
                     ("duplicate_parent_item", "parent_item"), ("duplicate_size", "size")):
        cols[c] = pc.take(duplicates[dup_c], dup_row)
    return _file_table(cols, ITEMS_FILE_SCHEMA)


def _prefixed_refs(lists: pa.ChunkedArray, datasets: pa.ChunkedArray) -> pa.Array:
    """Each list of item ids as item refs of its row's dataset; a null list becomes ``[]``."""
    flat = lists.combine_chunks()
    lengths = pc.fill_null(pc.list_value_length(flat), 0)
    offsets = pa.concat_arrays([pa.array([0], pa.int32()), pc.cast(pc.cumulative_sum(lengths), pa.int32())])
    owners = pc.take(datasets.combine_chunks(), pc.list_parent_indices(flat))
    values = ref_column(owners, pc.list_flatten(flat))
    return pa.ListArray.from_arrays(offsets, values, type=pa.list_(pa.string()))


def lineage_table(edges: pa.Table, iris: Mapping[str, str], datasets: Iterable[str]) -> pa.Table:
    """The lineage file of some child datasets (:data:`LINEAGE_FILE_SCHEMA`), in edge order.

    Built with Arrow compute, not row by row.

    Raises:
        KeyError: a dataset of a kept edge has no IRI in ``iris``.
    """
    copied = [f.name for f in LINEAGE_FILE_SCHEMA if f.name in edges.column_names]
    sel = _rows_of(edges, "child_dataset", datasets,
                   [*copied, "child_dataset", "child_item", "parent_dataset", "parent_item"])
    cols: dict[str, Any] = {c: sel[c] for c in copied}
    for side in ("child", "parent"):
        dss, its = sel[f"{side}_dataset"], sel[f"{side}_item"]
        cols[side] = ref_column(dss, its)
        cols[f"{side}_iri"] = iri_column(dss, its, iris)
    cols["alternatives"] = _prefixed_refs(sel["alternatives"], sel["parent_dataset"])
    return _file_table(cols, LINEAGE_FILE_SCHEMA)


def is_lineage_file(path: str | Path, kind: str) -> bool:
    """True when ``path`` is a Parquet file of this kind (see :data:`WRITTEN_KINDS`) that
    enrichment wrote: its columns are among the kind's, starting with the same one."""
    try:
        names = pq.read_schema(path).names
    except (pa.ArrowInvalid, OSError):
        return False
    schema = WRITTEN_KINDS[kind]
    return bool(names) and names[0] == schema.names[0] and set(names) <= set(schema.names)


@dataclass(frozen=True)
class FileTables:
    """The three tables of one enriched descriptor, read back.

    Attributes:
        items: :data:`ITEMS_FILE_SCHEMA` rows.
        lineage: :data:`LINEAGE_FILE_SCHEMA` rows.
        findings: :data:`~croissant_lineage.findings.parquet.FINDINGS_SCHEMA` rows.
    """

    items: pa.Table
    lineage: pa.Table
    findings: pa.Table


def _read(path: Path, schema: pa.Schema) -> pa.Table:
    try:
        # ParquetFile.read avoids importing pyarrow.dataset (0.5 s of cold start).
        return pq.ParquetFile(path).read(columns=schema.names).cast(schema)
    except FileNotFoundError:
        raise InputError("lineage file missing beside its descriptor", path=path) from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError, KeyError, ValueError) as exc:
        raise InputError(f"not a croissant-lineage file: {exc}", path=path) from None


def read_tables(files: Mapping[str, Path], *, skip: Iterable[str] = ()) -> FileTables:
    """Read an enriched descriptor's files with pyarrow.

    Args:
        files: File kind (``items``, ``lineage``, ``findings``: see :data:`FILE_KINDS`)
            -> path. A missing kind gives an empty table.
        skip: Columns left unread (the tables then lack them), e.g. the IRIs a
            reader does not need.

    Raises:
        InputError: a named file is missing or does not have the expected columns.
    """
    tables = {}
    unread = set(skip)
    for kind, full in FILE_KINDS.items():
        schema = pa.schema([f for f in full if f.name not in unread]) if unread else full
        path = files.get(kind)
        tables[kind] = schema.empty_table() if path is None else _read(path, schema)
    return FileTables(tables["items"], tables["lineage"], tables["findings"])


def write_files(
    out: Path, names: Mapping[str, str], tables: Mapping[str, Callable[[], Any]]
) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, int]]:
    """Write the lineage files beside the descriptor (``names``: file kind -> file name),
    building each table (``tables``: file kind -> builder) when its file is written and
    freeing it before the next is built; then the reference index of the items and
    lineage files (:mod:`croissant_lineage.enrich.index`), when ``names`` has one.

    The items and lineage files are written in row groups of 1,024 rows, with the min/max
    statistics of their refs, so that one item's rows are read without the whole file.

    Returns:
        Their marked FileObject nodes, file kind -> file name, and file kind -> rows.
    """
    file_nodes, files, rows = [], {}, {}
    kept: dict[str, pa.Table] = {}  # the columns the index needs, of the items and lineage tables
    for kind, build in tables.items():
        table = build()
        stats = _STATISTICS.get(kind)
        if stats is None:
            digest = atomic_write_parquet(out / names[kind], table)  # streamed, hashed as written
        else:
            digest = atomic_write_parquet_groups(out / names[kind], table.schema, query_groups(table),
                                                 statistics=[stats])
            write_footer_blocks(out / names[kind])  # (past a million rows: see lineage.footers)
            kept[kind] = table.select(_INDEXED[kind])
        rows[kind] = table.num_rows
        del table
        release_memory()  # what building and writing it freed, before the next table
        file_nodes.append(_file_node(kind, names[kind], digest))
        files[kind] = names[kind]
    if INDEX_KIND in names and set(kept) == set(_INDEXED):
        index = index_table(kept["items"], kept["lineage"])
        del kept
        digest = atomic_write_parquet_groups(out / names[INDEX_KIND], INDEX_SCHEMA,
                                             query_groups(index, INDEX_ROW_GROUP), statistics=["ref"])
        write_footer_blocks(out / names[INDEX_KIND], "ref")
        del index
        release_memory()
        file_nodes.append(_file_node(INDEX_KIND, names[INDEX_KIND], digest))
        files[INDEX_KIND] = names[INDEX_KIND]
    return file_nodes, files, rows


#: File kind -> the column whose min/max each row group records.
_STATISTICS = {"items": "ref", "lineage": "child"}
#: File kind -> the columns :func:`~croissant_lineage.enrich.index.index_table` reads.
_INDEXED = {"items": ["ref", "dataset", "item", "duplicate_group"], "lineage": ["child", "parent"]}


def _file_node(kind: str, file_name: str, digest: str) -> dict[str, Any]:
    """The marked FileObject of one file beside the descriptor."""
    fid = f"cl-{kind}-file"
    what = "reference index (Parquet: ref, kind, row, other)" if kind == INDEX_KIND else "table (Parquet)"
    return {
        "@index": _MARK,
        "@type": "cr:FileObject",
        "@id": fid,
        "name": fid,
        "description": f"croissant-lineage {kind} {what}.",
        "contentUrl": file_name,
        "encodingFormat": "application/x-parquet",
        "sha256": digest,
    }
