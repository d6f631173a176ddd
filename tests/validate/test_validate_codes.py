"""One fixture per validation code: each is detected, and the clean fixture passes."""

from __future__ import annotations

import importlib
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from croissant_lineage.validate import CODES, codes_table, validate
from tests.validate_helpers import VALIDATE_FIXTURES, fixture_paths

# The package, not the validate() function that croissant_lineage exports under the same name.
v = importlib.import_module("croissant_lineage.validate")

CASES = sorted(p.name for p in VALIDATE_FIXTURES.iterdir() if p.is_dir() and p.name.startswith("CLV"))


def _make_fixtures():
    spec = importlib.util.spec_from_file_location("make_fixtures", VALIDATE_FIXTURES / "make_fixtures.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_code_has_a_fixture():
    assert set(CASES) == set(CODES)


@pytest.mark.parametrize("code", CASES)
def test_fixture_is_detected(code: str, tmp_path: Path):
    report = validate(fixture_paths(code, tmp_path))
    assert code in report.codes()
    hit = [i for i in report.issues if i.code == code]
    assert all(i.severity == CODES[code].severity for i in hit)
    assert report.valid is (CODES[code].severity != "error" and not report.errors)


def test_clean_fixture_passes_with_no_issue(tmp_path: Path):
    report = validate(fixture_paths("clean", tmp_path))
    assert report.valid
    assert report.issues == ()
    kinds = sorted(c.kind for c in report.checked)
    assert kinds == ["card", "enriched-descriptor", "family", "findings", "lineage"]


def test_fixtures_are_current(tmp_path: Path):
    written = _make_fixtures().write(tmp_path)
    assert written
    for path in written:
        rel = path.relative_to(tmp_path)
        assert (VALIDATE_FIXTURES / rel).read_bytes() == path.read_bytes(), f"regenerate: {rel}"


def test_docstring_table_matches_codes():
    assert codes_table() in (v.__doc__ or "")


def test_references_check_agrees_with_mlcroissant_records():
    """CLV305 says records() fails; mlcroissant agrees, and the clean join works."""
    mlc = pytest.importorskip("mlcroissant")
    clean = mlc.Dataset(str(VALIDATE_FIXTURES / "clean" / "croissant.json"))
    assert len(list(clean.records("items"))) == 3
    bad = mlc.Dataset(str(VALIDATE_FIXTURES / "CLV305" / "croissant.json"))
    with pytest.raises(mlc.GenerationError):
        list(bad.records("items"))


def test_structure_errors_agree_with_mlcroissant_records():
    """mlcroissant validates the CLV802/CLV803 descriptors, then records() yields None for the
    field without a source on every record, or fails on the source without an extract."""
    mlc = pytest.importorskip("mlcroissant")
    no_source = mlc.Dataset(str(VALIDATE_FIXTURES / "CLV802" / "croissant.json"))
    records = list(no_source.records("items"))
    assert len(records) == 3 and {r["items/answer"] for r in records} == {None}
    no_extract = mlc.Dataset(str(VALIDATE_FIXTURES / "CLV803" / "croissant.json"))
    with pytest.raises(mlc.GenerationError):
        list(no_extract.records("items"))


def test_no_name_and_a_field_without_source_is_invalid(tmp_path: Path):
    doc = json.loads((VALIDATE_FIXTURES / "CLV802" / "croissant.json").read_text("utf-8"))
    doc.pop("name")
    folder = tmp_path / "d"
    shutil.copytree(VALIDATE_FIXTURES / "CLV802", folder)
    (folder / "croissant.json").write_text(json.dumps(doc), "utf-8")
    report = validate(folder / "croissant.json")
    assert not report.valid
    assert [(i.code, i.severity) for i in report.issues] == [("CLV801", "warning"), ("CLV802", "error")]
