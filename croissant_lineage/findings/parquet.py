"""Findings as a Parquet table: one schema, one builder, one reader.

The same table is written beside enriched descriptors (``<stem>.findings.parquet``,
:func:`croissant_lineage.enrich.writer.enrich_family`, read back by ``resolve``) and into a
published dataset repository (``findings/findings.parquet``,
:func:`croissant_lineage.hub.publish.publish`); ``validate`` checks either like a findings
file. One row per finding; ``history`` (earlier statuses) is JSON text; ``position`` is
the finding's place in the list given to the writer, so findings spread over several
files read back in their original order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from croissant_lineage.lineage.schema import FINDINGS_SCHEMA, item_iri

if TYPE_CHECKING:
    from croissant_lineage.findings.model import Finding

__all__ = ["FINDINGS_SCHEMA", "findings_entries", "findings_from_table", "findings_table"]


def findings_table(
    findings: Iterable[Finding],
    iris: Mapping[str, str] | None = None,
    datasets: Iterable[str] | None = None,
) -> pa.Table:
    """Findings as a table with :data:`FINDINGS_SCHEMA`, in the order given.

    Args:
        findings: :class:`~croissant_lineage.findings.model.Finding` objects.
        iris: Dataset name -> IRI, for ``item_iri`` (None where a dataset is missing).
        datasets: Keep only findings whose item is in one of these (default: all).

    Returns:
        The table; ``position`` counts every finding given, kept or not.
    """
    keep = None if datasets is None else set(datasets)
    iris = iris or {}
    cols: dict[str, list[Any]] = {f.name: [] for f in FINDINGS_SCHEMA}
    for position, f in enumerate(findings):
        ds, _, item = f.item.partition(":")
        if keep is not None and ds not in keep:
            continue
        cols["position"].append(position)
        cols["dataset"].append(ds)
        cols["item_iri"].append(item_iri(iris[ds], item) if ds in iris else None)
        for name in ("id", "item", "target", "option_index", "kind", "proposed", "label", "status",
                     "status_date", "status_reason"):
            cols[name].append(getattr(f, name))
        for name in ("answers", "related", "evidence"):
            cols[name].append(list(getattr(f, name)))
        for name in ("name", "url", "kind", "item"):
            cols[f"source_{name}"].append(getattr(f.source, name))
        history = [h.to_dict() for h in f.history]
        cols["history"].append(json.dumps(history, ensure_ascii=False) if history else None)
    return pa.table(cols, schema=FINDINGS_SCHEMA)


def findings_entries(table: pa.Table) -> list[dict[str, Any]]:
    """Findings-file entries (the ``Finding.to_dict`` form) from a findings table, in row order.

    Reads any table with the required columns of :data:`FINDINGS_SCHEMA` (``dataset``,
    ``item_iri`` and ``position`` are not needed); entries are not checked, so a
    validator can report what is wrong with them.

    Raises:
        KeyError: a required column is missing.
        ValueError: ``history`` is not JSON.
    """
    out = []
    for row in table.to_pylist():
        entry: dict[str, Any] = {"id": row["id"], "item": row["item"], "target": row["target"]}
        if row.get("option_index") is not None:
            entry["option_index"] = row["option_index"]
        entry["kind"] = row["kind"]
        if row.get("proposed") is not None:
            entry["proposed"] = row["proposed"]
        if row.get("answers"):
            entry["answers"] = list(row["answers"])
        if row.get("label"):
            entry["label"] = row["label"]
        if row.get("related"):
            entry["related"] = list(row["related"])
        source = {"name": row["source_name"]}
        for key in ("url", "kind", "item"):
            if row.get(f"source_{key}") is not None:
                source[key] = row[f"source_{key}"]
        entry["source"] = source
        if row.get("evidence"):
            entry["evidence"] = list(row["evidence"])
        entry["status"] = row["status"]
        for key in ("status_date", "status_reason"):
            if row.get(key):
                entry[key] = row[key]
        if row.get("history"):
            entry["history"] = json.loads(row["history"])
        out.append(entry)
    return out


def findings_from_table(table: pa.Table) -> list[Finding]:
    """The findings of a table with :data:`FINDINGS_SCHEMA` (by ``position`` when it has one).

    Raises:
        KeyError: a required column is missing.
        FindingsError: a row breaks a rule of :class:`~croissant_lineage.findings.model.Finding`.
    """
    from croissant_lineage.findings.model import Finding

    if "position" in table.column_names:
        table = table.sort_by("position")
    return [Finding.from_dict(e) for e in findings_entries(table)]
