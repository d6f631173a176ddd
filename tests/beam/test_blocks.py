"""The pipeline's units of work without Beam: blocks linked apart and merged give the local
linker's lineage, byte for byte (this runs in the main venv too)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from croissant_lineage._io import parquet_bytes
from croissant_lineage.beam.blocks import (
    ID_BUCKETS,
    ErrorRecord,
    block_rows,
    first_error,
    link_block,
    merge_lineage,
    merge_stats,
)
from croissant_lineage.errors import DataError, InputError, SpecError
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.lineage.schema import ITEMS_SCHEMA
from croissant_lineage.linking.duplicates import side_duplicates
from croissant_lineage.linking.sides import Side
from croissant_lineage.workflows import link

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy" / "family.json"


def _blocked_lineage(spec_path: Path):
    """The pipeline's steps run in this process, blocks in reverse order (order must not matter)."""
    spec = load_family(spec_path)
    items, found, blocks = [], [], {}
    for ds in (d for d in spec.datasets.values() if d.has_items):
        table = load_items(ds)
        side = Side(table)
        items.append(table)
        found.extend(side_duplicates(ds.name, side))
        for k, d in enumerate(spec.item_derivations()):
            for role, name in (("child", d.child), ("parent", d.parent)):
                if name == ds.name:
                    for key, rows in block_rows(d, side, role).items():
                        blocks.setdefault((k, key), {})[role] = (table.take(rows), rows)
    parts: dict = {}
    for (k, _key), got in sorted(blocks.items(), reverse=True):
        if "child" in got:
            child, rows = got["child"]
            parent = got.get("parent", (ITEMS_SCHEMA.empty_table(), []))[0]
            parts.setdefault(k, []).append(link_block(spec, k, child, rows, parent))
    return merge_lineage(spec, items, parts, found), len(blocks)


def test_toy_blocks_merge_to_the_local_lineage() -> None:
    got, n_blocks = _blocked_lineage(TOY)
    want = link(TOY)
    assert n_blocks > 5  # subjects and id buckets: really split
    for name in ("items", "edges", "duplicates", "unmatched"):
        assert parquet_bytes(getattr(got, name)) == parquet_bytes(getattr(want, name)), name
    assert got.summary == want.summary and list(got.summary.to_dict()) == list(want.summary.to_dict())
    assert [list(s) for s in got.summary.to_dict()["derivations"]] == [list(s) for s in want.summary.to_dict()["derivations"]]
    assert got.family == want.family


def test_text_blocks_follow_the_rule_and_id_blocks_hash_the_id() -> None:
    spec = load_family(TOY)
    pro, fr = spec.item_derivations()[0], spec.item_derivations()[2]
    base = Side(load_items(spec.dataset("toy-base")))
    by_subject = block_rows(pro, base, "parent")
    assert set(by_subject) == {f"={s}" for s in base.subjects}
    assert sorted(r for rows in by_subject.values() for r in rows) == list(range(len(base)))
    by_id = block_rows(fr, base, "parent")
    assert all(k.startswith("#") and int(k[1:]) < ID_BUCKETS for k in by_id)
    child = Side(load_items(spec.dataset("toy-fr")))
    kids = block_rows(fr, child, "child")
    for key, rows in kids.items():  # each child's own id sits in its parent's bucket
        assert {child.ids[r] for r in rows} <= {base.ids[r] for r in by_id[key]}


def test_a_missing_rule_field_is_the_local_error(tmp_path: Path) -> None:
    spec = load_family(TOY)
    pro = spec.item_derivations()[0]
    bad = pro.__class__(**{**pro.__dict__, "link": pro.link.__class__(
        **{**pro.link.__dict__, "select": {"field": "nope", "regex": "x"}})})
    side = Side(load_items(spec.dataset("toy-pro")))
    with pytest.raises(SpecError, match="select names field 'nope'"):
        block_rows(bad, side, "child")


def test_stats_add_up_in_the_local_order() -> None:
    spec = load_family(TOY)
    d = spec.item_derivations()[0]
    a = {"child": d.child, "parent": d.parent, "activity": d.activity, "children": 2, "selected": 1,
         "linked": 1, "by_method": {"fuzzy": 1}, "unmatched": 0}
    b = {**a, "by_method": {"exact": 2}, "unmatched": 3}
    got = merge_stats(d, [a, b])
    assert list(got) == list(a)
    assert got["children"] == 4 and got["unmatched"] == 3
    assert got["by_method"] == {"exact": 2, "fuzzy": 1} and list(got["by_method"]) == ["exact", "fuzzy"]
    empty = merge_stats(d, [])
    assert empty["children"] == 0 and empty["by_method"] == {}


def test_worker_errors_come_back_as_the_first_the_local_linker_meets() -> None:
    late = ErrorRecord.of((1, 0, "=a", ""), SpecError("late", path="f.json", hint="h"))
    early = ErrorRecord.of((0, 3), InputError("missing", path="d/x.csv"))
    err = first_error([late, early])
    assert isinstance(err, InputError) and str(err) == "CL-E001 d/x.csv: missing"
    assert str(late.error()) == "CL-E003 f.json: late (h)"
    assert first_error([]) is None
    assert isinstance(ErrorRecord.of((0,), DataError("x")).error(), DataError)


def test_empty_parent_block_leaves_children_unmatched() -> None:
    spec = load_family(TOY)
    child = load_items(spec.dataset("toy-redux"))
    part = link_block(spec, 1, child, list(range(child.num_rows)), ITEMS_SCHEMA.empty_table())
    assert part.edges.num_rows == 0
    assert part.unmatched.num_rows == child.num_rows
    assert part.unmatched.column("__row").to_pylist() == list(range(child.num_rows))
    assert set(part.unmatched.column("reason").to_pylist()) == {"no parent in block"}
    assert isinstance(part.edges, pa.Table)
