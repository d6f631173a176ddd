"""Family-wide discovery on the HumanEval family (code items) stripped of its derivations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.discovery.family import FamilyDiscovery, discover_family
from croissant_lineage.family import families

pytestmark = [pytest.mark.realdata]

LANGUAGES = ("cpp", "go", "java", "js", "rust")


def _stripped(tmp: Path) -> Path:
    folder = Path(families.__file__).parent / "humaneval"
    doc = json.loads((folder / "family.json").read_text(encoding="utf-8"))
    for d in doc["datasets"]:
        d["descriptor"] = str(folder / d["descriptor"])
    doc["derivations"] = []
    path = tmp / "humaneval-stripped.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def found(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> FamilyDiscovery:
    return discover_family(_stripped(tmp_path_factory.mktemp("humaneval")), data_dir=shared_data)


def test_every_language_has_its_parent_and_activity(found: FamilyDiscovery) -> None:
    got = {p.child: (p.parent, p.activity) for p in found.proposals}
    for lang in LANGUAGES:
        assert got[f"humaneval-x-{lang}"] == ("humaneval", "code_translation"), lang
    assert got["humaneval-x-python"][0] == "humaneval"
    assert got["humaneval-x-python"][1] in ("copy", "format_conversion")
    assert "humaneval" not in got and found.no_relative == []


def test_edges_join_problem_n_to_problem_n(found: FamilyDiscovery) -> None:
    edges = found.lineage.edges
    cols = [edges.column(c).to_pylist() for c in ("child_dataset", "child_item", "parent_item")]
    per_child: dict[str, int] = {}
    for child, c, p in zip(*cols, strict=True):
        assert c.rsplit("/", 1)[1] == p.rsplit("/", 1)[1], (child, c, p)
        per_child[child] = per_child.get(child, 0) + 1
    assert per_child == {f"humaneval-x-{x}": 164 for x in (*LANGUAGES, "python")}


def test_python_rows_read_as_a_reformatted_copy(found: FamilyDiscovery) -> None:
    p = next(p for p in found.proposals if p.child == "humaneval-x-python")
    assert p.contents is not None
    assert p.contents.count("stem", "copied") == 164 and p.contents.count("solution", "copied") == 164
    assert p.evidence["ids_are_rows"] == 1 and p.activity != "snapshot"
    assert "field:entry_point" in p.contents.fields_with("dropped")
