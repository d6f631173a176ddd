"""The pyarrow fast path of JSON Lines reading against the standard library's reader.

``tables.read_clean_jsonl`` reads a file only when it is clean; whatever it reads must be
exactly what ``tables._read_jsonl_tolerant`` reads (same schema, same values), and a file
the tolerant reader refuses must never be read by it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croissant_lineage.croissant import tables
from croissant_lineage.errors import LineageError
from tests.croissant.test_fast_csv import _same

_TEXT = st.text(alphabet=st.sampled_from([*'ab "\\\n\t\r\x85\u2028é\u00a0', "\U0001f600", "\ud800"]), max_size=5)
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True),
    _TEXT,
    st.sampled_from(["2020-01-01", "2020-01-01T10:00:00", "1", "true"]),
)
_VALUE = st.one_of(_SCALAR, st.lists(_SCALAR, max_size=3), st.dictionaries(st.sampled_from("xy"), _SCALAR, max_size=2))


def _tolerant(tmp_path: Path, raw: bytes) -> pa.Table | None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(raw)
    try:
        return tables._read_jsonl_tolerant(path)
    except LineageError:
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    records=st.lists(st.dictionaries(st.sampled_from(["q", "a", "b", "é"]), _VALUE, max_size=4), max_size=5),
    ascii_only=st.booleans(),
    ending=st.sampled_from(["\n", "\r\n", "\n\n", "\n  \n"]),
    bom=st.booleans(),
    junk=st.sampled_from(["", "{", "[1]", '{"q": 1}{"q": 2}', "\t", "\r", '{"q": 1, "q": 2}', "\u00a0"]),
    where=st.integers(min_value=0, max_value=5),
)
def test_fast_path_reads_what_the_tolerant_reader_reads(
    tmp_path: Path, records, ascii_only, ending, bom, junk, where
) -> None:
    lines = [json.dumps(r, ensure_ascii=ascii_only) for r in records]
    if junk:
        lines.insert(min(where, len(lines)), junk)
    raw = ("\ufeff" if bom else "").encode() + ending.join(lines).encode("utf-8", "surrogatepass")
    _same(tables.read_clean_jsonl(raw), _tolerant(tmp_path, raw))


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": 1}\n{"a": 99999999999999999999}\n',  # a double to pyarrow, a Python int
        b'{"a": "2020-01-01"}\n',  # a timestamp to pyarrow
        b'{"a": {"x": 1, "y": 2}}\n{"a": {"y": 1}}\n',  # a struct
        b'{"a": 1}{"a": 2}\n',  # two records on a line
        b'{"a": "\xd5"}\n',  # a stray Mac Roman byte
        b'{"a": "x\ty"}\n',  # a control character in a string
        b'{"a": "\\ud800"}\n',  # a lone surrogate
        b'{"a": 1}\n{"a": 2, "b": 3}\n',  # a key the first record lacks
        b'{"a": 1}\r{"a": 2}\n',  # a bare carriage return
        b'{"a": NaN}\n',
        # a list, then an object: in blocks of < 30 bytes pyarrow 26's reader crashes the process
        b'{"a": [1], "q": 1}\n{"q": null}\n{"a": {"x": 1}}\n{}\n{}\n{"q": [], "a": "\\u00e9"}\n',
        b"",
    ],
)
def test_unclean_files_go_to_the_tolerant_reader(raw: bytes) -> None:
    assert tables.read_clean_jsonl(raw) is None


def test_clean_file_is_read_by_pyarrow(tmp_path: Path) -> None:
    raw = b'\xef\xbb\xbf{"q": "\xc3\xa9", "n": 1, "o": ["a", null], "k": true}\r\n\n{"q": "b", "n": null}\n'
    fast = tables.read_clean_jsonl(raw)
    assert fast is not None
    _same(fast, _tolerant(tmp_path, raw))
    assert fast.to_pylist()[1] == {"q": "b", "n": None, "o": None, "k": None}


@pytest.mark.realdata
def test_every_family_jsonl_file_reads_alike(shared_data: Path) -> None:
    """Every JSON Lines file of the shared data: the fast path gives the tolerant table."""
    files = sorted(shared_data.rglob("*.jsonl"))
    assert len(files) > 200
    fast_read = 0
    for path in files:
        fast = tables.read_clean_jsonl(path.read_bytes())
        if fast is not None:
            fast_read += 1
            _same(fast, tables._read_jsonl_tolerant(path))
    assert fast_read == len(files), "every JSON Lines file of the family is clean"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
