"""One field of many JSON records by pyarrow's JSON reader equals ``json.loads``.

:func:`croissant_lineage.linking.record_fields.read_field` answers only where its answer
is the standard library's; Hypothesis draws records around the edges (escapes, surrogate
pairs, control characters, dates the reader would read as timestamps, numbers, nested
values, keys missing, reordered or new, non-object and empty records) and checks every
answer against each record parsed by :func:`json.loads`.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
from hypothesis import example, given, settings
from hypothesis import strategies as st

from croissant_lineage.linking.record_fields import read_field

_KEYS = st.sampled_from(["src", "subject", "a", "é", "k\"q", ""])
_TEXTS = st.one_of(
    st.sampled_from(["ori_mmlu-law", "2020-01-01", "2020-01-01 10:00:00", "x\ny", "tab\there", "\u0000", "😀", "a\\b",
                     "\"quoted\"", "\ud7ff", "é", ""]),
    st.text(max_size=6),
)
_VALUES = st.one_of(_TEXTS, st.none(), st.integers(-3, 3), st.floats(allow_nan=False, width=32), st.booleans(),
                    st.lists(_TEXTS, max_size=2), st.dictionaries(_KEYS, _TEXTS, max_size=2))
_RECORD = st.dictionaries(_KEYS, _VALUES, max_size=4)


def _reference(texts: list[str | None], key: str) -> tuple[dict[str, None], list[Any]]:
    names: dict[str, None] = {}
    values = []
    for r in texts:
        rec = json.loads(r) if r else {}
        names.update(dict.fromkeys(rec))
        values.append(rec.get(key))
    return names, values


def _dumped(records: list[dict[str, Any]], ascii_only: bool) -> list[str]:
    return [json.dumps(r, ensure_ascii=ascii_only) for r in records]


@settings(max_examples=300)
@given(st.lists(st.lists(_RECORD, max_size=5), min_size=1, max_size=3), _KEYS, st.booleans())
@example([[{"subject": None}], [{}]], "subject", False)  # a later part where no record has the key
def test_an_answer_is_the_standard_librarys(parts: list[list[dict[str, Any]]], key: str, ascii_only: bool) -> None:
    texts = [_dumped(p, ascii_only) for p in parts]
    found = read_field([pa.array(t, pa.string()) for t in texts], key)
    if found is not None:
        names, values = found
        ref_names, ref_values = _reference([r for t in texts for r in t], key)
        assert list(names) == list(ref_names)
        if key in ref_names:  # the same values of the same types (1 is not 1.0)
            assert [(type(v), v) for v in values] == [(type(v), v) for v in ref_values]


def test_plain_text_fields_are_answered() -> None:
    texts = ['{"src": "ori_mmlu-law", "n": 1}', '{"n": 2, "src": "stemez-\\u00e9\\"x\\""}', '{"n": 3, "src": null}']
    assert read_field([pa.array(texts[:2]), pa.array(texts[2:])], "src") == (
        {"src": None, "n": None}, ["ori_mmlu-law", 'stemez-é"x"', None]
    )
    assert read_field([pa.array(texts)], "missing") == ({"src": None, "n": None}, [])


def test_what_the_reader_may_read_otherwise_is_left_to_json_loads() -> None:
    cases = [
        ['{"a": 1}', '{"a": 2.5}'],  # numbers: 1 would come back as 1.0
        ['{"a": "2020-01-01"}'],  # read as a timestamp
        ['{"a": "\\ud83d\\ude00"}'],  # an escaped surrogate
        ['{"a": "x"}', ""],  # an empty record
        ['{"a": "x"} {"a": "y"}'],  # two objects on one line
        ['{"a": "x"}', '{"b": "y"}'],  # a key the first record lacks
        ['{"a": "x", "a": "y"}'],  # a key twice
        ['{"a": ["x"]}'],  # a list
        ['{"a": "x\\u0000"}', '{"a": "y"}\n'],  # a raw line break
    ]
    for texts in cases:
        assert read_field([pa.array(texts, pa.string())], "a") is None, texts
    assert read_field([pa.array(['{"a": "x"}', None], pa.string())], "a") is None
    assert read_field([pa.array(['{"a": "x"}'], pa.large_string())], "a") is None


def test_no_records() -> None:
    assert read_field([], "a") == ({}, [])
    assert read_field([pa.array([], pa.string())], "a") == ({}, [])


def test_a_part_where_no_record_has_the_key_reads_none() -> None:
    # The reader gives such a part no column for the key: its values are None (found by CI's run).
    parts = [pa.array(['{"subject": "a", "x": "1"}']), pa.array(['{"x": "2"}', "{}"]), pa.array(['{"subject": "b"}'])]
    assert read_field(parts, "subject") == ({"subject": None, "x": None}, ["a", None, None, "b"])
