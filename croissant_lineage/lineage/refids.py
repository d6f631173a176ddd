"""Item refs numbered, and edges indexed by those numbers, in Arrow and NumPy arrays.

A graph over a million items keyed by ref strings in Python dictionaries costs ~0.4 GB (a
string, a dictionary slot and a list per ref). :class:`RefIds` keeps the refs once, sorted
and unique, in one Arrow string array: a ref's number is its place there, so numbers
compare as the refs do. A ref is found by its Python hash (a sorted NumPy array of them),
then checked against the string. :class:`EdgeIndex` gives the rows of a table whose key
column (ref numbers) holds a given number, in row order.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["EdgeIndex", "RefIds"]

#: Refs hashed per Python list (bounds the strings alive while the index is built).
_HASH_ROWS = 1 << 16


class RefIds:
    """The distinct refs of ``refs``, numbered in sorted order.

    Args:
        refs: Item refs (strings; repeats allowed; no nulls).
    """

    __slots__ = ("_hash_ids", "_hashes", "_refs")

    def __init__(self, refs: pa.Array):
        uniq = pc.unique(refs.cast(pa.string()))
        self._refs: pa.Array = uniq.take(pc.sort_indices(uniq))
        hashes = np.empty(len(self._refs), np.int64)
        for at in range(0, len(self._refs), _HASH_ROWS):
            part = self._refs.slice(at, _HASH_ROWS).to_pylist()
            hashes[at : at + len(part)] = [hash(r) for r in part]
        self._hash_ids = np.argsort(hashes, kind="stable").astype(np.int32)
        self._hashes = hashes[self._hash_ids]

    def __len__(self) -> int:
        return len(self._refs)

    def of(self, refs: pa.Array) -> np.ndarray:
        """The numbers of ``refs`` (each one of the refs given when built)."""
        ids = pc.index_in(refs.cast(pa.string()), value_set=self._refs)
        if ids.null_count:
            raise KeyError("a ref not among the numbered refs")
        return np.asarray(ids.to_numpy(zero_copy_only=False), np.int32)

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
