"""Integer codes of equal values, without a copy of the values.

``dictionary_encode`` numbers a column's distinct values by keeping a copy of them (its
dictionary, built in a growing buffer): for a column of mostly distinct long texts, such
as normalised stems, that held about two to four times the texts' bytes at once (2x for a
chunked column, 4x after concatenating two). Arrow's dense ``rank`` gives equal values
equal numbers by sorting row indices instead, so the only scratch is a few integers a row.
The codes are the values' order (not their first appearance): use them where only equality
counts (joins, counts of repeats).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["equal_codes"]


def equal_codes(*columns: pa.Array | pa.ChunkedArray) -> list[np.ndarray]:
    """Per column, one code a row (``int64``, from 0), equal across all the columns
    exactly where the values are equal; nulls share one code, unequal to any value's.

    The columns are ranked together as one chunked column (no copy); they must be of
    one type.
    """
    chunks = [c for col in columns for c in (col.chunks if isinstance(col, pa.ChunkedArray) else [col])]
    if not chunks:
        return [np.zeros(0, np.int64) for _ in columns]
    ranks = pc.rank(pa.chunked_array(chunks, chunks[0].type), tiebreaker="dense")
    codes = ranks.to_numpy(zero_copy_only=False).astype(np.int64) - 1
    bounds = np.cumsum([len(col) for col in columns])[:-1]
    return list(np.split(codes, bounds))
