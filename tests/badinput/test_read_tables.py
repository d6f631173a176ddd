"""Bounded reads, and bad data files: one coded line each.

A Parquet file with a huge column no field uses is read without that column; a file
over the decompressed-size cap is refused (CL-E008) before it is read; nested dictionary
columns come decoded; a corrupt Parquet page is CL-E004, one line, exit 2.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from croissant_lineage.cli import main
from croissant_lineage.croissant import limits, tables
from croissant_lineage.croissant.descriptor import read_descriptor
from croissant_lineage.croissant.records import read_record_set
from croissant_lineage.errors import LineageError

GOOD = Path(__file__).resolve().parent / "_good"
ROWS = {"id": ["1", "2"], "subject": ["s", "s"], "question": ["q1?", "q2?"], "A": ["a", "a"], "B": ["b", "b"],
        "C": ["c", "c"], "D": ["d", "d"], "answer": ["A", "B"]}


def _case(tmp_path: Path, table: pa.Table, fmt: str = "application/x-parquet") -> Path:
    folder = tmp_path / "case"
    shutil.copytree(GOOD, folder)
    (folder / "data.csv").unlink()
    name = "data.parquet" if "parquet" in fmt else "data.arrow"
    if "parquet" in fmt:
        pq.write_table(table, folder / name, compression="zstd")
    else:
        with ipc.new_stream(folder / name, table.schema) as writer:
            writer.write_table(table)
    doc = json.loads((folder / "croissant.json").read_text())
    doc["distribution"][0].update(contentUrl=name, encodingFormat=fmt)
    (folder / "croissant.json").write_text(json.dumps(doc))
    return folder


def test_a_column_no_field_uses_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blob = pa.array(["x" * 1_000_000] * 2, pa.large_string())  # 2 MB, compressed to almost nothing
    folder = _case(tmp_path, pa.table({**ROWS, "blob": blob}))
    assert (folder / "data.parquet").stat().st_size < 20_000
    monkeypatch.setattr(limits, "MAX_DECOMPRESSED_BYTES", 100_000)  # far below the blob, above the rest
    table = read_record_set(read_descriptor(folder / "croissant.json"), "default")
    assert "blob" not in table.column_names and table.column("question").to_pylist() == ["q1?", "q2?"]
    # The whole file is over the cap: reading every column is refused before reading.
    with pytest.raises(LineageError) as info:
        tables.read_table(folder / "data.parquet", "application/x-parquet")
    assert info.value.code == "CL-E008"


@pytest.mark.parametrize("fmt", ["application/x-parquet", "application/vnd.apache.arrow.stream", "text/csv"])
def test_a_file_over_the_cap_is_refused_with_one_coded_line(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _case(tmp_path, pa.table({**ROWS, "question": ["q" * 5000] * 2})) if fmt != "text/csv" else GOOD
    if fmt.startswith("application/vnd"):
        folder = _case(tmp_path / "arrow", pa.table({**ROWS, "question": ["q" * 5000] * 2}), fmt)
    monkeypatch.setattr(limits, "MAX_DECOMPRESSED_BYTES", 100)
    with pytest.raises(LineageError) as info:
        read_record_set(read_descriptor(folder / "croissant.json"), "default")
    assert info.value.code == "CL-E008"
    assert main(["link", str(folder / "family.json"), "--out", str(tmp_path / "out"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "CL-E008" in err and "Traceback" not in err


@pytest.mark.parametrize("fmt", ["application/x-parquet", "application/vnd.apache.arrow.stream"])
def test_nested_dictionary_columns_come_decoded(fmt: str, tmp_path: Path) -> None:
    nested = pa.array([["a", "b"], ["c"]], pa.list_(pa.dictionary(pa.int32(), pa.string())))
    struct = pa.StructArray.from_arrays([pa.array(["x", "y"]).dictionary_encode()], ["v"])
    folder = _case(tmp_path, pa.table({**ROWS, "A": nested, "B": struct}), fmt)
    table = read_record_set(read_descriptor(folder / "croissant.json"), "default")
    assert table.schema.field("A").type == pa.list_(pa.string())
    assert table.column("A").to_pylist() == [["a", "b"], ["c"]]
    assert table.column("B").to_pylist() == [{"v": "x"}, {"v": "y"}]


def test_a_dictionary_arrow_cannot_decode_is_a_data_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _case(tmp_path, pa.table({**ROWS, "A": pa.array(["a", "b"]).dictionary_encode()}))

    # Stand in for a nesting Arrow cannot decode: a target type the cast cannot reach.
    monkeypatch.setattr(tables, "_without_dictionary", lambda t: pa.struct([pa.field("z", pa.int8())]))
    with pytest.raises(LineageError) as info:
        read_record_set(read_descriptor(folder / "croissant.json"), "default")
    assert info.value.code == "CL-E004"


def test_a_corrupt_parquet_page_is_one_coded_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _case(tmp_path, pa.table({**ROWS, "question": [f"question {i} " * 50 for i in range(2)]}))
    path = folder / "data.parquet"
    raw = bytearray(path.read_bytes())
    for i in range(8, len(raw) // 2):  # scramble the data pages, keep the footer
        raw[i] ^= 0x5A
    path.write_bytes(bytes(raw))
    assert main(["link", str(folder / "family.json"), "--out", str(tmp_path / "out"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "CL-E004" in err and "Traceback" not in err


def test_a_fileset_of_many_small_files_reads_the_same_when_merged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule 15: small per-file tables are merged every few files; rows, order and values stay."""
    from croissant_lineage.croissant import records

    folder = tmp_path / "case"
    shutil.copytree(GOOD, folder)
    (folder / "data.csv").unlink()
    (folder / "parts").mkdir()
    for i in range(40):
        extra = ",E" if i == 7 else ""  # one file with an extra column: merged permissively
        (folder / "parts" / f"p{i:03d}.csv").write_text(
            f"id,subject,question,A,B,C,D,answer{extra}\n{i},s,Q{i}?,a,b,c,d,A{',e' if extra else ''}\n")
    doc = json.loads((folder / "croissant.json").read_text())
    doc["distribution"][0] = {"@type": "cr:FileSet", "@id": "data", "name": "data",
                              "includes": "parts/*.csv", "encodingFormat": "text/csv"}
    (folder / "croissant.json").write_text(json.dumps(doc))
    desc = read_descriptor(folder / "croissant.json")
    monkeypatch.setattr(records, "_MERGE_EVERY", 10**9)
    apart = read_record_set(desc, "default")
    monkeypatch.setattr(records, "_MERGE_EVERY", 3)
    merged = read_record_set(desc, "default")
    assert merged.num_rows == 40 and merged.to_pylist() == apart.to_pylist()
    assert merged.column("id").to_pylist() == [str(i) for i in range(40)]
