"""One writer per output: a lock beside the output, and what killed runs left there cleaned.

:func:`output_lock` takes an exclusive ``flock`` on ``.NAME.lock`` beside the output
``NAME`` (removed when released). A second run writing the same output while the first
holds it stops at once with :class:`OutputError` (CL-E010) instead of silently replacing
the first run's result. Holding the lock, the temporary files and folders that a killed
run left beside the output (``.NAME.*.tmp``, ``.NAME.*.old``) are removed: no live run
can be writing them.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from croissant_lineage.errors import OutputError

__all__ = ["output_lock"]

#: Outputs whose lock this process holds (a command locks its --out, the writer again).
_HELD: set[Path] = set()


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    fst = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (fst.st_dev, fst.st_ino)


def _acquire(lock: Path, dest: Path) -> int | None:
    """The locked file's descriptor; None where no lock file can be made (a read-only
    folder: the write itself then fails with its own coded error)."""
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputError(
                "another croissant-lineage run is writing this output now", path=dest,
                hint="wait for it to finish, or write elsewhere (--out)",
            ) from None
        if _same_file(fd, lock):  # not a lock file the previous holder just removed
            return fd
        os.close(fd)


def clean_leftovers(dest: Path) -> None:
    """Remove what killed runs left beside ``dest`` (call only holding its lock)."""
    prefix = f".{dest.name}."
    with suppress(OSError):
        for entry in os.scandir(dest.parent):
            if not entry.name.startswith(prefix) or not entry.name.endswith((".tmp", ".old")):
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with suppress(OSError):
                    os.unlink(entry.path)


@contextmanager
def output_lock(path: str | Path) -> Iterator[None]:
    """Hold the output ``path`` for this run (re-entrant within the process).

    Raises:
        OutputError: another run holds it.
    """
    dest = Path(path)
    try:
        key = dest.parent.resolve() / dest.name
    except (OSError, RuntimeError):
        key = dest
    if key in _HELD or not key.parent.is_dir() or not dest.name or dest.name in (".", ".."):
        yield
        return
    lock = key.parent / f".{key.name}.lock"
    fd = _acquire(lock, dest)
    if fd is None:
        yield
        return
    _HELD.add(key)
    try:
        clean_leftovers(key)
        yield
    finally:
        _HELD.discard(key)
        with suppress(OSError):
            os.unlink(lock)
        os.close(fd)
