"""What ``croissant-lineage link`` prints about keys: how many were read, of the items whose
spec names a key, and a coded warning with the count per dataset where some could not be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.cli import main
from tests.lineage.test_keys import _spec


def test_link_prints_keys_read_and_a_coded_warning_for_unread_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    roles = {"id": "id", "stem": "q", "solution": "answer",
             "key": {"field": "answer", "kind": "number", "pattern": r"####\s*(.+)$"}}
    spec = tmp_path / "family.json"
    spec.write_text(json.dumps(_spec(tmp_path, roles)), encoding="utf-8")  # three items, no options, one without "####"
    assert main(["link", str(spec), "--out", str(tmp_path / "lineage")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "  keys read: 2 of 3 items whose spec names a key (number 3)" in out
    [warning] = [ln for ln in out if ln.startswith("warning ")]
    assert warning.startswith("warning CL-W002 toy: 1 items of toy")
    summary = json.loads((tmp_path / "lineage" / "summary.json").read_text(encoding="utf-8"))
    assert summary["keys_unread"] == {"toy": 1} and summary["warnings"][0]["count"] == 1


def test_link_prints_every_key_read_on_the_toy_family(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    toy = Path(__file__).resolve().parents[2] / "examples" / "toy" / "family.json"
    assert main(["link", str(toy), "--out", str(tmp_path / "lineage")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "  keys read: 65 of 65 items whose spec names a key (number 7, option 54, tests 4)" in out
    assert not [ln for ln in out if ln.startswith("warning ")]
