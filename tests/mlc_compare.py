"""Reading a descriptor with mlcroissant 1.1.1 and comparing its rows with ours.

mlcroissant yields ``{field @id: value}`` with text as ``bytes``, numbers as numpy
scalars, lists as lists or arrays, and missing values (pandas) as NaN; a CSV cell that is
empty is NaN too. :func:`normalise` maps all of that to plain Python so rows compare.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from croissant_lineage.croissant.descriptor import Descriptor
from croissant_lineage.croissant.records import FILE_COLUMN, ROW_COLUMN, read_record_set


def normalise(value: Any) -> Any:
    """Plain Python for a value from either reader; empty text and NaN become None."""
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (list, tuple, np.ndarray)):
        return [normalise(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, str) and value == "":
        return None
    return value


@contextmanager
def quiet_mlcroissant() -> Iterator[None]:
    """Silence mlcroissant's absl/root warnings (one per record for a regex miss)."""
    loggers = [logging.getLogger(), logging.getLogger("absl")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def short_names(desc: Descriptor, record_set: str) -> dict[str, str]:
    """Field @id -> short name (the column name our reader gives it)."""
    return {f.id: name for name, f in desc.record_set(record_set).fields.items()}


def mlc_rows(
    dataset: Any, desc: Descriptor, record_set: str, limit: int | None = None
) -> list[dict[str, Any]]:
    """Rows of ``record_set`` read by mlcroissant, keyed by our short names, normalised."""
    names = short_names(desc, record_set)
    records = dataset.records(record_set)
    if limit is not None:
        records = itertools.islice(records, limit)
    with quiet_mlcroissant():
        return [{names[k]: normalise(v) for k, v in r.items()} for r in records]


def our_rows(desc: Descriptor, record_set: str, limit: int | None = None) -> list[dict[str, Any]]:
    """Rows of ``record_set`` read by :func:`read_record_set`, normalised."""
    table = read_record_set(desc, record_set).drop_columns([FILE_COLUMN, ROW_COLUMN])
    if limit is not None:
        table = table.slice(0, limit)
    return [{k: normalise(v) for k, v in r.items()} for r in table.to_pylist()]


def open_dataset(path: Path) -> Any:
    """``mlcroissant.Dataset(path)`` with its warnings silenced."""
    import mlcroissant as mlc

    with quiet_mlcroissant():
        return mlc.Dataset(path)


def root_cause(exc: BaseException) -> BaseException:
    """The innermost exception of a ``__cause__`` / ``__context__`` chain."""
    while exc.__cause__ is not None or exc.__context__ is not None:
        nxt = exc.__cause__ or exc.__context__
        assert nxt is not None
        exc = nxt
    return exc
