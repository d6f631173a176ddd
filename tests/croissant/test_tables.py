"""tables.read_table on messy inputs (small invented files)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from croissant_lineage.croissant.csv_tables import sniff_delimiter
from croissant_lineage.croissant.limits import MAX_FIELD_CHARS
from croissant_lineage.croissant.tables import read_table, split_rows
from croissant_lineage.errors import DataError, InputError, SizeLimitError

CSV = "text/csv"


def _write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _rows(table: pa.Table) -> list[dict[str, object]]:
    return table.to_pylist()


# -- CSV -----------------------------------------------------------------------------


def test_semicolon_and_comma_give_the_same_table(tmp_path: Path) -> None:
    comma = _write(tmp_path, "c.csv", 'question,choices,answer\n"Is 1, 2?","[\'a\', \'b\']",0\n')
    semi = _write(tmp_path, "s.csv", "question;choices;answer\nIs 1, 2?;['a', 'b'];0\n")
    assert _rows(read_table(comma, CSV)) == _rows(read_table(semi, CSV)) == [
        {"question": "Is 1, 2?", "choices": "['a', 'b']", "answer": "0"}
    ]


@pytest.mark.parametrize(
    ("line", "delimiter"),
    [("a,b,c", ","), ("a;b;c", ";"), ("a\tb\tc", "\t"), ('"x;y",b', ","), ("single", ",")],
)
def test_sniff_delimiter(line: str, delimiter: str) -> None:
    assert sniff_delimiter(line) == delimiter


def test_quoted_newlines_crlf_and_bom(tmp_path: Path) -> None:
    data = '\ufeffq,a\r\n"first\r\nsecond",x\r\nplain,y\r\n'
    table = read_table(_write(tmp_path, "t.csv", data), CSV)
    assert table.column_names == ["q", "a"]
    assert _rows(table) == [{"q": "first\r\nsecond", "a": "x"}, {"q": "plain", "a": "y"}]


def test_nel_stays_inside_its_field(tmp_path: Path) -> None:
    data = 'q,a\nbefore\u0085after,x\n"quoted\u0085nel",y\nline\u2028sep,z\n'
    table = read_table(_write(tmp_path, "nel.csv", data), CSV)
    assert table.num_rows == 3
    assert table.column("q").to_pylist() == ["before\u0085after", "quoted\u0085nel", "line\u2028sep"]
    assert table.column("a").to_pylist() == ["x", "y", "z"]


def test_stray_mac_roman_byte_in_utf8(tmp_path: Path) -> None:
    data = "q,a\ncaf\u00e9,x\n".encode() + b"it\xd5s,y\n"
    table = read_table(_write(tmp_path, "mr.csv", data), CSV)
    assert table.column("q").to_pylist() == ["caf\u00e9", "it\u2019s"]


def test_trailing_unnamed_empty_columns(tmp_path: Path) -> None:
    table = read_table(_write(tmp_path, "u.csv", "q,a,,\nx,y,,\nz,w,,\n"), CSV)
    assert table.column_names == ["q", "a", "_unnamed_2", "_unnamed_3"]
    assert table.column("_unnamed_3").to_pylist() == ["", ""]


def test_extra_empty_cells_are_tolerated_but_not_extra_values(tmp_path: Path) -> None:
    ok = read_table(_write(tmp_path, "ok.csv", "q,a\nx,y,,\n"), CSV)
    assert _rows(ok) == [{"q": "x", "a": "y"}]
    with pytest.raises(DataError) as info:
        read_table(_write(tmp_path, "bad.csv", "q,a\nx,y\nx,y,z\n"), CSV)
    assert info.value.code == "CL-E004"
    assert "line 3" in info.value.message


def test_short_row_names_its_line(tmp_path: Path) -> None:
    data = 'q,a,b\n"two\nlines",1,2\nonly,one\n'
    with pytest.raises(DataError) as info:
        read_table(_write(tmp_path, "short.csv", data), CSV)
    assert info.value.code == "CL-E004"
    assert "line 4" in info.value.message and "data row 1" in info.value.message
    assert info.value.path and info.value.path.endswith("short.csv")


def test_mixed_delimiters_in_one_file_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        read_table(_write(tmp_path, "mix.csv", "q,a,b\nx,y,z\nx;y;z\n"), CSV)
    assert info.value.code == "CL-E004"


def test_blank_lines_skipped_rows_of_empty_cells_kept(tmp_path: Path) -> None:
    table = read_table(_write(tmp_path, "b.csv", "q,a\n\nx,y\n\n,\n"), CSV)
    assert _rows(table) == [{"q": "x", "a": "y"}, {"q": "", "a": ""}]


def test_repeated_header_names(tmp_path: Path) -> None:
    table = read_table(_write(tmp_path, "r.csv", "q,q,q\n1,2,3\n"), CSV)
    assert table.column_names == ["q", "q.1", "q.2"]


def test_header_only(tmp_path: Path) -> None:
    table = read_table(_write(tmp_path, "h.csv", "q,a\n"), CSV)
    assert table.column_names == ["q", "a"] and table.num_rows == 0


def test_headerless_with_columns(tmp_path: Path) -> None:
    table = read_table(_write(tmp_path, "n.csv", "Q1,a,b,A\nQ2,c,d,B\n"), CSV, csv_columns=["q", "x", "y", "k"])
    assert table.column("q").to_pylist() == ["Q1", "Q2"]
    assert table.column("k").to_pylist() == ["A", "B"]


def test_tsv(tmp_path: Path) -> None:
    table = read_table(_write(tmp_path, "t.tsv", "q\ta\nx, y; z\tw\n"), "text/tab-separated-values")
    assert _rows(table) == [{"q": "x, y; z", "a": "w"}]


@pytest.mark.parametrize("data", [b"", b"   \n\n", b'""\n'])
def test_empty_file(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(InputError) as info:
        read_table(_write(tmp_path, "e.csv", data), CSV)
    assert info.value.code == "CL-E001"


def test_nul_bytes(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        read_table(_write(tmp_path, "nul.csv", b"q,a\nx\x00,y\n"), CSV)
    assert info.value.code == "CL-E001"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        read_table(tmp_path / "nope.csv", CSV)
    assert info.value.code == "CL-E001"


def test_quote_never_closed(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        read_table(_write(tmp_path, "q.csv", 'q,a\nx,y\n"open,z\nmore,w\n'), CSV)
    assert info.value.code == "CL-E004"
    assert "line 3" in info.value.message


def test_field_of_one_megabyte_is_read(tmp_path: Path) -> None:
    big = "x" * 1_000_000
    table = read_table(_write(tmp_path, "m.csv", f'q,a\n"{big}",y\n'), CSV)
    assert table.column("q").to_pylist() == [big]


def test_fifty_megabyte_line_is_refused(tmp_path: Path) -> None:
    assert MAX_FIELD_CHARS < 50_000_000
    path = tmp_path / "huge.csv"
    with path.open("w", encoding="utf-8") as fh:
        fh.write('q,a\nsmall,x\n"')
        fh.write("y" * 50_000_000)
        fh.write('",z\n')
    with pytest.raises(SizeLimitError) as info:
        read_table(path, CSV)
    assert info.value.code == "CL-E008"
    assert "line 3" in info.value.message


# -- JSON Lines, JSON -----------------------------------------------------------------


def test_jsonl(tmp_path: Path) -> None:
    data = '{"q": "a", "opts": ["x"]}\r\n\n{"q": "b\\u0085c", "opts": []}\n'
    table = read_table(_write(tmp_path, "t.jsonl", data), "application/jsonlines")
    assert _rows(table) == [{"q": "a", "opts": ["x"]}, {"q": "b\u0085c", "opts": []}]


def test_jsonl_bad_line(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        read_table(_write(tmp_path, "b.jsonl", '{"q": 1}\n{"q": \n'), "application/jsonlines")
    assert info.value.code == "CL-E004"
    assert "line 2" in info.value.message
    with pytest.raises(DataError):
        read_table(_write(tmp_path, "l.jsonl", '{"q": 1}\n[1, 2]\n'), "application/jsonlines")
    with pytest.raises(InputError):
        read_table(_write(tmp_path, "e.jsonl", "\n\n"), "application/jsonlines")


def test_jsonl_mixed_types_become_text(tmp_path: Path) -> None:
    data = '{"v": 1}\n{"v": "one"}\n{"v": [1]}\n{"v": null}\n'
    table = read_table(_write(tmp_path, "m.jsonl", data), "application/jsonlines")
    assert table.column("v").to_pylist() == ["1", "one", "[1]", None]


def test_json_list_and_json_lines_under_json(tmp_path: Path) -> None:
    rows = [{"q": "a"}, {"q": "b"}]
    listed = read_table(_write(tmp_path, "l.json", json.dumps(rows)), "application/json")
    lines = read_table(_write(tmp_path, "j.json", '{"q": "a"}\n{"q": "b"}\n'), "application/json")
    assert _rows(listed) == _rows(lines) == rows
    with pytest.raises(DataError):
        read_table(_write(tmp_path, "n.json", "[1, 2]"), "application/json")


# -- Parquet, Arrow, formats ------------------------------------------------------------


def test_parquet_and_arrow(tmp_path: Path) -> None:
    table = pa.table({"q": ["a", "b"], "opts": [["x", "y"], ["z"]]})
    pq.write_table(table, tmp_path / "t.parquet")
    with ipc.new_stream(tmp_path / "s.arrow", table.schema) as w:
        w.write_table(table)
    with ipc.new_file(tmp_path / "f.arrow", table.schema) as w:
        w.write_table(table)
    assert read_table(tmp_path / "t.parquet", "application/x-parquet").equals(table)
    assert read_table(tmp_path / "s.arrow", "application/vnd.apache.arrow.stream").equals(table)
    assert read_table(tmp_path / "f.arrow", "application/vnd.apache.arrow.file").equals(table)


@pytest.mark.parametrize(
    "fmt", ["application/x-parquet", "application/vnd.apache.arrow.stream"]
)
def test_binary_garbage(tmp_path: Path, fmt: str) -> None:
    with pytest.raises(DataError) as info:
        read_table(_write(tmp_path, "g.bin", b"not a columnar file at all"), fmt)
    assert info.value.code == "CL-E004"


def test_unsupported_encoding_format(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        read_table(_write(tmp_path, "x.xml", "<a/>"), "application/xml")
    assert info.value.code == "CL-E004"


def test_encoding_format_parameters_and_case(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.csv", "q\nx\n")
    assert read_table(path, "Text/CSV; charset=utf-8").column("q").to_pylist() == ["x"]


def test_split_rows_gives_each_file_its_rows() -> None:
    table = pa.table({"q": ["a", "b", "c", "d", "e"]})
    parts = split_rows(table, [2, 0, 3])
    assert [p.column("q").to_pylist() for p in parts] == [["a", "b"], [], ["c", "d", "e"]]
    assert split_rows(table, []) == []
