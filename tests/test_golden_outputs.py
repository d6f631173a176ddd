"""The files the main jobs write are byte-identical to the recorded ones.

``tests/golden/output_hashes.json`` holds the sha256 of every file written by the README's
quick start (the toy main job) and by its real-data blocks plus a few golden-only steps (see
``tests/golden/outputs.py``), so a documented command that fails also fails here. A refactor must not
change them; a deliberate output change regenerates them (``python3 -m tests.golden.outputs``)
in a commit that says why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.golden import outputs

RECORDED = json.loads(outputs.HASHES.read_text())


def _diff(recorded: dict[str, str], now: dict[str, str]) -> list[str]:
    names = sorted(set(recorded) | set(now))
    return [n for n in names if recorded.get(n) != now.get(n)]


@pytest.mark.slow
def test_toy_main_job_outputs_unchanged() -> None:
    assert _diff(RECORDED["toy"], outputs.toy_hashes()) == []


@pytest.mark.slow
@pytest.mark.realdata
def test_mmlu_commands_outputs_unchanged(shared_data: Path) -> None:
    assert _diff(RECORDED["mmlu"], outputs.mmlu_hashes(shared_data)) == []
