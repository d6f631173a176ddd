"""Checks of lineage: the tables a lineage folder holds.

* ``CLV301``: an edge (or duplicate group) names an item that is not in the items table;
* ``CLV302``: an item id appears twice within a dataset;
* ``CLV303``: a derivation cycle, between items (edges) or datasets (``family.json``);
* ``CLV304``: a ``score`` or ``options_score`` outside 0-100 (or NaN);
* ``CLV306``: a lineage file is missing or does not have the lineage schema.

``CLV305`` (``references`` joins) is a check of any descriptor: :mod:`.references`, which
validating a plain descriptor loads without this module.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from croissant_lineage._io import loads_json
from croissant_lineage.croissant.limits import check_cells, check_parquet
from croissant_lineage.errors import SizeLimitError
from croissant_lineage.lineage.info import FamilyInfo
from croissant_lineage.lineage.model import LINEAGE_FILES, Lineage
from croissant_lineage.lineage.schema import (
    DUPLICATES_SCHEMA,
    EDGES_SCHEMA,
    ITEMS_SCHEMA,
    UNMATCHED_SCHEMA,
    join_ref,
)
from croissant_lineage.validate.codes import issue
from croissant_lineage.validate.items import check_item_shapes
from croissant_lineage.validate.report import Issue

__all__ = [
    "ItemIndex",
    "check_cycles",
    "check_cycles_across",
    "check_edges",
    "check_items",
    "check_lineage_folder",
    "edge_pairs",
    "read_lineage_table",
    "table_kind",
]


@dataclass
class ItemIndex:
    """The items known to a validation run, by ref, with their item rows.

    Attributes:
        refs: Every known item ref (``dataset:item``).
        datasets: Datasets that have at least one item (refs into other datasets are
            only checked when the dataset is known).
        tables: The item tables the refs came from.
        lineages: Lineage folders read whole (items and edges), for findings routing.
    """

    refs: set[str] = field(default_factory=set)
    datasets: set[str] = field(default_factory=set)
    tables: list[pa.Table] = field(default_factory=list)
    lineages: list[Lineage] = field(default_factory=list)

    def add(self, items: pa.Table) -> None:
        ds = items.column("dataset").to_pylist()
        it = items.column("item").to_pylist()
        self.refs.update(join_ref(d, i) for d, i in zip(ds, it, strict=True))
        self.datasets.update(ds)
        self.tables.append(items)

    def knows(self, ref: str) -> bool | None:
        """True/False when the ref's dataset is known; None when it is not."""
        dataset = ref.partition(":")[0]
        if dataset not in self.datasets:
            return None
        return ref in self.refs


#: Columns of the edge table an enriched descriptor distributes (item refs, not split).
_REF_EDGE_COLUMNS = {"child", "parent", "activity", "method", "score"}


def table_kind(schema: pa.Schema) -> str | None:
    """Which lineage table a Parquet schema is (``edges.parquet``...), by its columns.

    An edge table with ``child``/``parent`` item refs (as an enriched descriptor's
    lineage RecordSet reads) counts as ``edges.parquet``.
    """
    names = set(schema.names)
    if names >= _REF_EDGE_COLUMNS and "child_dataset" not in names:
        return "edges.parquet"
    for fname, ref in (("edges.parquet", EDGES_SCHEMA), ("duplicates.parquet", DUPLICATES_SCHEMA),
                       ("unmatched.parquet", UNMATCHED_SCHEMA), ("items.parquet", ITEMS_SCHEMA)):
        required = {f.name for f in ref if not f.nullable}
        if fname == "items.parquet":
            required |= {"stem"}
        if required <= names:
            return fname
    return None


#: The columns a ``tests`` key is read from (an enriched items file carries neither).
_TESTS_KEY_COLUMNS = ("solution", "tests")


def read_lineage_table(path: Path, name: str, where: str) -> tuple[pa.Table | None, list[Issue]]:
    """Read one lineage table and cast it to its schema (an items table that lacks the
    ``solution`` and ``tests`` columns is returned without them, so that no key is judged on
    columns the file never had).

    Returns:
        The table (None when it cannot be used) and ``CLV306`` issues.
    """
    schema = LINEAGE_FILES[name]
    try:
        check_parquet(path)
        table = check_cells(pq.read_table(path), path)
    except SizeLimitError as exc:
        return None, [issue("CLV306", exc.message[:300], where)]
    except (pa.ArrowInvalid, OSError) as exc:
        return None, [issue("CLV306", f"not a Parquet file: {exc}"[:300], where)]
    if name == "edges.parquet" and set(table.column_names) >= _REF_EDGE_COLUMNS and "child_dataset" not in table.column_names:
        table = _split_refs(table)
    missing = [f.name for f in schema if f.name not in table.column_names and not f.nullable]
    if missing:
        return None, [issue("CLV306", f"{name} lacks column(s) {', '.join(missing)}", where)]
    cols = {}
    for f in schema:
        if f.name in table.column_names:
            cols[f.name] = table.column(f.name)
        else:
            cols[f.name] = pa.nulls(table.num_rows, f.type)
    try:
        cast = pa.table(cols).cast(schema)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as exc:
        return None, [issue("CLV306", f"{name} columns do not have the lineage types: {exc}"[:300], where)]
    if name == "items.parquet":  # a file without a tests key's columns (an enriched items file) is not judged on them
        cast = cast.drop_columns([c for c in _TESTS_KEY_COLUMNS if c not in table.column_names])
    return cast, []


def _split_refs(table: pa.Table) -> pa.Table:
    """``child``/``parent`` item refs -> ``*_dataset`` and ``*_item`` columns."""
    for side in ("child", "parent"):
        refs = table.column(side).to_pylist()
        parts = [(r or "").partition(":") for r in refs]
        table = table.append_column(f"{side}_dataset", pa.array([p[0] for p in parts], pa.string()))
        table = table.append_column(f"{side}_item", pa.array([p[2] for p in parts], pa.string()))
    return table


def check_items(items: pa.Table, where: str) -> list[Issue]:
    """``CLV302``: item ids that appear more than once within a dataset; ``CLV307``: keys
    that name no option (:func:`~croissant_lineage.validate.items.check_item_shapes`)."""
    seen: dict[str, int] = {}
    out: list[Issue] = []
    for row, (d, i) in enumerate(zip(items.column("dataset").to_pylist(), items.column("item").to_pylist(), strict=True)):
        ref = join_ref(d, i)
        if ref in seen:
            out.append(issue("CLV302", f"item {ref} also at row {seen[ref]}", f"{where}#row={row}"))
        else:
            seen[ref] = row
    return out + check_item_shapes(items, where)


def _bad_score(v: Any) -> bool:
    return v is not None and (math.isnan(v) or v < 0 or v > 100)


def check_edges(
    edges: pa.Table, where: str, index: ItemIndex | None, *, all_datasets: bool = True, cycles: bool = True
) -> list[Issue]:
    """``CLV301`` (unknown endpoint items), ``CLV304`` (scores) and ``CLV303`` (cycles).

    Args:
        edges: A table with :data:`~croissant_lineage.lineage.schema.EDGES_SCHEMA`.
        where: The file name.
        index: Known items; endpoint checks are skipped when None.
        all_datasets: The index holds every dataset the edges may name (a lineage
            folder); when False, refs into datasets the index does not hold are not
            judged (an enriched descriptor's edges name parents in other descriptors).
        cycles: Look for cycles (False when the caller checks them across tables,
            see :func:`check_cycles_across`).
    """
    out: list[Issue] = []
    cols = {c: edges.column(c).to_pylist() for c in ("child_dataset", "child_item", "parent_dataset", "parent_item", "score", "options_score")}
    pairs: list[tuple[str, str]] = []
    for row in range(edges.num_rows):
        child = join_ref(cols["child_dataset"][row], cols["child_item"][row])
        parent = join_ref(cols["parent_dataset"][row], cols["parent_item"][row])
        pairs.append((child, parent))
        if index is not None:
            for role, ref in (("child", child), ("parent", parent)):
                known = index.knows(ref)
                if known is False or (known is None and all_datasets):
                    out.append(issue("CLV301", f"{role} item {ref} of edge {child} -> {parent} is not in the items",
                                     f"{where}#row={row}"))
        for col in ("score", "options_score"):
            if _bad_score(cols[col][row]):
                out.append(issue("CLV304", f"{col} {cols[col][row]} of edge {child} -> {parent} is outside 0-100",
                                 f"{where}#row={row}"))
    if cycles:
        out += check_cycles(pairs, where)
    return out


def edge_pairs(edges: pa.Table) -> list[tuple[str, str]]:
    """(child ref, parent ref) of each row of an edge table (``EDGES_SCHEMA`` columns)."""
    cols = [edges.column(c).to_pylist() for c in ("child_dataset", "child_item", "parent_dataset", "parent_item")]
    return [(join_ref(cd, ci), join_ref(pd_, pi)) for cd, ci, pd_, pi in zip(*cols, strict=True)]


def check_cycles_across(pairs_by_file: Mapping[str, Iterable[tuple[str, str]]]) -> list[Issue]:
    """``CLV303`` over several edge tables together (an enriched family keeps one lineage
    file per descriptor, so a cycle may cross files); each issue names the file holding
    the edge from the item where the cycle closes."""
    pairs: list[tuple[str, str]] = []
    where_of: dict[str, str] = {}
    for where, file_pairs in pairs_by_file.items():
        for child, parent in file_pairs:
            pairs.append((child, parent))
            where_of.setdefault(child, where)
    return check_cycles(pairs, "", where_of=where_of)


def check_cycles(
    pairs: Iterable[tuple[str, str]], where: str, *, what: str = "item", where_of: Mapping[str, str] | None = None
) -> list[Issue]:
    """``CLV303``: cycles in child -> parent pairs; one issue per cycle found, at ``where``
    (or at ``where_of[item]`` for the item where the cycle closes)."""
    parents: dict[str, list[str]] = {}
    for child, parent in pairs:
        parents.setdefault(child, []).append(parent)
    state: dict[str, int] = {}
    out: list[Issue] = []
    for start in sorted(parents):
        if state.get(start):
            continue
        # Iterative DFS; the stack holds (node, iterator over its parents).
        trail: list[str] = [start]
        stack = [iter(parents.get(start, []))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[trail.pop()] = 2
                stack.pop()
                continue
            if state.get(nxt) == 1:
                cycle = [*trail[trail.index(nxt):], nxt]
                at = where_of.get(nxt, where) if where_of else where
                out.append(issue("CLV303", f"{what} derivation cycle: {' -> '.join(cycle)}", f"{at}#{what}={nxt}"))
                continue
            if not state.get(nxt):
                state[nxt] = 1
                trail.append(nxt)
                stack.append(iter(parents.get(nxt, [])))
    return out


def check_lineage_folder(folder: Path, where: str, index: ItemIndex) -> list[Issue]:
    """Check a lineage folder (see :mod:`croissant_lineage.lineage.model`).

    Args:
        folder: The folder.
        where: How to name it in issues.
        index: Filled with the folder's items (so findings can be checked against them).

    Returns:
        Issues ``CLV301``-``CLV304`` and ``CLV306``.
    """
    out: list[Issue] = []
    tables: dict[str, pa.Table] = {}
    for name in LINEAGE_FILES:
        path = folder / name
        if not path.exists():
            out.append(issue("CLV306", f"lineage folder has no {name}", f"{where}/{name}"))
            continue
        table, problems = read_lineage_table(path, name, f"{where}/{name}")
        out += problems
        if table is not None:
            tables[name] = table
    if "items.parquet" in tables:
        out += check_items(tables["items.parquet"], f"{where}/items.parquet")
        index.add(tables["items.parquet"])
    if "edges.parquet" in tables:
        out += check_edges(tables["edges.parquet"], f"{where}/edges.parquet",
                           index if "items.parquet" in tables else None)
    if "duplicates.parquet" in tables and "items.parquet" in tables:
        dup = tables["duplicates.parquet"]
        for row, (d, i) in enumerate(zip(dup.column("dataset").to_pylist(), dup.column("item").to_pylist(), strict=True)):
            if index.knows(join_ref(d, i)) is not True:
                out.append(issue("CLV301", f"duplicate item {join_ref(d, i)} is not in the items",
                                 f"{where}/duplicates.parquet#row={row}"))
    family = folder / "family.json"
    info: dict[str, Any] = {}
    if not family.exists():
        out.append(issue("CLV306", "lineage folder has no family.json", f"{where}/family.json"))
    else:
        try:
            loaded = loads_json(family.read_text("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            out.append(issue("CLV001", f"family.json does not parse: {exc}", f"{where}/family.json"))
        else:
            info = loaded if isinstance(loaded, dict) else {}
            derivs = info.get("derivations", [])
            pairs = [(d["child"], d["parent"]) for d in derivs if isinstance(derivs, list)
                     and isinstance(d, dict) and isinstance(d.get("child"), str) and isinstance(d.get("parent"), str)]
            out += check_cycles(pairs, f"{where}/family.json", what="dataset")
    if "items.parquet" in tables and "edges.parquet" in tables:
        index.lineages.append(Lineage(
            family=FamilyInfo.from_dict(info),
            items=tables["items.parquet"],
            edges=tables["edges.parquet"],
            duplicates=tables.get("duplicates.parquet", DUPLICATES_SCHEMA.empty_table()),
            unmatched=tables.get("unmatched.parquet", UNMATCHED_SCHEMA.empty_table()),
        ))
    return out
