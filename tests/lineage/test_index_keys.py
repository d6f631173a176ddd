"""Keys under ``key_format: index``: every key that is not an option index is refused.

An index key of ``-1``, ``1.5``, ``2**62`` or ``"two"`` used to become a null key (exit 0)
while ``7`` for four options was refused: now each is a ``CL-E004`` naming the row.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from croissant_lineage.errors import DataError
from croissant_lineage.family.spec import DatasetSpec
from croissant_lineage.lineage import items


def _table(keys: pa.Array) -> pa.Table:
    n = len(keys)
    return pa.table(
        {
            "id": [f"i{k}" for k in range(n)],
            "q": [f"question {k}?" for k in range(n)],
            "A": ["a"] * n,
            "B": ["b"] * n,
            "C": ["c"] * n,
            "D": ["d"] * n,
            "answer": keys,
            "_file": ["data.jsonl"] * n,
            "_row": pa.array(range(n), pa.int64()),
        }
    )


def _spec(options: bool = True) -> DatasetSpec:
    roles: dict[str, Any] = {"id": "id", "stem": "q", "key": "answer"}
    if options:
        roles["options"] = ["A", "B", "C", "D"]
    return DatasetSpec(name="d", iri="https://example.org/d", roles=roles, key_format="index")


@pytest.fixture(params=[True, False], ids=["columnar", "reference"])
def columnar(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(items, "COLUMNAR", request.param)
    return bool(request.param)


@pytest.mark.parametrize(
    "bad",
    [
        pa.array([1, 2**62], pa.int64()),
        pa.array([1, -1], pa.int64()),
        pa.array([1.0, 1.5], pa.float64()),
        pa.array(["1", "1.5"], pa.string()),
        pa.array(["0", "two"], pa.string()),
        pa.array(["0", "26"], pa.string()),
        pa.array(["0", str(2**62)], pa.string()),
        pa.array([True, False], pa.bool_()),
    ],
    ids=["2**62", "-1", "1.5", "'1.5'", "'two'", "'26'", "'2**62'", "bool"],
)
@pytest.mark.parametrize("options", [True, False], ids=["options", "no-options"])
def test_a_key_that_is_no_option_index_is_refused(columnar: bool, bad: pa.Array, options: bool) -> None:
    with pytest.raises(DataError) as err:
        items._items_table(_spec(options), _table(bad))
    assert err.value.code == "CL-E004"
    assert "data.jsonl row" in err.value.message  # names the record
    assert "index" in err.value.message


def test_past_the_options_is_still_refused(columnar: bool) -> None:
    with pytest.raises(DataError) as err:
        items._items_table(_spec(), _table(pa.array([0, 7], pa.int64())))
    assert err.value.code == "CL-E004"


@pytest.mark.parametrize(
    ("keys", "letters"),
    [
        (pa.array([0, 3, None], pa.int64()), ["A", "D", None]),
        (pa.array([" 1", "+2", "", None], pa.string()), ["B", "C", None, None]),
        (pa.array([2.0, -0.0], pa.float64()), ["C", "A"]),
    ],
)
def test_option_indexes_and_missing_keys_still_read(columnar: bool, keys: pa.Array, letters: list[Any]) -> None:
    got = items._items_table(_spec(), _table(keys))
    assert got.column("key").to_pylist() == letters


def test_key_letter_keeps_its_none_for_an_unreadable_index() -> None:
    assert items.key_letter("1.5", "index", None) is None
    assert items.key_letter(2**62, "index", None) is None
    assert items.key_letter("3", "index", None) == "D"
