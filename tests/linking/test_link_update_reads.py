"""``link --update`` reads of the kept folder only what the new derivations link against:
the kept items' raw records are copied a row group at a time, never read whole."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage.lineage import index as index_module
from croissant_lineage.lineage import kept as kept_module
from croissant_lineage.lineage import model
from croissant_lineage.lineage.kept import HEAVY_COLUMNS, KeptFolder
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.workflows import write_lineage
from tests.helpers import items_table
from tests.helpers import toy_spec_without as _toy

REPO = Path(__file__).resolve().parents[2]

#: Rows per row group of the lineage tables in these tests: the toy family's items in many groups.
GROUP = 8



@pytest.fixture
def small_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "QUERY_ROW_GROUP", GROUP)
    monkeypatch.setattr(model, "ITEMS_ROW_GROUP", 2 * GROUP)
    monkeypatch.setattr(kept_module, "READ_GROUPS", 2)  # (two row groups of GROUP rows per read)


class _Reads:
    """Every read of a kept ``items.parquet``: (columns, rows returned)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, kept_items: Path):
        self.reads: list[tuple[tuple[str, ...], int]] = []
        self.whole: list[Any] = []
        real_group, real_table = pq.ParquetFile.read_row_groups, pq.read_table
        reads, whole, inode = self.reads, self.whole, kept_items.stat().st_ino

        def read_row_groups(pf: pq.ParquetFile, groups: Any, columns: Any = None, **kw: Any) -> Any:
            t = real_group(pf, groups, columns=columns, **kw)
            reads.append((tuple(t.column_names), t.num_rows))
            return t

        def read_table(source: Any, *a: Any, **kw: Any) -> Any:
            if isinstance(source, (str, Path)) and Path(source).exists() and Path(source).stat().st_ino == inode:
                whole.append(kw.get("columns"))
            return real_table(source, *a, **kw)

        monkeypatch.setattr(pq.ParquetFile, "read_row_groups", read_row_groups)
        monkeypatch.setattr(pq, "read_table", read_table)


@pytest.mark.parametrize("added", ["toy-pro-v2", "toy-redux"])
def test_update_reads_kept_records_a_block_of_row_groups_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         small_groups: None, added: str) -> None:
    full = write_lineage(_toy(tmp_path), tmp_path / "full").path
    out = tmp_path / "out"
    write_lineage(_toy(tmp_path, added, "minus.json"), out)
    kept_rows = pq.ParquetFile(out / "items.parquet").metadata.num_rows
    assert pq.ParquetFile(out / "items.parquet").metadata.num_row_groups > 4
    spy = _Reads(monkeypatch, out / "items.parquet")
    got = write_lineage(_toy(tmp_path), out, update=True)
    assert got.update is not None and got.update.startswith("linked: ")
    assert spy.whole == []  # the kept items file is never read whole
    with_records = [n for cols, n in spy.reads if "record" in cols]
    assert with_records and max(with_records) <= 2 * GROUP  # records: two row groups per read
    copies = [(cols, n) for cols, n in spy.reads if "record" in cols and len(cols) > 1]
    # the kept rows that are whole row groups are copied as bytes; the others' blocks decoded once
    assert 0 < sum(n for _cols, n in copies) < kept_rows
    assert {cols for cols, _n in copies} == {HEAVY_COLUMNS}  # only the heavy columns: the rows hold the others
    assert all("stem" not in cols for cols, _n in spy.reads if "record" in cols and len(cols) == 1)
    monkeypatch.undo()
    x, y = Lineage.read(out), Lineage.read(full)
    for name in ("items", "edges", "duplicates", "unmatched"):
        assert getattr(x, name).equals(getattr(y, name)), name
    assert x.summary == y.summary
    # the lineage returned: its kept rows read from the folder written, on first access
    assert got.lineage.items.equals(y.items)
    assert pickle.loads(pickle.dumps(got.lineage)).items.equals(y.items)


def test_kept_folder_reads_light_rows(tmp_path: Path) -> None:
    out = write_lineage(_toy(tmp_path), tmp_path / "out").path
    kept, whole = KeptFolder(out), Lineage.read(out)
    name = next(iter(kept.summary.items))
    light, items = kept.light_items(name), whole.items_of(name)
    assert light.column("item").equals(items.column("item"))
    assert all(light.column(c).null_count == light.num_rows for c in HEAVY_COLUMNS)
    linked = kept.items_of(name)
    assert linked.column("stem").equals(items.column("stem"))
    assert linked.column("record").null_count == linked.num_rows
    assert kept.records_of(name).array().equals(items.column("record").combine_chunks())
    assert kept.edges.equals(whole.edges) and kept.duplicates.equals(whole.duplicates)


def test_an_items_file_short_of_its_summary_links_the_whole_family(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_lineage(_toy(tmp_path, "toy-pro-v2", "minus.json"), out)
    summary = json.loads((out / "summary.json").read_text())
    first = next(iter(summary["items"]))
    summary["items"][first] += 1
    (out / "summary.json").write_text(json.dumps(summary))
    got = write_lineage(_toy(tmp_path), out, update=True)
    assert got.update is not None and got.update.startswith("CL-W003")


def _items_file(path: Path, rows: int) -> Path:
    table = items_table("ds", [{"item": i, "stem": f"stem {i}", "options": ["a", "b"], "key": "A",
                                "record": {"n": i}} for i in range(rows)])
    pq.write_table(table, path, row_group_size=GROUP)
    return path


def test_items_file_reads_the_next_block_ahead_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    small_groups: None) -> None:
    path = _items_file(tmp_path / "items.parquet", 6 * GROUP)  # three blocks of two row groups
    whole = pq.read_table(path)
    spy = _Reads(monkeypatch, path)
    f = kept_module.ItemsFile(path)
    names = ("stem", "record")
    got = list(f.columns(0, GROUP, names, until=5 * GROUP))
    kept_module._reader().submit(lambda: None).result()  # (one reader thread: what it read ahead is read)
    assert [n for _cols, n in spy.reads] == [2 * GROUP, 2 * GROUP]  # the next block read before it is asked for
    got += [t for lo in range(GROUP, 5 * GROUP, GROUP) for t in f.columns(lo, lo + GROUP, names, until=5 * GROUP)]
    kept_module._reader().submit(lambda: None).result()
    monkeypatch.undo()
    assert sum(t.num_rows for t in got) == 5 * GROUP
    for n in names:
        assert pa.concat_tables(got).column(n).equals(whole.column(n).slice(0, 5 * GROUP))
    assert [n for _cols, n in spy.reads] == [2 * GROUP, 2 * GROUP, 2 * GROUP]  # each block read once, none after
    # a block read ahead but not asked for is dropped: the rows asked for instead are right
    f = kept_module.ItemsFile(path)
    assert pa.concat_tables(list(f.columns(0, GROUP, ["stem"], until=6 * GROUP))).column("stem").equals(
        whole.column("stem").slice(0, GROUP))
    last = pa.concat_tables(list(f.columns(5 * GROUP, 6 * GROUP, ["record"])))
    assert last.column("record").equals(whole.column("record").slice(5 * GROUP, GROUP))


def test_kept_rows_whole_groups_are_copied_across_datasets(tmp_path: Path) -> None:
    path = _items_file(tmp_path / "items.parquet", 6 * GROUP)  # six row groups of GROUP rows
    f = kept_module.ItemsFile(path)
    # two kept datasets one after the other in the file and the table (the first ends within a group)
    # then new rows: the run is copied whole, groups 0 to 6; the new rows are encoded
    kept = kept_module.KeptRows(f, ((0, 0, GROUP + 3), (GROUP + 3, GROUP + 3, 5 * GROUP - 3)))
    assert list(kept.segments(6 * GROUP + 4)) == [(0, 6 * GROUP, 0, 6), (6 * GROUP, 6 * GROUP + 4)]
    # a kept range that starts within a group, after new rows: its whole groups copied, the rest encoded
    kept = kept_module.KeptRows(f, ((2, 3, 2 * GROUP),))
    assert list(kept.segments(2 * GROUP + 2)) == [(0, 2 + GROUP - 3), (2 + GROUP - 3, 2 + 2 * GROUP - 3, 1, 2),
                                                  (2 + 2 * GROUP - 3, 2 * GROUP + 2)]
    assert list(kept.segments(2 * GROUP + 2, raw=False)) == [(0, 2 * GROUP + 2)]


def test_a_kept_items_file_over_the_limit_whole_but_not_per_block_is_updated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_groups: None) -> None:
    from croissant_lineage.croissant import limits
    from croissant_lineage.errors import SizeLimitError

    out = tmp_path / "out"
    write_lineage(_toy(tmp_path, "toy-pro-v2", "minus.json"), out)
    full = write_lineage(_toy(tmp_path), tmp_path / "full").path

    def blocks(path: Path) -> list[int]:  # the bytes of each two row groups (READ_GROUPS is 2 here)
        meta = pq.ParquetFile(path).metadata
        sizes = [sum(meta.row_group(g).column(c).total_uncompressed_size for c in range(meta.num_columns))
                 for g in range(meta.num_row_groups)]
        return [sum(sizes[g:g + 2]) for g in range(0, len(sizes), 2)]

    # (the lineage returned reads its kept rows from the folder written: its blocks too)
    block = max(blocks(out / "items.parquet") + blocks(full / "items.parquet"))
    assert block < sum(blocks(out / "items.parquet"))
    monkeypatch.setattr(limits, "MAX_DECOMPRESSED_BYTES", block)  # the whole file over it, each block not
    with pytest.raises(SizeLimitError):
        limits.check_parquet(out / "items.parquet")
    got = write_lineage(_toy(tmp_path), out, update=True)
    assert got.update is not None and got.update.startswith("linked: ")
    write_lineage(_toy(tmp_path, "toy-pro-v2", "minus.json"), out, force=True)
    monkeypatch.setattr(limits, "MAX_DECOMPRESSED_BYTES", min(blocks(out / "items.parquet")) - 1)  # a block over it
    with pytest.raises(SizeLimitError):
        write_lineage(_toy(tmp_path), out, update=True)
