"""Footer blocks: a Parquet file's footer cut into blocks reads the same rows."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage.lineage import footers
from croissant_lineage.lineage.footers import (
    GroupedFile,
    footers_path,
    read_footer_blocks,
    write_footer_blocks,
)
from croissant_lineage.lineage.index import RowReader


def _table(n: int) -> pa.Table:
    return pa.table({
        "ref": [f"r{i:07d}" for i in range(n)],
        "x": np.arange(n),
        "s": [None if i % 5 == 0 else "é" * (i % 9) for i in range(n)],
        "l": [[i, i + 1] if i % 3 else None for i in range(n)],
        "m": [{"a": str(i)} for i in range(n)],
    })


@pytest.mark.parametrize(("rows", "group", "block"), [(1000, 10, 3), (1000, 7, 16), (999, 10, 15), (5000, 5, 40)])
def test_every_row_reads_the_same_through_the_blocks(tmp_path, rows, group, block):
    table = _table(rows)
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=group, write_statistics=["ref"], compression="zstd")
    side = write_footer_blocks(path, "ref", threshold=2, block_groups=block)
    assert side == footers_path(path) and side.name == "t.footers"
    blocks = read_footer_blocks(path)
    groups = -(-rows // group)
    assert blocks is not None and len(blocks) == -(-groups // block)
    assert [b.first_group for b in blocks] == list(range(0, groups, block))
    assert sum(b.rows for b in blocks) == rows
    for b in blocks:  # each block's ref range is its rows'
        assert (b.min, b.max) == (f"r{b.first_row:07d}", f"r{b.first_row + b.rows - 1:07d}")
    file = GroupedFile(path)
    assert file.num_rows == rows and file.num_row_groups == groups
    assert file.schema_arrow == pq.read_schema(path)
    picked = [*random.Random(rows).sample(range(rows), 60), 0, rows - 1]
    got = RowReader(path, file=file).rows(picked)
    assert got.equals(table.take(pa.array(sorted(set(picked)))))


def test_a_file_of_few_groups_gets_no_sidecar_and_loses_an_old_one(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(_table(100), path, row_group_size=10)
    assert write_footer_blocks(path, threshold=2, block_groups=2) is not None
    pq.write_table(_table(100), path, row_group_size=50)
    assert write_footer_blocks(path, threshold=2, block_groups=2) is None
    assert not footers_path(path).exists()


def test_a_sidecar_that_does_not_describe_the_file_is_not_used(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(_table(300), path, row_group_size=10)
    write_footer_blocks(path, threshold=2, block_groups=4)
    assert read_footer_blocks(path) is not None
    table = _table(300).sort_by([("x", "descending")])  # same size, other rows
    pq.write_table(table, path, row_group_size=10)
    assert read_footer_blocks(path) is None
    file = GroupedFile(path)
    assert len(file.blocks) == 1 and file.blocks[0].offset is None  # its own footer
    assert RowReader(path, file=file).rows([0, 299]).column("x").to_pylist() == [299, 0]
    footers_path(path).write_bytes(b"CLFOOTERS1\n\xff\xff\xff\xffnot json")
    assert read_footer_blocks(path) is None


def test_a_lineage_rewritten_small_drops_the_old_sidecars(tmp_path, monkeypatch):
    from croissant_lineage.lineage.index import QUERY_ROW_GROUP
    from croissant_lineage.lineage.model import Lineage
    from croissant_lineage.testing.synthetic import generate_family
    from croissant_lineage.workflows import link

    fam = generate_family(tmp_path / "data", items=3 * QUERY_ROW_GROUP, seed=5)
    lineage = link(fam.spec)
    with monkeypatch.context() as m:
        m.setattr(footers, "BLOCK_THRESHOLD", 1)
        folder = lineage.write(tmp_path / "lineage")
    assert (folder / "items.footers").is_file() and (folder / "index.footers").is_file()
    lineage.write(folder)  # (the threshold back at its default)
    assert not list(folder.glob("*.footers"))
    assert Lineage.read(folder) == lineage


def test_a_damaged_block_is_a_coded_error_not_a_traceback(tmp_path, monkeypatch):
    from croissant_lineage.errors import InputError
    from croissant_lineage.lineage.index import QUERY_ROW_GROUP
    from croissant_lineage.lineage.query import family_lineage
    from croissant_lineage.testing.synthetic import generate_family
    from croissant_lineage.workflows import link

    fam = generate_family(tmp_path / "data", items=3 * QUERY_ROW_GROUP, seed=5)
    lineage = link(fam.spec)
    monkeypatch.setattr(footers, "BLOCK_THRESHOLD", 1)
    monkeypatch.setattr(footers, "BLOCK_GROUPS", 1)
    folder = lineage.write(tmp_path / "lineage")
    side = folder / "index.footers"
    data = bytearray(side.read_bytes())
    blocks = read_footer_blocks(folder / "index.parquet")
    assert blocks is not None
    for b in blocks:  # the header kept, every block's bytes overwritten
        assert b.offset is not None and b.length is not None
        data[b.offset:b.offset + b.length] = b"\x07" * b.length
    side.write_bytes(bytes(data))
    ref = lineage.items.column("dataset")[0].as_py() + ":" + lineage.items.column("item")[0].as_py()
    with pytest.raises(InputError) as caught:
        family_lineage(folder, ref)
    assert caught.value.code == "CL-E001" and "index.footers" in caught.value.message
