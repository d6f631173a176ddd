"""PROV-CONSTRAINTS checks: each code fires on a graph that breaks it; the shipped families pass."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from croissant_lineage.lineage.info import DerivationInfo
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.prov import build_graph, serialize_lineage, write_prov
from croissant_lineage.prov.constraints import CODES, check_graph, check_lines

P = "http://www.w3.org/ns/prov#"
A = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"


def _nt(*triples: str) -> list[bytes]:
    return [f"{t} .\n".encode() for t in triples]


def _derivation(*, used: bool = True, generated: bool = True, unqualified: bool = True) -> list[bytes]:
    lines = [
        f"<x:child> <{P}qualifiedDerivation> <x:d>",
        f"<x:d> <{P}entity> <x:parent>",
        f"<x:d> <{P}hadActivity> <x:act>",
        f"<x:act> {A} <{P}Activity>",
    ]
    if unqualified:
        lines.append(f"<x:child> <{P}wasDerivedFrom> <x:parent>")
    if used:
        lines.append(f"<x:act> <{P}used> <x:parent>")
    if generated:
        lines.append(f"<x:child> <{P}wasGeneratedBy> <x:act>")
    return _nt(*lines)


def _codes(lines: list[bytes]) -> list[str]:
    return [v.code for v in check_lines(lines)]


def test_a_complete_derivation_passes() -> None:
    assert check_lines(_derivation()) == []


def test_the_activity_must_use_the_parent_and_generate_the_child() -> None:
    assert _codes(_derivation(used=False)) == ["derivation-activity"]
    assert _codes(_derivation(generated=False)) == ["derivation-activity"]
    assert _codes(_derivation(unqualified=False)) == ["derivation-unqualified"]


def test_an_activity_that_used_a_collection_used_its_members() -> None:
    lines = _nt(
        f"<x:child> <{P}qualifiedDerivation> <x:d>",
        f"<x:child> <{P}wasDerivedFrom> <x:parent>",
        f"<x:d> <{P}entity> <x:parent>",
        f"<x:d> <{P}hadActivity> <x:act>",
        f"<x:act> <{P}used> <x:P>",
        f"<x:P> <{P}hadMember> <x:parent>",
        f"<x:C> <{P}wasGeneratedBy> <x:act>",
        f"<x:C> <{P}hadMember> <x:child>",
    )
    assert check_lines(lines) == []
    assert _codes([ln for ln in lines if b"<x:C> " not in ln]) == ["derivation-activity"]


def test_an_entity_generated_by_two_activities() -> None:
    lines = [*_derivation(), *_nt(f"<x:child> <{P}wasGeneratedBy> <x:other>")]
    (v,) = check_lines(lines)
    assert (v.code, v.node) == ("generation-unique", "<x:child>")


def test_a_derivation_adds_its_generation() -> None:
    """Inference 11: a derivation's activity generated the child, whatever else did."""
    lines = [*_derivation(generated=False), *_nt(f"<x:child> <{P}wasGeneratedBy> <x:other>")]
    assert sorted(_codes(lines)) == ["derivation-activity", "generation-unique"]


def test_time_order() -> None:
    dt = "^^<http://www.w3.org/2001/XMLSchema#dateTime>"
    lines = _nt(
        f'<x:act> <{P}startedAtTime> "2024-01-02T00:00:00Z"{dt}',
        f'<x:act> <{P}endedAtTime> "2024-01-01T00:00:00Z"{dt}',
        f"<x:child> <{P}wasDerivedFrom> <x:parent>",
        f'<x:child> <{P}generatedAtTime> "2020-01-01T00:00:00Z"{dt}',
        f'<x:parent> <{P}generatedAtTime> "2021-01-01T00:00:00Z"{dt}',
    )
    assert sorted((v.code, v.node) for v in check_lines(lines)) == [
        ("time-order", "<x:act>"), ("time-order", "<x:child>"),
    ]
    fixed = [ln.replace(b"2024-01-02", b"2023-12-31").replace(b"2020-01-01", b"2022-01-01") for ln in lines]
    assert check_lines(fixed) == []


def test_an_entity_is_not_an_activity() -> None:
    lines = _nt(f"<x:e> {A} <{P}Entity>", f"<x:d> <{P}hadActivity> <x:e>")
    assert [(v.code, v.node) for v in check_lines(lines)] == [("type-disjoint", "<x:e>")]
    assert set(CODES) >= set(_codes(lines))


def test_the_toy_family_passes(toy_lineage: Lineage) -> None:
    graph = build_graph(toy_lineage, time="2024-01-01T00:00:00Z")
    assert check_graph(graph) == []
    nt = serialize_lineage(toy_lineage, fmt="nt", time="2024-01-01T00:00:00Z")
    assert check_lines(nt.splitlines(keepends=True)) == []


def test_the_mmlu_family_passes(mmlu_lineage_dir: Path, tmp_path: Path) -> None:
    """The whole family: every item and edge of its 19 datasets."""
    out = write_prov(mmlu_lineage_dir, tmp_path / "mmlu.nt", fmt="nt", time="2024-01-01T00:00:00Z")
    assert out.edges > 50_000
    with open(out.path, "rb") as fh:
        assert check_lines(fh) == []


def test_the_humaneval_family_passes(humaneval_lineage_dir: Path, tmp_path: Path) -> None:
    out = write_prov(humaneval_lineage_dir, tmp_path / "humaneval.nt", fmt="nt", time="2024-01-01T00:00:00Z")
    assert out.edges > 900
    with open(out.path, "rb") as fh:
        assert check_lines(fh) == []


@pytest.mark.parametrize("drop", [b"prov#used>", b"prov#wasGeneratedBy>"])
def test_the_toy_family_fails_without_its_usages_or_generations(toy_lineage: Lineage, drop: bytes) -> None:
    nt = serialize_lineage(toy_lineage, fmt="nt")
    lines = [ln for ln in nt.splitlines(keepends=True) if drop not in ln]
    assert {v.code for v in check_lines(lines)} == {"derivation-activity"}


def two_parent_lineage(toy: Lineage) -> Lineage:
    """The toy family with toy-redux derived from toy-pro as well as from toy-base, and one
    toy-redux item linked to a toy-pro item beside its toy-base parent."""
    family = dataclasses.replace(
        toy.family, derivations=(*toy.family.derivations, DerivationInfo("toy-redux", "toy-pro", "copy", method="text"))
    )
    edges = toy.edges
    redux = edges.filter(pc.equal(edges["child_dataset"], "toy-redux")).to_pylist()[0]
    pro = edges.filter(pc.equal(edges["child_dataset"], "toy-pro")).to_pylist()[0]
    second = dict(redux, parent_dataset="toy-pro", parent_item=pro["child_item"], activity="copy")
    edges = pa.concat_tables([edges, pa.Table.from_pylist([second], schema=edges.schema)])
    return Lineage(family=family, items=toy.items, edges=edges, summary=toy.summary)


def test_an_item_with_two_parents_is_generated_once(toy_lineage: Lineage) -> None:
    """A dataset (and so each of its items) made from two parents has one generating activity,
    which used both parents and which both item derivations name."""
    lineage = two_parent_lineage(toy_lineage)
    nt = serialize_lineage(lineage, fmt="nt", time="2024-01-01T00:00:00Z")
    assert check_lines(nt.splitlines(keepends=True)) == []
    redux = "<https://example.org/toy/redux>"
    generated = [ln for ln in nt.decode().splitlines() if ln.startswith(f"{redux} <{P}wasGeneratedBy>")]
    (line,) = generated
    activity = line.split()[2]
    assert activity == "<https://w3id.org/croissant-lineage/family/toy/activity/toy-redux--re_annotation--toy-base--copy--toy-pro>"
    used = {ln.split()[2] for ln in nt.decode().splitlines() if ln.startswith(f"{activity} <{P}used>")}
    assert used == {"<https://example.org/toy/base>", "<https://example.org/toy/pro>"}
    child = {e["child_item"] for e in lineage.edges.to_pylist()[-1:]}.pop()
    item = f"<https://example.org/toy/redux#{child}>"
    derivations = {ln.split()[2] for ln in nt.decode().splitlines() if ln.startswith(f"{item} <{P}qualifiedDerivation>")}
    assert len(derivations) == 2
    activities = {ln.split()[2] for ln in nt.decode().splitlines()
                  if ln.split()[0] in derivations and f"<{P}hadActivity>" in ln}
    assert activities == {activity}
    one_parent = serialize_lineage(toy_lineage, fmt="nt")  # a dataset with one parent keeps its activity
    assert b"/activity/toy-redux--re_annotation--toy-base> ." in one_parent


def test_a_descriptor_of_two_parents_has_one_activity_node() -> None:
    """The JSON-LD nodes that enrich writes: one activity, that used both parents, named by
    both qualified derivations."""
    from croissant_lineage.prov.graph import ParentLink, dataset_nodes

    nodes = dataset_nodes("mine", [ParentLink("https://x/a", "filter", "a"), ParentLink("https://x/b", "filter", "b")])
    (activity,) = nodes.activities
    assert activity["prov:used"] == [{"@id": "https://x/a"}, {"@id": "https://x/b"}]
    assert {q["prov:hadActivity"]["@id"] for q in nodes.qualified} == {activity["@id"]}
    assert activity["@id"].endswith("/activity/mine--filter--a--filter--b")
