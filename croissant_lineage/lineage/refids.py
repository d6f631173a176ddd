"""Item refs numbered, and edges indexed by those numbers, in Arrow and NumPy arrays.

A graph over a million items keyed by ref strings in Python dictionaries costs ~0.4 GB (a
string, a dictionary slot and a list per ref). :class:`RefIds` keeps the refs once, sorted
and unique, in one Arrow string array: a ref's number is its place there, so numbers
compare as the refs do (:func:`number_refs` numbers whole columns in one pass). A ref is found by its Python hash (a sorted NumPy array of them),
then checked against the string. :class:`EdgeIndex` gives the rows of a table whose key
column (ref numbers) holds a given number, in row order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["EdgeIndex", "RefIds", "number_refs"]

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


class RefIds:
    """Distinct refs, numbered in sorted order (as :func:`number_refs` numbers them).

    Args:
        refs: The distinct refs, sorted (strings, no nulls).
    """

    __slots__ = ("_hash_ids", "_hashes", "_refs")

    def __init__(self, refs: pa.Array):
        self._refs = refs
        hashes = np.empty(len(refs), np.int64)
        for at in range(0, len(refs), _HASH_ROWS):
            part = refs.slice(at, _HASH_ROWS).to_pylist()
            hashes[at : at + len(part)] = [hash(r) for r in part]
        self._hash_ids = np.argsort(hashes, kind="stable").astype(np.int32)
        self._hashes = hashes[self._hash_ids]

    def __len__(self) -> int:
        return len(self._refs)

    def find(self, ref: str) -> int | None:
        """The number of ``ref``, or None when it is not one of them."""
        h = hash(ref)
        at = int(np.searchsorted(self._hashes, h))
        while at < len(self._hashes) and self._hashes[at] == h:
            i = int(self._hash_ids[at])
            if self._refs[i].as_py() == ref:
                return i
            at += 1
        return None

    def ref(self, i: int) -> str:
        """The ref numbered ``i``."""
        value: str = self._refs[i].as_py()
        return value


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
