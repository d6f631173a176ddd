"""The staging folder Beam's steps share: each step writes its output there as one
pickled file and passes the file's name on, so that rows never go through Beam."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

__all__ = ["get", "put"]


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
