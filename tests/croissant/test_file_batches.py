"""Small JSON Lines files read a batch at a time give what each file gives alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croissant_lineage.croissant import file_batches, limits, tables
from croissant_lineage.croissant.file_batches import read_tables
from croissant_lineage.croissant.tables import read_table
from croissant_lineage.errors import LineageError

JSONL = "application/jsonlines"

_MISSING = object()
_TEXT = st.text(alphabet=st.sampled_from([*'ab "\\\n\té', "\u2028"]), max_size=4)
#: Values of one column: mostly of one kind (so that many batches are clean), or of any.
_KINDS = {
    "text": _TEXT,
    "int": st.integers(-(2**63), 2**63 - 1),
    "bool": st.booleans(),
    "list": st.lists(st.one_of(st.none(), _TEXT), max_size=2),
    "date": st.sampled_from(["2020-01-01", "2021-02-03T04:05:06"]),
}
_ANY = st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=False), *_KINDS.values())


def _column(kind: str) -> st.SearchStrategy[Any]:
    return st.one_of(_KINDS.get(kind, _ANY), st.none(), st.just(_MISSING))


def _outcome(paths: list[Path], read: Any) -> tuple[str, Any]:
    """What reading ``paths`` gives: ("error", message) or ("tables", per-file tables, their
    concatenation or the error it raises)."""
    try:
        got = read(paths)
    except LineageError as exc:
        return "error", f"{type(exc).__name__}: {exc}"
    try:
        whole: Any = pa.concat_tables(got, promote_options="permissive")
    except pa.ArrowException as exc:
        whole = f"{type(exc).__name__}: {exc}"
    return "tables", (got, whole)


def _batched(paths: list[Path]) -> list[pa.Table]:
    got = list(read_tables(paths, JSONL))
    assert [p for p, _ in got] == paths
    return [t for _, t in got]


def _alone(paths: list[Path]) -> list[pa.Table]:
    return [read_table(p, JSONL) for p in paths]


def _assert_same(paths: list[Path]) -> None:
    batched, alone = _outcome(paths, _batched), _outcome(paths, _alone)
    assert batched[0] == alone[0], (batched, alone)
    if batched[0] == "error":
        assert batched == alone
        return
    (got, got_whole), (want, want_whole) = batched[1], alone[1]
    for g, w in zip(got, want, strict=True):
        assert g.column_names == w.column_names and g.to_pylist() == w.to_pylist()
        for name in w.column_names:  # a type differs only where the file alone has nulls only
            if g.schema.field(name).type != w.schema.field(name).type:
                assert w.column(name).null_count == w.num_rows or pa.types.is_null(w.schema.field(name).type.value_type)
    if isinstance(want_whole, str):
        assert got_whole == want_whole
    else:
        assert got_whole.equals(want_whole) and got_whole.schema == want_whole.schema


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.permutations(["q", "a", "b"]), kinds=st.lists(st.sampled_from(["text", "int", "bool", "list"] * 3 + ["date", "any"]), min_size=3, max_size=3),
       n_files=st.integers(1, 4), data=st.data())
def test_a_batch_reads_what_each_file_reads_alone(
    tmp_path_factory: pytest.TempPathFactory, keys: list[str], kinds: list[str], n_files: int, data: st.DataObject
) -> None:
    folder = tmp_path_factory.mktemp("files")
    row = st.tuples(*(_column(k) for k in kinds))
    tidy = data.draw(st.booleans())  # files that may make a clean batch: no stray line, same keys first
    paths = []
    for i in range(n_files):
        order = keys[::-1] if not tidy and data.draw(st.booleans()) else keys
        junk = "" if tidy else data.draw(st.sampled_from(["", "{", "[1]", "\t", '{"c": 1}', "   "]))
        sep = data.draw(st.sampled_from(["\n", "\r\n", "\n\n"]))
        end = data.draw(st.sampled_from(["", "\n", "\r\n", "\n \n"] + ([] if tidy else ["\r"])))
        bom = data.draw(st.booleans())
        lines = [junk] if junk else []
        if tidy:  # a first record with every key
            lines.append(json.dumps(dict(zip(order, data.draw(st.tuples(*(_KINDS.get(k, _ANY) for k in kinds))), strict=True))))
        for values in data.draw(st.lists(row, max_size=4)):
            lines.append(json.dumps({k: v for k, v in zip(order, values, strict=True) if v is not _MISSING}))
        path = folder / f"{i:02d}.jsonl"
        path.write_bytes(("\ufeff" if bom else "").encode() + (sep.join(lines) + end).encode())
        paths.append(path)
    _assert_same(paths)


def _files(folder: Path, n: int) -> list[Path]:
    paths = []
    for i in range(n):
        path = folder / f"{i:02d}.jsonl"
        path.write_text("".join(json.dumps({"q": f"q{i}.{r}", "n": r}) + "\n" for r in range(i + 1)), encoding="utf-8")
        paths.append(path)
    return paths


def test_clean_files_are_read_by_one_reader_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    read = tables.read_clean_jsonl
    monkeypatch.setattr(tables, "read_clean_jsonl", lambda raw: calls.append(raw) or read(raw))
    paths = _files(tmp_path, 5)
    got = _batched(paths)
    assert len(calls) == 1
    assert [t.num_rows for t in got] == [1, 2, 3, 4, 5]
    assert got[2].to_pylist() == [{"q": f"q2.{r}", "n": r} for r in range(3)]
    _assert_same(paths)


@pytest.mark.parametrize("odd", ["keys", "not clean"])
def test_a_batch_read_alone_reads_each_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, odd: str) -> None:
    """A batch that cannot be read as one (for its last file) is read a file at a time from
    the bytes already read: no clean file's bytes are read twice."""
    paths = _files(tmp_path, 4)
    last = {"keys": '{"other": 1}\n', "not clean": '{"q": "x", "n": 1.5}\n'}[odd]
    paths[-1].write_text(last, encoding="utf-8")
    want = _alone(paths)
    reads: list[Path] = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or read_bytes(self))
    read_bounded = limits.read_bounded
    monkeypatch.setattr(limits, "read_bounded", lambda path: reads.append(path) or read_bounded(path))
    got = _batched(paths)
    assert [t.to_pylist() for t in got] == [t.to_pylist() for t in want]
    # Each once, in order; a file that is not clean is read again as text (its encoding).
    assert reads == (paths if odd == "keys" else [*paths, paths[-1]])


@pytest.mark.parametrize(("files", "size", "want"), [(3, 1 << 20, [[0, 1, 2], [3, 4, 5], [6]]), (256, 60, [[0], [1], [2]])])
def test_batches_are_cut_by_files_and_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: int, size: int, want: list[list[int]]
) -> None:
    monkeypatch.setattr(file_batches, "BATCH_FILES", files)
    monkeypatch.setattr(file_batches, "BATCH_BYTES", size)
    paths = _files(tmp_path, 7)
    batches = file_batches._batches(paths)
    assert [[paths.index(p) for p in b] for b in batches][: len(want)] == want
    assert [p for b in batches for p in b] == paths
    _assert_same(paths)


def test_a_missing_file_is_the_error_reading_alone_gives(tmp_path: Path) -> None:
    paths = _files(tmp_path, 3)
    (tmp_path / "bad.jsonl").write_text("{\n", encoding="utf-8")
    paths = [paths[0], tmp_path / "bad.jsonl", tmp_path / "missing.jsonl", paths[1]]
    with pytest.raises(LineageError, match="invalid JSON"):  # the first file's error, in order
        _batched(paths)
    _assert_same(paths)


@pytest.mark.realdata
def test_every_family_jsonl_folder_reads_alike(shared_data: Path) -> None:
    """The JSON Lines files of each folder of the shared data, batched and alone."""
    folders = sorted({p.parent for p in shared_data.rglob("*.jsonl")})
    assert len(folders) > 5
    for folder in folders:
        _assert_same(sorted(folder.glob("*.jsonl")))
