"""``relatives`` (version 1: ``family``): the old name still works, with a note; ``--findings``
reaches the picture as it does through ``family_picture(findings=...)``."""

from __future__ import annotations

from pathlib import Path

import pytest

from croissant_lineage.cli import main

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"


def test_family_is_a_deprecated_name_of_relatives(toy_lineage_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["relatives", "toy-pro:105", "--lineage", str(toy_lineage_path), "--json"]) == 0
    new = capsys.readouterr()
    assert main(["family", "toy-pro:105", "--lineage", str(toy_lineage_path), "--json"]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and new.err == ""
    assert "'family' is now 'relatives'" in old.err


def test_findings_reach_the_picture(toy_lineage_path: Path, tmp_path: Path) -> None:
    base = ["relatives", "toy-pro:109", "--lineage", str(toy_lineage_path), "--json"]
    assert main([*base, "--svg", str(tmp_path / "plain.svg")]) == 0
    assert main([*base, "--svg", str(tmp_path / "routed.svg"), "--findings", str(TOY / "findings.yaml")]) == 0
    assert (tmp_path / "routed.svg").read_bytes() != (tmp_path / "plain.svg").read_bytes()
