"""``route --option`` takes one option letter; anything else is a usage error, not a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.cli import main


@pytest.mark.parametrize("bad", ["AB", "1", "", "é"])
def test_bad_option_letter_is_a_usage_error(toy_lineage_path: Path, bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["route", "toy-pro:109", "--lineage", str(toy_lineage_path), "--target", "option", "--option", bad])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "not one option letter" in err and "Traceback" not in err


def test_option_letter_any_case_routes_the_same(toy_lineage_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    queues = []
    for letter in ("B", "b"):
        args = ["route", "toy-pro:109", "--lineage", str(toy_lineage_path), "--target", "option",
                "--option", letter, "--json"]
        assert main(args) == 0
        queues.append(json.loads(capsys.readouterr().out))
    assert queues[0] == queues[1] and queues[0]
