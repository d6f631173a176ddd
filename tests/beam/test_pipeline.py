"""``link --runner beam``: Beam's local Python runner writes the local linker's lineage
folder byte for byte, and a bad input inside a worker fails as it does locally.

Run in a venv with the ``beam`` extra (``.ci/run`` makes one); skipped elsewhere.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("apache_beam")

from croissant_lineage.beam.pipeline import beam_options
from croissant_lineage.errors import LineageError
from croissant_lineage.lineage.model import LINEAGE_FILES
from croissant_lineage.testing.synthetic import generate_family
from croissant_lineage.workflows import write_lineage

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy" / "family.json"
FILES = (*LINEAGE_FILES, "family.json", "summary.json")
IN_MEMORY = {"direct_running_mode": "in_memory", "direct_num_workers": 1}
TWO_PROCESSES = {"direct_running_mode": "multi_processing", "direct_num_workers": 2}


def _same_files(a: Path, b: Path) -> None:
    assert sorted(p.name for p in a.iterdir()) == sorted(FILES)
    assert sorted(p.name for p in b.iterdir()) == sorted(FILES)
    for name in FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.fixture(scope="module")
def toy_local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_lineage(TOY, tmp_path_factory.mktemp("toy") / "local").path


def test_default_runner_is_the_in_process_python_one() -> None:
    from apache_beam.options.pipeline_options import DirectOptions
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner

    options, runner = beam_options()
    assert isinstance(runner, FnApiRunner)
    assert options.view_as(DirectOptions).direct_running_mode == "multi_processing"
    options, runner = beam_options(["--direct_num_workers=2", "--direct_running_mode=in_memory"])
    assert options.view_as(DirectOptions).direct_num_workers == 2
    assert options.view_as(DirectOptions).direct_running_mode == "in_memory"
    _, runner = beam_options({"runner": "DirectRunner"})
    assert runner == "DirectRunner"


@pytest.mark.parametrize("options", [IN_MEMORY, TWO_PROCESSES], ids=["in_memory", "multi_processing-2"])
def test_toy_is_byte_identical(options: dict, toy_local: Path, tmp_path: Path) -> None:
    got = write_lineage(TOY, tmp_path / "beam", runner="beam", pipeline_options=options).path
    _same_files(got, toy_local)


def test_cli_runner_beam(toy_local: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    done = subprocess.run(
        [sys.executable, "-m", "croissant_lineage", "link", str(TOY), "--out", str(out), "--runner", "beam",
         "--beam-option", "direct_num_workers=2", "--beam-option", "direct_running_mode=multi_processing", "-q"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    _same_files(out, toy_local)


@pytest.mark.slow
def test_synthetic_50k_is_byte_identical(tmp_path: Path) -> None:
    fam = generate_family(tmp_path / "family", 50_000)
    local = write_lineage(fam.spec, tmp_path / "local").path
    beam = write_lineage(fam.spec, tmp_path / "beam", runner="beam", pipeline_options=TWO_PROCESSES).path
    _same_files(beam, local)
    summary = json.loads((beam / "summary.json").read_text())
    assert summary["edges"] > 30_000 and sum(summary["items"].values()) > 49_000


def _broken_toy(tmp_path: Path, how: str) -> Path:
    folder = tmp_path / "toy"
    shutil.copytree(TOY.parent, folder)
    spec = json.loads((folder / "family.json").read_text())
    if how == "block":  # a blocking key names a field the records lack: raised while keying rows
        spec["derivations"][1]["link"]["child_block"] = {"field": "no_such_field", "regex": "(.*)"}
    elif how == "id":  # an id rule's child field is missing: raised while linking a block
        spec["derivations"][2]["link"]["child_field"] = "no_such_field"
    else:  # a data file of one dataset is gone: raised while loading, in a worker
        for f in (folder / "toy-redux").rglob("*"):
            if f.is_file() and f.name != "croissant.json":
                f.unlink()
    (folder / "family.json").write_text(json.dumps(spec))
    return folder / "family.json"


@pytest.mark.parametrize("how", ["block", "id", "data"])
def test_bad_input_in_a_worker_is_the_local_error_and_writes_nothing(how: str, tmp_path: Path) -> None:
    spec = _broken_toy(tmp_path, how)
    with pytest.raises(LineageError) as local:
        write_lineage(spec, tmp_path / "local")
    out = tmp_path / "beam"
    with pytest.raises(LineageError) as beam:
        write_lineage(spec, out, runner="beam", pipeline_options=TWO_PROCESSES)
    assert type(beam.value) is type(local.value)
    assert str(beam.value) == str(local.value)
    assert "\n" not in str(beam.value)
    assert not out.exists() and not (tmp_path / "local").exists()


@pytest.mark.slow
def test_mmlu_is_byte_identical(mmlu_lineage_dir: Path, shared_data: Path, tmp_path: Path) -> None:
    got = write_lineage("mmlu", tmp_path / "beam", data_dir=shared_data, runner="beam",
                        pipeline_options=TWO_PROCESSES).path
    _same_files(got, mmlu_lineage_dir)
