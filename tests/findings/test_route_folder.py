"""``route`` and ``route_item`` given a lineage folder read the routed item's family only,
and answer as the whole lineage does."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from croissant_lineage.errors import ArgumentError, InputError
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import route, route_item
from croissant_lineage.lineage import model as model_module
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.lineage.index import INDEX_FILE
from croissant_lineage.lineage.model import Lineage

REPO = Path(__file__).resolve().parents[2]
TOY_FINDINGS = REPO / "examples" / "toy" / "findings.yaml"
REVIEWER = Source("test reviewer", kind="person")


def _refs(lineage: Lineage) -> list[str]:
    items = lineage.items
    return [f"{d}:{i}" for d, i in zip(items.column("dataset").to_pylist(), items.column("item").to_pylist(), strict=True)]


def _ad_hoc(graph: LineageGraph, ref: str) -> list[Finding]:
    """Findings on ``ref`` of every target its item allows."""
    out = [Finding(item=ref, target="item", kind="other", source=REVIEWER),
           Finding(item=ref, target="stem", kind="other", source=REVIEWER)]
    item = graph.item(ref)
    if item.key is not None or item.answer is not None:
        out.append(Finding(item=ref, target="key", kind="wrong_key", source=REVIEWER,
                           proposed=item.options[0] if item.options else None))
    if item.options:
        out.append(Finding(item=ref, target="option", option_index=len(item.options) - 1,
                           kind="bad_options_clarity", source=REVIEWER))
    return out


@pytest.fixture
def whole_read_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a whole lineage folder fails: what runs under it reads the family alone."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the whole lineage was read")

    monkeypatch.setattr(model_module.Lineage, "read", classmethod(refuse))


def _same_on(folder: Path, whole: LineageGraph, refs: list[str], findings: list[Finding],
             monkeypatch: pytest.MonkeyPatch) -> int:
    """Compares every query on ``refs`` from the folder and from the whole graph; how many."""
    want_items = {ref: route_item(whole, ref, findings).to_dict() for ref in refs}
    routed = [*findings, *(f for ref in refs for f in _ad_hoc(whole, ref))]
    want_routes = [route(whole, f, findings).to_dict() for f in routed]
    with monkeypatch.context() as m:
        m.setattr(model_module.Lineage, "read", classmethod(lambda *a, **k: pytest.fail("whole lineage read")))
        for ref in refs:
            assert route_item(folder, ref, findings).to_dict() == want_items[ref], ref
            assert route_item(str(folder), ref).to_dict() == route_item(whole, ref).to_dict(), ref
        for f, want in zip(routed, want_routes, strict=True):
            assert route(folder, f, findings).to_dict() == want, (f.item, f.target)
    return len(refs) + len(routed)


def test_every_toy_item_and_finding_routes_as_the_whole_lineage(toy_lineage, toy_lineage_path, monkeypatch):
    whole = LineageGraph(Lineage.read(toy_lineage_path))
    findings = load_findings(TOY_FINDINGS)
    assert _same_on(toy_lineage_path, whole, _refs(toy_lineage), findings, monkeypatch) > 3 * len(_refs(toy_lineage))


def test_a_generated_family_routes_as_the_whole_lineage(tmp_path, monkeypatch):
    from croissant_lineage.testing.synthetic import generate_family
    from croissant_lineage.workflows import link

    fam = generate_family(tmp_path / "data", items=1500, seed=3)
    folder = link(fam.spec).write(tmp_path / "lineage")
    lineage = Lineage.read(folder)
    whole = LineageGraph(lineage)
    refs = random.Random(1).sample(_refs(lineage), 25)
    # findings on some of them, so that routing an item routes its relatives' findings
    findings = [f for ref in refs[:8] for f in _ad_hoc(whole, ref)[:2]]
    _same_on(folder, whole, refs, findings, monkeypatch)


def test_the_family_is_read_not_the_whole_lineage(toy_lineage_path, whole_read_refused):
    findings = load_findings(TOY_FINDINGS)
    assert route_item(toy_lineage_path, "toy-pro:109", findings).rows
    assert route(str(toy_lineage_path), findings[0], findings).rows


def test_a_folder_without_index_is_read_whole(toy_lineage, toy_lineage_path, tmp_path):
    old = toy_lineage.write(tmp_path / "old")
    (old / INDEX_FILE).unlink()
    findings = load_findings(TOY_FINDINGS)
    whole = LineageGraph(Lineage.read(toy_lineage_path))
    assert route_item(old, "toy-pro:109", findings).to_dict() == route_item(whole, "toy-pro:109", findings).to_dict()
    assert route(old, findings[1], findings).to_dict() == route(whole, findings[1], findings).to_dict()


def test_errors_are_those_of_the_whole_lineage(toy_lineage_path, tmp_path):
    whole = LineageGraph(Lineage.read(toy_lineage_path))
    unknown = Finding(item="toy-pro:nosuch", target="item", kind="other", source=REVIEWER)
    for lineage in (toy_lineage_path, whole):
        with pytest.raises(InputError) as a:
            route_item(lineage, "toy-pro:nosuch")
        with pytest.raises(InputError) as b:
            route(lineage, unknown)
        with pytest.raises(InputError) as c:
            route(lineage, Finding(item="toy-pro:109", target="option", option_index=25, kind="other", source=REVIEWER))
        assert (a.value.code, b.value.code, c.value.code) == ("CL-E001", "CL-E001", "CL-E001")
    with pytest.raises(ArgumentError) as d:
        route_item(toy_lineage_path, 42)  # type: ignore[arg-type]
    assert d.value.code == "CL-E011"
    with pytest.raises(InputError) as e:
        route_item(tmp_path / "nowhere", "toy-pro:109")
    assert e.value.code == "CL-E001"


def test_mmlu_findings_route_as_the_whole_lineage(mmlu_lineage_dir, mmlu_graph, mmlu_redux):
    findings = mmlu_redux.findings
    chosen = random.Random(5).sample(findings, 12)
    for f in chosen:
        assert route(mmlu_lineage_dir, f, findings).to_dict() == route(mmlu_graph, f, findings).to_dict(), f.id
        assert route_item(mmlu_lineage_dir, f.item, findings).to_dict() == route_item(mmlu_graph, f.item, findings).to_dict()
