"""validate on the real MMLU family: shipped descriptors and spec, the linked lineage, and
the imported findings (MMLU-Redux and the MMLU-Pro errata)."""

from __future__ import annotations

from pathlib import Path

import pytest

from croissant_lineage.findings.files import save_findings
from croissant_lineage.validate import validate

REPO = Path(__file__).resolve().parents[2]
FAMILY = REPO / "croissant_lineage" / "family" / "families" / "mmlu"


def test_shipped_family_spec_and_descriptors_are_valid():
    report = validate([FAMILY])
    assert report.valid, str(report)
    assert report.codes() <= {"CLV103"}  # only recommended properties (citeAs, version...) missing
    kinds = [c.kind for c in report.checked]
    assert kinds.count("descriptor") == 12 and kinds.count("family") == 1


def test_shipped_descriptors_find_their_files_in_the_data_dir(shared_data: Path, tmp_path: Path):
    report = validate([FAMILY], data_dir=shared_data)
    assert report.codes() <= {"CLV103", "CLV603"}, str(report)
    # resolved against an empty folder, each descriptor's files are missing
    report = validate([FAMILY], data_dir=tmp_path)
    missing = {i.where.split("#")[0] for i in report.issues if i.code == "CLV701"}
    assert len(missing) == 12 and not report.valid


def test_real_lineage_folder_is_valid(mmlu_lineage_dir: Path):
    report = validate([mmlu_lineage_dir])
    assert report.valid and report.issues == (), str(report)
    assert [c.kind for c in report.checked] == ["lineage"]


@pytest.fixture(scope="module")
def real_findings(mmlu_redux, shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from croissant_lineage.findings.importers.errata import import_mmlu_pro_errata

    redux = mmlu_redux.findings
    errata = import_mmlu_pro_errata(data_dir=shared_data).findings
    out = tmp_path_factory.mktemp("findings") / "findings.yaml"
    save_findings([*redux, *errata], out)
    return out


def test_imported_findings_are_valid_against_the_lineage(mmlu_lineage_dir: Path, real_findings: Path):
    report = validate([mmlu_lineage_dir, real_findings])
    assert report.valid and report.issues == (), str(report)


def test_a_confirmed_redux_key_fix_is_stale_in_every_inherited_copy(mmlu_lineage_dir: Path, mmlu_redux,
                                                                       tmp_path: Path):
    fixes = [f.with_status("confirmed_fixed", date="2025-01-01")
             for f in mmlu_redux.findings
             if f.kind == "wrong_key" and f.proposed][:10]
    assert len(fixes) == 10
    save_findings(fixes, tmp_path / "fixed.yaml")
    report = validate([mmlu_lineage_dir, tmp_path / "fixed.yaml"], max_per_code=None)
    stale = [i for i in report.issues if i.code == "CLV404"]
    assert stale and report.valid  # a warning: the copies still carry the old key
    datasets = {i.message.split(": ")[1].split(":")[0] for i in stale}
    assert datasets & {"mmlu-pro", "global-mmlu-en"}


# --- the enriched family (croissant_lineage.enrich) -------------------------------------


@pytest.fixture(scope="module")
def enriched_mmlu(mmlu_enriched) -> Path:
    return Path(mmlu_enriched.out_dir)


def test_enriched_mmlu_apart_from_its_data_fails_with_its_family_too(enriched_mmlu: Path, shared_data: Path):
    # The enriched descriptors are written apart from the data: a loader resolves their
    # files against their own folder, where the benchmark's are not (CLV701, one per
    # descriptor), with --family or without.
    report = validate([enriched_mmlu], family="mmlu", data_dir=shared_data)
    assert not report.valid
    assert {i.code for i in report.errors} == {"CLV701"}
    assert len(report.errors) == 16 and report.codes() <= {"CLV103", "CLV701"}  # 11 FileSets + global-mmlu-subset's 5
    alone = validate([enriched_mmlu])
    assert {i.code for i in alone.errors} == {"CLV701"}
    assert validate([enriched_mmlu], metadata_only=True).valid
    kinds = [c.kind for c in report.checked]
    assert kinds.count("enriched-descriptor") == 12 and kinds.count("family") == 1
    assert kinds.count("lineage-table") >= 12  # each descriptor's items and lineage Parquet


def test_publish_dry_run_for_enriched_mmlu_pro(enriched_mmlu: Path, mmlu_lineage_dir: Path, real_findings: Path,
                                               tmp_path: Path):
    from huggingface_hub import DatasetCard

    from croissant_lineage.hub.publish import publish

    out = tmp_path / "hub-mmlu-pro"
    plan = publish(enriched_mmlu / "mmlu-pro.json", mmlu_lineage_dir, out, repo_id="TIGER-Lab/MMLU-Pro",
                   findings=real_findings, base_card=Path(__file__).parents[1] / "fixtures" / "hub" / "mmlu-pro-card.md")
    assert plan.dataset == "mmlu-pro" and not plan.uploaded
    card = DatasetCard.load(out / "README.md")
    header = card.data.to_dict()
    for cfg in header["configs"][1:]:  # the repository's own default config first, its files in the repository
        for entry in cfg["data_files"]:
            assert (out / entry["path"]).is_file()
    assert "extended|cais/mmlu" in header["source_datasets"]
    assert header["license"] == "mit"
    report = validate([out], metadata_only=True)  # an update: the data files are in the Hub repository
    assert report.codes() <= {"CLV103", "CLV603"}, str(report)
