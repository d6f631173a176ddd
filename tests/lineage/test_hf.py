"""``datasets`` views of the library's tables: the same Arrow buffers, no copy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pyarrow as pa
import pytest

import croissant_lineage as cl
from croissant_lineage._results import RowTable
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.hf import table_names, to_hf_dataset
from croissant_lineage.lineage.model import Lineage


def _buffers(table: pa.Table) -> list[int]:
    return [b.address for col in table.columns for chunk in col.chunks for b in chunk.buffers() if b is not None]


def test_lineage_tables_are_zero_copy_datasets(toy_lineage: Lineage) -> None:
    for name in ("items", "edges", "duplicates", "unmatched"):
        ds = toy_lineage.to_hf_dataset(name)
        source = getattr(toy_lineage, name)
        assert ds.num_rows == source.num_rows and ds.column_names == source.column_names
        assert _buffers(ds.data.table) == _buffers(source)  # the very same memory
    edges = cl.to_hf_dataset(toy_lineage, "edges", split="test")
    assert str(edges.split) == "test" and "edges" in edges.info.description
    first = edges[0]
    assert first["child_dataset"] == toy_lineage.edges.column("child_dataset")[0].as_py()
    assert edges.to_pandas().shape[0] == toy_lineage.edges.num_rows


def test_a_result_with_several_tables_needs_a_name(toy_lineage: Lineage) -> None:
    assert table_names(toy_lineage) == ["items", "edges", "duplicates", "unmatched"]
    with pytest.raises(InputError):
        to_hf_dataset(toy_lineage)
    with pytest.raises(InputError):
        toy_lineage.to_hf_dataset("nope")
    with pytest.raises(InputError):
        to_hf_dataset(object())


@dataclass
class _Row:
    item: str
    score: float


@dataclass
class _Rows(RowTable):
    row_type: ClassVar[type] = _Row
    rows: list[_Row]

    def to_dict(self) -> dict:
        return {"rows": len(self.rows)}


def test_plain_tables_and_row_results() -> None:
    table = pa.table({"a": [1, 2, 3]})
    ds = to_hf_dataset(table)
    assert _buffers(ds.data.table) == _buffers(table) and ds["a"][:] == [1, 2, 3]
    rows = to_hf_dataset(_Rows([_Row("x:1", 90.0), _Row("x:2", 75.5)]))
    assert rows.column_names == ["item", "score"] and rows["score"][:] == [90.0, 75.5]
