"""The report, selection of codes, and the ``validate`` command (exit status, --json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.cli import main
from croissant_lineage.errors import InputError
from croissant_lineage.validate import CODES, Issue, ValidationReport, validate
from croissant_lineage.validate.codes import expand_selection
from tests.validate_helpers import VALIDATE_FIXTURES, fixture_paths


def test_report_data_forms():
    r = ValidationReport((Issue("CLV201", "error", "m", "a.json#/x"), Issue("CLV103", "warning", "w", "a.json#")),)
    assert r.valid is False and len(r.errors) == 1 and len(r.warnings) == 1
    d = r.to_dict()
    assert d["valid"] is False and d["errors"] == 1 and d["warnings"] == 1
    assert d["issues"][0] == {"code": "CLV201", "severity": "error", "message": "m", "where": "a.json#/x"}
    frame = r.to_pandas()
    assert list(frame.columns) == ["code", "severity", "message", "where"] and len(frame) == 2
    assert ValidationReport().to_pandas().empty and ValidationReport().valid
    text = str(r)
    assert "CLV201" in text and "INVALID" in text


def test_selection_expands_prefixes_and_refuses_typos():
    assert expand_selection(["CLV2"]) == {c for c in CODES if c.startswith("CLV2")}
    assert expand_selection(["clv301,CLV302"]) == {"CLV301", "CLV302"}
    assert expand_selection(None) is None
    with pytest.raises(InputError):
        expand_selection(["CLV999"])


def test_select_ignore_and_strict():
    path = VALIDATE_FIXTURES / "CLV103"
    assert validate(path).codes() == {"CLV103"} and validate(path).valid
    assert validate(path, ignore=["CLV1"]).codes() == set()
    assert validate(path, select=["CLV2"]).codes() == set()
    strict = validate(path, strict=True)
    assert not strict.valid and {i.severity for i in strict.issues} == {"error"}


def test_cap_per_code_and_file(tmp_path: Path):
    doc = json.loads((VALIDATE_FIXTURES / "clean" / "croissant.json").read_text("utf-8"))
    for n in range(8):
        doc[f"zz{n}:thing"] = 1
    (tmp_path / "croissant.json").write_text(json.dumps(doc), "utf-8")
    full = validate(tmp_path / "croissant.json", max_per_code=None)
    assert [i.code for i in full.issues].count("CLV201") == 8
    capped = validate(tmp_path / "croissant.json", max_per_code=3)
    assert [i.code for i in capped.issues].count("CLV201") == 4  # 3 listed + "5 more"
    assert "5 more" in capped.issues[-1].message


def test_missing_path_cannot_run(tmp_path: Path):
    with pytest.raises(InputError):
        validate([tmp_path / "nope.json"])


@pytest.mark.parametrize(("case", "status"), [("clean", 0), ("CLV201", 1), ("CLV103", 0)])
def test_cli_exit_status_and_json_equals_library(case: str, status: int, tmp_path: Path, capsys):
    paths = [str(p) for p in fixture_paths(case, tmp_path)]
    assert main(["validate", *paths, "--json"]) == status
    printed = json.loads(capsys.readouterr().out)
    assert printed == validate(paths).to_dict()


def test_cli_could_not_run(tmp_path: Path, capsys):
    assert main(["validate", str(tmp_path / "missing")]) == 2
    assert main(["validate", str(VALIDATE_FIXTURES / "clean"), "--select", "CLV9"]) == 2
    assert main(["validate"]) == 2
    capsys.readouterr()


def test_cli_select_ignore_text_and_list(capsys):
    path = str(VALIDATE_FIXTURES / "CLV201")
    assert main(["validate", path, "--ignore", "CLV201"]) == 0
    assert main(["validate", path, "--select", "CLV1", "--select", "CLV3"]) == 0
    assert main(["validate", path]) == 1
    out = capsys.readouterr().out
    assert "CLV201" in out
    assert main(["validate", "--list-codes"]) == 0
    listed = capsys.readouterr().out
    assert all(code in listed for code in CODES)
