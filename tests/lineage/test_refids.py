"""Refs numbered in sorted order, found by hash; edge rows by key."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from croissant_lineage.lineage.refids import EdgeIndex, RefIds

REFS = st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=40)


@given(refs=REFS, other=st.text(max_size=6))
def test_refs_are_numbered_in_sorted_order_and_found(refs: list[str], other: str) -> None:
    ids = RefIds(pa.array(refs, pa.string()))
    distinct = sorted(set(refs))
    assert len(ids) == len(distinct)
    assert [ids.ref(i) for i in range(len(ids))] == distinct
    assert ids.of(pa.array(refs)).tolist() == [distinct.index(r) for r in refs]
    assert all(ids.find(r) == distinct.index(r) for r in refs)
    assert ids.find(other) == (distinct.index(other) if other in distinct else None)


def test_refs_sharing_a_hash_are_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    from croissant_lineage.lineage import refids

    monkeypatch.setattr(refids, "hash", lambda s: len(s) % 2, raising=False)  # two hashes for four refs
    ids = RefIds(pa.array(["d:1", "d:22", "d:333", "d:4444"]))
    assert [ids.find(r) for r in ("d:333", "d:1", "d:4444", "d:22", "d:5", "d:55")] == [2, 0, 3, 1, None, None]


def test_a_ref_not_numbered_is_refused() -> None:
    ids = RefIds(pa.array(["a:1"]))
    with pytest.raises(KeyError):
        ids.of(pa.array(["a:2"]))


@given(keys=st.lists(st.integers(0, 5), max_size=30), key=st.integers(0, 6))
def test_edge_rows_by_key_in_row_order(keys: list[int], key: int) -> None:
    index = EdgeIndex(np.array(keys, np.int32))
    assert index.rows(key).tolist() == [i for i, k in enumerate(keys) if k == key]
