"""The shipped HumanEval family on the real files: link, validate, relatives, route."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.keys import keys_unread
from croissant_lineage.workflows import link

CHILDREN = {"humaneval-x-python": "Python", "humaneval-x-cpp": "CPP", "humaneval-x-go": "Go",
            "humaneval-x-java": "Java", "humaneval-x-js": "JavaScript", "humaneval-x-rust": "Rust"}


def test_the_spec_parses_with_tests_keys_and_code_translations() -> None:
    spec = load_family("humaneval")
    assert {d.key_kind for d in spec.datasets.values()} == {"tests"}
    assert Counter(d.activity for d in spec.derivations) == {"code_translation": 5, "copy": 1}
    assert all(d.is_translation for d in spec.derivations if d.activity == "code_translation")


@pytest.fixture(scope="module")
def linked(shared_data: Path) -> object:
    return link("humaneval", data_dir=shared_data)


def test_every_child_links_to_the_problem_of_its_number(linked: object, tmp_path: Path) -> None:
    edges = linked.edges  # type: ignore[attr-defined]
    per = Counter(edges.column("child_dataset").to_pylist())
    assert per == dict.fromkeys(CHILDREN, 164)
    for child, item, parent in zip(edges.column("child_dataset").to_pylist(), edges.column("child_item").to_pylist(),
                                   edges.column("parent_item").to_pylist(), strict=True):
        prefix, n = item.split("/")
        assert prefix == CHILDREN[child] and parent == f"HumanEval/{n}"
    assert keys_unread(linked.items) == {}  # type: ignore[attr-defined]
    kept = edges.filter(edges.column("child_dataset").to_pylist() and [c == "humaneval-x-python" for c in edges.column("child_dataset").to_pylist()])
    assert kept.column("key_inherited").to_pylist() == [True] * 164  # the Python copy keeps the solutions
    translated = edges.filter([c != "humaneval-x-python" for c in edges.column("child_dataset").to_pylist()])
    assert translated.column("key_inherited").null_count == translated.num_rows  # a translated solution is not compared


def test_validate_relatives_and_route_on_the_family(linked: object, tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    from croissant_lineage.lineage.graph import relatives_of
    from croissant_lineage.validate.core import validate

    out = tmp_path / "he"
    linked.write(out)  # type: ignore[attr-defined]
    spec_path = load_family("humaneval").path
    report = validate([out, spec_path])
    assert not [i for i in report.issues if i.severity == "error"]
    rel = relatives_of(out, "humaneval:HumanEval/3")
    assert len(rel.descendants) == 6
    run = subprocess.run([sys.executable, "-m", "croissant_lineage", "route", "--lineage", str(out), "--target", "key",
                          "--kind", "wrong_key", "--json", "humaneval:HumanEval/3"], capture_output=True, text=True, check=False,
                         cwd=Path(__file__).resolve().parents[2])
    assert run.returncode == 0, run.stderr
    assert "humaneval-x-python:Python/3" in json.dumps(json.loads(run.stdout))
