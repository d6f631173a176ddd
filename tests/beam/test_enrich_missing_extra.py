"""``enrich --family --runner beam`` without apache-beam: a coded one-line error naming the
extra, and nothing written (runs in every venv: apache_beam is hidden from the import system)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from croissant_lineage import enrich_family
from croissant_lineage.cli import main
from croissant_lineage.errors import InputError

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy" / "family.json"


@pytest.fixture
def no_beam(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "apache_beam", None)  # import apache_beam -> ImportError


def test_python_names_the_extra(no_beam: None, toy_lineage_path: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        enrich_family(toy_lineage_path, TOY, tmp_path / "out", runner="beam")
    assert err.value.code == "CL-E001"
    assert "croissant-lineage[beam]" in str(err.value)
    assert not (tmp_path / "out").exists()


def test_cli_prints_one_coded_line_and_writes_nothing(
    no_beam: None, toy_lineage_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "enriched"
    argv = ["enrich", "--family", str(TOY), "--lineage", str(toy_lineage_path), "--out", str(out), "--runner", "beam"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("croissant-lineage: error: CL-E001") and "[beam]" in err[0]
    assert not out.exists()


def test_unknown_runner_is_refused(toy_lineage_path: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown runner"):
        enrich_family(toy_lineage_path, TOY, tmp_path / "out", runner="spark")


def test_local_runner_is_the_default(toy_lineage_path: Path, tmp_path: Path) -> None:
    result = enrich_family(toy_lineage_path, TOY, tmp_path / "out", time="2025-01-01T00:00:00Z")
    assert len(result.descriptors) == 9 and (tmp_path / "out" / "toy-pro.json").is_file()
