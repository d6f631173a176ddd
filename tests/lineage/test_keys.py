"""Keys of any kind: numbers in every written form, kinds from the spec, unread keys counted."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.errors import SpecError
from croissant_lineage.family.spec import parse_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.lineage.keys import equal_numbers, keys_unread, parse_number, read_keys
from croissant_lineage.validate.items import check_item_shapes


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 10**9), cents=st.integers(0, 99), negative=st.booleans())
def test_a_number_reads_to_one_value_in_every_written_form(n: int, cents: int, negative: bool) -> None:
    value = (-1 if negative else 1) * (n + cents / 100)
    sign = "-" if negative else ""
    body = f"{n}.{cents:02d}"
    forms = [f"{sign}{body}", f"{sign}{n:,}.{cents:02d}", f"{sign}${body}", f"{sign}{body}0", f" {sign}{body} ",
             f"{sign}{float(body):.15e}", f"{sign}{body}%"]
    for form in forms:
        got = parse_number(form)
        assert got is not None and equal_numbers(got, value), form


@settings(max_examples=100, deadline=None)
@given(p=st.integers(0, 10**6), q=st.integers(1, 10**6))
def test_a_fraction_reads_to_its_value(p: int, q: int) -> None:
    got = parse_number(f"{p}/{q}")
    assert got is not None and equal_numbers(got, float(Fraction(p, q)))


@pytest.mark.parametrize(("text", "value"), [("1,000", 1000.0), ("$18", 18.0), ("18.0", 18.0), ("3/4", 0.75), ("1e3", 1000.0), ("-5", -5.0), ("12.", 12.0)])
def test_the_written_forms_of_the_spec(text: str, value: float) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1,00", "1/0", "nan", "inf", "--3", None])
def test_what_is_not_a_number(text: str | None) -> None:
    assert parse_number(text) is None


def test_tolerance_decides_equality() -> None:
    assert equal_numbers(1.0, 1.004, 0.01)
    assert not equal_numbers(1.0, 1.004)


def _read(kind: str, raw: list[object], **kw: object) -> dict[str, list[object]]:
    cols = read_keys(kind, n=len(raw), raw_keys=raw, solutions=None, tests=kw.pop("tests", None),  # type: ignore[arg-type]
                     pattern=kw.get("pattern"), separator=kw.get("separator"), as_text=lambda v: None if v is None else str(v))  # type: ignore[arg-type]
    return {k: v.to_pylist() for k, v in cols.items()}


def test_a_pattern_takes_group_one_or_the_group_named_key() -> None:
    got = _read("number", ["Half of 36 is 18.\n#### 18", "no answer line"], pattern=r"####\s*(.+)$")
    assert got["key_text"] == ["18", None] and got["key_value"] == [18.0, None]
    named = _read("text", ["x (answer: Paris) y"], pattern=r"(answer): (?P<key>\w+)")
    assert named["key_text"] == ["Paris"]


def test_set_keys_from_lists_and_separated_texts() -> None:
    assert _read("set", [["a", " b "], None])["key_answers"] == [["a", "b"], None]
    assert _read("set", ["x|y||"], separator="|")["key_answers"] == [["x", "y"]]


def test_unread_keys_are_counted_per_dataset_and_reported_by_validate() -> None:
    cols = _read("number", ["18", "n/a", None])
    table = pa.table({"dataset": ["d"] * 3, "item": ["0", "1", "2"], "options": pa.nulls(3, pa.list_(pa.string())),
                      "key": pa.nulls(3, pa.string()), **{k: pa.array(v, t) for (k, v), t in zip(cols.items(), [
                          pa.string(), pa.string(), pa.float64(), pa.list_(pa.string()), pa.string(), pa.string()], strict=True)}})
    assert keys_unread(table) == {"d": 2}
    issues = check_item_shapes(table, "items.parquet")
    assert [i.code for i in issues] == ["CLV308"]


def test_a_tests_key_is_judged_only_where_the_table_holds_solutions_and_tests() -> None:
    base = {"dataset": ["d", "d"], "item": ["0", "1"], "key_kind": ["tests", "tests"]}
    assert keys_unread(pa.table(base)) == {}  # an enriched items file: no solution or tests column
    held = pa.table({**base, "solution": ["def f(): ...", None], "tests": ["assert f()", "assert f()"]})
    assert keys_unread(held) == {"d": 1}


def _spec(tmp_path: Path, roles: dict[str, object]) -> dict[str, object]:
    rows = [{"id": "a", "q": "What is 6*3?", "answer": "6*3 = 18\n#### 18"}, {"id": "b", "q": "Half of 3?", "answer": "#### 3/2"},
            {"id": "c", "q": "Broken", "answer": "no final line"}]
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    desc = {"@context": {"@vocab": "https://schema.org/", "cr": "http://mlcommons.org/croissant/"}, "@type": "sc:Dataset", "name": "toy",
            "distribution": [{"@type": "cr:FileObject", "@id": "f", "name": "f", "contentUrl": "data.jsonl", "encodingFormat": "application/jsonlines", "sha256": "0" * 64}],
            "recordSet": [{"@type": "cr:RecordSet", "@id": "r", "name": "r", "field": [
                {"@type": "cr:Field", "@id": f"r/{c}", "name": c, "dataType": "sc:Text", "source": {"fileObject": {"@id": "f"}, "extract": {"column": c}}}
                for c in ("id", "q", "answer")]}]}
    (tmp_path / "toy.json").write_text(json.dumps(desc))
    return {"name": "toy", "datasets": [{"name": "toy", "iri": "https://example.org/toy", "descriptor": "toy.json", "record_set": "r", "roles": roles}]}


def test_a_number_key_read_from_a_worked_answer_without_options(tmp_path: Path) -> None:
    roles = {"id": "id", "stem": "q", "solution": "answer", "key": {"field": "answer", "kind": "number", "pattern": r"####\s*(.+)$", "tolerance": 0.001}}
    spec = parse_family(_spec(tmp_path, roles), tmp_path / "family.json").datasets["toy"]
    assert (spec.key_kind, spec.key_tolerance) == ("number", 0.001)
    items = load_items(spec)
    assert items.column("key_value").to_pylist() == [18.0, 1.5, None]
    assert items.column("key").to_pylist() == [None] * 3 and items.column("options").to_pylist() == [None] * 3
    assert items.column("solution").to_pylist()[0].endswith("#### 18")
    assert keys_unread(items) == {"toy": 1}


def test_spec_refuses_a_tests_key_without_tests_and_a_bad_pattern(tmp_path: Path) -> None:
    doc = _spec(tmp_path, {"id": "id", "stem": "q", "key": {"field": "answer", "kind": "tests"}})
    with pytest.raises(SpecError):
        parse_family(doc, tmp_path / "family.json")
    doc = _spec(tmp_path, {"id": "id", "stem": "q", "key": {"field": "answer", "kind": "text", "pattern": "("}})
    with pytest.raises(SpecError):
        parse_family(doc, tmp_path / "family.json")
