"""The graph's answers are what the dataclasses' constructors build, coded or not.

Edges, relatives, item records and families are filled without the frozen dataclass's
``__init__`` (graph._filled), and the few-valued columns are read through one code a row
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
    coded = LineageGraph(TOY)
    expected = [repr(o) for o in _objects(coded)]
    assert [type(c).__name__ for c in (*coded._edge_cells, *coded._item_cells)] == ["CodedRows", "Rows"] * 2
    monkeypatch.setattr(cells, "CODED_VALUES", 1)
    plain = LineageGraph(TOY)
    assert [repr(o) for o in _objects(plain)] == expected
    assert [type(c).__name__ for c in (*plain._edge_cells, *plain._item_cells)] == ["Rows"] * 4
