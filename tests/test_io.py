from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from croissant_lineage import _io
from croissant_lineage._io import (
    atomic_write_json,
    atomic_writer,
    read_json,
    read_text,
    resolve_inside,
)
from croissant_lineage.errors import InputError, UnsafePathError
from tests.netguard import NetworkBlocked


def test_killed_write_leaves_old_file_intact(tmp_path: Path) -> None:
    target = tmp_path / "big.bin"
    target.write_bytes(b"old content")
    script = textwrap.dedent(
        f"""
        import sys, time
        from croissant_lineage._io import atomic_writer
        with atomic_writer({str(target)!r}) as fh:
            fh.write(b"new" * 1000)
            fh.flush()
            print("writing", flush=True)
            time.sleep(60)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=Path(__file__).parents[1])
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert target.read_bytes() == b"old content"
    # The orphaned temporary file is hidden (a dot file) beside the target, never the target.
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "big.bin"]
    assert all(n.startswith(".big.bin.") and n.endswith((".tmp", ".lock")) for n in leftovers)
    # The next write into that output removes what the killed run left (its lock is free).
    _io.atomic_write_bytes(target, b"new content")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.bin"]


def test_failed_write_removes_temporary_and_keeps_old(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    atomic_write_json(target, {"a": 1})
    with pytest.raises(RuntimeError), atomic_writer(target, "w") as fh:
        fh.write("{partial")
        raise RuntimeError("boom")
    assert read_json(target) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]


def test_json_output_is_deterministic(tmp_path: Path) -> None:
    obj = {"b": [1, 2], "a": "é"}
    atomic_write_json(tmp_path / "1.json", obj)
    atomic_write_json(tmp_path / "2.json", obj)
    assert (tmp_path / "1.json").read_bytes() == (tmp_path / "2.json").read_bytes()
    assert (tmp_path / "1.json").read_bytes().endswith(b"\n")


def test_read_text_handles_stray_mac_roman_byte(tmp_path: Path) -> None:
    p = tmp_path / "t.csv"
    p.write_bytes("caf\u00e9, it".encode() + b"\xd5s\n")
    text, enc = read_text(p)
    assert text == "caf\u00e9, it\u2019s\n" and enc == "utf-8+mac_roman"


@pytest.mark.parametrize(("content", "code"), [(b"a\x00b", "CL-E001"), (b"", "CL-E001"), (b"{bad", "CL-E001")])
def test_read_json_errors_are_coded(tmp_path: Path, content: bytes, code: str) -> None:
    p = tmp_path / "f.json"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        read_json(p)
    assert exc.value.code == code and exc.value.path == str(p)


def test_resolve_inside_refuses_escapes(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "secret").write_text("x")
    os.symlink(tmp_path / "secret", tmp_path / "in" / "link")
    for rel in ("../secret", str(tmp_path / "secret"), "link"):
        with pytest.raises(UnsafePathError):
            resolve_inside(tmp_path / "in", rel)
    assert resolve_inside(tmp_path / "in", "link", allow_outside=True) == (tmp_path / "secret").resolve()


def test_network_is_blocked_in_tests() -> None:
    with pytest.raises(NetworkBlocked):
        socket.create_connection(("203.0.113.1", 80), timeout=1)
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("huggingface.co", 443)
    # Loopback stays usable.
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    c = socket.create_connection(srv.getsockname(), timeout=5)
    c.close()
    srv.close()
    time.sleep(0)


def test_refuses_to_write_into_read_only_folder(tmp_path: Path) -> None:
    ro = tmp_path / "data"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(InputError):
            atomic_write_json(ro / "croissant.json", {})
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


def test_written_files_get_umask_mode(tmp_path: Path) -> None:
    atomic_write_json(tmp_path / "m.json", {})
    old = os.umask(0o022)
    os.umask(old)
    assert (tmp_path / "m.json").stat().st_mode & 0o777 == 0o666 & ~old


def test_a_whole_legacy_encoded_file_is_refused_not_guessed(tmp_path: Path) -> None:
    p = tmp_path / "latin1.csv"
    p.write_bytes(b"question,answer\n" + "caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u00e0 la cr\u00e8me,A\n".encode("cp1252") * 5)
    with pytest.raises(InputError) as exc:
        read_text(p)
    assert exc.value.code == "CL-E001"


# --- atomic folders and the input guard ---------------------------------


def test_atomic_folder_swaps_whole_and_keeps_what_it_did_not_write(tmp_path: Path) -> None:
    from croissant_lineage._io import atomic_folder, atomic_write_bytes

    out = tmp_path / "out"
    out.mkdir()
    (out / "a.txt").write_text("old a")
    (out / "user.txt").write_text("mine")
    (out / "stale.txt").write_text("an earlier run's")
    (out / "sub").mkdir()
    (out / "sub" / "x").write_text("x")
    with atomic_folder(out, drop=["stale.txt"]) as tmp:
        atomic_write_bytes(tmp / "a.txt", b"new a")
        assert (out / "a.txt").read_text() == "old a"  # nothing visible before the swap
    assert sorted(p.name for p in out.iterdir()) == ["a.txt", "sub", "user.txt"]
    assert (out / "a.txt").read_text() == "new a" and (out / "user.txt").read_text() == "mine"
    assert (out / "sub" / "x").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporary folder left


def test_atomic_folder_failure_leaves_the_old_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from croissant_lineage import _io

    out = tmp_path / "out"
    out.mkdir()
    (out / "a.txt").write_text("old")
    with pytest.raises(RuntimeError), _io.atomic_folder(out) as tmp:
        _io.atomic_write_bytes(tmp / "a.txt", b"new")
        raise RuntimeError("boom")
    assert (out / "a.txt").read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    monkeypatch.setattr(_io.atomic, "_exchange", lambda a, b: False)  # a system without renameat2: two renames
    with _io.atomic_folder(out) as tmp:
        _io.atomic_write_bytes(tmp / "a.txt", b"new")
    assert (out / "a.txt").read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_atomic_folder_refuses_a_file_or_a_symlink(tmp_path: Path) -> None:
    from croissant_lineage._io import atomic_folder
    from croissant_lineage.errors import OutputExistsError

    (tmp_path / "f").write_text("x")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    for name in ("f", "link"):
        with pytest.raises(OutputExistsError), atomic_folder(tmp_path / name):
            pass
    assert (tmp_path / "link").is_symlink() and (tmp_path / "f").read_text() == "x"


def test_the_guard_records_reads_only_inside_it_and_probes_are_not_reads(tmp_path: Path) -> None:
    from croissant_lineage._io import atomic_write_bytes, input_guard, probing_outputs
    from croissant_lineage.errors import OutputExistsError

    src, out = tmp_path / "in.json", tmp_path / "out.json"
    src.write_text("{}")
    out.write_text("{}")
    with input_guard():
        read_json(src)
        with probing_outputs():
            read_json(out)
        with pytest.raises(OutputExistsError):
            atomic_write_bytes(src, b"{}")
        atomic_write_bytes(out, b"[]")
        with input_guard(), pytest.raises(OutputExistsError):  # an inner guard keeps the outer inputs
            atomic_write_bytes(src, b"{}")
    atomic_write_bytes(src, b"[]")  # no command running: no inputs
    assert src.read_text() == out.read_text() == "[]"


@pytest.mark.parametrize("groups", [[], [3], [2_000, 0, 777]])
def test_parquet_written_in_groups_is_hashed_as_written(tmp_path: Path, groups: list[int]) -> None:
    """atomic_write_parquet(_groups) return the sha256 of the very bytes written; one table
    gives parquet_bytes' bytes; several give one row group each."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    from croissant_lineage._io import (
        atomic_write_parquet,
        atomic_write_parquet_groups,
        parquet_bytes,
    )

    schema = pa.schema([("n", pa.int64()), ("s", pa.string())])
    tables = [pa.table({"n": list(range(k)), "s": [f"row {i}" * (i % 7) for i in range(k)]}, schema=schema) for k in groups]
    digest = atomic_write_parquet_groups(tmp_path / "g.parquet", schema, tables)
    data = (tmp_path / "g.parquet").read_bytes()
    assert digest == hashlib.sha256(data).hexdigest()
    meta = pq.ParquetFile(tmp_path / "g.parquet").metadata
    assert [meta.row_group(g).num_rows for g in range(meta.num_row_groups)] == groups
    whole = pa.concat_tables(tables) if tables else schema.empty_table()
    assert atomic_write_parquet(tmp_path / "w.parquet", whole) == hashlib.sha256(parquet_bytes(whole)).hexdigest()
    assert (tmp_path / "w.parquet").read_bytes() == parquet_bytes(whole)
