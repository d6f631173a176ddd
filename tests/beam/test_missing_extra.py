"""``--runner beam`` without apache-beam: a coded one-line error naming the extra (runs in
every venv: apache_beam is hidden from the import system)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from croissant_lineage import link
from croissant_lineage.cli import main
from croissant_lineage.errors import InputError

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy" / "family.json"


@pytest.fixture
def no_beam(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "apache_beam", None)  # import apache_beam -> ImportError


def test_link_names_the_extra(no_beam: None) -> None:
    with pytest.raises(InputError) as err:
        link(TOY, runner="beam")
    assert err.value.code == "CL-E001"
    assert "croissant-lineage[beam]" in str(err.value)


def test_cli_prints_one_coded_line_and_writes_nothing(
    no_beam: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "lineage"
    assert main(["link", str(TOY), "--out", str(out), "--runner", "beam"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("croissant-lineage: error: CL-E001") and "[beam]" in err[0]
    assert not out.exists()


def test_unknown_runner_is_refused() -> None:
    with pytest.raises(InputError, match="unknown runner"):
        link(TOY, runner="spark")


def test_beam_option_needs_key_value(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as done:
        main(["link", str(TOY), "--out", str(tmp_path / "x"), "--runner", "beam", "--beam-option", "oops"])
    assert done.value.code == 2
