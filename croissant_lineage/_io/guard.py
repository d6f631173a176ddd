"""The input guard: what the running command reads, and the outputs it may not replace.

Inside :func:`input_guard` (every CLI command runs inside one), each file the command
reads is recorded (:func:`note_input`), and no write may replace one of them, or a
folder holding one, whatever ``--force`` says (:func:`check_output`, error CL-E007).
Only regular files are read as data or replaced by a write.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from croissant_lineage.errors import InputError, OutputExistsError


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
