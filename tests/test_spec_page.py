"""docs/spec.md, the family spec reference, is kept true: every key of the schema is defined
there, every example validates against the schema and the parser, and its activities table is
the code's (``python3 -m tests.test_spec_page`` rewrites the table)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from croissant_lineage.family import spec as family_spec
from croissant_lineage.family.spec import ACTIVITIES, KEY_KINDS, parse_family
from croissant_lineage.prov.vocab import activity_class, derivation_class

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "spec.md"
SCHEMA = json.loads((REPO / "schemas" / "family.schema.json").read_text(encoding="utf-8"))
TEXT = PAGE.read_text(encoding="utf-8")
_FRAGMENT = re.compile(r"<!--\s*spec:\s*(?P<kind>\w+)\s*-->\s*\n```json\n(?P<body>.*?)```", re.S)
START, END = "<!-- activities -->", "<!-- /activities -->"
_TO_DESCRIBE = "(to describe)"


def fragments() -> list[tuple[str, Any]]:
    """(kind, parsed JSON) of each example of the page, in order."""
    return [(m["kind"], json.loads(m["body"])) for m in _FRAGMENT.finditer(TEXT)]


def _dataset(name: str, items: bool = True, **more: Any) -> dict[str, Any]:
    extra = {"descriptor": f"{name}.json", "roles": {"id": "id", "stem": "question"}} if items else {}
    return {"name": name, "iri": f"https://example.org/{name}", **extra, **more}


def as_family(kind: str, frag: Any) -> dict[str, Any]:
    """A whole family spec around one example."""
    if kind == "family":
        return dict(frag)
    if kind == "dataset":
        return {"name": "t", "datasets": [frag]}
    if kind == "roles":
        return {"name": "t", "datasets": [_dataset("t", roles=frag)]}
    if kind == "key":
        return as_family("roles", {"id": "id", "stem": "question", "key": frag})
    if kind == "link":
        return as_family("derivation", {"child": "c", "parent": "p", "activity": "copy", "link": frag})
    if kind == "derivation":
        items = frag.get("coverage", "items") == "items"
        return {"name": "t", "datasets": [_dataset(frag["parent"]), _dataset(frag["child"], items)],
                "derivations": [frag]}
    raise ValueError(f"unknown example kind {kind!r}")


def schema_keys(node: Any = SCHEMA) -> set[str]:
    """Every property name the schema declares, at any depth."""
    out: set[str] = set()
    if isinstance(node, dict):
        out |= set(node.get("properties", {}))
        for value in node.values():
            out |= schema_keys(value)
    elif isinstance(node, list):
        for value in node:
            out |= schema_keys(value)
    return out


def schema_enums(node: Any = SCHEMA) -> set[str]:
    """Every string value of an ``enum`` of the schema."""
    out: set[str] = set()
    if isinstance(node, dict):
        out |= {v for v in node.get("enum", []) if isinstance(v, str)}
        for value in node.values():
            out |= schema_enums(value)
    elif isinstance(node, list):
        for value in node:
            out |= schema_enums(value)
    return out


def test_every_schema_key_is_defined_on_the_page() -> None:
    keys = schema_keys()
    assert {"name", "iri", "roles", "key_format", "pattern", "tolerance", "child_block", "scale_words"} <= keys
    missing = sorted(k for k in keys if f"`{k}`" not in TEXT)
    assert not missing, f"docs/spec.md does not define: {missing}"


def test_every_enum_value_and_key_kind_is_named_on_the_page() -> None:
    names = schema_enums() | set(KEY_KINDS) | set(ACTIVITIES)
    missing = sorted(v for v in names if f"`{v}`" not in TEXT)
    assert not missing, f"docs/spec.md does not name: {missing}"


def test_the_page_has_an_example_of_each_part() -> None:
    kinds = [k for k, _ in fragments()]
    assert {"family", "dataset", "roles", "key", "derivation", "link"} <= set(kinds)
    assert len(kinds) >= 15


@pytest.mark.parametrize(("kind", "frag"), fragments(), ids=[f"{i}-{k}" for i, (k, _) in enumerate(fragments())])
def test_each_example_follows_the_schema_and_parses(kind: str, frag: Any, tmp_path: Path) -> None:
    doc = as_family(kind, frag)
    jsonschema.validate(doc, SCHEMA)
    spec = parse_family(doc, tmp_path / "family.json")
    assert spec.name == doc["name"]


def test_the_examples_read_as_the_page_says(tmp_path: Path) -> None:
    by_kind: dict[str, list[Any]] = {}
    for kind, frag in fragments():
        by_kind.setdefault(kind, []).append(frag)
    numbers = [k for k in by_kind["key"] if k.get("kind") == "number"]
    spec = parse_family(as_family("key", numbers[0]), tmp_path / "family.json")
    ds = spec.dataset("t")
    assert (ds.key_kind, ds.key_tolerance) == ("number", 0.001)
    assert re.search(ds.key_pattern or "", "20 - 7.50 = 12.50.\n#### $12.50")["key"] == "$12.50"
    documented = parse_family(as_family("derivation", by_kind["derivation"][1]), tmp_path / "family.json")
    assert documented.derivations[0].coverage == "documented" and documented.derivations[0].link is None
    link = parse_family(as_family("link", by_kind["link"][2]), tmp_path / "family.json").derivations[0].link
    assert link is not None and (link.by, link.child_block, link.parent_block) == ("index", None, None)


def _meanings() -> dict[str, str]:
    """The activity -> meaning column of the page's table (the one column not from the code)."""
    table = TEXT.split(START, 1)[1].split(END, 1)[0]
    return {m[1]: m[2].strip() for m in re.finditer(r"^\| `([a-z_]+)` \|([^|]*)\|", table, re.M)}


def activities_table(meanings: dict[str, str] | None = None) -> str:
    """The activities table, generated from ACTIVITIES and the groupings of family/spec.py."""
    meanings = _meanings() if meanings is None else meanings
    groups = [family_spec.VERSION_ACTIVITIES, family_spec.ONE_CHILD_PER_PARENT,
              family_spec.TRANSLATION_ACTIVITIES, family_spec.TRANSLATION_KINDS]
    lines = [
        "| activity | meaning | `cl:` class | PROV derivation | versions of one item | one child per parent "
        "| joins verified by `translations` | texts in another language |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for a in ACTIVITIES:
        marks = " | ".join("yes" if a in g else "" for g in groups)
        lines.append(f"| `{a}` | {meanings.get(a) or _TO_DESCRIBE} | `{activity_class(a)}` | "
                     f"`{derivation_class(a)}` | {marks} |")
    return "\n".join(lines)


def test_the_activities_table_is_the_codes() -> None:
    current = TEXT.split(START, 1)[1].split(END, 1)[0].strip()
    assert current == activities_table(), "docs/spec.md's activities table is out of date: python3 -m tests.test_spec_page"


def test_every_activity_is_described_and_in_the_schema() -> None:
    assert _TO_DESCRIBE not in TEXT, "describe the new activity in docs/spec.md's table"
    assert set(_meanings()) == set(ACTIVITIES)
    # (a spec may declare its own activities, so the schema names the built-in kinds in words)
    described = SCHEMA["$defs"]["derivation"]["properties"]["activity"]["description"]
    assert [a for a in ACTIVITIES if a not in described] == []


if __name__ == "__main__":  # python3 -m tests.test_spec_page: rewrite the activities table
    head, rest = TEXT.split(START, 1)
    tail = rest.split(END, 1)[1]
    PAGE.write_text(f"{head}{START}\n{activities_table()}\n{END}{tail}", encoding="utf-8")
    sys.stdout.write("docs/spec.md: activities table rewritten\n")
