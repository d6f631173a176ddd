"""Size limits of every input: documents, lines, cells, Parquet metadata, lineage tables.

The limits are lowered for the tests (they are module attributes, adjustable by design),
so each case takes kilobytes. Memory itself is benchmarked (``benchmarks/bench_hostile.py``),
not measured here: these tests pin the coded errors and that a refused cell is not read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage import _io
from croissant_lineage.cli import main
from croissant_lineage.croissant import limits, tables
from croissant_lineage.croissant.describe import describe
from croissant_lineage.errors import LineageError, SizeLimitError
from croissant_lineage.family.spec import load_family
from croissant_lineage.findings.files import load_findings
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.validate import validate

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "examples" / "toy"


def test_a_json_document_over_the_limit_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_io.reads, "MAX_DOCUMENT_BYTES", 1000)
    big = tmp_path / "findings.json"
    big.write_text(json.dumps({"findings": [{"id": f"F-{i}"} for i in range(100)]}))
    monkeypatch.setattr(_io, "read_text", lambda path: pytest.fail("read past the limit"))
    for load in (_io.read_json, load_findings, load_family):
        with pytest.raises(SizeLimitError) as err:
            load(big)
        assert err.value.code == "CL-E008" and err.value.path == str(big)


def test_validate_reports_a_document_over_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_io.reads, "MAX_DOCUMENT_BYTES", 1000)
    big = tmp_path / "family.json"
    big.write_text(json.dumps({"name": "x", "datasets": [{"name": f"d{i}"} for i in range(100)]}))
    report = validate([big])
    assert [i.code for i in report.issues] == ["CLV001"]


def test_a_duplicate_key_is_named(tmp_path: Path) -> None:
    doc = tmp_path / "d.json"
    doc.write_text('{"a": {"b": 1, "c": 2, "b": 3}}')
    with pytest.raises(LineageError) as err:
        _io.read_json(doc)
    assert err.value.code == "CL-E001" and "'b'" in err.value.message
    # data records (allow_nan: JSON Lines rows) are not documents: read as before
    assert _io.loads_json('{"b": 1, "b": 2}', allow_nan=True) == {"b": 2}


def test_a_long_line_is_refused_while_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_LINE_BYTES", 100)
    monkeypatch.setattr(limits, "_CHUNK", 16)
    path = tmp_path / "data.csv"
    path.write_bytes(b"q,a\r\n" + b"short,1\n" * 30 + b"x" * 101 + b",1\n")
    with pytest.raises(SizeLimitError) as err:
        limits.read_bounded(path)
    assert err.value.code == "CL-E008" and "line 32 " in err.value.message
    path.write_bytes(b"q,a\r\n" + b"short,1\n" * 30 + b"x" * 97 + b",1\n")  # 100 bytes: at the limit
    assert limits.read_bounded(path) == path.read_bytes()


@pytest.mark.parametrize(("rows", "size"), [(1, 5000), (50, 3000)], ids=["size per value", "statistics"])
def test_a_parquet_cell_over_the_limit_is_refused_from_its_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: int, size: int
) -> None:
    """One giant value (its chunk's size per value, or its statistics: pyarrow writes them
    for values under 4 KiB) is refused before any page is decompressed."""
    monkeypatch.setattr(limits, "MAX_CELL_BYTES", 1000)
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"stem": ["y" * size] + ["s"] * (rows - 1), "id": [str(i) for i in range(rows)]}), path)
    monkeypatch.setattr(pq.ParquetFile, "read", lambda *a, **k: pytest.fail("read past the limit"))
    with pytest.raises(SizeLimitError) as err:
        tables.read_table(path, "application/x-parquet", columns=["stem"])
    assert err.value.code == "CL-E008" and "'stem'" in err.value.message
    limits.check_parquet(path, ["id"])  # an unread column is not checked


def test_a_cell_the_metadata_cannot_tell_is_refused_after_the_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_CELL_BYTES", 1000)
    path = tmp_path / "d.parquet"
    values = ["s"] * 20 + ["y" * 1500] + ["t"] * 20
    pq.write_table(pa.table({"stem": values}), path, write_statistics=False)
    with pytest.raises(SizeLimitError) as err:
        tables.read_table(path, "application/x-parquet")
    assert "row 20" in err.value.message
    for nested in ([["a", "y" * 1500]], [{"k": "y" * 1500}]):
        with pytest.raises(SizeLimitError):
            limits.check_cells(pa.table({"c": nested}), "x")


def test_describe_reads_no_parquet_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unused (or any) column of a Parquet file costs describe nothing: its metadata says
    the columns' types and the rows."""
    folder = tmp_path / "data"
    folder.mkdir()
    pq.write_table(pa.table({"q": ["a", "b"], "n": [1, 2], "blob": ["z" * 10_000, "z"]}), folder / "test.parquet")
    monkeypatch.setattr(pq.ParquetFile, "read", lambda *a, **k: pytest.fail("a column was read"))
    monkeypatch.setattr(pq, "read_table", lambda *a, **k: pytest.fail("a column was read"))
    doc = describe(folder)
    fields = {f["source"]["extract"]["column"]: f["dataType"] for rs in doc["recordSet"] for f in rs["field"]
              if "column" in f.get("source", {}).get("extract", {})}
    assert fields == {"q": "sc:Text", "n": "cr:Int64", "blob": "sc:Text"}


def test_a_lineage_table_with_a_giant_stem_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lineage"
    assert main(["link", str(TOY / "family.json"), "--data-dir", str(TOY), "--out", str(out), "-q"]) == 0
    items = pq.read_table(out / "items.parquet")
    stems = items.column("stem").to_pylist()
    stems[0] = "y" * 5000
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    pq.write_table(items.set_column(items.schema.get_field_index("stem"), "stem", pa.array(stems)), bad / "items.parquet")
    monkeypatch.setattr(limits, "MAX_CELL_BYTES", 1000)
    with pytest.raises(SizeLimitError):
        Lineage.read(bad, records=False)
    ref = f"{items.column('dataset')[0]}:{items.column('item')[0]}"
    for extra in (["--json"], ["--svg", str(tmp_path / "f.svg")]):
        capsys.readouterr()
        assert main(["relatives", ref, "--lineage", str(bad), *extra]) == 2
        err = capsys.readouterr().err
        assert "CL-E008" in err and err.count("\n") == 1 and "Traceback" not in err
    Lineage.read(out, records=False)  # the good folder still reads


def test_cells_are_measured_only_in_chunks_larger_than_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk whose bytes are within the cell limit holds no cell over it: its cells are not
    measured; a larger chunk still is, and a long cell in it is refused at its row."""
    monkeypatch.setattr(limits, "MAX_CELL_BYTES", 1000)
    measured: list[int] = []
    cell_lengths = limits._cell_lengths
    monkeypatch.setattr(limits, "_cell_lengths", lambda arr: measured.append(len(arr)) or cell_lengths(arr))
    small = pa.chunked_array([["s" * 100] * 5, ["t" * 100] * 4])  # 9 cells, under 1,000 bytes per chunk
    limits.check_cells(pa.table({"a": small, "b": [["x" * 10] * 3] * 9}), "x")
    assert measured == []
    big = pa.chunked_array([["s" * 100] * 5, ["t" * 200] * 4 + ["y" * 1001]])  # the second chunk: over
    with pytest.raises(SizeLimitError) as err:
        limits.check_cells(pa.table({"a": big}), "x")
    assert measured == [5] and "row 9" in err.value.message
    limits.check_cells(pa.table({"a": pa.chunked_array([["t" * 200] * 6])}), "x")  # measured, none over
    assert measured == [5, 6]
