"""Parent-reference fields: a templated child naming its parent's row, or quoting its stem,
is linked through that field, and single-dataset and family modes agree on the pair."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from croissant_lineage.croissant.describe import describe
from croissant_lineage.discovery.family import discover_family
from croissant_lineage.discovery.propose import discover
from croissant_lineage.discovery.roles import guess_dataset
from croissant_lineage.family.spec import FamilySpec

ELEMENTS = ["argon", "boron", "cobalt", "copper", "gallium", "helium", "iodine", "krypton", "lithium", "neon",
            "nickel", "osmium", "radon", "silver", "sodium", "sulfur", "tin", "xenon", "zinc", "iron"]
VARIANTS = 5


def _write(folder: Path, rows: list[dict[str, str]]) -> Path:
    folder.mkdir(parents=True)
    with (folder / "test.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    (folder / "croissant.json").write_text(json.dumps(describe(folder)), encoding="utf-8")
    return folder / "croissant.json"


def _parent_rows() -> list[dict[str, str]]:
    return [{"question": f"Which period of the periodic table holds the element {e} in its ground state?",
             "A": "first", "B": "second", "C": "third", "D": "fourth", "answer": "ABCD"[i % 4]}
            for i, e in enumerate(ELEMENTS)]


def _child_rows(parent: list[dict[str, str]], field: str) -> list[dict[str, str]]:
    """Five rewritten instances per parent row; ``field`` holds the parent's row or its stem."""
    rows = []
    for i, p in enumerate(parent):
        for k in range(VARIANTS):
            ref = str(i) if field == "parent_row" else p["question"]
            rows.append({"question": f"Variant {k} of drill {i * 7 + k}: name a number near {k * 13 + i}.",
                         "A": str(k), "B": str(k + 1), "C": str(k + 2), "D": str(k + 3), "answer": "A", field: ref})
    return rows


@pytest.fixture(scope="module", params=["parent_row", "original_question"])
def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path]:
    tmp = tmp_path_factory.mktemp(request.param)
    parent = _parent_rows()
    return request.param, _write(tmp / "drills", parent), _write(tmp / "variants", _child_rows(parent, request.param))


def _family(*descriptors: Path) -> FamilySpec:
    datasets = {}
    for d in descriptors:
        ds, guess = guess_dataset(d)
        assert ds is not None, guess.refused
        datasets[ds.name] = ds
    return FamilySpec("pair", None, datasets, ())


def test_reference_field_links_every_variant(pair: tuple[str, Path, Path]) -> None:
    field, parent, child = pair
    result = discover([child], [_family(parent)])
    [p] = result.proposals
    assert p.parent == "drills" and p.linked == VARIANTS * len(ELEMENTS)
    assert p.evidence["reference_field"] == field
    # the parent's ids are its row numbers ({_row}): the field joins them as ids
    assert p.evidence["reference_kind"] == ("id" if field == "parent_row" else "stem")
    assert p.rule.startswith("reference:")
    e = result.lineage.edges
    pairs = sorted(zip(e.column("child_item").to_pylist(), e.column("parent_item").to_pylist(), strict=True))
    child_ids = {c for c, _ in pairs}
    assert len(child_ids) == VARIANTS * len(ELEMENTS)
    assert len({q for _, q in pairs}) == len(ELEMENTS)  # every parent reached, five children each
    link = result.fragment()["derivations"][0]["link"]
    if field == "parent_row":
        assert link == {"by": "id", "child_field": "parent_row"}


def test_both_modes_give_one_answer(pair: tuple[str, Path, Path]) -> None:
    _, parent, child = pair
    single = discover([child], [_family(parent)])
    family = discover_family(_family(parent, child))
    got = {(p.child, p.parent, p.activity) for p in single.proposals}
    assert got == {(p.child, p.parent, p.activity) for p in family.proposals}
    assert got and family.relations[0].kind == "reference"
    assert family.no_relative == []
    fam_edges = family.lineage.edges
    one = single.lineage.edges
    key = ("child_item", "parent_item")
    assert sorted(zip(*(one.column(k).to_pylist() for k in key), strict=True)) == sorted(
        zip(*(fam_edges.column(k).to_pylist() for k in key), strict=True))


def test_toy_modes_agree(tmp_path: Path) -> None:
    """On the toy family, a re-annotation and a translation discovered alone against the others
    get the parent and activity family mode gives them (a dataset whose later snapshot is in
    the corpus is not covered: single-dataset mode does not yet read a direction)."""
    toy = Path(__file__).resolve().parents[2] / "examples" / "toy"
    doc = json.loads((toy / "family.json").read_text(encoding="utf-8"))
    datasets = [dict(d, descriptor=str(toy / d["descriptor"])) for d in doc["datasets"] if "descriptor" in d]
    spec = tmp_path / "toy.json"
    spec.write_text(json.dumps({"name": "toy-stripped", "datasets": datasets, "derivations": []}), encoding="utf-8")
    family = {p.child: (p.parent, p.activity) for p in discover_family(spec).proposals}
    assert family
    for child in ("toy-redux", "toy-fr"):
        single = discover([toy / child / "croissant.json"], [spec])
        assert {p.child: (p.parent, p.activity) for p in single.proposals}[child] == family[child], child
