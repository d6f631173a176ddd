"""Small CSV files read a group at a time give what each file gives alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croissant_lineage.croissant import csv_batches, csv_tables, file_batches, limits
from croissant_lineage.croissant.csv_batches import row_count
from croissant_lineage.croissant.file_batches import read_tables
from croissant_lineage.croissant.tables import read_table
from croissant_lineage.errors import LineageError

CSV = "text/csv"
TSV = "text/tab-separated-values"

_CELL = st.text(alphabet=st.sampled_from(list('ab ,;\t"\n\r\x85\u2028é')), max_size=5)


def _outcome(paths: list[Path], read: Any) -> tuple[str, Any]:
    """What reading ``paths`` gives: ("error", message) or ("tables", per-file tables)."""
    try:
        return "tables", read(paths)
    except LineageError as exc:
        return "error", f"{type(exc).__name__}: {exc}"


def _assert_same(paths: list[Path], fmt: str = CSV, csv_columns: list[str] | None = None) -> list[pa.Table] | None:
    def batched(ps: list[Path]) -> list[pa.Table]:
        got = list(read_tables(ps, fmt, csv_columns=csv_columns))
        assert [p for p, _ in got] == ps
        return [t for _, t in got]

    got, want = _outcome(paths, batched), _outcome(paths, lambda ps: [read_table(p, fmt, csv_columns=csv_columns) for p in ps])
    assert got[0] == want[0], (got, want)
    if got[0] == "error":
        assert got == want
        return None
    for g, w in zip(got[1], want[1], strict=True):
        assert g.schema == w.schema and g.to_pylist() == w.to_pylist()
    whole = pa.concat_tables(got[1], promote_options="permissive")
    assert whole.equals(pa.concat_tables(want[1], promote_options="permissive"))
    return list(got[1])


def _cell(c: str, quote: bool) -> str:
    return '"' + c.replace('"', '""') + '"' if quote or any(x in c for x in ',;\t"\n\r') else c


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n_files=st.integers(1, 5), delim=st.sampled_from([",", ";", "\t"]), headerless=st.booleans(),
       tidy=st.booleans(), data=st.data())
def test_a_batch_reads_what_each_file_reads_alone(
    tmp_path_factory: pytest.TempPathFactory, n_files: int, delim: str, headerless: bool, tidy: bool, data: st.DataObject
) -> None:
    folder = tmp_path_factory.mktemp("files")
    headers = [["q", "a", "b"], ["q", "a"], ["q", "", "q"]]
    paths = []
    for i in range(n_files):
        header = data.draw(st.sampled_from(headers[:2] if tidy else headers))
        width = 3 if headerless else len(header)
        cells = st.lists(_CELL, min_size=width, max_size=width) if tidy else st.lists(_CELL, min_size=1, max_size=4)
        rows = data.draw(st.lists(cells, max_size=4))
        quote = data.draw(st.booleans())
        ending = data.draw(st.sampled_from(["\n", "\r\n", "\r"]))
        lines = [] if headerless else [delim.join(header)]
        lines += [delim.join(_cell(c, quote) for c in row) for row in rows]
        if not tidy:  # a stray line: blank, a quote never closed, text after a closing quote
            at = data.draw(st.integers(0, len(lines)))
            lines.insert(at, data.draw(st.sampled_from(["", '"open', 'x"y', '"a"b', "  "])))
        end = data.draw(st.sampled_from(["", ending, ending * 2]))
        bom = data.draw(st.booleans())
        path = folder / f"{i:02d}.csv"
        path.write_bytes(("\ufeff" if bom else "").encode() + (ending.join(lines) + end).encode("utf-8"))
        paths.append(path)
    columns = ["c0", "c1", "c2"] if headerless else None
    _assert_same(paths, CSV, columns)
    if delim == "\t":
        _assert_same(paths, TSV, columns)


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.lists(_CELL, min_size=2, max_size=2), max_size=5), ending=st.sampled_from(["\n", "\r\n", "\r"]),
       blank=st.sampled_from(["", "\n", "\r\n", "\r"]), end=st.booleans())
def test_row_count_is_the_rows_pyarrow_reads(rows: list[list[str]], ending: str, blank: str, end: bool) -> None:
    body = (blank + ending.join(",".join(_cell(c, False) for c in row) for row in rows) + (ending if end else "")).encode()
    table = csv_tables.read_clean_csv_rows(body, ["x", "y"], ",")
    if not rows:  # (pyarrow may call bytes of blank lines alone an empty file)
        assert row_count(body) == 0
        return
    assert table is not None
    assert row_count(body) == table.num_rows == len(rows)


@pytest.mark.parametrize(("body", "n"), [(b"", 0), (b"\n\r\n\r", 0), (b'a,"b\nc"\r\nd,e', 2), (b'"x\r\ny",z\r', 1), (b"a,b", 1)])
def test_row_count_of_some_bodies(body: bytes, n: int) -> None:
    assert row_count(body) == n


def _files(folder: Path, headers: list[str]) -> list[Path]:
    paths = []
    for i, header in enumerate(headers):
        path = folder / f"{i:02d}.csv"
        path.write_text(header + "\n" + "".join(f'"q{i}.{r}\nline",{r}\n' for r in range(i + 1)), encoding="utf-8")
        paths.append(path)
    return paths


def test_files_sharing_a_header_are_read_by_one_reader_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    read = csv_tables.read_clean_csv_rows
    monkeypatch.setattr(csv_tables, "read_clean_csv_rows", lambda raw, *a, **k: calls.append(raw) or read(raw, *a, **k))
    paths = _files(tmp_path, ["q,n", "q,m", "q,n", "q,n", "q,m"])
    _assert_same(paths)
    calls.clear()
    got = [t for _, t in read_tables(paths, CSV)]
    assert len(calls) == 2  # one call per header, in the order of the headers' first files
    assert calls[0].startswith(b'"q0.0\nline",0\n"q2.0')
    assert [t.num_rows for t in got] == [1, 2, 3, 4, 5]
    assert got[1].column_names == ["q", "m"]
    assert got[3].to_pylist() == [{"q": f"q3.{r}\nline", "n": str(r)} for r in range(4)]


def test_a_file_alone_under_its_header_is_read_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(csv_batches, "_read_group", lambda *a: pytest.fail("no group of two files"))
    _assert_same(_files(tmp_path, ["q,n", "q,m", "q,o"]))


def test_a_group_whose_read_fails_is_read_file_by_file(tmp_path: Path) -> None:
    paths = _files(tmp_path, ["q,n", "q,n", "q,n"])
    paths[1].write_text("q,n\nx,y,z\n", encoding="utf-8")  # a row wider than the header
    _assert_same(paths)
    with pytest.raises(LineageError, match="line 2"):
        list(read_tables(paths, CSV))
    assert csv_batches.read_csv_batch(paths, None, None) == [None, None, None]
    paths[1].write_text('q,n\n"a\u00e9",b\n', encoding="utf-8")
    assert _assert_same(paths) is not None


def test_errors_come_in_file_order(tmp_path: Path) -> None:
    paths = _files(tmp_path, ["q,n", "q,n", "q,n"])
    (tmp_path / "bad.csv").write_text('q,n\n"never closed,1\n', encoding="utf-8")
    paths = [paths[0], tmp_path / "bad.csv", tmp_path / "missing.csv", paths[1], paths[2]]
    with pytest.raises(LineageError, match="cannot parse CSV"):  # the first bad file's error
        list(read_tables(paths, CSV))
    _assert_same(paths)
    _assert_same([paths[0], paths[2], paths[3]])  # the missing file's error


@pytest.mark.parametrize(("files", "size"), [(2, 1 << 20), (256, 40)])
def test_batches_are_cut_by_files_and_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: int, size: int) -> None:
    monkeypatch.setattr(file_batches, "BATCH_FILES", files)
    monkeypatch.setattr(file_batches, "BATCH_BYTES", size)
    _assert_same(_files(tmp_path, ["q,n"] * 5))


@pytest.mark.realdata
def test_every_family_csv_folder_reads_alike(shared_data: Path) -> None:
    """The CSV files of each folder of the shared data, batched and alone (MMLU's test
    files headerless too, as the mmlu-2020 descriptor reads them)."""
    folders = sorted({p.parent for p in shared_data.rglob("*.csv")})
    assert len(folders) > 5
    for folder in folders:
        _assert_same(sorted(folder.glob("*.csv")))
    mmlu = sorted((shared_data / "mmlu" / "test").glob("*.csv"))
    assert len(mmlu) == 57
    got = _assert_same(mmlu, CSV, ["question", "A", "B", "C", "D", "answer"])
    assert got is not None and sum(t.num_rows for t in got) == 14080  # the 2020 snapshot (the data README: 14,080 rows)


def test_each_clean_file_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files in a group, a file alone under its header and a group whose read fails are all
    read from the bytes read first; only a file that is not clean is read again (by
    read_table, whose tolerant reader reads it as text)."""
    paths = _files(tmp_path, ["q,n", "q,n", "q,m", "q,o", "q,o"])
    paths[4].write_text('q,o\n"a\u00e9",b\nx"y,z\n', encoding="utf-8")  # a quote inside a cell: not clean
    want = [read_table(p, CSV) for p in paths]
    reads: list[Path] = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or read_bytes(self))
    read_bounded = limits.read_bounded
    monkeypatch.setattr(limits, "read_bounded", lambda path: reads.append(path) or read_bounded(path))
    got = [t for _, t in read_tables(paths, CSV)]
    assert [t.to_pylist() for t in got] == [t.to_pylist() for t in want]
    # the file that is not clean: read_table checks it again, then reads it as text
    assert reads == [*paths, paths[4], paths[4]]
