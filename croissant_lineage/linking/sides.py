"""One side of a derivation: a dataset's items as the linker reads them.

A :class:`Side` holds what matching reads as Python lists (ids, keys, option counts,
normalised stems and options), built on first use, and the items' raw records as
lazily parsed columns for the link rule's expressions. A parent of several children is
read once and shared by their derivations.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.lineage.items import LETTERS, evaluate
from croissant_lineage.linking.normalize import normalize_option_cased, was_repaired
from croissant_lineage.linking.normalize_columns import (
    normalize_options_column,
    normalize_stems_column,
)
from croissant_lineage.linking.options import OptionTexts

__all__ = ["Side"]


class _RecordColumns(Mapping[str, list[Any]]):
    """Record fields as columns, plus the roles ``subject`` and ``item`` (for fields the
    records lack). The records' JSON is parsed on first use and only the columns asked
    for are kept: keeping every field of every record doubled the memory of a link."""

    def __init__(self, side: Side):
        self._side = weakref.proxy(side)  # no reference cycle: a side is freed on release
        self._names: dict[str, None] | None = None
        self._cols: dict[str, list[Any]] = {}

    def _load(self, key: str) -> None:
        if self._names is not None and (key in self._cols or key not in self._names):
            return
        names: dict[str, None] = {}
        values: list[Any] = []
        for r in self._side.table.column("record").to_pylist():
            rec = json.loads(r) if r else {}
            names.update(dict.fromkeys(rec))
            values.append(rec.get(key))
        self._names = names
        if key in names:
            self._cols[key] = values

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        self._load(key)
        return key in self._cols or key in ("subject", "item")

    def __getitem__(self, key: str) -> list[Any]:
        self._load(key)
        if key in self._cols:
            return self._cols[key]
        if key == "subject":
            return self._side.subjects
        if key == "item":
            return self._side.ids
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        self._load("")
        assert self._names is not None
        return iter([*self._names, *(k for k in ("subject", "item") if k not in self._names)])

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Side:
    """One dataset's items as Python lists, with lazily parsed records.

    Only what linking reads is kept as Python objects: ids, keys, option counts and
    the normalised stems and options (raw texts are read from the table when needed).

    Attributes:
        table: The dataset's item table (``ITEMS_SCHEMA``).
        ids: Item ids, in table order.
        keys: Key letters (None where an item has none).
        n_options: Options per item (0 when None or empty).
    """

    def __init__(self, table: pa.Table):
        self.table = table
        self.ids: list[str] = table.column("item").to_pylist()
        self.keys: list[str | None] = table.column("key").to_pylist()
        self.n_options: list[int] = pc.fill_null(pc.list_value_length(table.column("options")), 0).to_pylist()
        self._subjects: list[str | None] | None = None
        self._columns = _RecordColumns(self)
        self._norm: list[str] | None = None
        self._norm_opts: list[list[str] | None] | None = None
        self._raw_stems: list[str | None] | None = None
        self._raw_opts: list[list[str] | None] | None = None
        self._repaired: np.ndarray | None = None
        self._key_indices: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def subjects(self) -> list[str | None]:
        """Subjects, in table order."""
        if self._subjects is None:
            self._subjects = self.table.column("subject").to_pylist()
        return self._subjects

    @property
    def norm_stems(self) -> list[str]:
        """Stems through ``normalize_stem`` (computed column-wise: :mod:`.normalize_columns`), in table order."""
        if self._norm is None:
            self._norm = normalize_stems_column(self.table.column("stem")).to_pylist()
        return self._norm

    @property
    def norm_options(self) -> list[list[str] | None]:
        """Options through ``normalize_option`` (None where an item has none; computed
        column-wise: :mod:`.normalize_columns`), in table order."""
        if self._norm_opts is None:
            self._norm_opts = normalize_options_column(self.table.column("options"))[1].to_pylist()
        return self._norm_opts

    @property
    def raw_stems(self) -> list[str | None]:
        """Stems as stored, in table order."""
        if self._raw_stems is None:
            self._raw_stems = self.table.column("stem").to_pylist()
        return self._raw_stems

    @property
    def raw_options(self) -> list[list[str] | None]:
        """Options as stored (None where an item has none), in table order."""
        if self._raw_opts is None:
            self._raw_opts = self.table.column("options").to_pylist()
        return self._raw_opts

    def option_texts(self, i: int) -> OptionTexts | None:
        """Item ``i``'s options as stored, case-preserving normalised and case-folded
        (None when it has none)."""
        raw = self.raw_options[i]
        folded = self.norm_options[i]
        if raw is None or folded is None:
            return None
        # Not kept: built per call (normalize_option_cased caches texts), so that a side
        # holds one normalised copy of its options, not two.
        return OptionTexts(raw, [normalize_option_cased(x) for x in raw], folded)

    def repaired(self, i: int) -> bool:
        """Whether ``ftfy`` repairs the encoding of item ``i``'s stem or an option."""
        return bool(self.repaired_rows[i])

    @property
    def repaired_rows(self) -> np.ndarray:
        """Per item, whether ``ftfy`` repairs the encoding of its stem or an option (only
        items with non-ASCII text are asked)."""
        if self._repaired is None:
            stems = self.table.column("stem")
            options = self.table.column("options")
            ascii_stem = pc.fill_null(pc.string_is_ascii(stems), True)
            flat_ascii = pc.fill_null(pc.string_is_ascii(pc.list_flatten(options)), True)
            lengths = pc.fill_null(pc.list_value_length(options), 0).to_numpy(zero_copy_only=False).astype(np.int64)
            non_ascii = np.concatenate(([0], np.cumsum(~flat_ascii.to_numpy(zero_copy_only=False), dtype=np.int64)))
            ends = np.cumsum(lengths)
            ascii_opts = non_ascii[ends] - non_ascii[ends - lengths] == 0
            out = np.zeros(len(self), dtype=bool)
            for i in np.flatnonzero(~(ascii_stem.to_numpy(zero_copy_only=False) & ascii_opts)).tolist():
                s, opts = self.raw_stems[i], self.raw_options[i]
                out[i] = (not (s is None or s.isascii()) and was_repaired(s)) or any(
                    not o.isascii() and was_repaired(o) for o in opts or ()
                )
            self._repaired = out
        return self._repaired

    @property
    def key_indices(self) -> np.ndarray:
        """Per item, the index of its key letter in ``LETTERS`` (-1 when it has none)."""
        if self._key_indices is None:
            known = {k: (LETTERS.index(k) if k and k in LETTERS else -1) for k in set(self.keys)}
            self._key_indices = np.fromiter((known[k] for k in self.keys), np.int64, len(self))
        return self._key_indices

    def norm_options_of(self, rows: Sequence[int]) -> list[list[str] | None]:
        """:attr:`norm_options` of some rows, normalising only those unless all already are."""
        if self._norm_opts is not None:
            return [self._norm_opts[i] for i in rows]
        return normalize_options_column(self.table.column("options").take(rows))[1].to_pylist()

    def columns(self) -> Mapping[str, list[Any]]:
        """Record fields as columns, plus the roles ``subject`` and ``item``."""
        return self._columns

    def eval(self, expr: Any, where: str) -> list[Any]:
        """A role expression of the link rule evaluated over the records (one value per item)."""
        return evaluate(expr, self.columns(), len(self), where)
