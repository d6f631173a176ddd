"""Builders for the validation and publishing tests (invented content only)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import (
    DUPLICATES_SCHEMA,
    EDGES_SCHEMA,
    ITEMS_SCHEMA,
    UNMATCHED_SCHEMA,
)

VALIDATE_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "validate"


def _table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    full = [{f.name: r.get(f.name) for f in schema} for r in rows]
    return pa.Table.from_pylist(full, schema=schema)


def build_lineage(spec: dict[str, Any], out: Path) -> Path:
    """Write a lineage folder from a ``lineage.json`` spec (items, edges, duplicates,
    unmatched, family; ``remove``: file names to delete afterwards)."""
    items = [{"source_file": "data/items.csv", "source_row": n, "record": "{}", **r} for n, r in enumerate(spec["items"])]
    lineage = Lineage(
        family=spec["family"],
        items=_table(items, ITEMS_SCHEMA),
        edges=_table(spec["edges"], EDGES_SCHEMA),
        duplicates=_table(spec.get("duplicates", []), DUPLICATES_SCHEMA),
        unmatched=_table(spec.get("unmatched", []), UNMATCHED_SCHEMA),
        summary={},
    )
    lineage.write(out)
    for name in spec.get("remove", []):
        (out / name).unlink()
    return out


#: Cases whose input must be passed as a file (a folder search skips unknown kinds).
EXPLICIT_FILES = {"CLV002": "notes.json"}


def fixture_paths(case: str, tmp: Path) -> list[Path]:
    """The paths to validate for a fixture case: its folder (or the file named in
    :data:`EXPLICIT_FILES`), plus its lineage folder built under ``tmp`` when the case
    has a ``lineage.json`` (the folder is left out when that is all it holds)."""
    folder = VALIDATE_FIXTURES / case
    if case in EXPLICIT_FILES:
        return [folder / EXPLICIT_FILES[case]]
    spec = folder / "lineage.json"
    others = [p for p in folder.iterdir() if p.name != "lineage.json"]
    paths = [folder] if others or not spec.exists() else []
    if spec.exists():
        paths.append(build_lineage(json.loads(spec.read_text("utf-8")), tmp / f"{case}-lineage"))
    return paths
