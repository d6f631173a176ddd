"""The files of a dataset, read or not: its descriptor and every file its distribution names.

Registered with :func:`croissant_lineage._io.register_dataset_finder`, so that no write
replaces a dataset's file, whether the running command read it or not. A file belongs to
a dataset when a descriptor (one the command's inputs name, or a ``croissant.json`` /
``metadata.json`` in the file's folder or up to two folders above it) names it by a local
``contentUrl`` or an ``includes`` glob. The globs are matched against the file's own path,
never by listing a folder. A descriptor is itself a dataset's file when the inputs name
it (and this library did not write it); one only lying beside an output (``describe``
regenerating a folder's descriptor, a cached Hub descriptor) is left to the one rule of
:func:`croissant_lineage._io.replaceable`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from croissant_lineage._io import read_json, register_dataset_finder
from croissant_lineage.croissant.descriptor import glob_matches, is_generated
from croissant_lineage.errors import LineageError

__all__ = ["DESCRIPTOR_NAMES", "dataset_of"]

#: The file names a descriptor beside its data goes by (Croissant's and the Hub's).
DESCRIPTOR_NAMES = ("croissant.json", "metadata.json")

#: A descriptor larger than this is not read to place an output (256 MiB).
_MAX_BYTES = 256 * 1024 * 1024

_CACHE: dict[tuple[Path, int, int], Any] = {}


def _document(path: Path) -> Any:
    """The parsed descriptor (None when it is not JSON), cached by size and modification time."""
    try:
        st = path.stat()
    except OSError:
        return None
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _CACHE:
        try:
            _CACHE[key] = read_json(path) if st.st_size <= _MAX_BYTES else None
        except (LineageError, OSError):
            _CACHE[key] = None
    return _CACHE[key]


def _local(url: str) -> str | None:
    if url.startswith("file://"):
        url = url[len("file://"):]
    elif "://" in url:
        return None
    return os.path.normpath(url).replace(os.sep, "/")


def names(doc: Any, rel: str) -> bool:
    """True when the descriptor ``doc`` names the file at ``rel`` (relative to its folder)."""
    dist = doc.get("distribution") if isinstance(doc, dict) else None
    for node in dist if isinstance(dist, list) else [dist]:
        if not isinstance(node, dict):
            continue
        url = node.get("contentUrl")
        if isinstance(url, str) and _local(url) == rel:
            return True
        includes = node.get("includes")
        for pattern in includes if isinstance(includes, list) else [includes]:
            if isinstance(pattern, str) and "\x00" not in pattern and glob_matches(pattern, rel):
                return True
    return False


def _candidates(target: Path, noted: frozenset[Path]) -> list[Path]:
    found = set(noted)
    for folder in list(target.parents)[:3]:
        for name in DESCRIPTOR_NAMES:
            candidate = folder / name
            if candidate.is_file():
                found.add(candidate.resolve())
    return sorted(found)


def dataset_of(path: Path, noted: frozenset[Path] = frozenset()) -> str | None:
    """The descriptor whose dataset ``path`` is a file of, else None.

    Args:
        path: An existing file about to be replaced.
        noted: Descriptors the running command's inputs name.
    """
    try:
        target = path.resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    for desc in _candidates(target, noted):
        if desc == target:  # a descriptor the inputs name is an input; one lying beside is an output's to replace
            if desc in noted and not is_generated(_document(desc)):
                return str(desc)
            continue
        doc = _document(desc)
        if doc is None or desc.parent not in target.parents:
            continue
        if names(doc, target.relative_to(desc.parent).as_posix()):
            return str(desc)
    return None


register_dataset_finder(dataset_of)
