"""The pyarrow fast path of CSV reading against the standard library's tolerant reader.

``csv_tables._read_clean_csv`` reads a file only when it is clean; whatever it reads must be
exactly what ``csv_tables._read_csv_tolerant`` reads, and a file the tolerant reader refuses
must never be read by it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croissant_lineage.croissant import csv_tables
from croissant_lineage.errors import LineageError

_CELL = st.text(alphabet=st.sampled_from(list('ab ,;\t"\n\r\x85\u2028é')), max_size=6)


def _tolerant(tmp_path: Path, raw: bytes, columns: list[str] | None, delim: str | None) -> pa.Table | None:
    path = tmp_path / "f.csv"
    path.write_bytes(raw)
    try:
        return csv_tables._read_csv_tolerant(path, columns, delim)
    except LineageError:
        return None


def _same(fast: pa.Table | None, slow: pa.Table | None) -> None:
    if fast is not None:
        assert slow is not None, "the fast path read a file the tolerant reader refuses"
        assert fast.schema == slow.schema
        assert fast.to_pylist() == slow.to_pylist()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    header=st.lists(st.sampled_from(["q", "a", "b", "", "q"]), min_size=1, max_size=4),
    rows=st.lists(st.lists(_CELL, min_size=1, max_size=5), max_size=5),
    quote=st.booleans(),
    ending=st.sampled_from(["\n", "\r\n", "\r"]),
    delim=st.sampled_from([",", ";", "\t"]),
    bom=st.booleans(),
    headerless=st.booleans(),
)
def test_fast_path_reads_what_the_tolerant_reader_reads(
    tmp_path: Path, header, rows, quote, ending, delim, bom, headerless
) -> None:
    def cell(c: str) -> str:
        return '"' + c.replace('"', '""') + '"' if quote else c

    lines = [] if headerless else [delim.join(header)]
    lines += [delim.join(cell(c) for c in row) for row in rows]
    raw = ("\ufeff" if bom else "").encode() + ending.join(lines).encode("utf-8")
    columns = [f"c{i}" for i in range(len(header))] if headerless else None
    for d in (delim, None):
        fast = csv_tables._read_clean_csv(raw, columns, d)
        _same(fast, _tolerant(tmp_path, raw, columns, d))


@pytest.mark.parametrize(
    "raw",
    [
        b'q,a\n"ab"c,d\n',  # text after a closing quote: the strict reader refuses it
        b'q,a\nx,"never closed\n',
        b'q,a\nab"c,d\n',  # a quote inside an unquoted field
        b"q,a\n\xd5x,y\n",  # a stray Mac Roman byte
        b"\nq,a\nx,y\n",  # a blank first line
        b'q,a\nx,y,,\n',  # empty trailing cells beyond the header
        b'q,a\nx\n',  # a short row
        b'q\n""\nx\n',  # one column: a quoted empty cell is a blank line to the standard library
    ],
)
def test_unclean_files_go_to_the_tolerant_reader(raw: bytes) -> None:
    assert csv_tables._read_clean_csv(raw, None, None) is None


def test_clean_file_is_read_by_pyarrow(tmp_path: Path) -> None:
    raw = 'q;a\r\n"x; ""y""\ny";\u00e9\u2028\r\n\r\nz;\n'.encode()
    fast = csv_tables._read_clean_csv(raw, None, None)
    assert fast is not None
    assert fast.to_pylist() == [{"q": 'x; "y"\ny', "a": "\u00e9\u2028"}, {"q": "z", "a": ""}]
    _same(fast, _tolerant(tmp_path, raw, None, None))


def test_every_family_csv_reads_the_same_both_ways(shared_data: Path) -> None:
    """On every CSV file of the MMLU family (headerless ones with their columns)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from bench_link import data_files

    from croissant_lineage.family.spec import load_family

    spec = load_family("mmlu")
    names = [n for n, d in spec.datasets.items() if d.has_items]
    files = [f for f in data_files(spec, names, shared_data) if f[1].startswith(("text/csv", "text/tab"))]
    fast_read = 0
    for path, fmt, cols in files:
        delim = "\t" if fmt.startswith("text/tab") else None
        fast = csv_tables._read_clean_csv(path.read_bytes(), cols, delim)
        slow = csv_tables._read_csv_tolerant(path, cols, delim)
        _same(fast, slow)
        fast_read += fast is not None
    assert len(files) > 100
    assert fast_read >= len(files) - 5  # the messy ones only (a stray Mac Roman byte ...)
