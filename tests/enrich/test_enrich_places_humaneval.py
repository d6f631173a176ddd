"""The shipped HumanEval family (seven descriptors, each a FileSet of one gzipped JSON
Lines file under the data folder) enriched the three ways, read with mlcroissant 1.1.1:
``--in-place`` copies yield every record of every RecordSet as the originals do; a copy in
``--out`` (with or without ``--rebase-urls``: a FileSet is read by mlcroissant only under the
descriptor's folder) is warned (CL-W001, naming the FileSet), fails ``validate`` and strips
back to the original bytes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from croissant_lineage._io import dumps_json
from croissant_lineage.enrich import enrich_family, strip_enrichment
from croissant_lineage.enrich.places import UNLOADABLE
from croissant_lineage.errors import InputError
from croissant_lineage.family.spec import load_family
from croissant_lineage.validate import validate
from croissant_lineage.workflows import link
from tests.enrich.test_enrich_places import TIME, _check_loads_like, _own_record_sets

pytestmark = pytest.mark.realdata

DATASETS = ("humaneval", "humaneval-x-python", "humaneval-x-cpp", "humaneval-x-go",
            "humaneval-x-java", "humaneval-x-js", "humaneval-x-rust")


@pytest.fixture(scope="module")
def humaneval_data(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HumanEval data as hard links (same bytes, no copy) in a folder of the test's own,
    so that copies can be written beside it."""
    into = tmp_path_factory.mktemp("humaneval-data")
    for src in (shared_data / "humaneval").rglob("*"):
        if src.is_file():
            dest = into / src.relative_to(shared_data)
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                dest.hardlink_to(src)
            except OSError:
                shutil.copyfile(src, dest)
    return into


@pytest.fixture(scope="module")
def humaneval_lineage(humaneval_data: Path):
    return link("humaneval", data_dir=humaneval_data)


@pytest.mark.slow
def test_humaneval_in_place_copies_load_every_record_like_the_originals(humaneval_lineage, humaneval_data: Path) -> None:
    result = enrich_family(humaneval_lineage, "humaneval", None, time=TIME, in_place="{stem}.enriched.json",
                           data_dir=humaneval_data)
    assert result.warnings == []
    assert [Path(d.path).name for d in result.descriptors] == [f"{n}.enriched.json" for n in DATASETS]
    assert {Path(d.path).parent for d in result.descriptors} == {humaneval_data}  # the data folder
    compared = {}
    for d in result.descriptors:
        enriched = Path(d.path)
        doc = json.loads(enriched.read_text("utf-8"))
        original = enriched.with_name(enriched.name.replace(".enriched.json", ".original.json"))
        original.write_text(dumps_json(strip_enrichment(doc)), "utf-8")  # the original, beside its data
        assert _own_record_sets(doc) == ["default"]
        compared[d.datasets[0]] = _check_loads_like(original, enriched, d.files)  # every record, every field
    assert compared == dict.fromkeys(DATASETS, 164)
    report = validate([Path(d.path) for d in result.descriptors], family="humaneval")
    assert not report.errors, str(report)


def test_humaneval_copy_apart_is_warned_fails_validate_and_strips_to_the_original(
        humaneval_lineage, humaneval_data: Path, tmp_path: Path) -> None:
    spec = load_family("humaneval")
    originals = {name: spec.datasets[name].descriptor for name in DATASETS}
    written = {}
    for rebase in (False, True):
        out = tmp_path / ("rebased" if rebase else "apart")
        result = enrich_family(humaneval_lineage, spec, out, time=TIME, rebase=rebase, data_dir=humaneval_data)
        assert [w.code for w in result.warnings] == [UNLOADABLE] * 7
        for d, w in zip(result.descriptors, result.warnings, strict=True):
            original = originals[d.datasets[0]]
            assert original is not None
            assert w.path == d.path and w.record_sets == ["default"]
            assert w.resources == [json.loads(original.read_text("utf-8"))["distribution"][0]["@id"]]
            assert "--in-place" in w.message and "--rebase-urls" not in w.message  # rebasing a FileSet cannot help
            text = Path(d.path).read_text("utf-8")
            assert dumps_json(strip_enrichment(json.loads(text))) == original.read_text("utf-8")  # byte for byte
            written[rebase, Path(d.path).name] = text
        report = validate([out], family="humaneval", data_dir=humaneval_data)
        assert sorted({i.code for i in report.errors}) == ["CLV701"] and len(report.errors) == 7
    # a FileSet is left as it was: --rebase-urls writes the default's bytes
    assert [t for (r, _), t in sorted(written.items()) if r] == [t for (r, _), t in sorted(written.items()) if not r]
    assert len(written) == 14


def test_humaneval_in_place_needs_the_data_folder_and_one_name_per_descriptor(humaneval_lineage,
                                                                               humaneval_data: Path) -> None:
    with pytest.raises(InputError):  # the seven descriptors share the data folder
        enrich_family(humaneval_lineage, "humaneval", None, time=TIME, in_place="enriched.json", data_dir=humaneval_data)
    with pytest.raises(InputError):  # where the data is must be said
        enrich_family(humaneval_lineage, "humaneval", None, time=TIME, in_place="{stem}.enriched.json")
