"""The columnar item refs and IRIs equal the reference implementation, row by row."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.lineage.refs import iri_column, ref_column, take_last
from croissant_lineage.lineage.schema import item_iri, join_ref

_NAMES = ["mmlu", "mmlu-pro", "toy#"]
_IRIS = {"mmlu": "https://example.org/mmlu", "mmlu-pro": "https://example.org/pro#", "toy#": "urn:toy##"}

_ids = st.text(
    alphabet=st.one_of(st.sampled_from("az09_.-~/:@ #%?&\n+"), st.characters(exclude_categories=("Cs",))), max_size=12
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_NAMES), _ids), max_size=20), st.integers(1, 3))
def test_columns_equal_reference(rows: list[tuple[str, str]], chunks: int) -> None:
    datasets = [d for d, _ in rows]
    items = [i for _, i in rows]
    cut = len(rows) // chunks
    ds_col = pa.chunked_array([datasets[:cut], datasets[cut:]], pa.string())
    it_col = pa.chunked_array([items[:cut], items[cut:]], pa.string())
    assert ref_column(ds_col, it_col).to_pylist() == [join_ref(d, i) for d, i in rows]
    assert iri_column(ds_col, it_col, _IRIS).to_pylist() == [item_iri(_IRIS[d], i) for d, i in rows]


def test_ids_needing_quotes_are_quoted_in_place() -> None:
    items = pa.array(["a/b:1", "é", "x y", "ok~", "nl\n"])
    got = iri_column(pa.array(["mmlu"] * 5), items, _IRIS).to_pylist()
    assert got == [
        "https://example.org/mmlu#a/b:1",
        "https://example.org/mmlu#%C3%A9",
        "https://example.org/mmlu#x%20y",
        "https://example.org/mmlu#ok~",
        "https://example.org/mmlu#nl%0A",
    ]


def test_unknown_dataset_raises_key_error() -> None:
    with pytest.raises(KeyError):
        iri_column(pa.array(["other"]), pa.array(["1"]), _IRIS)


@given(st.lists(st.sampled_from("abcd"), max_size=12), st.lists(st.sampled_from("abcde"), max_size=8))
def test_take_last_is_a_dict_lookup(values: list[str], keys: list[str]) -> None:
    last = {v: i for i, v in enumerate(values)}
    assert take_last(pa.array(keys, pa.string()), pa.array(values, pa.string())).to_pylist() == [
        last.get(k) for k in keys
    ]
