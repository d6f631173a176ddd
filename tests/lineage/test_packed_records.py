"""The raw records held packed: the same strings back, the same items table, the same files."""

from __future__ import annotations

import itertools
import pickle
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.lineage import packed_records
from croissant_lineage.lineage.model import Lineage, items_without_records
from croissant_lineage.lineage.packed_records import PackedRecords
from croissant_lineage.lineage.schema import EDGES_SCHEMA, ITEMS_BASE_SCHEMA, ITEMS_SCHEMA, conform

TEXTS = st.lists(st.one_of(st.none(), st.text(max_size=40)), max_size=60)


@pytest.fixture(autouse=True)
def _always_compressed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' small records compressed, as a big dataset's are (tests of the records
    held plain set PLAIN_UP_TO themselves)."""
    monkeypatch.setattr(packed_records, "PLAIN_UP_TO", None)


def _split(values: list[str | None], cuts: list[int]) -> list[pa.Array]:
    """``values`` as string arrays cut at ``cuts`` (some of them slices of one array)."""
    whole = pa.array(values, pa.string())
    bounds = sorted({0, len(values), *(c % (len(values) + 1) for c in cuts)})
    return [whole.slice(a, b - a) for a, b in itertools.pairwise(bounds)]


@settings(max_examples=150, deadline=None)
@given(values=TEXTS, cuts=st.lists(st.integers(0, 100), max_size=4), rows=st.sampled_from([1, 2, 3, 7, 1 << 16]),
       spill_from=st.sampled_from([None, 0, 60, 1 << 25]), plain_up_to=st.sampled_from([None, 0, 100, 1 << 24]))
def test_packed_values_come_back_the_same_however_split(
    values: list[str | None], cuts: list[int], rows: int, spill_from: int | None, plain_up_to: int | None
) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(packed_records, "CHUNK_ROWS", rows)
        mp.setattr(packed_records, "SPILL_FROM", spill_from)
        mp.setattr(packed_records, "PLAIN_UP_TO", plain_up_to)
        packed = PackedRecords(_split(values, cuts))
        # what the parts take uncompressed: each CHUNK_ROWS piece's own bytes (a one-row
        # slice counts its offsets and a validity byte, so pieces can sum past the whole)
        plain_bytes = sum(piece.nbytes for piece in packed_records._pieces(_split(values, cuts)))
    held_plain = plain_up_to is not None and plain_bytes <= plain_up_to
    buffers = [b for p in packed._parts for b in p._buffers()]
    if held_plain:  # held as they are: nothing compressed, the buffers' own bytes
        assert all(b.plain and b.stored == b.size for b in buffers)
        assert packed.nbytes == packed.memory == sum(b.get().size for b in buffers)
    else:  # compressed, all of them
        assert not any(b.plain for b in buffers)
    if spill_from is None or packed.nbytes <= spill_from or held_plain:
        assert packed.memory == packed.nbytes  # nothing spilled
    else:  # the parts past SPILL_FROM compressed bytes are in the spill file
        assert packed.memory <= spill_from < packed.nbytes
        assert pickle.loads(pickle.dumps(packed._parts)) == tuple(  # pickled: read back into memory
            packed_records._Part(p.length, p.null_count, *(
                None if b is None else packed_records._Buffer(b.held(), b.size, b.stored, b.plain)
                for b in (p.validity, p.offsets, p.data)
            )) for p in packed._parts
        )
    assert len(packed) == len(values)
    whole = packed.array()
    assert whole.type == pa.string() and whole.to_pylist() == values
    assert [v for chunk in packed.chunks() for v in chunk.to_pylist()] == values
    assert all(len(chunk) <= rows for chunk in packed.chunks())
    assert packed.array().equals(whole)  # built again, equal again


@settings(max_examples=100, deadline=None)
@given(values=TEXTS, cuts=st.lists(st.integers(0, 100), max_size=3), rows=st.sampled_from([1, 3, 7]),
       start=st.integers(0, 70), size=st.integers(0, 70))
def test_packed_rows_come_back_cut_to_the_parts_they_are_in(
    values: list[str | None], cuts: list[int], rows: int, start: int, size: int
) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(packed_records, "CHUNK_ROWS", rows)
        packed = PackedRecords(_split(values, cuts))
    chunks = list(packed.chunks(start, start + size))
    assert [v for c in chunks for v in c.to_pylist()] == values[start : start + size]
    assert all(0 < len(c) <= rows for c in chunks)  # only the parts holding those rows


def test_json_records_shrink() -> None:
    values = [f'{{"question": "What is {i} plus {i}?", "answer": "B", "id": {i}}}' for i in range(20_000)]
    packed = PackedRecords([pa.array(values)])
    assert packed.nbytes * 3 < pa.array(values).nbytes
    assert packed.array().to_pylist() == values


def test_a_small_dataset_is_held_plain_and_a_big_one_compressed_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    values = [f'{{"question": "What is {i} plus {i}?", "answer": "B", "id": {i}}}' for i in range(20_000)]
    monkeypatch.setattr(packed_records, "CHUNK_ROWS", 1_000)
    raw = pa.array(values).nbytes
    monkeypatch.setattr(packed_records, "PLAIN_UP_TO", raw)
    small = PackedRecords([pa.array(values)])
    # Nothing compressed: the bytes held are the parts' own buffers, all in memory.
    held = sum(b.size for p in small._parts for b in p._buffers())
    assert small.nbytes == small.memory == held and raw <= held < raw * 1.01 and len(small._parts) == 20
    assert small.array().to_pylist() == values
    monkeypatch.setattr(packed_records, "PLAIN_UP_TO", raw - 1)  # one byte more than kept plain
    big = PackedRecords([pa.array(values)])
    assert not any(b.plain for p in big._parts for b in p._buffers()) and big.nbytes * 3 < raw
    assert big.array().to_pylist() == values


def _items(parts: list[list[str | None]]) -> pa.Table:
    """An items table of one chunk per part (as the linker concatenates datasets)."""
    tables = []
    for k, recs in enumerate(parts):
        n = len(recs)
        tables.append(pa.table({
            "dataset": [f"d{k}"] * n, "item": [str(i) for i in range(n)], "subject": [None] * n,
            "stem": [f"stem {i}" for i in range(n)], "options": [["a", "b"]] * n, "key": ["A"] * n,
            "source_file": ["f.jsonl"] * n, "source_row": list(range(n)), "record": recs,
        }, schema=ITEMS_BASE_SCHEMA))
    return pa.concat_tables(tables)


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(TEXTS, min_size=1, max_size=4))
def test_a_lineage_holding_packed_records_gives_the_same_items(parts: list[list[str | None]]) -> None:
    table = _items(parts)
    plain = Lineage({}, table, EDGES_SCHEMA.empty_table())
    held = Lineage({}, table, EDGES_SCHEMA.empty_table())
    held.hold_packed_records([PackedRecords([c]) for c in table.column("record").chunks])
    without = items_without_records(held)
    assert without.column("record").null_count == table.num_rows
    assert without.drop_columns(["record"]).equals(table.drop_columns(["record"]))
    assert pickle.loads(pickle.dumps(held)).items.equals(table)  # pickled whole; still held
    assert held.__dict__["_packed"] is not None
    assert repr(held) == repr(plain) and held.__dict__["_packed"] is not None  # repr builds no records
    got = held.items
    assert got.equals(table) and got.schema == table.schema
    assert [len(c) for c in got.column("record").chunks] == [len(c) for c in table.column("record").chunks]
    assert held.items is got  # built once, then kept
    assert held == plain and items_without_records(held) is got


def test_held_records_must_match_the_chunks() -> None:
    table = _items([["{}", "{}"], ["{}"]])
    lin = Lineage({}, table, EDGES_SCHEMA.empty_table())
    with pytest.raises(ValueError, match="rows"):
        lin.hold_packed_records([PackedRecords([table.column("record").combine_chunks()])])
    lin.hold_packed_records([PackedRecords([c]) for c in table.column("record").chunks])
    with pytest.raises(ValueError, match="already"):
        lin.hold_packed_records([])


def _write_plain_and_held(table: pa.Table, folder: Path) -> Lineage:
    """Write ``table``'s lineage as is (to folder/plain) and with its records held packed
    (to folder/held); returns the latter."""
    plain = Lineage({}, table, EDGES_SCHEMA.empty_table())
    held = Lineage({}, table, EDGES_SCHEMA.empty_table())
    held.hold_packed_records([PackedRecords([c]) for c in table.column("record").chunks])
    plain.write(folder / "plain")
    held.write(folder / "held")
    return held


@pytest.mark.parametrize("plain_up_to", [None, 1 << 20])
def test_written_items_are_byte_identical_held_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plain_up_to: int | None
) -> None:
    monkeypatch.setattr(packed_records, "PLAIN_UP_TO", plain_up_to)
    recs = [[f'{{"q": "{"x" * (i % 50)}", "n": {i}}}' for i in range(3_000)], ['{"a": "é\\n"}'] * 700]
    table = _items(recs)
    held = _write_plain_and_held(table, tmp_path)
    assert held.__dict__["_packed"] is not None  # writing builds the records without keeping them
    for name in ("items.parquet", "edges.parquet", "summary.json"):
        assert (tmp_path / "held" / name).read_bytes() == (tmp_path / "plain" / name).read_bytes(), name
    assert pq.read_table(tmp_path / "held" / "items.parquet").equals(conform(table, ITEMS_SCHEMA))


def test_link_holds_the_records_packed_and_gives_the_loaded_items() -> None:
    """The linker loads records packed; its items table is the one load_items gives."""
    from croissant_lineage.family.spec import load_family
    from croissant_lineage.lineage.items import load_items, load_items_packed
    from croissant_lineage.workflows import link

    spec = load_family(Path(__file__).resolve().parents[2] / "examples" / "toy" / "family.json")
    lin = link(spec)
    assert lin.__dict__["_packed"] is not None
    loaded = [load_items(d) for d in spec.datasets.values() if d.has_items]
    for d in spec.datasets.values():
        if d.has_items:
            table, packed = load_items_packed(d)
            assert table.column("record").null_count == table.num_rows
            assert packed.array().equals(load_items(d).column("record").combine_chunks())
    assert lin.items.equals(pa.concat_tables(loaded))


@pytest.mark.parametrize("plain_up_to", [None, 1 << 20])
@pytest.mark.parametrize("group", [1_000, 3_000, 3_700, 1 << 17])
def test_items_written_a_row_group_at_a_time_are_what_write_table_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, group: int, plain_up_to: int | None
) -> None:
    """Held or not, ``items.parquet`` has row groups of ITEMS_ROW_GROUP rows (one when fewer):
    the bytes ``pq.write_table`` gives for that group size, the records built a group at a time."""
    from croissant_lineage._io import _PARQUET_OPTIONS
    from croissant_lineage.lineage import index as index_module
    from croissant_lineage.lineage import model

    monkeypatch.setattr(model, "ITEMS_ROW_GROUP", group)
    monkeypatch.setattr(index_module, "QUERY_ROW_GROUP", 1 << 17)  # (the query groups cut below: not tested here)
    monkeypatch.setattr(packed_records, "CHUNK_ROWS", 512)
    monkeypatch.setattr(packed_records, "PLAIN_UP_TO", plain_up_to)
    recs = [[f'{{"q": "{"x" * (i % 50)}", "n": {i}}}' for i in range(3_000)], [None, '{"a": "é"}'] * 350, []]
    table = _items(recs)
    _write_plain_and_held(table, tmp_path)
    full = conform(table, ITEMS_SCHEMA)  # what is written: every column of ITEMS_SCHEMA
    pq.write_table(full, tmp_path / "whole.parquet", row_group_size=group, **_PARQUET_OPTIONS,
                   use_dictionary=list(model._DICTIONARY_COLUMNS["items.parquet"]))
    want = (tmp_path / "whole.parquet").read_bytes()
    assert (tmp_path / "held" / "items.parquet").read_bytes() == want
    assert (tmp_path / "plain" / "items.parquet").read_bytes() == want
    meta = pq.ParquetFile(tmp_path / "held" / "items.parquet").metadata
    assert [meta.row_group(g).num_rows for g in range(meta.num_row_groups)] == (
        [min(group, 3_700 - s) for s in range(0, 3_700, group)])
    assert Lineage.read(tmp_path / "held").items.equals(full)


def test_an_empty_items_table_is_written_as_write_table_writes_it(tmp_path: Path) -> None:
    from croissant_lineage._io import _PARQUET_OPTIONS
    from croissant_lineage.lineage import model

    held = Lineage({}, ITEMS_SCHEMA.empty_table(), EDGES_SCHEMA.empty_table())
    held.hold_packed_records([PackedRecords([c]) for c in ITEMS_SCHEMA.empty_table().column("record").chunks])
    held.write(tmp_path / "held")
    pq.write_table(ITEMS_SCHEMA.empty_table(), tmp_path / "whole.parquet", **_PARQUET_OPTIONS,
                   use_dictionary=list(model._DICTIONARY_COLUMNS["items.parquet"]))
    assert (tmp_path / "held" / "items.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()


def test_records_stay_in_memory_when_the_spill_file_cannot_be_written(monkeypatch: pytest.MonkeyPatch) -> None:
    values = [f"record {i}" for i in range(40)]
    writes = []

    def full_disk(self: object, data: bytes) -> int:
        writes.append(len(data))
        if len(writes) > 2:
            raise OSError(28, "No space left on device")
        return original(self, data)

    original = packed_records._SpillFile.put
    monkeypatch.setattr(packed_records, "CHUNK_ROWS", 4)
    monkeypatch.setattr(packed_records, "SPILL_FROM", 0)
    monkeypatch.setattr(packed_records._SpillFile, "put", full_disk)
    packed = PackedRecords([pa.array(values)])
    assert packed.array().to_pylist() == values
    spilled = [p for p in packed._parts if p.memory == 0]
    assert len(spilled) == 1 and packed._parts[0] is spilled[0]  # the first part went; the rest stayed
    assert packed.memory == packed.nbytes - spilled[0].nbytes
