"""File-system helpers: atomic writes, deterministic JSON, safe reads.

Every file the library writes goes through :func:`atomic_writer` (a temporary
file in the same folder, fsync, then ``os.replace``), so a run killed at any moment
leaves either the old file or the complete new one. Output folders (a lineage folder,
an enriched family) are written whole under a temporary name and swapped in by
:func:`atomic_folder`, so a killed run leaves the old folder or the new one, never a mix.

Inside :func:`input_guard` (every CLI command runs inside one), each file the command
reads is recorded (:func:`note_input`), and no write may replace one of them, or a
folder holding one, whatever ``--force`` says (:func:`check_output`, error CL-E007).
Only regular files are read as data or replaced by a write.
"""

from __future__ import annotations

import codecs
import ctypes
import errno
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import yaml

from croissant_lineage.errors import (
    InputError,
    OutputError,
    OutputExistsError,
    SizeLimitError,
    UnsafePathError,
)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "MAX_YAML_CHARS",
    "DuplicateKeyError",
    "atomic_folder",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_parquet",
    "atomic_write_parquet_groups",
    "atomic_write_text",
    "atomic_writer",
    "check_document_size",
    "check_output",
    "check_writable_folder",
    "csv_bytes",
    "dumps_json",
    "input_guard",
    "load_yaml",
    "loads_json",
    "note_input",
    "parquet_bytes",
    "probing_outputs",
    "read_json",
    "read_text",
    "resolve_inside",
]


@dataclass
class _Guard:
    """The inputs of one command: files (by resolved path and by inode) and whole folders."""

    files: set[Path] = field(default_factory=set)
    inodes: set[tuple[int, int]] = field(default_factory=set)
    folders: set[Path] = field(default_factory=set)

    def add(self, path: Path) -> None:
        try:
            resolved = path.resolve()
            st = resolved.stat()
        except (OSError, RuntimeError):
            return  # a missing input is reported by the code that reads it
        if stat.S_ISDIR(st.st_mode):
            self.folders.add(resolved)
            for child in resolved.rglob("*"):
                if child.is_file():
                    self.add(child)
            return
        self.files.add(resolved)
        self.inodes.add((st.st_dev, st.st_ino))

    def reads(self, path: Path) -> bool:
        """True when writing ``path`` (a file) would replace an input."""
        resolved = path.resolve()
        if resolved in self.files:
            return True
        try:
            st = resolved.stat()
        except OSError:
            return False
        return (st.st_dev, st.st_ino) in self.inodes



_GUARD: ContextVar[_Guard | None] = ContextVar("croissant_lineage_input_guard", default=None)


@contextmanager
def input_guard(inputs: Iterable[str | Path] = ()) -> Iterator[None]:
    """Protect a command's inputs from its own writes while the block runs.

    ``inputs`` (files, or folders whose every file is an input) are recorded at once;
    every file read through this module or the data readers while the block runs is
    recorded when it is read (:func:`note_input`). A write to any of them, or a folder
    swap that would remove one, raises :class:`OutputExistsError` (CL-E007) whatever
    ``force`` says. Guards nest: an inner block protects the outer block's inputs too.

    Args:
        inputs: Paths known to be inputs before anything is read (command arguments).
    """
    outer = _GUARD.get()
    guard = _Guard(set(outer.files), set(outer.inodes), set(outer.folders)) if outer else _Guard()
    for p in inputs:
        guard.add(Path(p))
    token = _GUARD.set(guard)
    try:
        yield
    finally:
        _GUARD.reset(token)


_PROBING: ContextVar[bool] = ContextVar("croissant_lineage_probing_outputs", default=False)


@contextmanager
def probing_outputs() -> Iterator[None]:
    """Reads in this block look at an existing output (is it ours to replace?), not at an input.

    Every check that decides whether an existing output was written by this library
    reads that output inside this block, so the read does not make it an input that
    the command may then not replace.
    """
    token = _PROBING.set(True)
    try:
        yield
    finally:
        _PROBING.reset(token)


def note_input(path: str | Path) -> None:
    """Record ``path`` as read by the running command, after checking it is a regular file.

    Called by every reader before it opens a file. Outside :func:`input_guard` only the
    check is made.

    Raises:
        InputError: ``path`` exists and is not a regular file or a folder (a FIFO, a
            device, a socket): reading it could block forever or never end.
    """
    p = Path(path)
    try:
        mode = p.stat().st_mode  # follows symlinks: a link to a regular file is read
    except OSError:
        return  # missing or unreadable: the reader reports it with its own message
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(
            f"is not a regular file ({_kind(mode)}); only regular files are read", path=p
        )
    guard = _GUARD.get()
    if guard is not None and not _PROBING.get():
        guard.add(p)


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def check_output(path: str | Path, *, folder: bool = False) -> None:
    """Refuse an output path that is an input of the running command or not a regular file.

    Every check that an output may be replaced calls this first, so that its "pass
    --force" hint never points at an input; :func:`atomic_writer` and
    :func:`atomic_folder` call it again before they replace anything.

    Args:
        path: The file (or, with ``folder``, the folder) about to be written.
        folder: ``path`` is a folder that :func:`atomic_folder` will swap in; each file
            written into it is checked before the swap.

    Raises:
        OutputExistsError: ``path`` is an input of the running command, or exists and is
            not a regular file (a symbolic link, a FIFO, a device; with ``folder``, not a
            folder). Never waived by ``force``.
    """
    p = Path(path)
    with suppress(OSError):
        mode = p.lstat().st_mode
        if folder and not stat.S_ISDIR(mode):  # lstat: a symbolic link to a folder too
            raise OutputExistsError(f"exists and is not a folder ({_kind(mode)})", path=p)
        if not folder and not stat.S_ISREG(mode):
            raise OutputExistsError(
                f"is {_kind(mode)}, not a regular file; an output never replaces one", path=p,
                hint="give a new path for the output",
            )
    guard = _GUARD.get()
    if not folder and guard is not None and guard.reads(p):
        raise OutputExistsError(
            "is an input of this command, and a command never writes to its inputs",
            path=p,
            hint="give an output path that the command does not read",
        )


#: errno values that mean "this output cannot be written here", reported as one coded line.
_WRITE_ERRNOS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EFBIG: "file too large for the file system",
}


@contextmanager
def _write_errors(path: Path) -> Iterator[None]:
    """Turn a disk-full / read-only / permission failure into one :class:`OutputError`."""
    try:
        yield
    except OSError as exc:
        reason = _WRITE_ERRNOS.get(exc.errno or 0)
        if reason is None:
            raise
        raise OutputError(f"cannot write: {reason}", path=path, hint="free space or write elsewhere (--out)") from None


@contextmanager
def atomic_writer(path: str | Path, mode: str = "wb") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success it replaces ``path`` atomically.

    Args:
        path: Destination file. Its folder is created if missing.
        mode: ``"wb"`` or ``"w"`` (text, UTF-8, ``\\n`` newlines).

    Yields:
        The open temporary file. If the block raises, the temporary file is removed and
        ``path`` is left as it was.

    Raises:
        OutputExistsError: ``path`` is an input of the running command or not a
            regular file (see :func:`check_output`).
        OutputError: the disk is full, the file system read-only, or writing not permitted.
    """
    dest = Path(path)
    check_output(dest)
    with _write_errors(dest):
        dest.parent.mkdir(parents=True, exist_ok=True)
        check_writable_folder(dest.parent)
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with _write_errors(dest):
            # mkstemp creates 0600; give the file the mode an ordinary open() would.
            os.fchmod(fd, 0o666 & ~_umask())
            if "b" in mode:
                fh: IO[Any] = os.fdopen(fd, mode)
            else:
                fh = os.fdopen(fd, mode, encoding="utf-8", newline="\n")
            with fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
            check_output(dest)
            os.replace(tmp, dest)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextmanager
def atomic_folder(path: str | Path, *, drop: Iterable[str] = ()) -> Iterator[Path]:
    """Write a whole folder under a temporary name beside ``path``, then swap it in.

    The block writes into the yielded temporary folder. On success, each file it wrote
    is checked against the inputs of the running command (:func:`check_output`), what
    the old folder held and the block did not write is carried over (hard links), the
    temporary folder is fsynced and exchanged with ``path`` in one ``renameat2``
    (``RENAME_EXCHANGE``) where the system has it, else by two renames (a run killed
    between them leaves no folder at ``path``, which readers refuse); the old folder is
    then removed. A run killed at any moment leaves the old folder or the new one,
    never a mix; a failure leaves ``path`` as it was.

    Args:
        path: The output folder (created if missing; its parent too).
        drop: Names in the old folder not to carry over (outputs of an earlier run that
            this run no longer writes).

    Yields:
        The temporary folder to write into.

    Raises:
        OutputExistsError: ``path`` is not a folder, or a file the block wrote would
            replace an input of the running command (see :func:`check_output`).
        OutputError: the disk is full or the file system read-only.
    """
    dest = Path(path)
    check_output(dest, folder=True)
    with _write_errors(dest):
        dest.parent.mkdir(parents=True, exist_ok=True)
        check_writable_folder(dest.parent)
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    try:
        with _write_errors(dest):
            os.chmod(tmp, 0o777 & ~_umask())
        yield tmp
        with _write_errors(dest):
            check_output(dest, folder=True)
            for written in sorted(tmp.rglob("*")):
                if not written.is_dir():
                    check_output(dest / written.relative_to(tmp))  # inputs read meanwhile
            if dest.is_dir():
                _carry_over(dest, tmp, set(drop))
            _fsync_folder(tmp)
            _swap_in(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _carry_over(old: Path, new: Path, drop: set[str]) -> None:
    """Hard-link into ``new`` every entry of ``old`` that ``new`` does not have (but ``drop``)."""
    for entry in sorted(old.iterdir()):
        target = new / entry.name
        if entry.name in drop or target.exists() or target.is_symlink():
            continue
        if entry.is_symlink():
            os.symlink(os.readlink(entry), target)
        elif entry.is_dir():
            shutil.copytree(entry, target, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(str(entry), str(target))


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _fsync_folder(folder: Path) -> None:
    for p in [*sorted(folder.rglob("*")), folder]:
        if p.is_symlink() or not (p.is_file() or p.is_dir()):
            continue
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths atomically with Linux ``renameat2``; False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(tmp: Path, dest: Path) -> None:
    """Put the folder ``tmp`` at ``dest``, replacing the folder there, then remove the old one."""
    if not dest.exists():
        os.rename(tmp, dest)
    elif _exchange(tmp, dest):
        shutil.rmtree(tmp)  # now the old folder
    else:
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".old", dir=dest.parent))
        os.rename(dest, old / dest.name)
        os.rename(tmp, dest)
        shutil.rmtree(old)
    _fsync_folder_entry(dest.parent)


def _fsync_folder_entry(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_writable_folder(folder: str | Path) -> None:
    """Refuse to write into a folder whose mode has no write bit at all.

    Benchmark data is often laid out read-only (no ``w`` bits); running as root
    ignores modes, so the library checks them itself rather than silently adding
    files to a data folder.

    Raises:
        InputError: the folder is read-only by its mode.
    """
    mode = Path(folder).stat().st_mode
    if not mode & 0o222:
        raise InputError(
            "folder is read-only (no write permission bits); not writing into it",
            path=folder,
            hint="write the output elsewhere (--out)",
        )


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_writer(path, "wb") as fh:
        fh.write(data)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def dumps_json(obj: Any) -> str:
    """Serialise ``obj`` deterministically: 2-space indent, UTF-8 kept, trailing newline.

    Key order is the insertion order (JSON-LD documents keep their authors' order).
    """
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def atomic_write_json(path: str | Path, obj: Any) -> None:
    """Write ``obj`` as deterministic JSON (see :func:`dumps_json`) atomically."""
    atomic_write_text(path, dumps_json(obj))


#: How every Parquet file is written: zstd, no statistics or timestamps.
_PARQUET_OPTIONS: dict[str, Any] = {"compression": "zstd", "write_statistics": False, "store_schema": True}


def parquet_bytes(table: pa.Table) -> bytes:
    """Deterministic Parquet bytes (zstd, no statistics or timestamps): same table, same bytes."""
    import io

    import pyarrow.parquet as pq  # here: most users of this module never write Parquet

    buf = io.BytesIO()
    pq.write_table(table, buf, **_PARQUET_OPTIONS)
    return buf.getvalue()


def atomic_write_parquet(path: str | Path, table: pa.Table) -> str:
    """Write ``table`` to ``path`` atomically, the bytes :func:`parquet_bytes` gives, streamed
    to the file page by page (no copy of the whole file in memory); returns their sha256
    (hex)."""
    return atomic_write_parquet_groups(path, table.schema, [table])


class _Sha256Writer:
    """A binary file that hashes what is written to it (what Arrow's writer needs of a file)."""

    def __init__(self, fh: IO[bytes]):
        self._fh, self._sha, self._at, self.closed = fh, hashlib.sha256(), 0, False

    def write(self, data: Any) -> int:
        self._sha.update(data)
        self._at += len(memoryview(data))
        return self._fh.write(data)

    def tell(self) -> int:
        return self._at

    def flush(self) -> None:
        self._fh.flush()

    def close(self) -> None:
        self.closed = True  # the file is the caller's to close

    def hexdigest(self) -> str:
        return self._sha.hexdigest()


def atomic_write_parquet_groups(
    path: str | Path, schema: pa.Schema, groups: Iterable[pa.Table], *, statistics: Sequence[str] = ()
) -> str:
    """Write the tables ``groups`` yields (each of ``schema``) to ``path`` atomically as one
    Parquet file, each table its own row group (split further only past Arrow's default of
    1Mi rows), written as ``pq.write_table`` would write them: a writer that builds a large
    table a part at a time never holds it whole. ``statistics``: the columns whose min/max
    each row group records (none by default; they are the data's, so deterministic too).
    Returns the file's sha256 (hex)."""
    import pyarrow.parquet as pq

    options = {**_PARQUET_OPTIONS, "write_statistics": list(statistics)} if statistics else _PARQUET_OPTIONS
    with atomic_writer(path, "wb") as fh:
        out = _Sha256Writer(fh)
        with pq.ParquetWriter(out, schema, **options) as writer:
            for table in groups:
                writer.write_table(table)
                del table  # before the next group is built
        return out.hexdigest()


#: A CSV cell starting with one of these is a formula to a spreadsheet (``=HYPERLINK(...)``,
#: ``+cmd|...``, ``-2+3``, ``@SUM(...)``; tab and carriage return also start a DDE payload).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _neutralised(column: pa.ChunkedArray) -> pa.ChunkedArray:
    import pyarrow as pa
    import pyarrow.compute as pc

    risky = pc.starts_with(column, FORMULA_STARTS[0])
    for start in FORMULA_STARTS[1:]:
        risky = pc.or_(risky, pc.starts_with(column, start))
    quoted = pc.binary_join_element_wise(pa.scalar("'"), column, "")
    return pc.if_else(pc.fill_null(risky, False), quoted, column)


def csv_bytes(table: pa.Table) -> bytes:
    """CSV bytes of ``table`` safe to open in a spreadsheet: a text cell that starts like a
    formula (:data:`FORMULA_STARTS`) gets a leading ``'`` (OWASP's CSV-injection rule);
    numbers are written as they are."""
    import io

    import pyarrow as pa
    import pyarrow.csv as pacsv

    cols = [
        _neutralised(col) if pa.types.is_string(col.type) or pa.types.is_large_string(col.type) else col
        for col in table.columns
    ]
    buf = io.BytesIO()
    pacsv.write_csv(pa.table(cols, names=table.column_names), buf)
    return buf.getvalue()


def read_text(path: str | Path) -> tuple[str, str]:
    """Read a text file, tolerating the encodings real benchmark files use.

    UTF-8 first; in a file with a few stray non-UTF-8 bytes (at most
    :data:`MAX_STRAY_BYTES` sequences), only those bytes are decoded as Mac Roman (the
    single 0xD5 byte of MMLU-Redux's ``moral_scenarios.csv`` is a Mac Roman apostrophe).
    A file with more is in another encoding and is refused, not guessed. A UTF-8 BOM is
    dropped. NUL bytes are an error.

    Returns:
        ``(text, encoding)``: the decoded text and the encoding that decoded it.

    Raises:
        InputError: the file is missing, a folder, holds NUL bytes, or is not UTF-8
            beyond a few stray bytes.
    """
    p = Path(path)
    note_input(p)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=p, hint="check the path") from None
    except IsADirectoryError:
        raise InputError("is a folder, not a file", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=p) from None
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputError("encoded as UTF-16 or UTF-32 (byte order mark)", path=p, hint="save it as UTF-8")
    if b"\x00" in raw:
        raise InputError("contains NUL bytes: not a text file", path=p)
    try:
        return raw.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as first:
        bad = _count_invalid_utf8(raw)
        if bad > MAX_STRAY_BYTES:
            raise InputError(
                f"not UTF-8: {bad} invalid byte sequences (the first at byte {first.start})",
                path=p,
                hint="convert the file to UTF-8 (a few stray bytes are tolerated, a legacy encoding is not guessed)",
            ) from None
        # Decode only the stray bytes as Mac Roman so valid UTF-8 stays as it is.
        return raw.decode("utf-8", errors="macroman_fallback"), "utf-8+mac_roman"


#: At most this many stray non-UTF-8 byte sequences are decoded as Mac Roman; more means the
#: whole file is in another encoding, which is refused rather than guessed.
MAX_STRAY_BYTES = 8


def _count_invalid_utf8(raw: bytes) -> int:
    count = 0

    def handler(err: UnicodeError) -> tuple[str, int]:
        nonlocal count
        assert isinstance(err, UnicodeDecodeError)
        count += 1
        return "", err.end

    codecs.register_error("croissant_lineage_count", handler)
    raw.decode("utf-8", errors="croissant_lineage_count")
    return count


def _macroman_fallback(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeDecodeError):
        raise err
    bad = err.object[err.start : err.end]
    return bytes(bad).decode("mac_roman"), err.end


codecs.register_error("macroman_fallback", _macroman_fallback)


#: Largest JSON or YAML document (a descriptor, a family spec, a findings file, a
#: lineage folder's JSON) read from a file, in bytes: 64 MiB. A larger file is refused
#: (CL-E008) before it is read. Real descriptors and specs take kilobytes, findings files
#: a few MiB. Adjustable: set ``croissant_lineage._io.MAX_DOCUMENT_BYTES`` before reading.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


def check_document_size(path: str | Path, what: str = "JSON or YAML document") -> None:
    """Refuse a document file larger than :data:`MAX_DOCUMENT_BYTES` before reading it.

    A file that cannot be stat'ed passes (the read that follows reports it).

    Raises:
        SizeLimitError: the file is larger than the limit.
    """
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return
    if size > MAX_DOCUMENT_BYTES:
        raise SizeLimitError(
            f"{what} of {size:,} bytes is over the limit of {MAX_DOCUMENT_BYTES:,}",
            path=path,
            hint="raise croissant_lineage._io.MAX_DOCUMENT_BYTES if the file is trusted",
        )


def read_json(path: str | Path, *, expected: str = "a JSON document") -> Any:
    """Parse a JSON file, raising :class:`InputError` with the position on bad JSON.

    Args:
        path: The file.
        expected: What the file should hold, for the hint on an empty file.

    Raises:
        SizeLimitError: the file is larger than :data:`MAX_DOCUMENT_BYTES`.
        InputError: missing, empty or not JSON; an object that holds one key twice
            (:func:`loads_json`).
    """
    check_document_size(path, "JSON document")
    text, _ = read_text(path)
    if not text.strip():
        raise InputError("empty file", path=path, hint=f"expected {expected}")
    try:
        return loads_json(text)
    except DuplicateKeyError as exc:
        raise InputError(
            exc.msg, path=path, hint="JSON readers differ on which value of a repeated key counts; keep one"
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", path=path
        ) from None


#: Deepest nesting of lists and objects accepted in JSON or YAML from a file. Real
#: descriptors, specs and findings nest less than 20 deep; code that walks documents
#: recursively (JSON-LD, enrichment, schema checks) stays far from Python's limit.
MAX_DEPTH = 100


def _too_deep(obj: Any) -> bool:
    stack = [(obj, 1)] if isinstance(obj, (dict, list)) else []
    while stack:
        cur, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        for v in cur.values() if isinstance(cur, dict) else cur:
            if isinstance(v, (dict, list)):
                stack.append((v, depth + 1))
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


class DuplicateKeyError(json.JSONDecodeError):
    """A JSON object that holds one key twice (``{"@context": 1, "@context": 2}``)."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict; a key given twice is a :class:`DuplicateKeyError`
    (Python keeps the last value, other JSON readers the first: the meaning is not one)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise DuplicateKeyError(f"the key {key[:80]!r} appears twice in one JSON object", "", 0)
    return obj


def loads_json(text: str, *, allow_nan: bool = False) -> Any:
    """``json.loads`` for untrusted text, strict where Python's is lenient.

    Nesting deeper than :data:`MAX_DEPTH` and (unless ``allow_nan``, for data records)
    the non-standard ``NaN`` / ``Infinity`` literals, which this library's JSON writer
    refuses to write back, are a :class:`json.JSONDecodeError`, which callers already
    handle, instead of a RecursionError or ValueError here or in the code that uses the
    document later. In a document (not ``allow_nan``: a descriptor, a spec, findings) an
    object that holds one key twice is a :class:`DuplicateKeyError` (a
    :class:`json.JSONDecodeError`): Python would keep the last value where other
    readers keep the first.
    """
    try:
        obj = (
            json.loads(text)
            if allow_nan
            else json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_pairs)
        )
    except RecursionError:
        obj = None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        raise json.JSONDecodeError(str(exc), text, 0) from None
    else:
        if not _too_deep(obj):
            return obj
    raise json.JSONDecodeError(f"nested more than {MAX_DEPTH} levels deep", text, 0) from None


#: A YAML document whose aliases expand it to more than this many nodes, and more than
#: ten times the nodes it spells out, is refused (a "billion laughs" alias bomb).
MAX_YAML_EXPANSION = 100_000

#: A YAML text longer than this many characters is refused by :func:`load_yaml` (64 Mi;
#: callers that read a file check its size in bytes first). Adjustable: set it before reading.
MAX_YAML_CHARS = 64 * 1024 * 1024

_CParser: Any = getattr(yaml.cyaml, "CParser", None) if yaml.__with_libyaml__ else None

if _CParser is not None:

    class _CSafeLoader(yaml.composer.Composer, _CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """libyaml's C scanner and parser, Python's composer (recursion-checked), safe constructor.

        ``yaml.CSafeLoader`` composes nodes in C with unchecked recursion: a list nested
        100,000 deep crashes the interpreter (SIGSEGV). Python's composer raises
        RecursionError there instead, which :func:`load_yaml` turns into an error.
        """

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

#: libyaml's C scanner and parser when PyYAML was built with it (scanning is most of the
#: cost), else the pure-Python loader: both construct only plain data.
_YAML_LOADER: Any = _CSafeLoader if _CParser is not None else yaml.SafeLoader


class YAMLLimitError(yaml.YAMLError):
    """A YAML document refused by :func:`load_yaml` (alias bomb, recursion, nesting)."""


def _yaml_children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_yaml_expansion(root: yaml.Node) -> None:
    """Count the nodes ``root`` expands to (aliases copied out), and its depth, without
    expanding it."""
    sizes: dict[int, int] = {}
    heights: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        kids = _yaml_children(node)
        if leaving:
            open_nodes.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes[id(k)] for k in kids)
            container = isinstance(node, (yaml.SequenceNode, yaml.MappingNode))
            heights[id(node)] = container + max((heights[id(k)] for k in kids), default=0)
            continue
        if id(node) in sizes:
            continue
        if id(node) in open_nodes:
            raise YAMLLimitError(f"an alias at line {node.start_mark.line + 1} refers to a node that contains it")
        open_nodes.add(id(node))
        stack.append((node, True))
        stack.extend((k, False) for k in kids)
    if heights[id(root)] > MAX_DEPTH:
        raise YAMLLimitError(f"nested more than {MAX_DEPTH} levels deep")
    total = sizes[id(root)]
    if total > MAX_YAML_EXPANSION and total > 10 * len(sizes):
        raise YAMLLimitError(
            f"aliases expand {len(sizes):,} nodes to {total:,} (limit {MAX_YAML_EXPANSION:,}): an alias bomb?"
        )


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` for untrusted text, with libyaml's C loader where present.

    Besides refusing tags that construct objects (as ``safe_load`` does), it refuses
    text longer than :data:`MAX_YAML_CHARS`, aliases that expand the document far beyond
    its size, aliases that make a structure contain itself, and nesting deeper than
    Python can recurse.

    Raises:
        yaml.YAMLError: the text does not parse, or is refused (:class:`YAMLLimitError`);
            callers handle both as "does not parse".
    """
    if len(text) > MAX_YAML_CHARS:
        raise YAMLLimitError(f"YAML text of {len(text):,} characters is over the limit of {MAX_YAML_CHARS:,}")
    loader = _YAML_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_yaml_expansion(node)
        return loader.construct_document(node)
    except RecursionError:
        raise YAMLLimitError("nested too deeply") from None
    finally:
        loader.dispose()


def resolve_inside(base: str | Path, relative: str, *, allow_outside: bool = False) -> Path:
    """Resolve ``relative`` against ``base`` and refuse paths that leave ``base``.

    Absolute paths, ``..`` segments and symlinks that lead outside ``base`` are refused
    unless ``allow_outside`` is true.

    Raises:
        UnsafePathError: the resolved path is outside ``base``.
    """
    root = Path(base).resolve()
    candidate = Path(relative)
    target = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if not allow_outside and target != root and root not in target.parents:
        raise UnsafePathError(
            f"{relative!r} resolves outside {root}",
            path=relative,
            hint="pass allow_outside=True (CLI: --allow-outside) if this is intended",
        )
    return target
