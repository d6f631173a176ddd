"""Small builders for tests (invented items, not benchmark text)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage.lineage.schema import ITEMS_SCHEMA


def items_table(dataset: str, rows: list[dict[str, Any]]) -> pa.Table:
    """An item table from dicts with item, stem, options, key and optional subject/record."""
    out: dict[str, list[Any]] = {f.name: [] for f in ITEMS_SCHEMA}
    for n, r in enumerate(rows):
        out["dataset"].append(dataset)
        out["item"].append(str(r["item"]))
        out["subject"].append(r.get("subject"))
        out["stem"].append(r["stem"])
        out["options"].append(r.get("options"))
        out["key"].append(r.get("key"))
        out["source_file"].append("f")
        out["source_row"].append(n)
        out["record"].append(json.dumps(r.get("record", {})))
        for name in ("key_kind", "key_text", "key_value", "key_answers", "solution", "tests"):
            out[name].append(r.get(name, "option" if name == "key_kind" and r.get("key") is not None else None))
    return pa.table(out, schema=ITEMS_SCHEMA)


def family_item_tables(data_dir: Any) -> Iterator[tuple[Any, pa.Table]]:
    """``(dataset spec, items table)`` of every MMLU-family dataset with items, in spec order."""
    from croissant_lineage.family.spec import load_family
    from croissant_lineage.lineage.items import load_items

    for ds in load_family("mmlu").datasets.values():
        if ds.has_items:
            yield ds, load_items(ds, data_dir=data_dir)


def toy_spec_without(tmp_path: Path, without: str | None = None, name: str = "family.json") -> Path:
    """The toy family copied to ``tmp_path`` (once), its spec written as ``name`` without
    dataset ``without`` (and the derivations that touch it)."""
    root = tmp_path / "toy"
    if not root.exists():
        shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "toy", root)
    doc = json.loads((root / "family.json").read_text())
    if without:
        doc["datasets"] = [d for d in doc["datasets"] if d["name"] != without]
        doc["derivations"] = [d for d in doc["derivations"] if without not in (d["child"], d["parent"])]
    (root / name).write_text(json.dumps(doc))
    return root / name
