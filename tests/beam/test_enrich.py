"""``enrich --family --runner beam``: Beam's local Python runner writes the local
enrichment's folder byte for byte, and a bad descriptor inside a worker fails as it does
locally, leaving ``--out`` as it was.

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

from croissant_lineage import enrich_family
from croissant_lineage.enrich.family import enrich_family as enrich_here
from croissant_lineage.errors import LineageError
from croissant_lineage.testing.synthetic import generate_family
from croissant_lineage.workflows import write_lineage

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy" / "family.json"
FINDINGS = REPO / "examples" / "toy" / "findings.yaml"
TIME = "2025-01-01T00:00:00Z"
IN_MEMORY = {"direct_running_mode": "in_memory", "direct_num_workers": 1}
TWO_PROCESSES = {"direct_running_mode": "multi_processing", "direct_num_workers": 2}


def _same_folder(got: Path, want: Path) -> None:
    names = sorted(p.name for p in want.iterdir())
    assert names and sorted(p.name for p in got.iterdir()) == names
    for name in names:
        assert (got / name).read_bytes() == (want / name).read_bytes(), name


@pytest.fixture(scope="module")
def toy_lineage_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_lineage(TOY, tmp_path_factory.mktemp("toy") / "lineage").path


@pytest.fixture(scope="module")
def toy_local(toy_lineage_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("toy-enriched") / "local"
    result = enrich_here(toy_lineage_dir, TOY, out, FINDINGS, time=TIME)
    return out, result.to_dict()


@pytest.mark.parametrize("options", [IN_MEMORY, TWO_PROCESSES], ids=["in_memory", "multi_processing-2"])
def test_toy_is_byte_identical(options: dict, toy_lineage_dir: Path, toy_local: tuple[Path, dict],
                               tmp_path: Path) -> None:
    out = tmp_path / "beam"
    result = enrich_family(toy_lineage_dir, TOY, out, FINDINGS, time=TIME, runner="beam", pipeline_options=options)
    _same_folder(out, toy_local[0])
    want = json.loads(json.dumps(toy_local[1]).replace(str(toy_local[0]), str(out)))
    assert result.to_dict() == want
    assert len(result.descriptors) == 9 and result.edges > 0


def test_cli_runner_beam(toy_lineage_dir: Path, toy_local: tuple[Path, dict], tmp_path: Path) -> None:
    out = tmp_path / "cli"
    done = subprocess.run(
        [sys.executable, "-m", "croissant_lineage", "enrich", "--family", str(TOY), "--lineage",
         str(toy_lineage_dir), "--findings", str(FINDINGS), "--time", TIME, "--out", str(out),
         "--runner", "beam", "--beam-option", "direct_num_workers=2", "-q"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    _same_folder(out, toy_local[0])


def test_runner_beam_is_for_family_only(tmp_path: Path) -> None:
    desc = REPO / "examples" / "toy" / "toy-pro" / "croissant.json"
    done = subprocess.run(
        [sys.executable, "-m", "croissant_lineage", "enrich", str(desc), "--derived-from", "https://x.org/a",
         "--out", str(tmp_path / "e.json"), "--runner", "beam"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 2 and "--family only" in done.stderr
    assert not (tmp_path / "e.json").exists()


def _broken_toy(tmp_path: Path, how: str) -> Path:
    folder = tmp_path / "toy"
    shutil.copytree(TOY.parent, folder)
    desc = folder / "toy-redux" / "croissant.json"
    if how == "json":  # unreadable JSON: raised when the worker reads the descriptor
        desc.write_text("{ not json")
    else:  # the spec's record set is not in the descriptor: raised while enriching it
        doc = json.loads(desc.read_text())
        for rs in doc["recordSet"]:
            rs["@id"] = rs["name"] = "renamed"
        desc.write_text(json.dumps(doc))
    return folder / "family.json"


@pytest.mark.parametrize("how", ["json", "record_set"])
def test_bad_descriptor_in_a_worker_is_the_local_error_and_writes_nothing(
    how: str, toy_lineage_dir: Path, tmp_path: Path
) -> None:
    spec = _broken_toy(tmp_path, how)
    with pytest.raises(LineageError) as local:
        enrich_here(toy_lineage_dir, spec, tmp_path / "local", time=TIME)
    out = tmp_path / "beam"
    out.mkdir()
    (out / "keep.txt").write_text("an earlier file")
    with pytest.raises(LineageError) as beam:
        enrich_family(toy_lineage_dir, spec, out, time=TIME, runner="beam", pipeline_options=TWO_PROCESSES)
    assert type(beam.value) is type(local.value)
    assert str(beam.value) == str(local.value) and beam.value.code == local.value.code
    assert "\n" not in str(beam.value)
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]  # --out as it was
    assert not (tmp_path / "local").exists()


def test_refuses_to_replace_a_file_it_did_not_write(toy_lineage_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "beam"
    out.mkdir()
    (out / "toy-pro.json").write_text("{}")
    with pytest.raises(LineageError) as err:
        enrich_family(toy_lineage_dir, TOY, out, time=TIME, runner="beam", pipeline_options=IN_MEMORY)
    assert err.value.code == "CL-E007"
    assert (out / "toy-pro.json").read_text() == "{}"


@pytest.mark.slow
def test_synthetic_50k_is_byte_identical(tmp_path: Path) -> None:
    fam = generate_family(tmp_path / "family", 50_000)
    lineage = write_lineage(fam.spec, tmp_path / "lineage").path
    local = enrich_here(lineage, fam.spec, tmp_path / "local", time=TIME)
    beam = enrich_family(lineage, fam.spec, tmp_path / "beam", time=TIME, runner="beam",
                         pipeline_options=TWO_PROCESSES)
    _same_folder(tmp_path / "beam", tmp_path / "local")
    assert [d.items for d in beam.descriptors] == [d.items for d in local.descriptors]
    assert sum(d.items for d in beam.descriptors) > 49_000 and beam.edges > 30_000


@pytest.mark.slow
@pytest.mark.realdata
def test_mmlu_is_byte_identical(mmlu_lineage, mmlu_enriched, tmp_path: Path) -> None:
    out = tmp_path / "beam"
    enrich_family(mmlu_lineage, "mmlu", out, time="2025-01-01T00:00:00Z", runner="beam",
                  pipeline_options=TWO_PROCESSES)
    _same_folder(out, Path(mmlu_enriched.out_dir))
