"""One item's family read from a lineage folder gives the whole lineage's answers."""

from __future__ import annotations

import random

import pyarrow.parquet as pq
import pytest

from croissant_lineage.errors import InputError
from croissant_lineage.findings.query import route_graph
from croissant_lineage.findings.routing import route_item
from croissant_lineage.lineage.graph import LineageGraph, relatives_of
from croissant_lineage.lineage.index import INDEX_FILE, QUERY_ROW_GROUP, RefIndex, read_rows
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.query import family_closure, family_lineage


def _refs(lineage: Lineage) -> list[str]:
    items = lineage.items
    return [f"{d}:{i}" for d, i in zip(items.column("dataset").to_pylist(), items.column("item").to_pylist(), strict=True)]


def _same_relatives(folder, whole: LineageGraph, ref: str) -> None:
    want = relatives_of(whole, ref).to_dict()
    assert relatives_of(LineageGraph(family_lineage(folder, ref)), ref).to_dict() == want
    assert relatives_of(LineageGraph(family_lineage(folder, ref, texts=[ref])), ref).to_dict() == want
    assert relatives_of(str(folder), ref).to_dict() == want  # (a folder with an index: the family read)


def _same_route(folder, whole: LineageGraph, ref: str, findings=()) -> None:
    mine = route_item(route_graph(folder, [ref], findings), ref, findings).to_dict()
    assert mine == route_item(whole, ref, findings).to_dict()


def test_every_toy_item_same_relatives_and_route(toy_lineage, toy_lineage_path):
    whole = LineageGraph(Lineage.read(toy_lineage_path))
    for ref in _refs(toy_lineage):
        _same_relatives(toy_lineage_path, whole, ref)
        _same_route(toy_lineage_path, whole, ref)


def test_toy_family_reads_fewer_rows(toy_lineage, toy_lineage_path):
    ref = _refs(toy_lineage)[0]
    part = family_lineage(toy_lineage_path, ref)
    assert 0 < part.items.num_rows < toy_lineage.items.num_rows
    assert part.records is False and part.unmatched.num_rows == 0


def test_texts_are_read_for_the_items_named_only(toy_lineage, toy_lineage_path):
    whole = {r["dataset"] + ":" + r["item"]: r for r in toy_lineage.items.select(["dataset", "item", "stem", "options", "key"]).to_pylist()}
    ref = max(_refs(toy_lineage), key=lambda r: family_lineage(toy_lineage_path, r).items.num_rows)
    full = family_lineage(toy_lineage_path, ref)
    part = family_lineage(toy_lineage_path, ref, texts=[ref])
    assert full.items.num_rows > 1
    # same rows, same order, same few-valued columns; the texts of the item named alone
    for name in ("dataset", "item", "subject", "key"):
        assert part.items.column(name).to_pylist() == full.items.column(name).to_pylist()
    for row in part.items.select(["dataset", "item", "stem", "options"]).to_pylist():
        r = row["dataset"] + ":" + row["item"]
        if r == ref:
            assert (row["stem"], row["options"]) == (whole[r]["stem"], whole[r]["options"])
        else:
            assert row["stem"] is None and row["options"] is None
    assert part.items.schema == full.items.schema


def test_index_points_at_the_rows(toy_lineage, toy_lineage_path):
    index = RefIndex(toy_lineage_path / INDEX_FILE)
    refs = _refs(toy_lineage)
    found = index.lookup(refs)
    assert set(found) >= set(refs)
    for n, ref in enumerate(refs):
        assert [row for kind, row, _ in found[ref] if kind == 0] == [n]
    edges = toy_lineage.edges
    e = read_rows(toy_lineage_path / "edges.parquet", [edges.num_rows - 1])
    assert e.to_pylist() == edges.slice(edges.num_rows - 1).to_pylist()


def test_unknown_item_same_error(toy_lineage_path):
    with pytest.raises(InputError):
        relatives_of(LineageGraph(family_lineage(toy_lineage_path, "nosuch:1")), "nosuch:1")


def test_closure_name_checked(toy_lineage_path):
    with pytest.raises(ValueError):
        family_closure(RefIndex(toy_lineage_path / INDEX_FILE), ["x:1"], "everything")


def test_folder_without_index_read_whole(toy_lineage, toy_lineage_path, tmp_path):
    old = toy_lineage.write(tmp_path / "old")
    (old / INDEX_FILE).unlink()
    ref = _refs(toy_lineage)[0]
    assert family_lineage(old, ref).items.num_rows == toy_lineage.items.num_rows


def test_small_row_groups(tmp_path):
    from croissant_lineage.testing.synthetic import generate_family
    from croissant_lineage.workflows import link

    fam = generate_family(tmp_path / "data", items=QUERY_ROW_GROUP + 500, seed=1)
    folder = link(fam.spec).write(tmp_path / "lineage")
    meta = pq.ParquetFile(folder / "items.parquet").metadata
    assert meta.num_row_groups > 1 and meta.row_group(0).num_rows == QUERY_ROW_GROUP
    whole = LineageGraph(Lineage.read(folder))
    refs = _refs(Lineage.read(folder, records=False))
    for ref in random.Random(0).sample(refs, 40):
        _same_relatives(folder, whole, ref)
        _same_route(folder, whole, ref)


def test_mmlu_sample_same_relatives_and_route(mmlu_lineage_dir, mmlu_lineage, mmlu_redux):
    whole = LineageGraph(mmlu_lineage)
    findings = mmlu_redux.findings
    refs = ["mmlu-pro:3542", "mmlu:college_chemistry/test/86", *random.Random(7).sample(_refs(mmlu_lineage), 40)]
    for ref in refs:
        _same_relatives(mmlu_lineage_dir, whole, ref)
        _same_route(mmlu_lineage_dir, whole, ref, findings)


def test_index_row_groups_have_ref_statistics_and_prune(tmp_path):
    from croissant_lineage.lineage.index import INDEX_ROW_GROUP
    from croissant_lineage.testing.synthetic import generate_family
    from croissant_lineage.workflows import link

    fam = generate_family(tmp_path / "data", items=3 * INDEX_ROW_GROUP, seed=2)
    folder = link(fam.spec).write(tmp_path / "lineage")
    meta = pq.ParquetFile(folder / INDEX_FILE).metadata
    assert meta.num_row_groups > 2
    assert all(meta.row_group(g).column(0).statistics.has_min_max for g in range(meta.num_row_groups))
    index = RefIndex(folder / INDEX_FILE)
    ref = _refs(Lineage.read(folder, records=False))[-1]
    assert len(index._candidates(ref)) == 1


def test_as_graph_of_a_folder_with_refs_reads_their_family(toy_lineage, toy_lineage_path, monkeypatch):
    from croissant_lineage.lineage import model as model_module
    from croissant_lineage.lineage.graph import as_graph, graph_of

    whole = LineageGraph(Lineage.read(toy_lineage_path))
    refs = _refs(toy_lineage)
    monkeypatch.setattr(model_module.Lineage, "read", classmethod(lambda *a, **k: pytest.fail("whole lineage read")))
    sizes = set()
    for ref in refs:
        graph = as_graph(toy_lineage_path, refs=[ref])
        sizes.add(graph.lineage.items.num_rows)
        assert relatives_of(graph, ref).to_dict() == relatives_of(whole, ref).to_dict()
        assert route_item(graph, ref).to_dict() == route_item(whole, ref).to_dict()
    assert max(sizes) < toy_lineage.items.num_rows
    # a Lineage in memory keeps its graph, refs or not
    assert as_graph(toy_lineage, refs=[refs[0]]) is graph_of(toy_lineage)


def test_as_graph_refs_is_a_collection(toy_lineage_path):
    from croissant_lineage.errors import ArgumentError
    from croissant_lineage.lineage.graph import as_graph

    with pytest.raises(ArgumentError) as caught:
        as_graph(toy_lineage_path, refs="toy-pro:105")
    assert caught.value.code == "CL-E011"


def test_relatives_of_a_folder_without_index(toy_lineage, toy_lineage_path, tmp_path):
    old = toy_lineage.write(tmp_path / "old")
    (old / INDEX_FILE).unlink()
    whole = LineageGraph(Lineage.read(toy_lineage_path))
    for ref in _refs(toy_lineage)[:10]:
        assert relatives_of(old, ref).to_dict() == relatives_of(whole, ref).to_dict()


def test_footer_blocks_past_the_threshold_answer_the_same(tmp_path, monkeypatch):
    from croissant_lineage.lineage import footers
    from croissant_lineage.testing.synthetic import generate_family
    from croissant_lineage.workflows import link

    monkeypatch.setattr(footers, "BLOCK_THRESHOLD", 2)
    monkeypatch.setattr(footers, "BLOCK_GROUPS", 2)
    fam = generate_family(tmp_path / "data", items=5 * QUERY_ROW_GROUP, seed=3)
    lineage = link(fam.spec)
    folder = lineage.write(tmp_path / "lineage")
    for name in ("items.parquet", "edges.parquet", INDEX_FILE):
        meta = pq.ParquetFile(folder / name).metadata
        assert meta.num_row_groups > 2 and meta.row_group(0).num_rows >= QUERY_ROW_GROUP, name
        blocks = footers.read_footer_blocks(folder / name)
        assert blocks is not None and len(blocks) == -(-meta.num_row_groups // 2), name
    assert footers.read_footer_blocks(folder / "duplicates.parquet") is None  # (two groups or fewer: none)
    assert Lineage.read(folder) == lineage
    # every query of the family opens block footers only, never a whole footer
    opened: list[bool] = []
    real = footers.pq.ParquetFile

    class Spy(real):  # type: ignore[misc, valid-type]
        def __init__(self, source, **kw):
            opened.append(kw.get("metadata") is not None or not str(source).endswith(("items.parquet", "edges.parquet", INDEX_FILE)))
            super().__init__(source, **kw)

    monkeypatch.setattr(footers.pq, "ParquetFile", Spy)
    whole = LineageGraph(Lineage.read(folder))
    refs = random.Random(3).sample(_refs(Lineage.read(folder, records=False)), 30)
    opened.clear()
    for ref in refs:
        _same_relatives(folder, whole, ref)
        _same_route(folder, whole, ref)
    assert opened and all(opened)
