"""Atomic writes: a file through a temporary file beside it, a folder written whole and swapped in.

Every file the library writes goes through :func:`atomic_writer` (a temporary
file in the same folder, fsync, then ``os.replace``), so a run killed at any moment
leaves either the old file or the complete new one. Output folders (a lineage folder,
an enriched family) are written whole under a temporary name and swapped in by
:func:`atomic_folder`, so a killed run leaves the old folder or the new one, never a mix.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from croissant_lineage._io.guard import check_output
from croissant_lineage._io.lock import output_lock
from croissant_lineage.errors import InputError, OutputError

#: errno values that mean "this output cannot be written here", reported as one coded line.
_WRITE_ERRNOS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EFBIG: "file too large for the file system",
    errno.EBUSY: "device or resource busy (a mount point cannot be replaced)",
    errno.EXDEV: "the output and its temporary copy are on different file systems (a mount point?)",
    errno.ENOTEMPTY: "a folder in the way is not empty",
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
        hint = "write elsewhere (--out)" if exc.errno in (errno.EBUSY, errno.EXDEV, errno.ENOTEMPTY) else "free space or write elsewhere (--out)"
        raise OutputError(f"cannot write: {reason}", path=path, hint=hint) from None


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
    with output_lock(dest):  # one writer; a killed run's temporary files removed
        yield from _write_file(dest, mode)


def _write_file(dest: Path, mode: str) -> Iterator[IO[Any]]:
    with _write_errors(dest):
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
    with output_lock(dest):  # one writer; a killed run's temporary folders removed
        yield from _write_folder(dest, set(drop))


def _write_folder(dest: Path, drop: set[str]) -> Iterator[Path]:
    with _write_errors(dest):
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
                _carry_over(dest, tmp, drop)
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
