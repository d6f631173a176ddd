"""Item refs numbered, and edges and items indexed by ref, in Arrow and NumPy arrays.

A graph over a million items keyed by ref strings in Python dictionaries costs ~0.4 GB (a
string, a dictionary slot and a list per ref). :class:`RefIds` keeps the refs of the edges'
ends once, sorted and unique, in one Arrow string array: a ref's number is its place there,
so numbers compare as the refs do (:func:`number_refs` numbers whole columns in one pass).
:class:`EdgeIndex` gives the rows of a table whose key column (ref numbers) holds a given
number, in row order; :class:`RefRows`, the row of an item table that holds a ref. A ref is
found by its Python hash (a sorted NumPy array of them, and where each bucket of their top
bits starts), then checked against the strings. A query reads these arrays through
memoryviews (slices give Python ints):
a NumPy call per look-up costs more than the look-up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.lineage.cells import Rows, cell_reader
from croissant_lineage.lineage.schema import join_ref

__all__ = ["EdgeIndex", "RefIds", "RefRows", "joined_refs", "number_refs"]

#: Refs hashed per Python list (bounds the strings alive while the index is built).
_HASH_ROWS = 1 << 16


def number_refs(refs: Sequence[pa.Array | pa.ChunkedArray]) -> tuple[pa.Array, list[np.ndarray]]:
    """The distinct refs of ``refs`` (string arrays, repeats allowed, no nulls), sorted, and
    the number of each ref of each array (its place among them): one pass of Arrow's
    hashing over them all."""
    chunks = [c for r in refs for c in (r.chunks if isinstance(r, pa.ChunkedArray) else [r])]
    encoded = pc.dictionary_encode(pa.chunked_array(chunks, pa.string()))  # (empty chunks left out)
    if not encoded.num_chunks:
        return pa.array([], pa.string()), [np.zeros(0, np.int32) for _ in refs]
    found = encoded.chunk(0).dictionary  # in order of first sight, shared by every chunk
    seen = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in encoded.chunks])
    del encoded
    order = pc.sort_indices(found)
    rank = np.empty(len(found), np.int32)
    rank[order.to_numpy()] = np.arange(len(found), dtype=np.int32)
    numbers = np.split(rank[seen], np.cumsum([len(r) for r in refs])[:-1])
    return found.take(order), numbers


def joined_refs(dataset: pa.ChunkedArray | pa.Array, item: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray:
    """``join_ref(dataset, item)`` row by row, joined by Arrow (as ``join_ref`` writes it,
    nulls and non-strings included)."""
    if not dataset.null_count and not item.null_count:
        try:
            return pa.chunked_array(pc.binary_join_element_wise(dataset, item, ":")).cast(pa.string())
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
            pass
    return pa.chunked_array(
        [pa.array([join_ref(d, i) for d, i in zip(dataset.to_pylist(), item.to_pylist(), strict=True)], pa.string())]
    )


class _HashIndex:
    """Positions by the Python hash of the ref at each: the hashes sorted in a NumPy array,
    and where each bucket of their top bits starts (two to four hashes a bucket), read through
    memoryviews: a look-up reads a few Python ints, no bisection, no NumPy call."""

    __slots__ = ("_half", "_hashes", "_positions", "_shift", "_starts")

    def __init__(self, parts: Iterable[list[str]], n: int):
        hashes = np.empty(n, np.int64)
        at = 0
        for part in parts:
            hashes[at : at + len(part)] = [hash(r) for r in part]
            at += len(part)
        positions = np.argsort(hashes, kind="stable").astype(np.int32)
        hashes = hashes[positions]
        bits = max(1, n.bit_length() - 2)  # 2**bits buckets: from n / 4 to n / 2
        self._shift, self._half = 64 - bits, 1 << (bits - 1)
        # (an arithmetic shift: the buckets of the sorted signed hashes are sorted too)
        buckets = (hashes >> self._shift) + self._half
        self._starts = np.searchsorted(buckets, np.arange((1 << bits) + 1)).astype(np.int32).data
        self._hashes = hashes.data
        self._positions = positions.data

    def candidates(self, ref: str) -> list[int]:
        """The positions whose ref has the hash of ``ref``, ascending."""
        h = hash(ref)
        b = (h >> self._shift) + self._half
        hashes = self._hashes
        out = []
        for k in range(self._starts[b], self._starts[b + 1]):  # (a loop: no comprehension's frame)
            if hashes[k] == h:
                out.append(self._positions[k])
        return out


class RefIds:
    """Distinct refs, numbered in sorted order (as :func:`number_refs` numbers them).

    Args:
        refs: The distinct refs, sorted (strings, no nulls).
    """

    __slots__ = ("_index", "_refs", "ref")

    #: The ref numbered ``i``: ``ref(i)`` (the array's reader itself, not a method calling it).
    ref: Callable[[int], str]

    def __init__(self, refs: pa.Array):
        self._refs = refs
        self.ref = cell_reader(refs)
        parts = (refs.slice(at, _HASH_ROWS).to_pylist() for at in range(0, len(refs), _HASH_ROWS))
        self._index = _HashIndex(parts, len(refs))

    def __len__(self) -> int:
        return len(self._refs)

    def find(self, ref: str) -> int | None:
        """The number of ``ref``, or None when it is not one of them."""
        for i in self._index.candidates(ref):
            if self.ref(i) == ref:
                return i
        return None


class RefRows:
    """The rows of a table by the ref of their ``dataset`` and ``item`` columns, found by
    hash and checked against the columns: no joined ref is kept.

    Args:
        dataset, item: The table's columns.
    """

    __slots__ = ("_index", "_rows")

    def __init__(self, dataset: pa.ChunkedArray, item: pa.ChunkedArray):
        self._rows = Rows(pa.table({"dataset": dataset, "item": item}), ("dataset", "item"), uniform=("dataset",))
        parts = (joined_refs(dataset.slice(at, _HASH_ROWS), item.slice(at, _HASH_ROWS)).to_pylist()
                 for at in range(0, len(dataset), _HASH_ROWS))
        self._index = _HashIndex(parts, len(dataset))

    def parts(self, row: int) -> tuple[Any, Any]:
        """The dataset and the item of ``row``."""
        dataset, item = self._rows.row(row)
        return dataset, item

    def find(self, ref: str) -> int | None:
        """The row of ``ref`` (the last, when the table lists it twice), or None."""
        found = None
        for r in self._index.candidates(ref):
            if join_ref(*self._rows.row(r)) == ref:
                found = r
        return found


class EdgeIndex:
    """The rows of a key column (ref numbers) holding a given number, in row order: the
    rows sorted by key, and where each key's rows start (read as Python ints).

    Args:
        keys: One number (0 or more) per row.
    """

    __slots__ = ("_order", "_starts")

    def __init__(self, keys: np.ndarray):
        kind = np.int32 if len(keys) < 2**31 else np.int64
        self._order = np.argsort(keys, kind="stable").astype(kind).data
        starts = np.zeros(int(keys.max()) + 2 if len(keys) else 1, kind)
        np.cumsum(np.bincount(keys), out=starts[1:])
        self._starts = starts.data

    def rows(self, key: int) -> list[int]:
        """The rows whose key is ``key`` (ascending)."""
        starts = self._starts
        if not 0 <= key < len(starts) - 1:
            return []
        lo, hi = starts[key], starts[key + 1]
        # (most refs have no edge or one, on a side: no slice for them)
        return [] if lo == hi else [self._order[lo]] if hi - lo == 1 else self._order[lo:hi].tolist()
