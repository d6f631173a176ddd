"""The staging folder Beam's steps share: each step writes its output there as one
pickled file and passes the file's name on, so that rows never go through Beam."""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["folder", "get", "put"]


@contextmanager
def folder(prefix: str, staging_dir: str | Path | None = None) -> Iterator[Path]:
    """A new staging folder under ``staging_dir`` (default: the system's temporary folder;
    on a cluster, a file system the workers share), removed at the end, whatever happens."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=staging_dir))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def put(folder: Path, name: str, obj: Any) -> None:
    """Write a staging file: whole or not at all (a retried bundle rewrites the same name),
    not synced to disk (scratch, removed at the end: the lineage folder is written by
    :meth:`~croissant_lineage.lineage.model.Lineage.write`, through ``_io``)."""
    tmp = folder / f".{name}.{os.getpid()}.tmp"
    tmp.write_bytes(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
    os.replace(tmp, folder / name)


def get(path: Path) -> Any:
    """Read a staging file written by :func:`put`."""
    with path.open("rb") as f:
        return pickle.load(f)
