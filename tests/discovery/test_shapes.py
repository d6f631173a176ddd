"""Discovery on families of free-form problems (tests/discovery/shapes.py): twins with and without a
content signal, perturbed values, templated variants (50 per parent) and a parent-row field,
recovered exactly; single-dataset and family modes give one answer for the same pair."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from croissant_lineage.discovery.family import FamilyDiscovery, discover_family
from croissant_lineage.discovery.propose import discover
from tests.discovery.shapes import write_mirrors, write_problems

Truth = dict[str, tuple[str, str, dict[int, int]]]


@pytest.fixture(scope="module")
def problems(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Truth, FamilyDiscovery]:
    spec, truth = write_problems(tmp_path_factory.mktemp("problems"))
    return spec, truth, discover_family(spec)


def _edges(result: Any, child: str) -> set[tuple[str, str]]:
    e = result.lineage.edges
    cols = (e.column(k).to_pylist() for k in ("child_dataset", "child_item", "parent_item"))
    return {(c, p) for d, c, p in zip(*cols, strict=True) if d == child}


def test_every_derivation_recovered_exactly(problems: tuple[Path, Truth, FamilyDiscovery]) -> None:
    _, truth, result = problems
    got = {p.child: (p.parent, p.activity) for p in result.proposals}
    assert got == {child: (parent, activity) for child, (parent, activity, _) in truth.items()}
    for child, (_, _, rows) in truth.items():  # ids are row numbers ({_row}) on every side
        assert _edges(result, child) == {(str(c), str(p)) for c, p in rows.items()}, child


def test_twins_directed_by_content_not_dates(problems: tuple[Path, Truth, FamilyDiscovery]) -> None:
    """root and twin have the same questions and date; twin's answers hold root's and more."""
    _, _, result = problems
    twins = {(r.a, r.b): r for r in result.twins}
    rel = twins[("root", "twin")]
    assert rel.parent == "root" and rel.rule.startswith("twins: answers: twin's answers hold root's and more on 100 pairs")
    assert rel.counts["twin_answers_expanded"] == 100 and rel.counts["root_answers_expanded"] == 0
    perturbed = twins[("perturbed", "root")]
    assert perturbed.parent == "root" and "values:" in perturbed.rule
    assert perturbed.counts["root_values_elsewhere"] == 100 and perturbed.counts["perturbed_values_elsewhere"] == 0
    # the copy is dated after root and no content rule applies: the unequal dates break the tie
    assert twins[("copy", "root")].rule.startswith("twins: dates: root 2023-01-01 before copy 2023-06-01")
    assert {"a": "root", "b": "twin", "parent": "root", "why": rel.rule} in result.fragment()["twins"]


def test_third_dataset_between_twins(problems: tuple[Path, Truth, FamilyDiscovery]) -> None:
    """Templated variants match root, twin, copy and the perturbed set alike; the twin's and the
    perturbed answers differ from theirs, so root and copy are left, and root is copy's parent."""
    _, _, result = problems
    choice = result.choices["templated"]
    assert choice["parent"] == "root"
    assert "copy's on 200, root's on 200, perturbed's on 0, twin's on 0" in choice["choice"]
    assert choice["choice"].endswith("tie broken by ancestry: root is an ancestor of copy")
    proposal = next(p for p in result.proposals if p.child == "templated")
    assert proposal.runner_up is not None and proposal.runner_up["parent"] != "root"


def test_excerpt_goes_to_the_twin_whose_answers_it_copies(problems: tuple[Path, Truth, FamilyDiscovery]) -> None:
    _, _, result = problems
    choice = result.choices["excerpt"]
    assert choice["parent"] == "twin"
    assert choice["choice"].startswith("tie broken by content: excerpt copies twin's on 100, copy's on 50, root's on 50")


def test_row_ids_are_no_snapshot(problems: tuple[Path, Truth, FamilyDiscovery]) -> None:
    _, _, result = problems
    copy = next(p for p in result.proposals if p.child == "copy")
    assert copy.evidence["same_id"] == 100 and copy.evidence["ids_are_rows"] == 1
    assert copy.activity == "format_conversion"
    assert copy.contents is not None and copy.contents.fields_with("added") == ["field:problem", "field:solution", "field:source"]


def test_twins_without_signal_are_undecided(tmp_path: Path) -> None:
    result = discover_family(write_mirrors(tmp_path))
    assert result.proposals == []
    (rel,) = result.twins
    assert rel.parent is None and rel.rule.startswith("direction undecided: no rule applies (twins: 100.0 % of left found in right")
    assert rel.rule.endswith("dates 2023-01-01 / 2023-01-01)")
    assert result.fragment()["direction_undecided"] == [{"a": "left", "b": "right", "why": rel.rule}]


@pytest.mark.parametrize("child", ["twin", "copy", "perturbed", "templated", "drills", "excerpt"])
def test_both_modes_give_one_answer(problems: tuple[Path, Truth, FamilyDiscovery], child: str, tmp_path: Path) -> None:
    spec, truth, family = problems
    doc = json.loads(spec.read_text(encoding="utf-8"))
    mine = next(d for d in doc["datasets"] if d["name"] == child)
    parent = truth[child][0]
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(dict(doc, datasets=[d for d in doc["datasets"] if d["name"] == parent])), encoding="utf-8")
    single = discover([mine["descriptor"]], [corpus], roles={k: v for k, v in mine["roles"].items() if k != "id"})
    [p] = single.proposals
    f = next(q for q in family.proposals if q.child == child)
    assert (p.child, p.parent, p.activity) == (f.child, f.parent, f.activity)
    assert _edges(single, child) == _edges(family, child)


def test_the_summary_lists_twins_and_each_proposals_contents(problems: tuple[Path, Truth, FamilyDiscovery]) -> None:
    _, _, result = problems
    lines = str(result).splitlines()
    twins = lines[lines.index("twins (each holds the other's items):") + 1:]
    pairs = {ln.split(":", 1)[0].strip(): ln for ln in twins if ln.startswith("  ") and not ln.startswith("    ")}
    assert set(pairs) == {f"{r.a} ~ {r.b}" for r in result.twins}
    assert pairs["root ~ twin"].startswith("  root ~ twin: root is the parent (answers: twin's answers hold root's and more on 100")
    assert pairs["copy ~ root"].startswith("  copy ~ root: root is the parent (dates:")
    undecided = pairs["perturbed ~ twin"]
    assert "direction undecided" in undecided and undecided.endswith("no derivation proposed: related through root")
    signal = twins[twins.index(pairs["perturbed ~ root"]) + 1]
    assert "answers differ on 100 pairs" in signal and "perturbed's on 0, root's on 100" in signal
    assert not [ln for ln in lines if ln.startswith(("perturbed ~ twin (", "root ~ twin ("))]  # twins listed once
    # every proposal's per-content counts, as discover.json holds them
    for p in result.proposals:
        assert p.contents is not None
        block = lines[lines.index(next(ln for ln in lines if ln.startswith(f"{p.child} <- "))):]
        text = "\n".join(block[:8])
        for content, statuses in p.contents.to_dict()["contents"].items():
            for status, n in statuses.items():
                assert f"{content.removeprefix('field:')} " in text and f"{status} {n}" in text, (p.child, content)
    perturbed = next(ln for ln in lines if ln.startswith("  contents (100 pairs): stem recomputed"))
    assert perturbed == "  contents (100 pairs): stem recomputed 100; key recomputed 100"


def test_the_summary_of_twins_without_signal(tmp_path: Path) -> None:
    text = str(discover_family(write_mirrors(tmp_path)))
    assert "  left ~ right: direction undecided: no rule applies" in text
    assert "    content: answers differ on 0 pairs" in text and "same ids 40" in text


def test_the_single_dataset_summary_lists_contents(problems: tuple[Path, Truth, FamilyDiscovery], tmp_path: Path) -> None:
    spec, _, _ = problems
    doc = json.loads(spec.read_text(encoding="utf-8"))
    mine = next(d for d in doc["datasets"] if d["name"] == "perturbed")
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(dict(doc, datasets=[d for d in doc["datasets"] if d["name"] == "root"])), encoding="utf-8")
    single = discover([mine["descriptor"]], [corpus], roles={k: v for k, v in mine["roles"].items() if k != "id"})
    assert "  contents (100 pairs): stem recomputed 100; key recomputed 100" in str(single).splitlines()
