"""The graph's answers are what the dataclasses' constructors build, coded or not.

Edges, relatives, item records and families are filled without the frozen dataclass's
``__init__`` (graph._new), and the few-valued columns are read through one code a row
(cells.CodedRows): both must give exactly what the plain way gives.
"""

from __future__ import annotations

import pickle
from dataclasses import fields
from typing import Any

import pytest

from croissant_lineage.lineage import cells
from croissant_lineage.lineage.graph import (
    Edge,
    ItemRecord,
    LineageGraph,
    Relative,
    Relatives,
    relatives_of,
)
from tests.findings_helpers import toy_lineage

TOY = toy_lineage()
REFS = sorted({f"{d}:{i}" for d, i in zip(TOY.items.column("dataset").to_pylist(), TOY.items.column("item").to_pylist(),
                                         strict=True)})


def _objects(g: LineageGraph) -> list[Any]:
    out: list[Any] = []
    for ref in REFS:
        family = relatives_of(g, ref)
        out += [family, family.item, *g.parents(ref), *g.children(ref)]
        out += [r for r in (*family.ancestors, *family.descendants)] + [e for r in family.ancestors for e in r.path]
    return out


def test_filled_objects_are_what_their_constructors_build() -> None:
    objects = _objects(LineageGraph(TOY))
    assert {type(o) for o in objects} == {Relatives, ItemRecord, Edge, Relative}
    for o in objects:
        built = type(o)(**{f.name: getattr(o, f.name) for f in fields(o)})
        assert vars(o) == vars(built) and list(vars(o)) == list(vars(built)) == [f.name for f in fields(o)]
        assert o == built and repr(o) == repr(built)
        assert isinstance(o, Relatives) or hash(o) == hash(built)  # (a family holds dicts: no hash)
        assert pickle.dumps(o) == pickle.dumps(built)
        with pytest.raises(AttributeError):
            o.ref = "x"  # still frozen
    assert not any(hasattr(cls, "__post_init__") for cls in (Relatives, ItemRecord, Edge, Relative))


def test_columns_that_do_not_code_answer_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cells, "_FEW_ROWS", 0)  # (the toy's tables are small enough to read cell by cell)
    coded = LineageGraph(TOY)
    expected = [repr(o) for o in _objects(coded)]
    # edges: few-valued columns, the others, the content statuses; items: few-valued, the others, the keys
    assert [type(c).__name__ for c in (*coded._edge_cells, *coded._item_cells)] == [
        "CodedRows", "Rows", "CodedRows", "CodedRows", "Rows", "Rows"]
    monkeypatch.setattr(cells, "CODED_VALUES", 1)
    plain = LineageGraph(TOY)
    assert [repr(o) for o in _objects(plain)] == expected
    assert [type(c).__name__ for c in (*plain._edge_cells, *plain._item_cells)] == ["Rows"] * 6


def test_small_tables_are_read_cell_by_cell() -> None:
    graph = LineageGraph(TOY)
    [repr(o) for o in _objects(graph)]
    assert TOY.edges.num_rows <= cells._FEW_ROWS
    assert [type(c).__name__ for c in (*graph._edge_cells, *graph._item_cells)] == ["Rows"] * 6


def _both_ends_read(g: LineageGraph, i: int) -> Edge:
    """The edge of row ``i`` as built with both ends read from the ref numbers (no near end given)."""
    fresh = LineageGraph(g.lineage)
    return fresh._edge(i)


@pytest.mark.parametrize("order", ["queries first", "parents first"])
def test_edges_built_from_a_walk_are_the_edges_read_end_to_end(order: str) -> None:
    """A walk hands each edge the ref of its near end; the edge kept is the same either way,
    whichever query builds it first."""
    g = LineageGraph(TOY)
    if order == "parents first":
        for ref in REFS:
            g.parents(ref), g.children(ref)
    answers = [repr(relatives_of(g, ref)) for ref in REFS] + [repr((g.parents(r), g.children(r))) for r in REFS]
    n = TOY.edges.num_rows
    assert len(g._edges) == n  # every edge reached
    assert [g._edge(i) for i in range(n)] == [_both_ends_read(g, i) for i in range(n)]
    assert answers == [repr(relatives_of(LineageGraph(TOY), ref)) for ref in REFS] + [
        repr((LineageGraph(TOY).parents(r), LineageGraph(TOY).children(r))) for r in REFS]


def test_a_ref_of_a_str_subclass_is_not_kept_in_an_edge() -> None:
    class Ref(str):
        pass

    g = LineageGraph(TOY)
    for ref in REFS:
        family = relatives_of(g, Ref(ref))
        parents, children = g.parents(Ref(ref)), g.children(Ref(ref))
        edges = [e for r in (*family.ancestors, *family.descendants) for e in r.path] + parents + children
        assert all(type(e.child) is str and type(e.parent) is str for e in edges)
    assert all(type(f["child"]) is str and type(f["parent"]) is str for f in g._edges.values())
    assert len(g._edges) == TOY.edges.num_rows
    # and the ends read instead are the refs themselves (each query first on a new graph)
    for ref in REFS:
        plain = LineageGraph(TOY)
        assert LineageGraph(TOY).parents(Ref(ref)) == plain.parents(ref)
        assert LineageGraph(TOY).children(Ref(ref)) == plain.children(ref)
        assert LineageGraph(TOY).ancestors(Ref(ref)) == plain.ancestors(ref)
        assert LineageGraph(TOY).descendants(Ref(ref)) == plain.descendants(ref)


def test_kept_edges_are_fields_the_cyclic_gc_stops_tracking() -> None:
    """Each query builds new Edge objects from fields kept once per edge: the kept dicts hold
    only strings, numbers and shared option maps, which the GC untracks once they are old
    (kept Edge objects would stay tracked, and every full collection would walk them)."""
    import gc

    g = LineageGraph(TOY)
    first = [relatives_of(g, ref) for ref in REFS]
    again = [relatives_of(g, ref) for ref in REFS]
    assert first == again
    edges = [(a, b) for f, h in zip(first, again, strict=True) for r, s in zip(f.ancestors, h.ancestors, strict=True)
             for a, b in zip(r.path, s.path, strict=True)]
    assert edges and all(a == b and a is not b for a, b in edges)  # equal, built anew
    kept = list(g._edges.values())
    assert all(list(f) == [x.name for x in fields(Edge)] for f in kept)
    maps = [f["option_map"] for f in kept]
    assert len({id(m) for m in maps}) == len(set(maps))  # each option map once
    gc.collect()
    assert not any(gc.is_tracked(f) for f in kept)


def test_an_item_id_read_from_its_ref_is_the_one_its_row_holds() -> None:
    """The record takes the item's id from the ref that found its row (dataset, ``:``,
    id); when ids could be missing or not strings it reads the row: the same records."""
    g = LineageGraph(TOY)
    assert g._ids_in_refs
    fast = [g._record(ref, g._row(ref)) for ref in REFS]  # type: ignore[arg-type]
    g._ids_in_refs = False
    read = [g._record(ref, g._row(ref)) for ref in REFS]  # type: ignore[arg-type]
    assert fast == read and [r.item for r in fast] == [ref.partition(":")[2] for ref in REFS]
    assert all(type(r.item) is str for r in fast)


def test_item_ids_that_are_not_all_strings_are_read_from_their_rows() -> None:
    import pyarrow as pa

    from croissant_lineage.lineage.model import Lineage

    items = TOY.items
    ids = items.column("item").to_pylist()
    colon = items.set_column(items.schema.get_field_index("item"), "item", pa.array([f"x:{i}" for i in ids]))
    lineage = Lineage(family=TOY.family, items=colon, edges=TOY.edges.slice(0, 0), duplicates=TOY.duplicates.slice(0, 0))
    g = LineageGraph(lineage)
    assert g._ids_in_refs
    refs = [f"{d}:x:{i}" for d, i in zip(items.column("dataset").to_pylist(), ids, strict=True)]
    assert [g.item(r).item for r in refs] == [f"x:{i}" for i in ids]  # (an id with a colon: the ref's rest)
    wide = items.set_column(items.schema.get_field_index("item"), pa.field("item", pa.large_string()),
                            pa.array(ids, pa.large_string()))
    assert LineageGraph(Lineage(family=TOY.family, items=wide, edges=TOY.edges, duplicates=TOY.duplicates))._ids_in_refs
    numbers = items.set_column(items.schema.get_field_index("item"), pa.field("item", pa.int64()),
                               pa.array(range(len(ids)), pa.int64()))
    g = LineageGraph(Lineage(family=TOY.family, items=numbers, edges=TOY.edges.slice(0, 0),
                             duplicates=TOY.duplicates.slice(0, 0)))
    assert not g._ids_in_refs
    first = f"{items.column('dataset')[0].as_py()}:0"
    assert g.item(first).item == 0  # (read from the row: an int, not the ref's text)
