"""The README's main job (examples/toy/run.sh) runs end to end, and re-runs give the same bytes."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _run(out: Path) -> str:
    if shutil.which("croissant-lineage") is None:
        pytest.skip("croissant-lineage is not installed on PATH (pip install -e .)")
    proc = subprocess.run(
        ["bash", str(REPO / "examples" / "toy" / "run.sh"), str(out)],
        capture_output=True, text=True, cwd=REPO, env={**os.environ, "SOURCE_DATE_EPOCH": "1700000000"},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _same_tree(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    return not mismatch and not errors and all(_same_tree(a / d, b / d) for d in cmp.common_dirs)


@pytest.mark.slow
def test_main_job_runs_and_is_deterministic(tmp_path: Path) -> None:
    first = _run(tmp_path / "a")
    assert "valid: 0 error(s), 0 warning(s)" in first
    assert "finding toy-eclipse-key on toy-pro:105" in first  # resolved from enriched metadata
    assert (tmp_path / "a" / "toy-pro-105.svg").read_text().lstrip().startswith("<?xml")
    _run(tmp_path / "b")
    assert _same_tree(tmp_path / "a", tmp_path / "b")
