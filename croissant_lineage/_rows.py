"""A list of row dataclasses that converts to a pandas DataFrame (used by result types)."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any, ClassVar

__all__ = ["RowTable"]


class RowTable:
    """A list of row dataclasses that converts to a DataFrame."""

    row_type: ClassVar[type]
    rows: list[Any]

    def to_pandas(self) -> Any:
        """The rows as a ``pandas.DataFrame``, one column per row field (in field order)."""
        import pandas as pd

        cols = [f.name for f in fields(self.row_type)]
        return pd.DataFrame([asdict(r) for r in self.rows], columns=cols)

    def __len__(self) -> int:
        return len(self.rows)
