"""A Beam failure that is not one of the library's own errors (Beam refusing the pipeline,
a worker dying) is one coded line, CL-E012, with Beam's exception chained as the cause."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from croissant_lineage.beam.pipeline import run_pipeline
from croissant_lineage.errors import DataError, PipelineError

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy" / "family.json"


class _Fails:
    def __init__(self, exc: BaseException):
        self.exc = exc

    def run(self) -> Any:
        raise self.exc


def _raise(exc: BaseException) -> Any:
    raise exc


def test_building_failure_is_coded() -> None:
    cause = TypeError("requires PCollections of type Sequence\nbut was applied to Iterable")
    with pytest.raises(PipelineError) as got:
        run_pipeline(lambda: _raise(cause))
    assert got.value.code == "CL-E012"
    assert got.value.__cause__ is cause
    assert "\n" not in str(got.value) and "TypeError" in str(got.value)


def test_running_failure_is_coded() -> None:
    cause = RuntimeError("worker died")
    with pytest.raises(PipelineError) as got:
        run_pipeline(lambda: _Fails(cause))
    assert got.value.__cause__ is cause


def test_library_errors_pass_as_they_are() -> None:
    err = DataError("a bad row")
    with pytest.raises(DataError) as got:
        run_pipeline(lambda: _Fails(err))
    assert got.value is err


def test_cli_prints_one_coded_line_and_writes_nothing(tmp_path: Path) -> None:
    pytest.importorskip("apache_beam")
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "croissant_lineage", "link", str(TOY), "--out", str(out), "--runner", "beam",
         "--beam-option", "runner=NoSuchRunner", "-q"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    # Beam's own import-time log lines (WARNING:root:...) aside, one line: the coded error
    lines = [line for line in done.stderr.splitlines() if not line.startswith("WARNING:")]
    assert len(lines) == 1 and "CL-E012" in lines[0], done.stderr
    assert not out.exists()
