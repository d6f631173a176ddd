"""The input guard: what the running command reads, and the outputs it may not replace.

Inside :func:`input_guard` (every CLI command runs inside one), each file the command
reads is recorded (:func:`note_input`), and no write may replace one of them, or a
folder holding one, whatever ``--force`` says (:func:`check_output`, error CL-E007).
Only regular files are read as data or replaced by a write.

A dataset's own files are never replaced either, read or not: whoever resolves a
descriptor (or a spec naming one) records it with :func:`note_dataset`, and the dataset
finders (:func:`register_dataset_finder`; the croissant layer registers the one that
reads a descriptor's distribution) name the dataset a file belongs to, among the noted
descriptors and those lying beside the file. A folder output may not be, or hold, the
working folder, an input or a dataset's file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
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
    descriptors: set[Path] = field(default_factory=set)

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
    guard = (_Guard(set(outer.files), set(outer.inodes), set(outer.folders), set(outer.descriptors))
             if outer else _Guard())
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
    if folder:
        _check_folder_output(p, guard)
        return
    if guard is not None and guard.reads(p):
        raise OutputExistsError(
            "is an input of this command, and a command never writes to its inputs",
            path=p,
            hint="give an output path that the command does not read",
        )
    owner = dataset_of(p) if p.is_file() else None
    if owner is not None:
        raise OutputExistsError(
            f"is a file of the dataset described by {owner}; a command never replaces a dataset's files",
            path=p,
            hint="give an output path outside the dataset",
        )


#: At most this many files of an existing output folder are checked against the datasets
#: (an output folder of this library holds a few dozen).
MAX_FOLDER_CHECK = 10_000


def _check_folder_output(dest: Path, guard: _Guard | None) -> None:
    """A folder swapped in replaces everything under it: never the working folder (or one
    holding it), an input, a noted dataset, or a folder holding a dataset's file."""
    try:
        target = dest.resolve()
        cwd = Path.cwd().resolve()
    except (OSError, RuntimeError):
        return
    if target == cwd or target in cwd.parents:
        raise OutputExistsError(
            "is the working folder or holds it; swapping it would pull the folder from under the shell",
            path=dest, hint="give a new folder for the output",
        )
    if guard is not None:
        held = sorted(f for f in (*guard.files, *guard.folders, *guard.descriptors) if f == target or target in f.parents)
        if held:
            raise OutputExistsError(
                f"holds {held[0]}, an input of this command; a folder output never replaces an input",
                path=dest, hint="give an output folder that holds none of the command's inputs",
            )
    if not target.is_dir():
        return
    for n, (dirpath, _dirs, names) in enumerate(os.walk(target)):
        if n > MAX_FOLDER_CHECK:
            break
        for name in sorted(names):
            owner = dataset_of(Path(dirpath) / name)
            if owner is not None:
                raise OutputExistsError(
                    f"holds {Path(dirpath) / name}, a file of the dataset described by {owner}; "
                    "a folder output never replaces a dataset's files",
                    path=dest, hint="give an output folder outside the dataset",
                )


#: Finders of the dataset a file belongs to: ``finder(path, noted_descriptors)`` returns the
#: descriptor that names ``path`` as one of its files (or that is ``path`` and was not
#: written by this library), else None.
_DATASET_FINDERS: list[Callable[[Path, frozenset[Path]], str | None]] = []


def register_dataset_finder(finder: Callable[[Path, frozenset[Path]], str | None]) -> None:
    """Add a finder that names the dataset a file belongs to (see :func:`dataset_of`)."""
    if finder not in _DATASET_FINDERS:
        _DATASET_FINDERS.append(finder)


def note_dataset(descriptor: str | Path) -> None:
    """Record a dataset named by the running command's inputs, by its descriptor file: every
    file it describes is then never replaced, whether the command reads it or not."""
    guard = _GUARD.get()
    if guard is None:
        return
    with suppress(OSError, RuntimeError, ValueError):
        guard.descriptors.add(Path(descriptor).resolve())


def dataset_of(path: str | Path) -> str | None:
    """The descriptor of the dataset ``path`` is a file of (None: of no dataset known)."""
    guard = _GUARD.get()
    noted = frozenset(guard.descriptors) if guard is not None else frozenset()
    with probing_outputs():  # reading a descriptor to place an output does not make it an input
        for finder in _DATASET_FINDERS:
            owner = finder(Path(path), noted)
            if owner is not None:
                return owner
    return None
