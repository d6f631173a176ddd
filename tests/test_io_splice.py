"""Parquet files written from tables and row groups copied as bytes (``_io.splice``), and
the footer codec they use (``_io.parquet_footer``)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage._io.formats import atomic_write_parquet_groups
from croissant_lineage._io.parquet_footer import decode_struct, encode_struct, footer_of
from croissant_lineage._io.splice import RawGroups, atomic_write_parquet_spliced, copyable

SCHEMA = pa.schema([pa.field("id", pa.string(), nullable=False), pa.field("n", pa.int64()),
                    pa.field("tags", pa.list_(pa.string())), pa.field("kind", pa.string())])


def _table(lo: int, hi: int) -> pa.Table:
    return pa.table({"id": [f"r{i}" for i in range(lo, hi)], "n": [i if i % 7 else None for i in range(lo, hi)],
                     "tags": [["a", str(i)] if i % 3 else None for i in range(lo, hi)],
                     "kind": ["x" if i % 2 else "y" for i in range(lo, hi)]}, schema=SCHEMA)


def _source(path: Path) -> Path:
    atomic_write_parquet_groups(path, SCHEMA, [_table(k, k + 10) for k in range(0, 50, 10)], dictionary=("kind",))
    return path


def test_footer_round_trips_byte_for_byte(tmp_path: Path) -> None:
    data = _source(tmp_path / "a.parquet").read_bytes()
    footer = footer_of(data, len(data))
    assert len(footer.row_groups) == 5
    assert encode_struct(footer.meta) == data[footer.start:-8]
    assert decode_struct(encode_struct(footer.meta)) == footer.meta


def test_splice_holds_the_tables_and_the_copied_groups_in_order(tmp_path: Path) -> None:
    src = _source(tmp_path / "a.parquet")
    out = tmp_path / "out.parquet"
    parts = [_table(100, 103), RawGroups(src, 1, 4), _table(200, 205), RawGroups(src, 0, 1)]
    digest = atomic_write_parquet_spliced(out, SCHEMA, parts, dictionary=("kind",))
    want = pa.concat_tables([_table(100, 103), _table(10, 40), _table(200, 205), _table(0, 10)])
    got = pq.read_table(out)
    assert got.schema.equals(SCHEMA) and got.equals(want)
    f = pq.ParquetFile(out)
    assert [f.metadata.row_group(g).num_rows for g in range(f.metadata.num_row_groups)] == [3, 10, 10, 10, 5, 10]
    assert f.read_row_group(3).equals(_table(30, 40))  # a copied group read alone
    again = tmp_path / "again.parquet"
    assert atomic_write_parquet_spliced(again, SCHEMA, parts, dictionary=("kind",)) == digest  # same parts, same bytes
    assert again.read_bytes() == out.read_bytes()


def test_splice_of_tables_alone_is_the_plain_writers_content(tmp_path: Path) -> None:
    out, plain = tmp_path / "out.parquet", tmp_path / "plain.parquet"
    atomic_write_parquet_spliced(out, SCHEMA, [_table(0, 4), _table(4, 9)])
    atomic_write_parquet_groups(plain, SCHEMA, [_table(0, 4), _table(4, 9)])
    assert pq.read_table(out).equals(pq.read_table(plain))
    assert pq.ParquetFile(out).metadata.num_row_groups == 2


def test_a_source_of_another_schema_is_not_copyable(tmp_path: Path) -> None:
    src = _source(tmp_path / "a.parquet")
    other = pa.schema([*SCHEMA, pa.field("extra", pa.string())])
    assert copyable(src, SCHEMA) and not copyable(src, other)
    (tmp_path / "junk.parquet").write_bytes(b"not parquet")
    assert not copyable(tmp_path / "junk.parquet", SCHEMA)
    with pytest.raises(ValueError):
        atomic_write_parquet_spliced(tmp_path / "out.parquet", other, [RawGroups(src, 0, 1)])


def test_footer_spans_cover_the_footer_and_each_row_group(tmp_path: Path) -> None:
    from croissant_lineage._io.parquet_footer import footer_spans

    path = _source(tmp_path / "a.parquet")
    data = path.read_bytes()
    footer = data[-8 - int.from_bytes(data[-8:-4], "little"):-8]
    fields, groups = footer_spans(footer)
    assert fields[0][1] == 0 and fields[-1][3] == len(footer) - 1  # (then the stop byte)
    assert all(a[3] == b[1] for a, b in itertools.pairwise(fields))  # one after another
    assert [f[0] for f in fields][:4] == [1, 2, 3, 4]
    assert len(groups) == pq.ParquetFile(path).metadata.num_row_groups == 5
    decoded = decode_struct(footer)
    for (start, end), group in zip(groups, next(f for f in decoded if f[0] == 4)[2][1], strict=True):
        assert decode_struct(footer[start:end]) == group  # each span is one RowGroup struct
    with pytest.raises(ValueError):
        footer_spans(footer[: len(footer) // 2])
