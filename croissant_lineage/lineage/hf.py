"""``datasets`` views of the library's tables: ``datasets.Dataset`` objects over the same Arrow data.

Everything the library computes is an Arrow table (a :class:`~croissant_lineage.lineage.model.Lineage`'s
items and edges, a translation report's tables, a snapshot diff...). :func:`to_hf_dataset`
hands one to ``datasets`` without copying it: the ``datasets.Dataset`` wraps the very
same Arrow buffers (``datasets.table.InMemoryTable``), so ``.map``, ``.filter``,
``.to_pandas``, ``.push_to_hub`` and the rest of that API work on the lineage at no cost.
"""

from __future__ import annotations

from dataclasses import asdict, fields, is_dataclass
from typing import Any

import pyarrow as pa

from croissant_lineage.errors import InputError

__all__ = ["table_names", "to_hf_dataset"]


def table_names(obj: Any) -> list[str]:
    """The attributes of ``obj`` (a result dataclass) that hold an Arrow table, in field order."""
    if not is_dataclass(obj) or isinstance(obj, type):
        return []
    return [f.name for f in fields(obj) if isinstance(getattr(obj, f.name, None), pa.Table)]


def _rows_table(obj: Any) -> pa.Table | None:
    """A row-list result (``rows`` of dataclasses) as a table; None for other objects."""
    rows = getattr(obj, "rows", None)
    if not isinstance(rows, list) or not all(is_dataclass(r) and not isinstance(r, type) for r in rows):
        return None
    row_type = getattr(obj, "row_type", None)
    names = [f.name for f in fields(row_type)] if is_dataclass(row_type) else None
    table = pa.Table.from_pylist([asdict(r) for r in rows])
    if names and rows:
        table = table.select(names)
    return table


def _pick(obj: Any, table: str | None) -> tuple[pa.Table, str | None]:
    """The Arrow table of ``obj`` to wrap, and its name."""
    if isinstance(obj, pa.Table):
        return obj, table
    names = table_names(obj)
    if table is not None:
        if table not in names:
            raise InputError(f"{type(obj).__name__} has no table {table!r}",
                             hint=f"tables are: {', '.join(names) or 'none'}")
        return getattr(obj, table), table
    if len(names) == 1:
        return getattr(obj, names[0]), names[0]
    rows = _rows_table(obj)
    if rows is not None:
        return rows, "rows"
    raise InputError(f"{type(obj).__name__} holds {len(names)} tables: say which",
                     hint=f"pass table=, one of: {', '.join(names) or 'none'}")


def to_hf_dataset(obj: Any, table: str | None = None, *, split: str | None = None) -> Any:
    """A ``datasets.Dataset`` over an Arrow table of the library, without a copy.

    Args:
        obj: A ``pyarrow.Table``; a result holding Arrow tables (a ``Lineage``: ``items``,
            ``edges``, ``duplicates``, ``unmatched``; a translation report...); or a result
            holding a list of row dataclasses (``rows``), which is converted (a copy).
        table: Which of the result's tables (required when it holds several).
        split: The split name the ``datasets.Dataset`` carries (default: none).

    Returns:
        A ``datasets.Dataset`` whose Arrow data is the table's own buffers (for a table;
        a new table for ``rows``), its ``info.description`` naming the table.

    Raises:
        InputError: ``table`` names no table of ``obj``, or ``obj`` holds several and
            ``table`` is None, or none at all.
    """
    import datasets
    from datasets.table import InMemoryTable

    data, name = _pick(obj, table)
    what = type(obj).__name__ if not isinstance(obj, pa.Table) else "table"
    info = datasets.DatasetInfo(description=f"croissant-lineage {what}" + (f".{name}" if name else ""))
    named = datasets.NamedSplit(split) if split else None
    return datasets.Dataset(InMemoryTable(data), info=info, split=named)
