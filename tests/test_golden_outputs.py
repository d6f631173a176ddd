"""The files the main jobs write say what the recorded ones say.

``tests/golden/output_hashes.json`` holds a digest of the *content* of every file written by the
README's quick start (the toy main job) and by its real-data blocks plus a few golden-only steps
(see ``tests/golden/outputs.py``), so a documented command that fails also fails here. Content,
not bytes: tables are compared by schema and rows, JSON by its canonical leaves, SVG by its
structure and texts (``tests/golden/content.py``), so upgrading pyarrow or matplotlib leaves the
test green while the content is the same. A failure names each file that differs and prints the
first lines of the new output where it differs. The README's blocks run twice in a row in the
same folder, as a person would run them again: every command replaces its own earlier outputs,
and the second run writes what the recorded (single) run wrote. A refactor must not change them; a deliberate
output change regenerates them (``python3 -m tests.golden.outputs``) in a commit that says why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.golden import content, outputs

RECORDED = json.loads(outputs.HASHES.read_text())


@pytest.mark.slow
def test_toy_main_job_outputs_unchanged() -> None:
    with outputs.toy_tree(runs=2) as root:
        problems = content.compare_trees(RECORDED["toy"], root)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.realdata
def test_mmlu_commands_outputs_unchanged(shared_data: Path) -> None:
    with outputs.mmlu_tree(shared_data, runs=2) as root:
        problems = content.compare_trees(RECORDED["mmlu"], root)
    assert not problems, "\n".join(problems)
