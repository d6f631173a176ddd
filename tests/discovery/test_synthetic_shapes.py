"""Family discovery on the synthetic families of every key shape (number, text, set, code),
written by ``croissant_lineage.testing.synthetic.generate_family`` and checked against the
generator's truth (``truth.parquet``) and manifest (``synthetic.json``): every child dataset's
parent (a twin: the one content shows came first, or undecided when no content says),
precision and recall of the item edges, and the activity the truth intends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from croissant_lineage.discovery.family import FamilyDiscovery, discover_family
from croissant_lineage.discovery.propose import discover
from croissant_lineage.testing.synthetic import MANIFEST, generate_family

SHAPES = ("number", "text", "set", "code")
ITEMS = 100


@pytest.fixture(scope="module", params=SHAPES)
def family(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, FamilyDiscovery]:
    folder = tmp_path_factory.mktemp(f"syn-{request.param}")
    fam = generate_family(folder / "family", ITEMS, seed=1, shape=request.param)
    result = discover_family(fam.spec, out=folder / "disc")
    return folder / "family", result


def _manifest(folder: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    return doc


def _truth(folder: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(folder / "truth.parquet").to_pylist()
    return rows


def _undecided_twins(folder: Path) -> set[str]:
    """The twins no content tells from the root (their truth rows name no direction)."""
    return {d for t in _manifest(folder)["twins"] if t["older"] is None for d in t["datasets"] if d != "syn-root"}


def test_every_child_finds_its_parent(family: tuple[Path, FamilyDiscovery]) -> None:
    folder, result = family
    undecided = _undecided_twins(folder)
    truth = {(r["child_dataset"], r["parent_dataset"]) for r in _truth(folder)}
    for twin in _manifest(folder)["twins"]:
        if twin["older"] is not None:  # the twin content shows came second has the older one as parent
            (younger,) = (d for d in twin["datasets"] if d != twin["older"])
            assert result.parent_of(younger) == twin["older"]
    for child, parent in sorted(truth):
        if child in undecided:
            continue
        assert result.parent_of(child) == parent, child


def test_twins_without_signal_are_undecided(family: tuple[Path, FamilyDiscovery]) -> None:
    folder, result = family
    undecided = _undecided_twins(folder)
    assert undecided  # the generator writes one
    for name in undecided:
        assert result.parent_of(name) is None
        assert not any(p.parent == name for p in result.proposals)  # never a parent either
        (rel,) = [r for r in result.twins if {r.a, r.b} == {name, "syn-root"}]
        assert rel.parent is None and rel.rule.startswith("direction undecided")


def test_item_edges_match_the_truth(family: tuple[Path, FamilyDiscovery]) -> None:
    folder, result = family
    undecided = _undecided_twins(folder)
    want = {(r["child_dataset"], r["child_item"], r["parent_dataset"], r["parent_item"])
            for r in _truth(folder) if r["child_dataset"] not in undecided}
    edges = result.lineage.edges
    got = set(zip(*(edges.column(c).to_pylist() for c in ("child_dataset", "child_item", "parent_dataset", "parent_item")),
                  strict=True))
    hit = len(want & got)
    assert hit / len(want) >= 0.99  # recall
    assert hit / len(got) >= 0.99  # precision


def test_activities_are_the_intended_ones(family: tuple[Path, FamilyDiscovery]) -> None:
    folder, result = family
    kinds = {r["child_dataset"]: r["kind"] for r in _truth(folder)}
    got = {p.child: p.activity for p in result.proposals}
    undecided = _undecided_twins(folder)
    assert got == {c: k for c, k in kinds.items() if c not in undecided}


def test_both_modes_give_one_answer(family: tuple[Path, FamilyDiscovery]) -> None:
    """Each child against its parent alone (single-dataset mode, its spec's roles given) gets
    the parent, activity and edges family mode proposes (a translation's kind aside: single
    mode reads the languages from the descriptors, which declare none here)."""
    folder, result = family
    doc = json.loads((folder / "family.json").read_text(encoding="utf-8"))
    corpus = folder / "corpus.json"  # beside the spec: its descriptors' paths are relative
    root = [d for d in doc["datasets"] if d["name"] == "syn-root"]
    corpus.write_text(json.dumps(dict(doc, datasets=root, derivations=[])), encoding="utf-8")
    for p in result.proposals:
        mine = next(d for d in doc["datasets"] if d["name"] == p.child)
        roles = {k: v for k, v in mine["roles"].items() if k != "id"}
        single = discover([folder / mine["descriptor"]], [corpus], roles=roles)
        (q,) = single.proposals
        assert (q.parent, q.linked) == (p.parent, p.linked), p.child
        assert q.activity == p.activity or p.child == "syn-xx", p.child
        assert _pairs(single.lineage.edges, p.child) == _pairs(result.lineage.edges, p.child), p.child


def _pairs(edges: Any, child: str) -> set[tuple[str, str]]:
    rows = zip(*(edges.column(c).to_pylist() for c in ("child_dataset", "child_item", "parent_item")), strict=True)
    return {(c, p) for d, c, p in rows if d == child}
