"""Rows of an Arrow column by index, without joining its chunks first.

``ChunkedArray.take`` (pyarrow 26) concatenates every chunk into one array before it
takes: a transient copy of the whole column per call. The linker's normalised texts of a
long side are chunked (:data:`~croissant_lineage.linking.sides.NORMALISE_ROWS`) and are
taken from a chunk of pairs at a time, so each call would copy the side's texts again.
:func:`take_rows` takes from each chunk only the rows asked of it; :func:`compare_rows`
compares two columns' rows pair by pair, a chunk of pairs at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa

__all__ = ["compare_rows", "take_rows"]


def take_rows(values: pa.Array | pa.ChunkedArray, rows: Sequence[int] | np.ndarray | pa.Array) -> pa.Array:
    """``values.take(rows)`` as one array (rows in their order, repeats allowed).

    Raises:
        IndexError: a row is outside ``values`` (negative rows included).
    """
    index = rows.to_numpy(zero_copy_only=False) if isinstance(rows, pa.Array) else np.asarray(rows, np.int64)
    index = index.astype(np.int64, copy=False)
    if len(index) and (index.min() < 0 or index.max() >= len(values)):
        bad = index[(index < 0) | (index >= len(values))][0]
        raise IndexError(f"row {bad} out of bounds for a column of {len(values)} rows")
    if isinstance(values, pa.Array):
        return values.take(pa.array(index))
    chunks = [c for c in values.chunks if len(c)]
    if len(chunks) <= 1:
        return (chunks[0] if chunks else pa.array([], values.type)).take(pa.array(index))
    starts = np.cumsum([0] + [len(c) for c in chunks])
    which = np.searchsorted(starts, index, side="right") - 1
    order = np.argsort(which, kind="stable")
    bounds = np.searchsorted(which[order], np.arange(len(chunks) + 1))
    parts = [
        chunks[k].take(pa.array(index[order[bounds[k] : bounds[k + 1]]] - starts[k]))
        for k in range(len(chunks))
        if bounds[k] < bounds[k + 1]
    ]
    joined = pa.concat_arrays(parts) if parts else pa.array([], values.type)
    if np.all(order[1:] > order[:-1]):  # already in row order (one chunk's rows, or sorted)
        return joined
    inverse = np.empty(len(order), np.int64)
    inverse[order] = np.arange(len(order))
    return joined.take(pa.array(inverse))


def compare_rows(
    left: pa.Array | pa.ChunkedArray,
    right: pa.Array | pa.ChunkedArray,
    left_rows: np.ndarray,
    right_rows: np.ndarray,
    compare: Callable[[pa.Array, pa.Array], pa.Array],
    *,
    chunk: int,
) -> np.ndarray:
    """Per pair ``k``, ``compare`` of ``left``'s row ``left_rows[k]`` and ``right``'s row
    ``right_rows[k]``, as booleans (a null answer is False). The rows are taken (copies)
    ``chunk`` pairs at a time, so at most a chunk's are held at once.

    Args:
        left, right: The two columns.
        left_rows, right_rows: The pairs' rows (equal lengths).
        compare: Two arrays of equal length to a boolean array of that length (an Arrow
            compute function such as ``pyarrow.compute.not_equal``).
        chunk: Pairs taken at a time.
    """
    out = np.zeros(len(left_rows), bool)
    for s in range(0, len(left_rows), chunk):
        taken = take_rows(left, left_rows[s : s + chunk]), take_rows(right, right_rows[s : s + chunk])
        out[s : s + chunk] = compare(*taken).to_numpy(zero_copy_only=False)
    return out
