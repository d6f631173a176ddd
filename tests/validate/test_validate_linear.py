"""``validate`` does work linear in the number of nodes of a descriptor, counted, not timed.

The descriptors are generated: a base RecordSet read from a CSV file and ``n`` RecordSets,
each with a Field whose dataType comes from its source (mlcroissant looks that source up by
id) and a constant Field. Twice the RecordSets must cost (about) twice the work.
"""

from __future__ import annotations

import copy
import importlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from croissant_lineage.croissant.mlc import MlcroissantRun, run_mlcroissant
from tests.validate_helpers import VALIDATE_FIXTURES

validate = importlib.import_module("croissant_lineage.validate").validate


def many_record_sets(n: int) -> dict[str, Any]:
    """The clean fixture descriptor with ``n`` generated RecordSets after its base one."""
    doc = json.loads((VALIDATE_FIXTURES / "clean" / "croissant.json").read_text("utf-8"))
    for key in [k for k in doc if k.startswith("prov:")]:
        doc.pop(key)
    base = {"@type": "cr:RecordSet", "@id": "base", "name": "base", "key": {"@id": "base/id"},
            "field": [{"@type": "cr:Field", "@id": "base/id", "name": "base/id", "dataType": "sc:Text",
                       "source": {"fileObject": {"@id": "items-file"}, "extract": {"column": "id"}}}]}
    sets = [base]
    for i in range(n):
        sets.append({"@type": "cr:RecordSet", "@id": f"rs{i}", "name": f"rs{i}", "key": {"@id": f"rs{i}/x"},
                     "field": [{"@type": "cr:Field", "@id": f"rs{i}/x", "name": f"rs{i}/x",
                                "source": {"field": {"@id": "base/id"}}},
                               {"@type": "cr:Field", "@id": f"rs{i}/c", "name": f"rs{i}/c",
                                "dataType": "sc:Text", "value": "k"}]})
    doc["recordSet"] = sets
    return doc


def _write(doc: dict[str, Any], folder: Path) -> Path:
    folder.mkdir()
    shutil.copytree(VALIDATE_FIXTURES / "clean" / "data", folder / "data")
    path = folder / "croissant.json"
    path.write_text(json.dumps(doc), "utf-8")
    return path


def _calls(fn: Any) -> int:
    """Python function calls made while ``fn()`` runs."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def test_generated_descriptor_is_valid(tmp_path: Path) -> None:
    report = validate(_write(many_record_sets(20), tmp_path / "d"))
    assert report.valid and not report.issues


def test_validate_own_checks_are_linear_in_record_sets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every check but mlcroissant's (stubbed here, counted below), over 1,500 and 3,000 RecordSets."""
    checks = importlib.import_module("croissant_lineage.validate.croissant")
    monkeypatch.setattr(checks, "run_mlcroissant", lambda doc: MlcroissantRun([], [], [], [], [], None))
    small, large = (_write(many_record_sets(n), tmp_path / str(n)) for n in (1500, 3000))
    validate(small)  # imports and caches out of the count
    a = _calls(lambda: validate(small))
    b = _calls(lambda: validate(large))
    assert 1.9 < b / a < 2.1, (a, b)


def test_mlcroissant_run_is_linear_in_record_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    """mlcroissant's own node lookup by id scans every node; under run_mlcroissant it is
    indexed: node ids computed grow with the nodes, not with their square."""
    base = importlib.import_module("mlcroissant._src.structure_graph.base_node")
    computed = 0
    uuid = base.Node.uuid

    def counted(self: Any) -> Any:
        nonlocal computed
        computed += 1
        return uuid.fget(self)

    monkeypatch.setattr(base.Node, "uuid", property(counted))
    counts = []
    for n in (300, 600):
        computed = 0
        run = run_mlcroissant(copy.deepcopy(many_record_sets(n)))
        assert not run.errors and run.crash is None
        counts.append(computed)
    assert counts[1] / counts[0] < 2.2, counts
