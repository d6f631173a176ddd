"""Refs numbered in sorted order, found by hash; edge rows by key."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from croissant_lineage.lineage.refids import EdgeIndex, RefIds, number_refs

REFS = st.lists(st.text(min_size=1, max_size=6), max_size=40)


@given(parts=st.lists(REFS, max_size=4), other=st.text(max_size=6))
def test_refs_are_numbered_in_sorted_order_and_found(parts: list[list[str]], other: str) -> None:
    refs, numbers = number_refs([pa.array(p, pa.string()) for p in parts])
    ids = RefIds(refs)
    distinct = sorted({r for p in parts for r in p})
    assert len(ids) == len(distinct)
    assert [ids.ref(i) for i in range(len(ids))] == distinct
    assert [n.tolist() for n in numbers] == [[distinct.index(r) for r in p] for p in parts]
    assert all(ids.find(r) == distinct.index(r) for r in distinct)
    assert ids.find(other) == (distinct.index(other) if other in distinct else None)


def test_arrays_without_refs_get_no_numbers() -> None:
    chunked = pa.chunked_array([pa.array(["c:1"]), pa.array(["b:1", "c:1"])])
    refs, numbers = number_refs([pa.array([], pa.string()), pa.array(["b:1", "a:1"]), pa.array([], pa.string()), chunked])
    assert refs.to_pylist() == ["a:1", "b:1", "c:1"]
    assert [n.tolist() for n in numbers] == [[], [1, 0], [], [2, 1, 2]]
    refs, numbers = number_refs([])
    assert len(refs) == 0 and numbers == [] and RefIds(refs).find("a:1") is None
    refs, numbers = number_refs([pa.array([], pa.string())])
    assert len(refs) == 0 and [n.tolist() for n in numbers] == [[]]


def test_refs_sharing_a_hash_are_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    from croissant_lineage.lineage import refids

    monkeypatch.setattr(refids, "hash", lambda s: len(s) % 2, raising=False)  # two hashes for four refs
    ids = RefIds(pa.array(["d:1", "d:22", "d:333", "d:4444"]))
    assert [ids.find(r) for r in ("d:333", "d:1", "d:4444", "d:22", "d:5", "d:55")] == [2, 0, 3, 1, None, None]


@given(keys=st.lists(st.integers(0, 5), max_size=30), key=st.integers(0, 6))
def test_edge_rows_by_key_in_row_order(keys: list[int], key: int) -> None:
    index = EdgeIndex(np.array(keys, np.int32))
    assert index.rows(key) == [i for i, k in enumerate(keys) if k == key]


def test_item_rows_by_ref_last_row_wins_and_nulls_join_as_join_ref() -> None:
    from croissant_lineage.lineage.refids import RefRows

    dataset = pa.chunked_array([pa.array(["a", "b"]), pa.array(["a", None, "a"])])
    item = pa.chunked_array([pa.array(["1", "1"]), pa.array(["2", "x", "1"])])
    rows = RefRows(dataset, item)
    assert [rows.find(r) for r in ("a:1", "b:1", "a:2", "None:x", "a:3", "b")] == [4, 1, 2, 3, None, None]


@given(hashes=st.lists(st.sampled_from([-(2**63), -(2**63) + 1, -(2**62), -2, 0, 1, 2**62, 2**63 - 1])
                       | st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=40, unique=True),
       probe=st.integers(-(2**63), 2**63 - 1))
def test_hash_buckets_cover_the_whole_range_of_hashes(hashes: list[int], probe: int) -> None:
    """Buckets of the top bits of signed 64-bit hashes, at their extremes too: every ref is found."""
    from croissant_lineage.lineage import refids

    refs = [f"r{i}" for i in range(len(hashes))]
    own = dict(zip(refs, hashes, strict=True))
    index = refids._HashIndex.__new__(refids._HashIndex)
    try:
        refids.hash = lambda s: own.get(s, probe)  # type: ignore[attr-defined]
        index.__init__([refs], len(refs))  # type: ignore[misc]
        assert [index.candidates(r) for r in refs] == [[i] for i in range(len(refs))]
        assert index.candidates("other") == [i for i, h in enumerate(hashes) if h == probe]
    finally:
        del refids.hash  # type: ignore[attr-defined]
