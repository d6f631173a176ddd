"""Reading prediction archives safely: refusals with codes, streaming, record shapes."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.audits.witnesses.archives import (
    ArchiveLimits,
    Prediction,
    _CappedReader,
    _iter_json_values,
    inspect_archive,
    iter_archive,
    list_archives,
    model_name,
    parse_prediction,
)
from croissant_lineage.errors import LineageError


def record(
    qid: Any = 1, options: Any = ("alpha", "beta"), answer: Any = "A", pred: Any = "A"
) -> dict:
    return {
        "question_id": qid,
        "question": "q?",
        "options": list(options),
        "answer": answer,
        "pred": pred,
    }


def make_zip(path: Path, members: dict[str, bytes | str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(name) if name.endswith("/") else name, data)
    return path


def archive(
    tmp_path: Path, records: list[Any], name: str = "model_outputs_toy-7B_5shots.zip"
) -> Path:
    return make_zip(tmp_path / name, {name.removesuffix(".zip") + ".json": json.dumps(records)})


def code_of(fn: Any) -> str:
    with pytest.raises(LineageError) as info:
        fn()
    return info.value.code


def read_all(path: Path, limits: ArchiveLimits | None = None) -> list[Any]:
    return list(iter_archive(path, limits))


# --- what is read ----------------------------------------------------------------------


def test_reads_every_element_of_the_list(tmp_path: Path) -> None:
    recs = [record(i) for i in range(50)] + ["total", 3]
    path = archive(tmp_path, recs)
    assert read_all(path) == recs
    member = inspect_archive(path)
    assert member.name == "model_outputs_toy-7B_5shots.json"
    assert member.declared_bytes == len(json.dumps(recs))


def test_small_chunks_give_the_same_records(tmp_path: Path) -> None:
    recs = [record(i, pred=None) for i in range(30)] + [12345678, 1.5e300, True, None, "x"]
    path = archive(tmp_path, recs)
    for chunk in (1, 2, 3, 7, 64):
        assert read_all(path, ArchiveLimits(chunk_bytes=chunk)) == recs


def test_json_lines_member_is_read(tmp_path: Path) -> None:
    lines = "\n".join(json.dumps(record(i)) for i in range(5)) + "\n"
    path = make_zip(tmp_path / "a.zip", {"a.jsonl": lines})
    assert [r["question_id"] for r in read_all(path)] == list(range(5))


def test_empty_list_and_bom(tmp_path: Path) -> None:
    assert read_all(make_zip(tmp_path / "e.zip", {"e.json": "  [ ]  "})) == []
    assert read_all(make_zip(tmp_path / "b.zip", {"b.json": "\ufeff[1]".encode()})) == [1]


def test_a_directory_entry_beside_the_file_is_ignored(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "d.zip", {"preds/": b"", "preds/p.json": json.dumps([record()])})
    assert len(read_all(path)) == 1


def test_stream_reading_keeps_memory_flat(tmp_path: Path) -> None:
    import tracemalloc

    recs = [record(i, options=[f"option {j} " * 5 for j in range(10)]) for i in range(4000)]
    path = archive(tmp_path, recs)
    size = inspect_archive(path, ArchiveLimits(max_ratio=1000)).declared_bytes
    tracemalloc.start()
    n = sum(1 for _ in iter_archive(path, ArchiveLimits(max_ratio=1000, chunk_bytes=64 * 1024)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert n == 4000
    assert peak < size / 2  # never the whole member in memory


# --- refusals ----------------------------------------------------------------------------


def test_not_a_zip_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "preds.zip"
    text.write_text('[{"question_id": 1}]')
    empty = tmp_path / "empty.zip"
    empty.write_bytes(b"")
    assert code_of(lambda: read_all(text)) == "CL-E001"
    assert code_of(lambda: read_all(empty)) == "CL-E001"
    assert code_of(lambda: read_all(tmp_path / "missing.zip")) == "CL-E001"
    assert code_of(lambda: read_all(tmp_path)) == "CL-E001"
    assert code_of(lambda: inspect_archive(text)) == "CL-E001"


@pytest.mark.parametrize("members", [{}, {"a.json": "[]", "b.json": "[]"}, {"d/": b""}])
def test_not_exactly_one_file_is_refused(tmp_path: Path, members: dict) -> None:
    path = make_zip(tmp_path / "m.zip", members)
    assert code_of(lambda: read_all(path)) == "CL-E001"


@pytest.mark.parametrize(
    "name", ["../evil.json", "/etc/evil.json", "a/../../evil.json", "..\\evil.json", "C:/evil.json"]
)
def test_path_traversal_names_are_refused(tmp_path: Path, name: str) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        info = zipfile.ZipInfo("placeholder.json")
        info.filename = name  # keep the name exactly as a hostile tool would write it
        zf.writestr(info, "[]")
    path = tmp_path / "t.zip"
    path.write_bytes(buf.getvalue())
    assert code_of(lambda: read_all(path)) == "CL-E006"


def test_zip_bomb_ratio_is_refused_from_the_header(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "bomb.zip", {"b.json": b"[" + b" " * 3_000_000 + b"]"})
    assert inspect_archive(path, ArchiveLimits(max_ratio=10_000)).declared_bytes == 3_000_002
    assert code_of(lambda: inspect_archive(path)) == "CL-E008"
    assert code_of(lambda: read_all(path)) == "CL-E008"


def test_member_above_the_size_cap_is_refused(tmp_path: Path) -> None:
    path = archive(tmp_path, [record(i) for i in range(100)])
    assert code_of(lambda: read_all(path, ArchiveLimits(max_member_bytes=1000))) == "CL-E008"


def test_capped_reader_stops_as_soon_as_the_stream_passes_the_cap() -> None:
    stream = io.BytesIO(b"x" * 10_000)
    reader = _CappedReader(stream, 2500, Path("s.zip"), "member")
    got = 0
    with pytest.raises(LineageError) as info:
        while reader.read(1000):
            got += 1000
    assert info.value.code == "CL-E008"
    assert got == 2000 and stream.tell() == 3000  # stopped at the first read past the cap


def test_header_that_understates_the_size_is_refused(tmp_path: Path) -> None:
    path = archive(tmp_path, [record(i) for i in range(200)])
    raw = bytearray(path.read_bytes())
    central = raw.find(b"PK\x01\x02")
    local = raw.find(b"PK\x03\x04")
    struct.pack_into("<I", raw, central + 24, 100)  # uncompressed size in the central directory
    struct.pack_into("<I", raw, local + 22, 100)  # and in the local header
    path.write_bytes(bytes(raw))
    # zipfile never yields more than the declared size; the stream then fails its CRC.
    assert code_of(lambda: read_all(path)) in ("CL-E001", "CL-E008")


@pytest.mark.parametrize(
    "text", ['[{"a": 1}', '[{"a": 1} {"b": 2}]', "[1, 2] x", '{"a": ', "[1,,2]", "", "   "]
)
def test_invalid_json_is_refused(tmp_path: Path, text: str) -> None:
    path = make_zip(tmp_path / "j.zip", {"j.json": text})
    assert code_of(lambda: read_all(path, ArchiveLimits(chunk_bytes=3))) == "CL-E001"


def test_non_utf8_member_is_refused(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "u.zip", {"u.json": b'["caf\xe9"]'})
    assert code_of(lambda: read_all(path)) == "CL-E001"


def test_a_record_longer_than_the_cap_is_refused(tmp_path: Path) -> None:
    path = archive(tmp_path, [record(1), {"question_id": 2, "blob": "y" * 5000}])
    limits = ArchiveLimits(max_record_bytes=1000, chunk_bytes=256)
    assert code_of(lambda: read_all(path, limits)) == "CL-E008"
    assert len(read_all(path, ArchiveLimits(chunk_bytes=256))) == 2


def test_list_archives(tmp_path: Path) -> None:
    archive(tmp_path, [], "b.zip")
    archive(tmp_path, [], "a.zip")
    (tmp_path / "notes.txt").write_text("x")
    assert [p.name for p in list_archives(tmp_path)] == ["a.zip", "b.zip"]
    assert code_of(lambda: list_archives(tmp_path / "a.zip")) == "CL-E001"


def test_list_archives_refuses_a_symlink_out_of_the_folder(tmp_path: Path) -> None:
    outside = archive(tmp_path, [], "outside.zip")
    folder = tmp_path / "archives"
    folder.mkdir()
    (folder / "link.zip").symlink_to(outside)
    assert code_of(lambda: list_archives(folder)) == "CL-E006"


# --- record shapes --------------------------------------------------------------------------


def test_parse_prediction_accepts_the_published_shape() -> None:
    assert parse_prediction(record(70, pred=None)) == Prediction(
        "70", ("alpha", "beta"), "A", None, "q?"
    )
    no_pred = {"question_id": "x1", "options": [], "answer": "B"}
    assert parse_prediction(no_pred) == Prediction("x1", (), "B", None, None)


@pytest.mark.parametrize(
    "value",
    [
        "total",
        42,
        None,
        [record()],
        {"options": ["a"], "answer": "A", "pred": "A"},
        record(qid=True),
        record(qid=""),
        record(qid=1.5),
        {**record(), "options": "a,b"},
        {**record(), "options": ["a", 2]},
        record(answer="AB"),
        record(answer="a"),
        record(answer=0),
        record(pred=1),
        {**record(), "question": ["q"]},
    ],
)
def test_parse_prediction_rejects_wrong_shapes(value: Any) -> None:
    assert parse_prediction(value) is None


def test_model_name() -> None:
    assert model_name("x/model_outputs_Meta-Llama-3_1-8B_5shots.zip") == "Meta-Llama-3_1-8B"
    assert model_name("model_outputs_gemini-1.5-pro-002_0shots.zip") == "gemini-1.5-pro-002"
    assert model_name("preds.json.zip") == "preds"


# --- fuzzing the stream parser ----------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    values=st.lists(json_values, max_size=8),
    chunk=st.integers(1, 16),
    ws=st.sampled_from(["", " ", "\n"]),
)
def test_stream_parser_equals_json_loads(values: list[Any], chunk: int, ws: str) -> None:
    text = json.dumps(values, separators=("," + ws, ":")).replace("[", "[" + ws, 1)
    chunks = iter([text[i : i + chunk] for i in range(0, len(text), chunk)])
    assert list(_iter_json_values(chunks, 10_000, Path("f"))) == json.loads(text)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(text=st.text(max_size=40), chunk=st.integers(1, 8))
def test_stream_parser_raises_only_coded_errors(text: str, chunk: int) -> None:
    chunks = iter([text[i : i + chunk] for i in range(0, len(text), chunk)])
    try:
        list(_iter_json_values(chunks, 1000, Path("f")))
    except LineageError as exc:
        assert exc.code in ("CL-E001", "CL-E008")
