"""a key past the options, or options that are not a list, are refused.

``link`` refuses them when it loads the items (CL-E004, one line, exit 2); ``validate``
reports ``CLV307`` for a key past the options in an items table written by anything else.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage.cli import main
from croissant_lineage.errors import LineageError
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.lineage.schema import ITEMS_BASE_SCHEMA
from croissant_lineage.lineage.shape import key_problem, options_problem
from croissant_lineage.validate import validate

GOOD = Path(__file__).resolve().parent / "_good"


def _case(tmp_path: Path, rows: list[dict[str, Any]], roles: dict[str, Any], key_format: str = "letter") -> Path:
    """The _good setup with its data as JSON Lines ``rows`` and the spec's ``roles``."""
    folder = tmp_path / "case"
    shutil.copytree(GOOD, folder)
    (folder / "data.csv").unlink()
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    doc = json.loads((folder / "croissant.json").read_text())
    dist = doc["distribution"][0]
    dist["contentUrl"], dist["encodingFormat"] = "data.jsonl", "application/jsonlines"
    names = sorted({k for r in rows for k in r})
    doc["recordSet"][0]["field"] = [
        {"@type": "cr:Field", "@id": f"default/{n}", "name": n, "dataType": "sc:Text",
         "source": {"fileObject": {"@id": "data"}, "extract": {"column": n}}}
        for n in names
    ]
    (folder / "croissant.json").write_text(json.dumps(doc))
    spec = json.loads((folder / "family.json").read_text())
    spec["datasets"][0]["roles"] = roles
    spec["datasets"][0]["key_format"] = key_format
    (folder / "family.json").write_text(json.dumps(spec))
    return folder


LIST4 = {"id": "id", "stem": "q", "options": ["A", "B", "C", "D"], "key": "answer"}
ROW = {"id": "1", "q": "Which?", "A": "w", "B": "x", "C": "y", "D": "z"}

CASES = {
    "letter-past-options": ([{**ROW, "answer": "K"}], LIST4, "letter"),
    "index-past-options": ([{**ROW, "answer": 9}], LIST4, "index"),
    "options-a-string": ([{"id": "1", "q": "Which?", "opts": "a|b|c|d", "answer": "A"}],
                         {"id": "id", "stem": "q", "options": "opts", "key": "answer"}, "letter"),
    "options-a-struct": ([{"id": "1", "q": "Which?", "opts": {"a": "w", "b": "x"}, "answer": "A"}],
                         {"id": "id", "stem": "q", "options": "opts", "key": "answer"}, "letter"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_link_refuses_the_item_with_one_coded_line(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows, roles, key_format = CASES[name]
    folder = _case(tmp_path, rows, roles, key_format)
    with pytest.raises(LineageError) as info:
        load_items(load_family(folder / "family.json").dataset("bad"))
    assert info.value.code == "CL-E004"
    assert main(["link", str(folder / "family.json"), "--out", str(tmp_path / "lineage"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "CL-E004" in err and "Traceback" not in err
    assert not (tmp_path / "lineage").exists()


def test_the_same_items_with_a_key_inside_the_options_load(tmp_path: Path) -> None:
    folder = _case(tmp_path, [{**ROW, "answer": "D"}, {**ROW, "id": "2", "answer": 3}], LIST4, "letter")
    table = load_items(load_family(folder / "family.json").dataset("bad"))
    assert table.column("key").to_pylist() == ["D", None]  # 3 is no letter: unknown, not refused
    assert table.column("options").to_pylist()[0] == ["w", "x", "y", "z"]


def test_validate_reports_a_key_past_the_options_in_an_items_table(tmp_path: Path) -> None:
    rows = {"dataset": ["d", "d", "d"], "item": ["1", "2", "3"], "subject": [None] * 3, "stem": ["s"] * 3,
            "options": [["a", "b", "c", "d"], ["a", "b"], None], "key": ["D", "K", "C"],
            "source_file": ["f"] * 3, "source_row": [0, 1, 2], "record": ["{}"] * 3}
    path = tmp_path / "items.parquet"
    pq.write_table(pa.table(rows, schema=ITEMS_BASE_SCHEMA), path)
    found = [i for i in validate([path]).issues if i.code == "CLV307"]
    assert [i.where.rsplit("#", 1)[1] for i in found] == ["row=1"]


@pytest.mark.parametrize(
    ("value", "bad"),
    [(["a", "b"], False), (None, False), ("a|b|c|d", True), (b"ab", True), ({"a": 1}, True), (7, True)],
)
def test_options_problem(value: Any, bad: bool) -> None:
    assert (options_problem(value) is not None) is bad


@pytest.mark.parametrize(
    ("options", "key", "bad"),
    [(["a"] * 4, "D", False), (["a"] * 4, "E", True), (["a"] * 4, "K", True), (None, "K", False),
     (["a"] * 4, None, False), (["a"] * 4, "AB", True), (["a"] * 4, "d", True)],
)
def test_key_problem(options: list[str] | None, key: str | None, bad: bool) -> None:
    assert (key_problem(options, key) is not None) is bad
