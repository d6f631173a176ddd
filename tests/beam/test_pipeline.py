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

from croissant_lineage.beam import pipeline
from croissant_lineage.beam.pipeline import beam_options, link_beam
from croissant_lineage.errors import LineageError
from croissant_lineage.lineage.index import INDEX_FILE
from croissant_lineage.lineage.info import INPUTS_FILE
from croissant_lineage.lineage.model import LINEAGE_FILES
from croissant_lineage.testing.synthetic import generate_family
from croissant_lineage.workflows import link, write_lineage

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy" / "family.json"
FILES = (*LINEAGE_FILES, INDEX_FILE, "family.json", "summary.json", INPUTS_FILE)
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
    sharded = link_beam(fam.spec, pipeline_options=TWO_PROCESSES, shard_bytes=256 * 1024, shard_rows=2_000)
    sharded.write(tmp_path / "sharded")
    for name in LINEAGE_FILES:  # every dataset read in several shards: the same files
        assert (tmp_path / "sharded" / name).read_bytes() == (local / name).read_bytes(), name


#: Shards small enough that every dataset of the toy family is read in several.
TINY = {"shard_bytes": 300, "shard_rows": 2}


def _same_lineage(beam: pipeline.Lineage, local: pipeline.Lineage, tmp_path: Path) -> None:
    beam.write(tmp_path / "beam-lineage")
    local.write(tmp_path / "local-lineage")
    names = sorted(p.name for p in (tmp_path / "local-lineage").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "beam-lineage").iterdir())
    for name in names:
        assert (tmp_path / "beam-lineage" / name).read_bytes() == (tmp_path / "local-lineage" / name).read_bytes(), name


@pytest.fixture()
def reruns(monkeypatch: pytest.MonkeyPatch) -> list:
    """What each merge returned: a Lineage, or the datasets to read whole in a second run."""
    seen: list = []
    collect = pipeline._collect

    def spy(*args: object) -> object:
        got = collect(*args)
        seen.append(got)
        return got

    monkeypatch.setattr(pipeline, "_collect", spy)
    return seen


@pytest.mark.parametrize("options", [IN_MEMORY, TWO_PROCESSES], ids=["in_memory", "multi_processing-2"])
def test_toy_in_small_shards_is_byte_identical(options: dict, tmp_path: Path, reruns: list) -> None:
    got = link_beam(TOY, pipeline_options=options, **TINY)
    _same_lineage(got, link(TOY), tmp_path)
    assert len(reruns) == 1  # the shards' record types agreed: no dataset was read whole again


def test_synthetic_in_small_shards_is_byte_identical(tmp_path: Path, reruns: list) -> None:
    fam = generate_family(tmp_path / "family", 3_000)
    got = link_beam(fam.spec, pipeline_options=TWO_PROCESSES, shard_bytes=8_000, shard_rows=300)
    _same_lineage(got, link(fam.spec), tmp_path)
    assert len(reruns) == 1


def _edit_toy_pro(tmp_path: Path, edit: str) -> Path:
    folder = tmp_path / "toy"
    shutil.copytree(TOY.parent, folder)
    path = folder / "toy-pro" / "test.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if edit == "types":  # a number that is an int in the first shards and a float in the last
        records[-1]["question_id"] = records[-1]["question_id"] + 0.5
    else:  # an id repeated in two shards
        records[-1]["question_id"] = records[0]["question_id"]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder / "family.json"


def test_shards_whose_record_types_disagree_are_read_whole_again(tmp_path: Path, reruns: list) -> None:
    spec = _edit_toy_pro(tmp_path, "types")
    got = link_beam(spec, pipeline_options=IN_MEMORY, **TINY)
    _same_lineage(got, link(spec), tmp_path)
    assert reruns[0] == {1} and len(reruns) == 2  # toy-pro (position 1), then the whole lineage


def test_an_id_repeated_across_shards_is_the_local_error(tmp_path: Path) -> None:
    spec = _edit_toy_pro(tmp_path, "ids")
    with pytest.raises(LineageError) as local:
        link(spec)
    with pytest.raises(LineageError) as beam:
        link_beam(spec, pipeline_options=IN_MEMORY, **TINY)
    assert type(beam.value) is type(local.value) and str(beam.value) == str(local.value)
    assert "duplicate item ids" in str(beam.value)


def _broken_toy(tmp_path: Path, how: str) -> Path:
    folder = tmp_path / "toy"
    shutil.copytree(TOY.parent, folder)
    spec = json.loads((folder / "family.json").read_text())
    if how == "block":  # a blocking key names a field the records lack: raised while keying rows
        spec["derivations"][1]["link"]["child_block"] = {"field": "no_such_field", "regex": "(.*)"}
    elif how == "id":  # an id rule's child field is missing: raised while linking a block
        spec["derivations"][2]["link"]["child_field"] = "no_such_field"
    elif how == "record":  # a bad key in the last records of a dataset: raised in a late shard, with its row
        path = folder / "toy-pro" / "test.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines()
        bad = json.loads(lines[-2])
        bad["answer"] = "Q"
        lines[-2] = json.dumps(bad)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:  # a data file of one dataset is gone: raised while loading, in a worker
        for f in (folder / "toy-redux").rglob("*"):
            if f.is_file() and f.name != "croissant.json":
                f.unlink()
    (folder / "family.json").write_text(json.dumps(spec))
    return folder / "family.json"


@pytest.mark.parametrize("how", ["block", "id", "data", "record"])
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
    with pytest.raises(LineageError) as sharded:  # the same error when read in small shards
        link_beam(spec, pipeline_options=IN_MEMORY, **TINY)
    assert str(sharded.value) == str(local.value)


@pytest.mark.slow
def test_mmlu_is_byte_identical(mmlu_lineage_dir: Path, shared_data: Path, tmp_path: Path) -> None:
    got = write_lineage("mmlu", tmp_path / "beam", data_dir=shared_data, runner="beam",
                        pipeline_options=TWO_PROCESSES).path
    _same_files(got, mmlu_lineage_dir)
