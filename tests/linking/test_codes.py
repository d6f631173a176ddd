"""equal_codes: equal numbers exactly for equal values, across columns, however chunked."""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.linking.codes import equal_codes
from tests.linking.pool_peak import pool_peak

_TEXTS = st.lists(st.one_of(st.none(), st.text(alphabet="ab\u00e9 ", max_size=3)), max_size=10)


def _chunked(texts: list[str | None], cuts: list[int]) -> pa.ChunkedArray:
    bounds = sorted({0, len(texts), *(c % (len(texts) + 1) for c in cuts)})
    return pa.chunked_array([pa.array(texts[a:b], pa.string()) for a, b in itertools.pairwise(bounds)], pa.string())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_TEXTS, st.lists(st.integers(0, 10), max_size=3), st.booleans()), max_size=3))
def test_codes_are_equal_exactly_where_values_are(columns: list[tuple[list[str | None], list[int], bool]]) -> None:
    arrays = [_chunked(t, cuts) if chunked else pa.array(t, pa.string()) for t, cuts, chunked in columns]
    codes = equal_codes(*arrays)
    assert [len(c) for c in codes] == [len(t) for t, _, _ in columns]
    assert all(c.dtype == np.int64 for c in codes)
    values = [v for t, _, _ in columns for v in t]
    flat = np.concatenate(codes) if codes else np.zeros(0, np.int64)
    for (a, x), (b, y) in itertools.combinations(zip(values, flat.tolist(), strict=True), 2):
        assert (a == b) == (x == y), (a, b, x, y)
    assert all(0 <= x < max(len(values), 1) for x in flat.tolist())


def test_codes_of_no_column_and_empty_columns() -> None:
    assert equal_codes() == []
    got = equal_codes(pa.array([], pa.string()), pa.chunked_array([], pa.string()))
    assert [len(c) for c in got] == [0, 0]


def test_codes_keep_no_copy_of_the_values() -> None:
    # The point of it: dictionary_encode keeps a copy of distinct values (here 40 MB,
    # all distinct); ranking needs only integers a row. In a fresh process, so that the
    # pool's peak is this test's.
    setup = (
        "from croissant_lineage.linking.codes import equal_codes\n"
        "c = pa.chunked_array([pa.array([f'{k:0100d}' for k in range(j, 400_000, 4)]) for j in range(4)])"
    )
    peak = pool_peak(setup, "(codes,) = equal_codes(c)\nassert len(set(codes.tolist())) == 400_000")
    assert peak < 16 << 20  # the column is 40 MB
