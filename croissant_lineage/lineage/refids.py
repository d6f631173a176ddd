"""Item refs numbered, and edges and items indexed by ref, in Arrow and NumPy arrays.

A graph over a million items keyed by ref strings in Python dictionaries costs ~0.4 GB (a
string, a dictionary slot and a list per ref). :class:`RefIds` keeps the refs of the edges'
ends once, sorted and unique, in one Arrow string array: a ref's number is its place there,
so numbers compare as the refs do (:func:`number_refs` numbers whole columns in one pass).
:class:`EdgeIndex` gives the rows of a table whose key column (ref numbers) holds a given
number, in row order; :class:`RefRows`, the row of an item table that holds a ref. A ref is
found by its Python hash (a sorted NumPy array of them), then checked against the strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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
    """Positions by the Python hash of the ref at each (a sorted NumPy array of hashes)."""

    __slots__ = ("_hashes", "_positions")

    def __init__(self, parts: Iterable[list[str]], n: int):
        hashes = np.empty(n, np.int64)
        at = 0
        for part in parts:
            hashes[at : at + len(part)] = [hash(r) for r in part]
            at += len(part)
        self._positions = np.argsort(hashes, kind="stable").astype(np.int32)
        self._hashes = hashes[self._positions]

    def candidates(self, ref: str) -> Iterator[int]:
        """The positions whose ref has the hash of ``ref``, ascending."""
        h = hash(ref)
        at = int(np.searchsorted(self._hashes, h))
        while at < len(self._hashes) and self._hashes[at] == h:
            yield int(self._positions[at])
            at += 1


class RefIds:
    """Distinct refs, numbered in sorted order (as :func:`number_refs` numbers them).

    Args:
        refs: The distinct refs, sorted (strings, no nulls).
    """

    __slots__ = ("_index", "_refs")

    def __init__(self, refs: pa.Array):
        self._refs = refs
        parts = (refs.slice(at, _HASH_ROWS).to_pylist() for at in range(0, len(refs), _HASH_ROWS))
        self._index = _HashIndex(parts, len(refs))

    def __len__(self) -> int:
        return len(self._refs)

    def find(self, ref: str) -> int | None:
        """The number of ``ref``, or None when it is not one of them."""
        return next((i for i in self._index.candidates(ref) if self._refs[i].as_py() == ref), None)

    def ref(self, i: int) -> str:
        """The ref numbered ``i``."""
        value: str = self._refs[i].as_py()
        return value


class RefRows:
    """The rows of a table by the ref of their ``dataset`` and ``item`` columns, found by
    hash and checked against the columns: no joined ref is kept.

    Args:
        dataset, item: The table's columns.
    """

    __slots__ = ("_dataset", "_index", "_item")

    def __init__(self, dataset: pa.ChunkedArray, item: pa.ChunkedArray):
        self._dataset, self._item = dataset, item
        parts = (joined_refs(dataset.slice(at, _HASH_ROWS), item.slice(at, _HASH_ROWS)).to_pylist()
                 for at in range(0, len(dataset), _HASH_ROWS))
        self._index = _HashIndex(parts, len(dataset))

    def find(self, ref: str) -> int | None:
        """The row of ``ref`` (the last, when the table lists it twice), or None."""
        rows = [r for r in self._index.candidates(ref)
                if join_ref(self._dataset[r].as_py(), self._item[r].as_py()) == ref]
        return rows[-1] if rows else None


class EdgeIndex:
    """The rows of a key column (ref numbers) holding a given number, in row order.

    Args:
        keys: One number per row.
    """

    __slots__ = ("_order", "_sorted")

    def __init__(self, keys: np.ndarray):
        self._order = np.argsort(keys, kind="stable").astype(np.int64)
        self._sorted = keys[self._order]

    def rows(self, key: int) -> np.ndarray:
        """The rows whose key is ``key`` (ascending)."""
        # Keys of the column's own type: others would convert the whole column per call.
        lo, hi = self._sorted.searchsorted(np.array([key, key + 1], self._sorted.dtype))
        return self._order[lo:hi]
