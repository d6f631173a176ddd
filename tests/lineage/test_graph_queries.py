"""The lineage graph's queries, pinned (``lineage.graph``).

The invented family of tests/findings_helpers.py: every query's answer in full, the
family table's columns and types, chunked item tables, refs that Arrow cannot join,
null cells (option maps, alternatives, options), datasets that are not strings, and the
error messages for unknown refs.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from croissant_lineage.errors import InputError
from croissant_lineage.lineage.graph import (
    FAMILY_COLUMNS,
    Edge,
    ItemRecord,
    LineageGraph,
    relatives_of,
)
from croissant_lineage.lineage.model import Lineage
from tests.findings_helpers import BASE, PRO, edge, lineage, toy_lineage
from tests.helpers import items_table

TOY = toy_lineage()


def _edge(child: str, parent: str, activity: str, option_map: list[int], **kw: Any) -> Edge:
    row = edge(child, parent, activity, option_map, **kw)
    return Edge(child, parent, activity, row["method"], row["score"], 100.0, tuple(option_map), row["options_copied"],
                row["options_added"], 0, row["key_inherited"], row["stem_changed"], row["ambiguous"], ())


E10 = _edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3])
E11 = _edge("pro:11", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3])
E12 = _edge("pro:12", "base:s/1", "option_expansion", [0, 1, 2, 3, -1], key_inherited=False)
ET = _edge("trans:s/0", "base:s/0", "translation", [0, 1, 2, 3], stem_changed=None)
EA7 = _edge("ann:s/7", "base:s/0", "re_annotation", [0, 1, 2, 3])
ES10 = _edge("prosnap:10", "pro:10", "snapshot", [0, 1, 2, 3, 4, 5])
ES11 = _edge("prosnap:11", "pro:11", "snapshot", [0, 1, 2, 3, 4, 5])


def test_edges_and_walks_of_the_invented_family() -> None:
    g = LineageGraph(TOY)
    assert g.parents("pro:10") == [E10] and g.parents("base:s/0") == []
    assert g.children("base:s/0") == [E10, E11, ET, EA7]  # edge order
    assert g.children("pro:12") == [] and g.children("nowhere:1") == []
    down = g.descendants("base:s/0")
    # breadth first, each level in ref order
    assert [(r.ref, r.depth, r.path) for r in down] == [
        ("ann:s/7", 1, (EA7,)), ("pro:10", 1, (E10,)), ("pro:11", 1, (E11,)), ("trans:s/0", 1, (ET,)),
        ("prosnap:10", 2, (E10, ES10)), ("prosnap:11", 2, (E11, ES11)),
    ]
    assert [(r.ref, r.depth, r.path) for r in g.ancestors("prosnap:11")] == [
        ("pro:11", 1, (ES11,)), ("base:s/0", 2, (ES11, E11))]
    assert g.ancestors("base:s/1") == [] and g.descendants("prosnap:10") == []
    assert g.descendants("base:s/1")[1].to_dict() == {"ref": "pro:12", "depth": 1, "path": [E12.to_dict()]}
    assert E12.to_dict()["option_map"] == [0, 1, 2, 3, -1] and E12.to_dict()["alternatives"] == []
    assert E12.to_dict()["key_inherited"] is False


def test_a_diamond_is_walked_once_by_its_nearest_path() -> None:
    rows = [dict(BASE[0], item=str(i)) for i in range(4)]
    lin = lineage([items_table("d", rows)], [
        edge("d:1", "d:0", "a", [0, 1, 2, 3]), edge("d:2", "d:0", "b", [0, 1, 2, 3]),
        edge("d:3", "d:2", "c", [0, 1, 2, 3]), edge("d:3", "d:1", "c", [0, 1, 2, 3]),
    ])
    g = LineageGraph(lin)
    assert [(r.ref, r.depth, [e.parent for e in r.path]) for r in g.descendants("d:0")] == [
        ("d:1", 1, ["d:0"]), ("d:2", 1, ["d:0"]), ("d:3", 2, ["d:0", "d:1"])]
    assert [(r.ref, r.depth) for r in g.ancestors("d:3")] == [("d:1", 1), ("d:2", 1), ("d:0", 2)]


def test_items_duplicates_and_membership() -> None:
    g = LineageGraph(TOY)
    assert g.item("pro:12") == ItemRecord("pro:12", "pro", "12", "s", PRO[2]["stem"], tuple(PRO[2]["options"]), "D", "option")
    assert g.item("pro:12").key_text == "Hazel" and g.item("base:s/0").key_text == "Birch"
    assert g.duplicates("pro:10") == ["pro:11"] and g.duplicates("prosnap:11") == ["prosnap:10"]
    assert g.duplicates("base:s/0") == []
    assert "base:s/1" in g and "ann:s/8" in g and "pro:99" not in g and 3 not in g and None not in g
    assert g.documented_children("pro") == [{"child": "pro-x", "parent": "pro", "activity": "translation",
                                             "coverage": "documented", "languages": 3, "method": None,
                                             "threshold": None, "note": None}]
    g.documented_children("pro")[0]["child"] = "changed"  # a copy
    assert g.documented_children("pro")[0]["child"] == "pro-x" and g.documented_children("ann") == []


def test_key_text_edge_cases() -> None:
    rec = ItemRecord("d:1", "d", "1", None, "s", ("Ash", "Birch"), "B")
    assert rec.key_text == "Birch"
    assert ItemRecord("d:1", "d", "1", None, "s", ("Ash", "Birch"), "A").key_text == "Ash"
    assert ItemRecord("d:1", "d", "1", None, "s", ("Ash", "Birch"), "C").key_text is None
    assert ItemRecord("d:1", "d", "1", None, "s", ("Ash",), "@").key_text is None
    assert ItemRecord("d:1", "d", "1", None, "s", (), "A").key_text is None
    assert ItemRecord("d:1", "d", "1", None, "s", ("Ash",), None).key_text is None


def test_chunked_item_table_is_read_row_by_row() -> None:
    rows = [dict(BASE[0], item=str(i), stem=f"stem {i}", key="ABCD"[i % 4]) for i in range(7)]
    chunks = [items_table("c", rows[:3]), items_table("c", rows[3:4]), items_table("c", rows[4:])]
    lin = lineage(chunks, [])
    assert lin.items.column("stem").num_chunks == 3
    g = LineageGraph(lin)
    assert [(g.item(f"c:{i}").stem, g.item(f"c:{i}").key) for i in range(7)] == [
        (f"stem {i}", "ABCD"[i % 4]) for i in range(7)]
    assert g.item("c:6").options == tuple(BASE[0]["options"])


def test_without_items_the_graph_still_answers_edges() -> None:
    g = LineageGraph(TOY, with_items=False)
    assert "pro:10" in g and "base:s/1" in g and "pro:99" not in g
    r = relatives_of(g, "pro:10")
    assert r.item is None and [a.ref for a in r.ancestors] == ["base:s/0"]
    assert r.to_dict()["item"] is None


def test_unknown_refs_say_what_to_check() -> None:
    g = LineageGraph(TOY)
    with pytest.raises(InputError) as e:
        g.ancestors("pro:99")
    assert str(e.value) == "CL-E001 item 'pro:99' is not in the lineage (check the item id)"
    with pytest.raises(InputError) as e2:
        g.descendants("mmlu:1")
    assert str(e2.value) == ("CL-E001 item 'mmlu:1' is not in the lineage "
                             "(datasets are: ann, base, base-x, pro, pro-x, prosnap, trans)")
    with pytest.raises(InputError) as e3:
        g.item("no-colon")
    assert str(e3.value) == "CL-E001 item ref 'no-colon' is not 'dataset:item' (e.g. mmlu-pro:3542)"
    with pytest.raises(InputError):
        relatives_of(TOY, "pro:99")


def test_relatives_of_the_invented_family() -> None:
    r = relatives_of(TOY, "prosnap:11")
    assert r.ref == "prosnap:11" and r.item is not None and r.item.key == "A"
    assert r.duplicates == ("prosnap:10",) and r.descendants == () and r.findings == ()
    assert [d["child"] for d in r.documented] == ["pro-x", "base-x"]  # own dataset, then ancestors', once each
    assert r.rows() == [
        {**dict.fromkeys(FAMILY_COLUMNS), "ref": "prosnap:11", "relation": "item", "depth": 0},
        {"ref": "pro:11", "relation": "ancestor", "depth": 1, "via": "prosnap:11", "activity": "snapshot",
         "method": "exact", "score": 100.0, "options_copied": 6, "options_added": 0, "options_dropped": 0,
         "key_inherited": True, "stem_changed": False, "ambiguous": False},
        {"ref": "base:s/0", "relation": "ancestor", "depth": 2, "via": "pro:11", "activity": "option_expansion",
         "method": "exact", "score": 100.0, "options_copied": 4, "options_added": 2, "options_dropped": 0,
         "key_inherited": True, "stem_changed": False, "ambiguous": False},
        {**dict.fromkeys(FAMILY_COLUMNS), "ref": "prosnap:10", "relation": "duplicate", "depth": 0},
        {**dict.fromkeys(FAMILY_COLUMNS), "ref": "pro-x", "relation": "documented", "via": "pro",
         "activity": "translation"},
        {**dict.fromkeys(FAMILY_COLUMNS), "ref": "base-x", "relation": "documented", "via": "base",
         "activity": "translation"},
    ]
    down = relatives_of(TOY, "base:s/1").rows()
    assert [(x["ref"], x["relation"], x["via"], x["key_inherited"]) for x in down] == [
        ("base:s/1", "item", None, None), ("ann:s/8", "descendant", "base:s/1", True),
        ("pro:12", "descendant", "base:s/1", False), ("base-x", "documented", "base", None)]
    d = relatives_of(TOY, "base:s/0").to_dict()
    assert list(d) == ["ref", "item", "ancestors", "descendants", "duplicates", "documented", "findings"]
    assert d["item"] == {"ref": "base:s/0", "dataset": "base", "item": "s/0", "subject": "s", "stem": BASE[0]["stem"],
                         "options": BASE[0]["options"], "key": "B", "key_kind": "option", "answer": None}
    assert [x["ref"] for x in d["descendants"]] == ["ann:s/7", "pro:10", "pro:11", "trans:s/0", "prosnap:10",
                                                    "prosnap:11"]
    assert d["ancestors"] == [] and d["duplicates"] == [] and d["findings"] == []
    assert d["documented"] == [{"child": "base-x", "parent": "base", "activity": "translation", "languages": 5,
                                "coverage": "documented", "method": None, "threshold": None, "note": None}]


def test_family_frame_types() -> None:
    frame = relatives_of(TOY, "pro:10").to_pandas()
    assert list(frame.columns) == list(FAMILY_COLUMNS)
    assert frame["ref"].tolist() == ["pro:10", "base:s/0", "prosnap:10", "pro:11", "pro-x", "base-x"]
    for c in ("depth", "options_copied", "options_added", "options_dropped"):
        assert str(frame[c].dtype) == "Int64", c
    for c in ("key_inherited", "stem_changed", "ambiguous"):
        assert str(frame[c].dtype) == "boolean", c
    assert frame["depth"].tolist()[:4] == [0, 1, 1, 0] and frame["options_added"].tolist()[1] == 2
    assert frame["depth"].isna().tolist() == [False] * 4 + [True] * 2


def test_refs_that_arrow_cannot_join() -> None:
    # a null item id (Arrow would drop the row's ref) and a non-string dataset column
    items = items_table("base", BASE)
    lin = lineage([items], [edge("base:s/1", "base:s/0", "copy", [0, 1, 2, 3])])
    edges = lin.edges
    for name, values in (("child_item", pa.array(["s/1"], pa.large_string())),):
        edges = edges.set_column(edges.schema.get_field_index(name), name, values)
    g = LineageGraph(Lineage(family=lin.family, items=items, edges=edges, duplicates=lin.duplicates))
    assert g.parents("base:s/1")[0].parent == "base:s/0" and g.children("base:s/0")[0].child == "base:s/1"
    ints = pa.table({"dataset": pa.array([1, 2]), "item": pa.array(["a", None])})
    from croissant_lineage.lineage.refids import joined_refs as _refs

    assert _refs(ints.column("dataset"), ints.column("item")).to_pylist() == ["1:a", "2:None"]
    strs = pa.table({"dataset": ["x", "y"], "item": ["a", "b"]})
    assert _refs(strs.column("dataset"), strs.column("item")).to_pylist() == ["x:a", "y:b"]




def test_refs_are_written_as_join_ref_writes_them_nulls_included() -> None:
    # Arrow's join would give a null ref for a row with a null part; join_ref writes "None"
    from croissant_lineage.lineage.refids import joined_refs as _refs

    for dataset, item in ((["x", "y"], ["a", None]), (["x", None], ["a", "b"]), (["x", None], [None, "b"])):
        t = pa.table({"dataset": pa.array(dataset, pa.string()), "item": pa.array(item, pa.string())})
        assert _refs(t.column("dataset"), t.column("item")).to_pylist() == [f"{d}:{i}" for d, i in zip(dataset, item, strict=True)]


def test_item_ids_with_colons() -> None:
    # the dataset is the ref's text before its FIRST colon, for the item, its ancestors and
    # the error hint
    base = [dict(BASE[0], item="q:0")]
    pro = [dict(PRO[0], item="q:1")]
    lin = lineage([items_table("base", base), items_table("pro", pro)],
                  [edge("pro:q:1", "base:q:0", "option_expansion", [1, -1, 0, 2, -1, 3])],
                  documented=[{"child": "pro-x", "parent": "pro", "activity": "translation", "languages": 3},
                              {"child": "base-x", "parent": "base", "activity": "translation", "languages": 5}])
    r = relatives_of(lin, "pro:q:1")
    assert [a.ref for a in r.ancestors] == ["base:q:0"]
    assert [d["child"] for d in r.documented] == ["pro-x", "base-x"]
    with pytest.raises(InputError) as e:
        LineageGraph(lin).ancestors("pro:q:9")
    assert str(e.value) == "CL-E001 item 'pro:q:9' is not in the lineage (check the item id)"


def test_a_family_without_derivations_or_datasets() -> None:
    # family.json written before documented coverage existed has no "derivations"; a bare
    # one has no "datasets" either: queries still work and unknown refs still say so
    for family in ({"name": "toy", "datasets": [{"name": "base"}]}, {"name": "toy"}):
        lin = Lineage(family=family, items=TOY.items, edges=TOY.edges, duplicates=TOY.duplicates)
        g = LineageGraph(lin)
        assert g.documented_children("pro") == [] and [a.ref for a in g.ancestors("pro:10")] == ["base:s/0"]
        assert relatives_of(g, "pro:10").documented == ()
        with pytest.raises(InputError) as e:
            g.ancestors("mmlu:1")
        assert str(e.value).startswith("CL-E001 item 'mmlu:1' is not in the lineage")


def test_an_ambiguous_edge_says_so() -> None:
    lin = lineage([items_table("base", BASE), items_table("pro", PRO)],
                  [edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3], ambiguous=True),
                   edge("pro:12", "base:s/1", "option_expansion", [0, 1, 2, 3, -1])])
    g = LineageGraph(lin)
    assert g.parents("pro:10")[0].ambiguous is True and g.parents("pro:12")[0].ambiguous is False
    frame = relatives_of(g, "base:s/0").to_pandas()
    assert frame.set_index("ref").loc["pro:10", "ambiguous"]


def test_a_walk_goes_on_past_an_item_already_reached() -> None:
    # d:0 -> d:1, d:2; d:1 -> d:2 (reached already), d:3: d:3 must still be found under d:1
    rows = [dict(BASE[0], item=str(i)) for i in range(4)]
    lin = lineage([items_table("d", rows)], [
        edge("d:1", "d:0", "a", [0, 1, 2, 3]), edge("d:2", "d:0", "a", [0, 1, 2, 3]),
        edge("d:2", "d:1", "b", [0, 1, 2, 3]), edge("d:3", "d:1", "b", [0, 1, 2, 3]),
    ])
    g = LineageGraph(lin)
    assert [(r.ref, r.depth) for r in g.descendants("d:0")] == [("d:1", 1), ("d:2", 1), ("d:3", 2)]
    # and upwards: d:2's parents d:0, d:1; d:1's parent d:0 is reached already
    lin2 = lineage([items_table("d", rows)], [
        edge("d:3", "d:1", "a", [0, 1, 2, 3]), edge("d:3", "d:2", "a", [0, 1, 2, 3]),
        edge("d:1", "d:2", "b", [0, 1, 2, 3]), edge("d:1", "d:0", "b", [0, 1, 2, 3]),
    ])
    assert [(r.ref, r.depth) for r in LineageGraph(lin2).ancestors("d:3")] == [("d:1", 1), ("d:2", 1), ("d:0", 2)]


def test_findings_attached_to_relatives_are_in_the_json() -> None:
    from dataclasses import replace

    r = replace(relatives_of(TOY, "pro:12"), findings=({"id": "f1", "item": "pro:12", "target": "key"},))
    assert r.to_dict()["findings"] == [{"id": "f1", "item": "pro:12", "target": "key"}]


def test_an_item_without_a_record_is_a_coded_error() -> None:
    g = LineageGraph(TOY, with_items=False)
    with pytest.raises(InputError) as e:
        g.item("pro:10")
    assert str(e.value) == ("CL-E001 item 'pro:10': this graph was built without the item texts "
                            "(build it with LineageGraph(lineage, with_items=True))")
    # an edge names pro:10, but the item table lost it
    lin = lineage([items_table("base", BASE[:1])], [edge("pro:10", "base:s/0", "copy", [0, 1, 2, 3])])
    with pytest.raises(InputError) as e2:
        LineageGraph(lin).item("pro:10")
    assert str(e2.value) == ("CL-E001 item 'pro:10' is linked in the lineage but not in its item table "
                             "(the lineage's items were filtered or lost: re-run link)")
    assert LineageGraph(lin).item("base:s/0").stem == BASE[0]["stem"]


def test_an_item_in_no_edge_is_in_the_graph() -> None:
    # membership asks the item table too, not only the edges' ends
    g = LineageGraph(lineage([items_table("base", BASE)], []))
    assert "base:s/0" in g and "base:s/9" not in g and g.ancestors("base:s/0") == []




def test_cells_left_empty_read_as_empty_tuples() -> None:
    # option_map and alternatives may be null in an edge row, options in an item row: each
    # reads as (), not as a failure to iterate None; a filled alternatives list is joined
    # with the parent's dataset
    rows = [dict(PRO[0], options=None, key=None), PRO[1]]
    lin = lineage([items_table("base", BASE), items_table("pro", rows)], [
        dict(edge("pro:10", "base:s/0", "copy", [0, 1, 2, 3]), option_map=None, alternatives=None),
        dict(edge("pro:11", "base:s/0", "copy", [0, 1, 2, 3]), alternatives=["s/1"], ambiguous=True),
    ])
    g = LineageGraph(lin)
    bare, tied = g.parents("pro:10")[0], g.parents("pro:11")[0]
    assert (bare.option_map, bare.alternatives) == ((), ()) and bare.to_dict()["option_map"] == []
    assert (tied.option_map, tied.alternatives) == ((0, 1, 2, 3), ("base:s/1",))
    assert [r.path[0] for r in LineageGraph(lin).descendants("base:s/0")] == [bare, tied]
    record = g.item("pro:10")
    assert (record.options, record.key, record.key_text) == ((), None, None)
    assert relatives_of(g, "pro:10").to_dict()["item"]["options"] == []
    assert g.item("pro:11").options == tuple(PRO[1]["options"])


@pytest.mark.parametrize("dataset", [pa.array([None] * len(BASE), pa.string()), pa.array([7] * len(BASE))],
                         ids=["null", "int"])
def test_an_item_whose_dataset_is_not_a_string_reads_its_id_from_its_row(dataset: pa.Array) -> None:
    # the ref joins a missing dataset as "None" and an int as its text; the record keeps the
    # dataset as the row holds it, and the id is the row's (not the ref cut at len(dataset))
    items = items_table("base", BASE)
    items = items.set_column(items.schema.get_field_index("dataset"), pa.field("dataset", dataset.type), dataset)
    empty = lineage([items_table("base", BASE)], [])
    g = LineageGraph(Lineage(family=empty.family, items=items, edges=empty.edges, duplicates=empty.duplicates))
    name = dataset[0].as_py()
    ref = f"{name}:s/1"
    assert g._ids_in_refs  # (the ids are strings: only the dataset sends the record to its row)
    assert g.item(ref) == ItemRecord(ref, name, "s/1", "s", BASE[1]["stem"], tuple(BASE[1]["options"]), "C", "option")
    assert relatives_of(g, ref).item == g.item(ref)


REFS = sorted({f"{d}:{i}" for d, i in zip(TOY.items.column("dataset").to_pylist(), TOY.items.column("item").to_pylist(),
                                         strict=True)})


def _anew(ref: str) -> str:
    """``ref`` as a new string object (equal, neither the literal nor the graph's own)."""
    dataset, _, item = ref.partition(":")
    return ":".join([dataset, item])


def _shares_near_ends(walk: list[Any], ref: str, up: bool) -> bool:
    near, far = ("child", "parent") if up else ("parent", "child")
    return all(getattr(r.path[0], near) is ref and getattr(r.path[-1], far) is r.ref
               and all(getattr(b, near) is getattr(a, far) for a, b in zip(r.path, r.path[1:], strict=False)) for r in walk)


def test_edges_hold_the_refs_their_query_already_has() -> None:
    # An edge's fields are read once and kept; the end a query comes from is the ref it
    # already holds (the one asked about, or the relative a walk reached), not a copy read
    # back from the numbered refs: an item's edges share its ref string as they share
    # option maps (memory: one string per item, not one per edge end kept)
    for ref in REFS:
        q = _anew(ref)
        assert all(e.child is q for e in LineageGraph(TOY).parents(q))
        assert all(e.parent is q for e in LineageGraph(TOY).children(q))
        assert _shares_near_ends(LineageGraph(TOY).ancestors(q), q, up=True)
        assert _shares_near_ends(LineageGraph(TOY).descendants(q), q, up=False)
        family = relatives_of(LineageGraph(TOY), q)
        assert _shares_near_ends(list(family.ancestors), q, True) and _shares_near_ends(list(family.descendants), q, False)
        # read once: a second query is answered from the fields the first kept
        g = LineageGraph(TOY)
        first, again = g.parents(q), g.parents(_anew(ref))
        assert [(e.child, e.parent) for e in again] == [(e.child, e.parent) for e in first]
        assert all(a.child is q and a.parent is b.parent for a, b in zip(again, first, strict=True))
    assert any(r.depth == 2 for r in LineageGraph(TOY).ancestors("prosnap:11"))  # (paths of two edges are checked)
