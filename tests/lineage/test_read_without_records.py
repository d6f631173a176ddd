"""``Lineage.read(records=False)`` and the streamed Parquet write: the same tables, less memory.

A lineage read without its raw records must hold every other column exactly as the full
read does (same values, same schema), its ``record`` column all null, and refuse to be
written; enrich, which reads a lineage folder that way, must write the same bytes as
from the lineage in memory. ``atomic_write_parquet`` must write the bytes ``parquet_bytes``
gives.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage._io import atomic_write_parquet, parquet_bytes
from croissant_lineage.enrich import enrich_family
from croissant_lineage.errors import OutputError
from croissant_lineage.lineage.model import LINEAGE_FILES, Lineage
from croissant_lineage.lineage.schema import ITEMS_SCHEMA
from croissant_lineage.testing.synthetic import generate_family
from croissant_lineage.workflows import link

REPO = Path(__file__).resolve().parents[2]
TOY_SPEC = REPO / "examples" / "toy" / "family.json"


def _assert_same_but_records(full: Lineage, lean: Lineage) -> None:
    assert full.records and not lean.records
    assert lean.items.schema == ITEMS_SCHEMA
    assert lean.items.column("record").null_count == lean.items.num_rows
    assert full.items.column("record").null_count < full.items.num_rows  # there was something to leave out
    assert lean.items.drop_columns(["record"]).equals(full.items.drop_columns(["record"]))
    for name in ("edges", "duplicates", "unmatched"):
        assert getattr(lean, name).equals(getattr(full, name)), name
    assert (lean.family, lean.summary) == (full.family, full.summary)


def test_toy_lineage_read_without_records(toy_lineage_path: Path) -> None:
    _assert_same_but_records(Lineage.read(toy_lineage_path), Lineage.read(toy_lineage_path, records=False))


@pytest.mark.parametrize(("items", "seed"), [(300, 1), (2_000, 7)])
def test_synthetic_lineage_read_without_records(tmp_path: Path, items: int, seed: int) -> None:
    fam = generate_family(tmp_path / "family", items, seed=seed)
    folder = link(fam.spec).write(tmp_path / "lineage")
    _assert_same_but_records(Lineage.read(folder), Lineage.read(folder, records=False))


def test_lineage_without_records_is_not_written(toy_lineage_path: Path, tmp_path: Path) -> None:
    lean = Lineage.read(toy_lineage_path, records=False)
    with pytest.raises(OutputError, match="without its items' raw records"):
        lean.write(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_enrich_from_folder_writes_what_enrich_from_memory_writes(
    toy_lineage, toy_lineage_path: Path, tmp_path: Path
) -> None:
    when = "2025-01-01T00:00:00Z"
    enrich_family(toy_lineage, TOY_SPEC, tmp_path / "mem", time=when)
    enrich_family(toy_lineage_path, TOY_SPEC, tmp_path / "dir", time=when)

    def digests(folder: Path) -> dict[str, str]:
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}

    mem = digests(tmp_path / "mem")
    assert any(name.endswith(".items.parquet") for name in mem)
    assert digests(tmp_path / "dir") == mem


def test_atomic_write_parquet_writes_parquet_bytes(toy_lineage, tmp_path: Path) -> None:
    for name, schema in LINEAGE_FILES.items():
        table = getattr(toy_lineage, name.split(".")[0]).cast(schema)
        atomic_write_parquet(tmp_path / name, table)
        assert (tmp_path / name).read_bytes() == parquet_bytes(table), name
        assert pq.read_table(tmp_path / name).equals(table)
    # Chunking does not change the bytes either (pages are written per column chunk).
    items = toy_lineage.items
    rechunked = pa.Table.from_batches(items.to_batches(max_chunksize=3), schema=items.schema)
    atomic_write_parquet(tmp_path / "again.parquet", rechunked)
    assert (tmp_path / "again.parquet").read_bytes() == parquet_bytes(items)
