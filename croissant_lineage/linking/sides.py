"""One side of a derivation: a dataset's items as the linker reads them.

A :class:`Side` keeps its columns as Arrow arrays: the item table's, and the normalised
stems and options (computed column-wise on first use, :mod:`.normalize_columns`). Each is
read through a :class:`Rows` sequence. Python objects are built only for the rows a step
*holds* (:meth:`Side.hold`: one block while it is matched, one chunk of edges while they
are diffed) and released after it, so that a side costs its Arrow bytes, not a Python
string per text of the dataset. A row read outside a held window still gets its value
(from Arrow, one at a time): holding is a speed-up, never a condition of being right.

The items' raw records are lazily parsed columns for the link rule's expressions. A
parent of several children is read once and shared by their derivations.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Generic, TypeVar, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.lineage.items import LETTERS, evaluate
from croissant_lineage.lineage.model import release_memory
from croissant_lineage.lineage.packed_records import PackedRecords
from croissant_lineage.linking.diff_columns import OptionColumns
from croissant_lineage.linking.normalize import was_repaired
from croissant_lineage.linking.normalize_columns import (
    normalize_options_column,
    normalize_stems_column,
    repair_may_change,
)
from croissant_lineage.linking.optiondiff import OptionTexts
from croissant_lineage.linking.record_fields import read_field
from croissant_lineage.linking.take import take_rows

__all__ = ["CHUNK", "Rows", "Side"]

#: Rows turned into Python objects at a time where a whole column is walked.
CHUNK = 1 << 14

#: Rows normalised at a time: the normalisers hold several copies of the texts they are
#: given, so a longer column is normalised a slice at a time (into a chunked array) and
#: those copies follow the slice, not the side.
NORMALISE_ROWS = 1 << 16

T = TypeVar("T")


class Rows(Sequence[T], Generic[T]):
    """One column of a side, read-only, by row: a held row's Python value, else Arrow's.

    Attributes:
        array: The column (an Arrow array or chunked array).
        held: Row -> value of the rows a :meth:`Side.hold` window built (empty outside one).
    """

    __slots__ = ("array", "held")

    def __init__(self, array: pa.Array | pa.ChunkedArray):
        self.array = array
        self.held: dict[int, T] = {}

    def __len__(self) -> int:
        return len(self.array)

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> list[T]: ...

    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return list(self.array[i].to_pylist())
        try:
            return self.held[i]
        except KeyError:
            i = int(i)
            if not -len(self.array) <= i < len(self.array):
                raise IndexError(i) from None
            value: T = self.array[i].as_py()
            return value

    def __iter__(self) -> Iterator[T]:
        for start in range(0, len(self.array), CHUNK):
            yield from self.array.slice(start, CHUNK).to_pylist()

    def take(self, rows: Sequence[int] | np.ndarray) -> list[T]:
        """The values of ``rows``, in their order, as Python objects."""
        if not len(rows):
            return []
        return list(take_rows(self.array, rows).to_pylist())

    def to_list(self) -> list[T]:
        """Every value as a Python object (a new list)."""
        return list(self.array.to_pylist())


def _stem_keys(stems: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """:func:`.normalize_columns.normalize_stems_column`, :data:`NORMALISE_ROWS` rows at a time."""
    if len(stems) <= NORMALISE_ROWS:
        return normalize_stems_column(stems)
    return pa.chunked_array(
        [normalize_stems_column(stems.slice(s, NORMALISE_ROWS)) for s in range(0, len(stems), NORMALISE_ROWS)],
        pa.string(),
    )


def _option_keys(options: pa.Array | pa.ChunkedArray) -> tuple[pa.Array | pa.ChunkedArray, pa.Array | pa.ChunkedArray]:
    """:func:`.normalize_columns.normalize_options_column`, :data:`NORMALISE_ROWS` items at a time."""
    if len(options) <= NORMALISE_ROWS:
        return normalize_options_column(options)
    cased, folded = zip(
        *(normalize_options_column(options.slice(s, NORMALISE_ROWS)) for s in range(0, len(options), NORMALISE_ROWS)),
        strict=True,
    )
    kind = pa.list_(pa.string())
    return pa.chunked_array(cased, kind), pa.chunked_array(folded, kind)


class _RecordColumns(Mapping[str, list[Any]]):
    """Record fields as columns, plus the roles ``subject`` and ``item`` (for fields the
    records lack). The records' JSON is parsed on first use, a chunk at a time, and only
    the columns asked for are kept: keeping every field of every record doubled the
    memory of a link."""

    def __init__(self, side: Side):
        self._side = weakref.proxy(side)  # no reference cycle: a side is freed on release
        self._names: dict[str, None] | None = None
        self._cols: dict[str, list[Any]] = {}
        self._absent: set[str] = set()  # keys no record holds, found without parsing

    def _absent_from_text(self, key: str) -> bool:
        """True when no record's JSON text holds ``"key":`` (then no record has the field,
        for each record is ``json.dumps`` of its fields); a text that holds it, say inside
        a nested value, only sends the records to the parser."""
        needle = json.dumps(key, ensure_ascii=False) + ":"
        return not any(pc.any(pc.match_substring(c, needle)).as_py() for c in self._side.record_chunks())

    def _load(self, key: str) -> None:
        if self._loaded(key):
            return
        with self._side._lock:  # (one thread parses a shared side's records, once)
            if not self._loaded(key):
                self._load_unlocked(key)

    def _loaded(self, key: str) -> bool:
        return (self._names is not None and (key in self._cols or key not in self._names)) or key in self._absent

    def _load_unlocked(self, key: str) -> None:
        if key and self._names is None and self._absent_from_text(key):
            self._absent.add(key)
            return
        names, values = read_field(self._side.record_chunks(), key) or self._parsed(key)
        self._names = names
        if key in names:
            self._cols[key] = values
        del values
        # Parsing every record left the C heap holding the parsed records' pages (~160 MB
        # at 250k records), under every step after it: hand them back.
        release_memory()

    def _parsed(self, key: str) -> tuple[dict[str, None], list[Any]]:
        """The records' keys and the values of ``key``, each record parsed by :func:`json.loads`
        (what :func:`.record_fields.read_field` gives where it answers)."""
        names: dict[str, None] = {}
        values: list[Any] = []
        for r in self._side.record_texts():
            rec = json.loads(r) if r else {}
            names.update(dict.fromkeys(rec))
            values.append(rec.get(key))
        return names, values

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        self._load(key)
        return key in self._cols or key in ("subject", "item")

    def __getitem__(self, key: str) -> list[Any]:
        self._load(key)
        if key in self._cols:
            return self._cols[key]
        if key == "subject":  # a list built per call: expressions index it row by row
            return self._side.subjects.to_list()
        if key == "item":
            return self._side.ids.to_list()
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        self._load("")
        assert self._names is not None
        return iter([*self._names, *(k for k in ("subject", "item") if k not in self._names)])

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Side:
    """One dataset's items as Arrow columns read by row (see the module docstring).

    Args:
        table: The dataset's item table.
        records: Its raw records held apart (:func:`~croissant_lineage.lineage.items.load_items_packed`),
            or None when the table's ``record`` column holds them.

    Attributes:
        table: The dataset's item table (``ITEMS_SCHEMA``).
        ids: Item ids, in table order.
        keys: Key letters (None where an item has none).
        n_options: Options per item (0 when None or empty).
        options_missing: Per item, whether its options are None (not an empty list).
    """

    def __init__(self, table: pa.Table, records: PackedRecords | None = None):
        self.table = table
        self._records = records
        self.ids: Rows[str] = Rows(table.column("item"))
        self.keys: Rows[str | None] = Rows(table.column("key"))
        self.n_options: np.ndarray = (
            pc.fill_null(pc.list_value_length(table.column("options")), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        )
        # Once per side: matching asks it per block, and a whole-column pass per block
        # made the fuzzy step cost grow with the side's size times its block count.
        self.options_missing: np.ndarray = pc.is_null(table.column("options")).to_numpy(zero_copy_only=False)
        self._subjects: Rows[str | None] | None = None
        self._columns = _RecordColumns(self)
        self._norm: Rows[str] | None = None
        self._norm_opts: Rows[list[str] | None] | None = None
        self._cased_opts: Rows[list[str] | None] | None = None
        self._raw_stems: Rows[str | None] | None = None
        self._raw_opts: Rows[list[str] | None] | None = None
        self._repaired: np.ndarray | None = None
        self._key_indices: np.ndarray | None = None
        # A side is shared by the derivations linking on threads: each column is computed
        # once, by the first thread that asks; the others wait for it, not compute it again.
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return self.table.num_rows

    def record_texts(self) -> Iterator[str | None]:
        """The raw records' JSON, in table order: from the packed records when the side was
        given them (its table's ``record`` column is then all null), a part at a time."""
        for chunk in self.record_chunks():
            yield from chunk.to_pylist()

    def record_chunks(self) -> Iterator[pa.Array]:
        """The raw records' JSON as Arrow string arrays, in table order (see :meth:`record_texts`)."""
        if self._records is None:
            yield from self.table.column("record").chunks
            return
        yield from self._records.chunks()

    @property
    def subjects(self) -> Rows[str | None]:
        """Subjects, in table order."""
        if self._subjects is None:
            self._subjects = Rows(self.table.column("subject"))
        return self._subjects

    @property
    def norm_stems(self) -> Rows[str]:
        """Stems through ``normalize_stem`` (computed column-wise: :mod:`.normalize_columns`), in table order."""
        if self._norm is None:
            with self._lock:
                if self._norm is None:
                    self._norm = Rows(_stem_keys(self.table.column("stem")))
        return self._norm

    def _normalise_options(self) -> None:
        with self._lock:
            if self._norm_opts is None:
                cased, folded = _option_keys(self.table.column("options"))
                self._cased_opts, self._norm_opts = Rows(cased), Rows(folded)

    @property
    def norm_options(self) -> Rows[list[str] | None]:
        """Options through ``normalize_option`` (None where an item has none; computed
        column-wise: :mod:`.normalize_columns`), in table order."""
        if self._norm_opts is None:
            self._normalise_options()
        assert self._norm_opts is not None
        return self._norm_opts

    @property
    def cased_options(self) -> Rows[list[str] | None]:
        """Options through ``normalize_option_cased`` (None where an item has none), in table order."""
        if self._cased_opts is None:
            self._normalise_options()
        assert self._cased_opts is not None
        return self._cased_opts

    @property
    def raw_stems(self) -> Rows[str | None]:
        """Stems as stored, in table order."""
        if self._raw_stems is None:
            self._raw_stems = Rows(self.table.column("stem"))
        return self._raw_stems

    @property
    def raw_options(self) -> Rows[list[str] | None]:
        """Options as stored (None where an item has none), in table order."""
        if self._raw_opts is None:
            self._raw_opts = Rows(self.table.column("options"))
        return self._raw_opts

    def _text_columns(self) -> tuple[Rows[Any], ...]:
        """The columns matching and option diffs read row by row."""
        return (self.keys, self.raw_stems, self.raw_options, self.norm_stems, self.norm_options, self.cased_options)

    @contextmanager
    def hold(self, rows: Iterable[int] | np.ndarray) -> Iterator[None]:
        """Build the Python values of ``rows`` in every column matching reads, for the
        duration of the ``with`` block (rows held by an enclosing window stay held)."""
        picked = np.asarray(rows if isinstance(rows, np.ndarray) else list(rows), dtype=np.int64)
        columns = self._text_columns()
        saved = [c.held for c in columns]
        if len(picked):
            keys = picked.tolist()
            for c in columns:
                held = dict(zip(keys, take_rows(c.array, picked).to_pylist(), strict=True))
                c.held = {**c.held, **held} if c.held else held
        try:
            yield
        finally:
            for c, before in zip(columns, saved, strict=True):
                c.held = before

    def option_texts(self, i: int) -> OptionTexts | None:
        """Item ``i``'s options as stored, case-preserving normalised and case-folded
        (None when it has none)."""
        raw = self.raw_options[i]
        folded = self.norm_options[i]
        if raw is None or folded is None:
            return None
        cased = self.cased_options[i]
        assert cased is not None
        return OptionTexts(raw, cased, folded)

    def option_columns(self) -> OptionColumns:
        """Every item's options as stored, and their normalised forms on demand (for
        :func:`~croissant_lineage.linking.diff_columns.diff_pairs`, which asks only for
        the rows whose options differ from their pair's)."""
        return OptionColumns(self.table.column("options"), self._option_forms_of)

    def _option_forms_of(self, rows: pa.Array) -> tuple[pa.Array, pa.Array]:
        """The case-preserving and case-folded options of ``rows``: normalising only those
        when they are few (under a quarter of the side), else the whole side, once (the
        same rows are asked again by the edges, and a parent is shared by derivations)."""
        if self._norm_opts is None and 4 * len(rows) < len(self):
            return _option_keys(self.table.column("options").take(rows))
        return take_rows(self.cased_options.array, rows), take_rows(self.norm_options.array, rows)

    def repaired(self, i: int) -> bool:
        """Whether ``ftfy`` repairs the encoding of item ``i``'s stem or an option."""
        return bool(self.repaired_rows[i])

    @property
    def repaired_rows(self) -> np.ndarray:
        """Per item, whether ``ftfy`` repairs the encoding of its stem or an option (only
        items with text it may change are asked: :func:`.normalize_columns.repair_may_change`)."""
        if self._repaired is not None:
            return self._repaired
        with self._lock:
            return self._repaired_rows()

    def _repaired_rows(self) -> np.ndarray:
        if self._repaired is None:
            stems = self.table.column("stem")
            options = self.table.column("options")
            stem_may = repair_may_change(stems).to_numpy(zero_copy_only=False)
            flat_may = repair_may_change(pc.list_flatten(options)).to_numpy(zero_copy_only=False)
            lengths = pc.fill_null(pc.list_value_length(options), 0).to_numpy(zero_copy_only=False).astype(np.int64)
            may_so_far = np.concatenate(([0], np.cumsum(flat_may, dtype=np.int64)))
            ends = np.cumsum(lengths)
            opts_may = may_so_far[ends] - may_so_far[ends - lengths] > 0
            out = np.zeros(len(self), dtype=bool)
            asked = np.flatnonzero(stem_may | opts_may)
            for start in range(0, len(asked), CHUNK):
                rows = asked[start : start + CHUNK]
                for i, s, opts in zip(rows.tolist(), self.raw_stems.take(rows), self.raw_options.take(rows), strict=True):
                    out[i] = (not (s is None or s.isascii()) and was_repaired(s)) or any(
                        not o.isascii() and was_repaired(o) for o in opts or ()
                    )
            self._repaired = out
        return self._repaired

    @property
    def key_indices(self) -> np.ndarray:
        """Per item, the index of its key letter in ``LETTERS`` (-1 when it has none)."""
        if self._key_indices is not None:
            return self._key_indices
        with self._lock:
            return self._key_indices_built()

    def _key_indices_built(self) -> np.ndarray:
        if self._key_indices is None:
            distinct = pc.unique(self.keys.array)
            known = np.array(
                [LETTERS.index(k) if k and k in LETTERS else -1 for k in distinct.to_pylist()] + [-1], np.int64
            )
            codes = pc.fill_null(pc.index_in(self.keys.array, value_set=distinct, skip_nulls=True), len(distinct))
            self._key_indices = known[codes.to_numpy(zero_copy_only=False)]
        return self._key_indices

    def norm_options_of(self, rows: Sequence[int] | np.ndarray) -> list[list[str] | None]:
        """:attr:`norm_options` of some rows, normalising only those unless all already are."""
        if self._norm_opts is not None:
            return self._norm_opts.take(rows)
        if not len(rows):
            return []
        picked = self.table.column("options").take(pa.array(np.asarray(rows, dtype=np.int64)))
        return list(_option_keys(picked)[1].to_pylist())

    def columns(self) -> Mapping[str, list[Any]]:
        """Record fields as columns, plus the roles ``subject`` and ``item``."""
        return self._columns

    def eval(self, expr: Any, where: str) -> list[Any]:
        """A role expression of the link rule evaluated over the records (one value per item)."""
        return evaluate(expr, self.columns(), len(self), where)
