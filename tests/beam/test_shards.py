"""The Beam pipeline's read step without Beam: a dataset cut into shards reads, shard by
shard, into exactly the items :func:`load_items` reads from the whole dataset."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage.beam.shards import Shard, plan_shards, read_shard
from croissant_lineage.family.spec import FamilySpec, load_family
from croissant_lineage.lineage.items import load_items

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy"


def _datasets(spec: FamilySpec) -> list:
    return [d for d in spec.datasets.values() if d.has_items]


def _read_all(spec: FamilySpec, name: str, **sizes: int) -> tuple[list[Shard], pa.Table, list]:
    position, ds = next((i, d) for i, d in enumerate(_datasets(spec)) if d.name == name)
    shards = plan_shards(ds, position, **sizes)
    got = [read_shard(ds, s) for s in shards]
    return shards, pa.concat_tables([t for t, _ in got]).combine_chunks(), [s for _, s in got]


def _toy_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "toy"
    shutil.copytree(TOY, folder)
    return folder


@pytest.mark.parametrize("name", ["toy-base", "toy-pro", "toy-redux", "toy-fr", "toy-pro-v2"])
def test_toy_datasets_read_in_small_shards_are_load_items(name: str) -> None:
    spec = load_family(TOY / "family.json")
    shards, got, schemas = _read_all(spec, name, shard_bytes=300, shard_rows=2)
    assert len(shards) > 1, "the test must exercise several shards"
    assert [s.index for s in shards] == list(range(len(shards)))
    want = load_items(next(d for d in _datasets(spec) if d.name == name))
    assert got.equals(want)
    assert all(s.equals(schemas[0]) for s in schemas)


def test_shard_kinds_per_format() -> None:
    spec = load_family(TOY / "family.json")
    kinds = {
        name: {s.kind for s in _read_all(spec, name, shard_bytes=300, shard_rows=2)[0]}
        for name in ("toy-base", "toy-pro", "toy-redux", "toy-pro-v2")
    }
    # toy-base: a FileSet of headerless CSV files (the delimiter is sniffed per file): one shard per file
    assert kinds == {"toy-base": {"file"}, "toy-pro": {"bytes"}, "toy-redux": {"bytes"}, "toy-pro-v2": {"rows"}}
    # large shards: a one-file dataset is read whole, as before
    ds = _datasets(spec)[1]
    assert [s.kind for s in plan_shards(ds, 1)] == ["whole"]


def _rewrite_redux(folder: Path) -> list[str]:
    """toy-redux with a quoted field holding newlines (twice), a blank line and CRLF."""
    path = folder / "toy-redux" / "toy_redux.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    header, rows = lines[0], lines[1:]
    cells = rows[3].split(";")
    cells[0] = '"Which of the following\nis true;\n""really""?"'
    rows[3] = ";".join(cells)
    rows.insert(6, "")
    rows[8] = rows[8] + "\r"
    path.write_bytes(("\n".join([header, *rows]) + "\n").encode("utf-8"))
    return rows


def test_csv_with_quoted_newlines_is_cut_between_rows_only(tmp_path: Path) -> None:
    folder = _toy_copy(tmp_path)
    _rewrite_redux(folder)
    spec = load_family(folder / "family.json")
    ds = next(d for d in _datasets(spec) if d.name == "toy-redux")
    want = load_items(ds)
    assert "really" in json.loads(want.column("record")[3].as_py())["question"]
    for size in (1, 40, 90, 150, 300):
        shards, got, _ = _read_all(spec, "toy-redux", shard_bytes=size)
        assert len(shards) > 1
        assert got.equals(want), size
        assert [s.header for s in shards[1:]] == [len(b"question;choices;answer;error_type;source;correct_answer;subject\n")] * (len(shards) - 1)
    raw = (folder / "toy-redux" / "toy_redux.csv").read_bytes()
    inside = raw.index(b"following\n") + len(b"following\n")
    assert inside not in {s.start for s in shards}  # never cut inside the quoted field


def test_csv_never_closed_quote_is_one_piece_and_the_readers_error(tmp_path: Path) -> None:
    folder = _toy_copy(tmp_path)
    path = folder / "toy-redux" / "toy_redux.csv"
    path.write_bytes(path.read_bytes() + b'"never closed;x;1;ok;s;;astronomy\nmore\n')
    spec = load_family(folder / "family.json")
    ds = next(d for d in _datasets(spec) if d.name == "toy-redux")
    assert [s.kind for s in plan_shards(ds, 2, shard_bytes=60)] == ["whole"]


def test_jsonl_without_final_newline_and_an_empty_shard(tmp_path: Path) -> None:
    folder = _toy_copy(tmp_path)
    path = folder / "toy-pro" / "test.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    blank = "\n" * 400 + "   \n" * 50  # more than a shard of blank lines: a piece with no record
    path.write_text("\n".join(lines[:3]) + "\n" + blank + "\n".join(lines[3:]), encoding="utf-8")  # no final \n
    assert not path.read_bytes().endswith(b"\n")
    spec = load_family(folder / "family.json")
    ds = next(d for d in _datasets(spec) if d.name == "toy-pro")
    shards, got, _ = _read_all(spec, "toy-pro", shard_bytes=200)
    assert got.equals(load_items(ds))
    size = path.stat().st_size
    covered = sum(s.stop - s.start for s in shards)
    assert covered < size  # the blank piece is no shard
    assert shards[-1].stop == size  # the last line, without its newline, is read


def test_parquet_rows_across_row_groups(tmp_path: Path) -> None:
    folder = _toy_copy(tmp_path)
    path = folder / "toy-pro-v2" / "test-00000-of-00001.parquet"
    table = pq.read_table(path)
    pq.write_table(table, path, row_group_size=3)  # shards of 2 rows straddle row groups
    spec = load_family(folder / "family.json")
    ds = next(d for d in _datasets(spec) if d.name == "toy-pro-v2")
    shards, got, _ = _read_all(spec, "toy-pro-v2", shard_rows=2)
    assert [(s.start, s.stop, s.first_row) for s in shards][:3] == [(0, 2, 0), (2, 4, 2), (4, 6, 4)]
    assert got.equals(load_items(ds))


def test_a_missing_file_is_a_whole_shard_whose_read_raises_the_readers_error(tmp_path: Path) -> None:
    from croissant_lineage.errors import LineageError

    folder = _toy_copy(tmp_path)
    (folder / "toy-pro" / "test.jsonl").unlink()
    spec = load_family(folder / "family.json")
    ds = next(d for d in _datasets(spec) if d.name == "toy-pro")
    shards = plan_shards(ds, 1, shard_bytes=100)
    assert [s.kind for s in shards] == ["whole"]
    with pytest.raises(LineageError) as got:
        read_shard(ds, shards[0])
    with pytest.raises(LineageError) as want:
        load_items(ds)
    assert str(got.value) == str(want.value)
