"""GitHub annotations and job summary from a validation report (validate --format github)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.validate import Issue, ValidationReport
from croissant_lineage.validate.github import github_annotations, github_summary, json_pointer_line

DOC = {"a": [1, {"b~c": "x", "d/e": [True, None]}], "f": {"g": 2}}
TEXT = json.dumps(DOC, indent=2)


def _line(needle: str) -> int:
    return next(i for i, line in enumerate(TEXT.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("pointer", "needle"),
    [("", "{"), ("/a", '"a"'), ("/a/1/b~0c", '"b~c"'), ("/a/1/d~1e/1", "null"), ("/f/g", '"g"')],
)
def test_pointer_line(pointer: str, needle: str) -> None:
    assert json_pointer_line(TEXT, pointer) == _line(needle)


@pytest.mark.parametrize("pointer", ["/zz", "/a/5", "/f/g/h", "/a/x", "nope"])
def test_pointer_to_nothing_has_no_line(pointer: str) -> None:
    assert json_pointer_line(TEXT, pointer) is None


def test_unparsable_text_has_no_line() -> None:
    assert json_pointer_line('{"a": ', "/a/b") is None


def _report(tmp_path: Path) -> ValidationReport:
    (tmp_path / "d.json").write_text(TEXT, encoding="utf-8")
    return ValidationReport(
        issues=(
            Issue("CLV201", "error", "prefix 'x' undeclared: 100%\nfix it", f"{tmp_path}/d.json#/f/g"),
            Issue("CLV404", "warning", "stale, a|b", f"{tmp_path}/lin/edges.parquet#row=3"),
        )
    )


def test_annotations_escape_and_locate(tmp_path: Path) -> None:
    first, second = github_annotations(_report(tmp_path))
    line = _line('"g"')
    assert first == (f"::error file={tmp_path}/d.json,line={line},title=CLV201 /f/g"
                     "::prefix 'x' undeclared: 100%25%0Afix it")
    assert second == f"::warning file={tmp_path}/lin/edges.parquet,title=CLV404 row=3::stale, a|b"


def test_annotations_from_the_json_report_equal_those_from_the_report(tmp_path: Path) -> None:
    report = _report(tmp_path)
    assert github_annotations(json.loads(json.dumps(report.to_dict()))) == github_annotations(report)


def test_summary_lists_issues_and_verdict(tmp_path: Path) -> None:
    text = github_summary(_report(tmp_path))
    assert "**invalid**: 1 errors, 1 warnings" in text
    assert "| CLV404 | warning |" in text and "stale, a\\|b" in text
    assert github_summary(ValidationReport()).count("|") == 0
