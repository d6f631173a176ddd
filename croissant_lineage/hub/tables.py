"""The tables publish writes, one Parquet file and one card config each.

=================  ================================  ===========================================
config             file                              one row per
=================  ================================  ===========================================
``lineage_items``  ``lineage/lineage_items.parquet`` item of the dataset: ref, IRI, duplicate
                                                     group (stems and options only when asked)
``lineage``        ``lineage/lineage.parquet``       derivation edge whose child is an item of the
                                                     dataset (the enriched lineage file)
``findings``       ``lineage/findings.parquet``      finding on (or naming) an item of the dataset
=================  ================================  ===========================================

The config names are the ids of the RecordSets that read these files in an enriched
descriptor, and the tables are those :mod:`croissant_lineage.enrich.files` writes beside it.
The items file keeps its schema without texts (``stem`` and ``options`` null), so the
descriptor's ``item_texts`` RecordSet still reads it: a benchmark's items are its owner's
to publish, so their texts go out only when asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage._io import resolve_inside
from croissant_lineage.croissant.descriptor import as_list, node_id
from croissant_lineage.enrich.files import items_table, lineage_table, read_tables
from croissant_lineage.enrich.marks import is_ours
from croissant_lineage.errors import InputError, UnsafePathError
from croissant_lineage.findings.model import Finding
from croissant_lineage.findings.parquet import findings_from_table, findings_table
from croissant_lineage.lineage.model import Lineage

__all__ = ["TABLES", "TEXT_COLUMNS", "descriptor_findings", "lineage_tables", "on_dataset", "table_path"]

#: Config name -> (file kind of :data:`~croissant_lineage.enrich.files.FILE_KINDS`, what a row is).
TABLES: dict[str, tuple[str, str]] = {
    "lineage_items": ("items", "an item of this dataset: ref, IRI, duplicate group, texts"),
    "lineage": ("lineage", "child item -> parent item, with activity, method, score and option map"),
    "findings": ("findings", "an audit finding with source, evidence and status"),
}
#: What a row of ``lineage_items`` is when its texts are left out.
ITEMS_WITHOUT_TEXTS = "an item of this dataset: ref, IRI, duplicate group (texts not published)"
#: The items file's columns that hold the benchmark's texts (null unless texts are asked for).
TEXT_COLUMNS = ("stem", "options")


def table_path(config: str) -> str:
    """The repository path of a config's Parquet file (``lineage/<config>.parquet``)."""
    return f"lineage/{config}.parquet"


def _without_texts(table: pa.Table) -> pa.Table:
    for name in TEXT_COLUMNS:
        i = table.schema.get_field_index(name)
        table = table.set_column(i, table.schema.field(i), pa.nulls(table.num_rows, table.schema.field(i).type))
    return table


def lineage_tables(lineage: Lineage, name: str, found: list[Finding], iris: Mapping[str, str], *,
                   texts: bool) -> dict[str, pa.Table]:
    """The dataset's tables by config name (see :data:`TABLES`); ``texts`` keeps stems and options."""
    items = items_table(lineage.items, lineage.duplicates, iris, [name])
    return {
        "lineage_items": items if texts else _without_texts(items),
        "lineage": lineage_table(lineage.edges, iris, [name]),
        "findings": findings_table(found, iris),
    }


def on_dataset(findings: Iterable[Finding], name: str) -> list[Finding]:
    """The findings on an item of dataset ``name``, or naming one as related."""
    return [f for f in findings
            if f.item.partition(":")[0] == name or any(r.partition(":")[0] == name for r in f.related)]


def descriptor_findings(doc: dict[str, Any], folder: Path) -> list[Finding]:
    """The findings an enriched descriptor holds: its findings file (``cl-findings-file``,
    beside it), read back; none for a descriptor without one.

    Raises:
        InputError: the file is named but missing, outside the descriptor's folder, or
            not a findings table.
    """
    for fo in as_list(doc.get("distribution")):
        if not (isinstance(fo, dict) and is_ours(fo) and node_id(fo) == "cl-findings-file"):
            continue
        url = fo.get("contentUrl")
        if not isinstance(url, str) or "://" in url:
            return []
        try:
            path = resolve_inside(folder, url)
        except UnsafePathError as exc:
            raise InputError(f"the descriptor's findings file {url!r} is outside its folder", path=folder) from exc
        return findings_from_table(read_tables({"findings": path}).findings)
    return []
