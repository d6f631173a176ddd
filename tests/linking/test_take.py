"""take_rows: Arrow's take of a chunked column, without joining its chunks first; compare_rows:
two columns compared row pair by row pair, a chunk of pairs at a time."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.linking.take import compare_rows, take_rows
from tests.linking.pool_peak import pool_peak

_VALUES = st.one_of(
    st.lists(st.one_of(st.none(), st.text(max_size=5)), max_size=12).map(lambda v: (v, pa.string())),
    st.lists(st.one_of(st.none(), st.lists(st.text(max_size=3), max_size=3)), max_size=12).map(
        lambda v: (v, pa.list_(pa.string()))
    ),
)


@settings(max_examples=200, deadline=None)
@given(_VALUES, st.lists(st.integers(0, 12), max_size=4), st.data())
def test_take_rows_is_arrows_take_however_chunked(values: tuple[list[Any], pa.DataType], cuts: list[int], data: st.DataObject) -> None:
    texts, kind = values
    bounds = sorted({0, len(texts), *(c % (len(texts) + 1) for c in cuts)})
    chunked = pa.chunked_array([pa.array(texts[a:b], kind) for a, b in itertools.pairwise(bounds)], kind)
    rows = data.draw(st.lists(st.integers(0, len(texts) - 1), max_size=20)) if texts else []
    got = take_rows(chunked, np.array(rows, np.int64))
    assert isinstance(got, pa.Array) and got.type == kind
    assert got.to_pylist() == [texts[i] for i in rows]
    assert take_rows(chunked, pa.array(rows, pa.int64())).equals(got)
    assert take_rows(pa.array(texts, kind), rows).to_pylist() == got.to_pylist()


_TEXTS = st.lists(st.one_of(st.none(), st.sampled_from(["", "a", "b", "ab"])), min_size=1, max_size=10)


@settings(max_examples=200, deadline=None)
@given(_TEXTS, _TEXTS, st.integers(0, 9), st.sampled_from([1, 2, 3, 1 << 14]), st.data())
def test_compare_rows_compares_each_pair_however_chunked(
    left: list[str | None], right: list[str | None], cut: int, chunk: int, data: st.DataObject
) -> None:
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(left) - 1), st.integers(0, len(right) - 1)), max_size=25))
    li, ri = np.array([i for i, _ in pairs], np.int64), np.array([j for _, j in pairs], np.int64)
    split = min(cut, len(left))
    chunked = pa.chunked_array([pa.array(left[:split], pa.string()), pa.array(left[split:], pa.string())])
    differ = compare_rows(chunked, pa.array(right, pa.string()), li, ri, pc.not_equal, chunk=chunk)
    assert differ.dtype == bool and len(differ) == len(pairs)
    # A null on either side compares to null, which counts as False.
    assert differ.tolist() == [None not in (left[i], right[j]) and left[i] != right[j] for i, j in pairs]


@pytest.mark.parametrize("row", [-1, 5, 100])
def test_take_rows_refuses_rows_outside_the_column(row: int) -> None:
    chunked = pa.chunked_array([["a", "b"], ["c", "d", "e"]])
    with pytest.raises(IndexError, match=f"row {row} out of bounds"):
        take_rows(chunked, [0, row])
    with pytest.raises(IndexError):
        take_rows(pa.array(["a"]), [row])


def test_take_rows_takes_from_each_chunk_only_its_rows() -> None:
    # The point of it: no chunk is joined to the others (ChunkedArray.take copies the
    # whole column first). In a fresh process, so that the pool's peak is this test's.
    setup = (
        "from croissant_lineage.linking.take import compare_rows, take_rows\n"
        "c = pa.chunked_array([pa.array(['x' * 100] * 100_000) for _ in range(4)])"
    )
    peak = pool_peak(setup, "assert take_rows(c, [399_999, 0, 150_000]).to_pylist() == ['x' * 100] * 3")
    assert peak < 1 << 20  # the column is 40 MB
