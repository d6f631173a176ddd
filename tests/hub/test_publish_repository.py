"""publish as an update of an existing Hub dataset repository: the repository's card is
required and its configs kept, croissant.json's file URLs resolve in the repository,
findings default to the enriched descriptor's, texts only when asked, upload only with
an explicit flag. Offline: the Hub is a stand-in and the repository a local folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from croissant_lineage.cli import main
from croissant_lineage.enrich import enrich_family
from croissant_lineage.errors import PublishError
from croissant_lineage.findings.files import load_findings, save_findings
from croissant_lineage.hub.publish import publish
from croissant_lineage.hub.tables import TEXT_COLUMNS, on_dataset
from tests.hub.hub_repo import configs, load_every_config, repository, unresolved_urls
from tests.hub.test_publish import (
    REPO,
    TOY_CARD,
    TOY_PRO,
    FakeApi,
    fake_hub,
    findings_file,
    toy_dir,
    toy_existing,
)

__all__ = ["fake_hub", "findings_file", "toy_dir", "toy_existing"]  # fixtures shared with test_publish

MMLU_CARD = REPO / "tests" / "fixtures" / "hub" / "mmlu-pro-card.md"


def test_without_the_repository_card_nothing_is_written(tmp_path: Path, toy_dir: Path, capsys):
    with pytest.raises(PublishError) as err:
        publish(TOY_PRO, toy_dir, tmp_path / "hub", repo_id="me/toy-pro")
    assert err.value.code == "CL-E009" and not (tmp_path / "hub").exists()
    argv = ["publish", str(TOY_PRO), "--lineage", str(toy_dir), "--out", str(tmp_path / "hub"), "--repo-id", "me/toy-pro"]
    assert main(argv) == 2
    assert "CL-E009" in capsys.readouterr().err and not (tmp_path / "hub").exists()


def test_a_data_file_no_config_names_is_an_error(tmp_path: Path, toy_dir: Path):
    card = tmp_path / "README.md"
    card.write_text("---\nconfigs:\n- config_name: other\n  data_files: x/*.parquet\n---\n", "utf-8")
    with pytest.raises(PublishError) as err:
        publish(TOY_PRO, toy_dir, tmp_path / "hub", repo_id="me/toy-pro", base_card=card)
    assert err.value.code == "CL-E009" and not (tmp_path / "hub").exists()


def test_every_config_loads_and_every_url_resolves(tmp_path: Path, toy_dir: Path, toy_existing: Path, monkeypatch):
    out = tmp_path / "hub"
    plan = publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", base_card=TOY_CARD)
    repo = repository(toy_existing, out, tmp_path / "repo")
    assert {name: sorted(len(f) for f in splits.values()) for name, splits in configs(repo).items()} == {
        "default": [1], "lineage_items": [1], "lineage": [1]}
    rows = load_every_config(repo, tmp_path / "cache", monkeypatch)
    assert rows == {"default": {"test": 12}, "lineage_items": {"train": 12}, "lineage": {"train": 10}}
    assert plan.configs == ("lineage_items", "lineage")  # no findings: the file without a config
    assert pq.read_metadata(out / "lineage" / "findings.parquet").num_rows == 0
    assert unresolved_urls(repo, json.loads((out / "croissant.json").read_text("utf-8"))) == []
    assert plan.kept_configs == ("default",)


def test_texts_only_when_asked(tmp_path: Path, toy_dir: Path):
    bare = publish(TOY_PRO, toy_dir, tmp_path / "a", repo_id="me/toy-pro", base_card=TOY_CARD)
    full = publish(TOY_PRO, toy_dir, tmp_path / "b", repo_id="me/toy-pro", base_card=TOY_CARD, texts=True)
    assert not bare.texts and full.texts
    a = pq.read_table(tmp_path / "a" / "lineage" / "lineage_items.parquet")
    b = pq.read_table(tmp_path / "b" / "lineage" / "lineage_items.parquet")
    assert a.schema == b.schema and a.num_rows == b.num_rows == 12
    for name in TEXT_COLUMNS:
        assert a.column(name).null_count == 12 and b.column(name).null_count == 0
    rest = [c for c in a.column_names if c not in TEXT_COLUMNS]
    assert a.select(rest).equals(b.select(rest))
    assert "texts not published" in (tmp_path / "a" / "README.md").read_text("utf-8")


def test_findings_default_to_the_enriched_descriptors(tmp_path: Path, toy_dir: Path, findings_file: Path):
    enriched = enrich_family(toy_dir, REPO / "examples" / "toy" / "family.json", tmp_path / "enriched",
                             findings_file, time="2025-01-01T00:00:00Z")
    pro = next(d for d in enriched.descriptors if d.datasets == ["toy-pro"])
    plan = publish(pro.path, toy_dir, tmp_path / "hub", repo_id="me/toy-pro", base_card=TOY_CARD)
    published = pq.read_table(tmp_path / "hub" / "lineage" / "findings.parquet")
    assert plan.findings == published.num_rows == len(on_dataset(load_findings(findings_file), "toy-pro")) == 1
    assert published.column("id").to_pylist() == ["F-1"]


def test_a_token_alone_uploads_nothing(tmp_path: Path, toy_dir: Path, fake_hub, monkeypatch, capsys):
    monkeypatch.setenv("HF_TOKEN", "hf_x")
    argv = ["publish", str(TOY_PRO), "--lineage", str(toy_dir), "--out", str(tmp_path / "hub"),
            "--repo-id", "me/toy-pro", "--base-card", str(TOY_CARD), "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["uploaded"] is False and fake_hub.calls == []
    assert main([*argv, "--upload"]) == 0
    printed = json.loads(capsys.readouterr().out)
    commits = [c for name, c in fake_hub.calls if name == "create_commit"]
    assert printed["uploaded"] is True and len(commits) == 1
    assert [op.path_in_repo for op in commits[0]["operations"]] == [f["path"] for f in printed["files"]]


def test_upload_needs_a_token(tmp_path: Path, toy_dir: Path, fake_hub, monkeypatch, capsys):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    with pytest.raises(PublishError):
        publish(TOY_PRO, toy_dir, tmp_path / "hub", repo_id="me/toy-pro", base_card=TOY_CARD, upload=True)
    argv = ["publish", str(TOY_PRO), "--lineage", str(toy_dir), "--out", str(tmp_path / "hub"),
            "--repo-id", "me/toy-pro", "--base-card", str(TOY_CARD), "--upload"]
    assert main(argv) == 2 and "CL-E009" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # one or the other
        main([*argv, "--dry-run"])
    assert fake_hub.calls == [] and not (tmp_path / "hub").exists()


def test_from_hub_reads_the_card_and_uploads_nothing(tmp_path: Path, toy_dir: Path, fake_hub):
    fake_hub.card = TOY_CARD.read_text("utf-8")
    plan = publish(TOY_PRO, toy_dir, tmp_path / "hub", repo_id="me/toy-pro", read_hub_card=True)
    assert plan.card_from == "hub" and plan.kept_configs == ("default",) and not plan.uploaded
    assert [name for name, _ in fake_hub.calls] == ["file_exists"]
    assert "The repository's own text." in (tmp_path / "hub" / "README.md").read_text("utf-8")
    FakeApi.card = None  # a repository without a card: nothing to keep, and the data is in no config
    with pytest.raises(PublishError):
        publish(TOY_PRO, toy_dir, tmp_path / "hub2", repo_id="me/toy-pro", read_hub_card=True)


@pytest.mark.slow
def test_mmlu_pro_update_every_config_loads(tmp_path: Path, mmlu_lineage, mmlu_lineage_dir: Path, shared_data: Path,
                                            monkeypatch):
    """The dry-run folder of MMLU-Pro (errata findings enriched in) committed to a repository
    holding the benchmark's test split: every config of the card loads, the benchmark's
    default config kept, every file URL of croissant.json resolves, no texts."""
    import pyarrow.json as pj

    from croissant_lineage.findings.importers.errata import import_mmlu_pro_errata

    errata = tmp_path / "errata.json"
    save_findings(import_mmlu_pro_errata(data_dir=shared_data).findings, errata)
    enriched = enrich_family(mmlu_lineage, "mmlu", tmp_path / "enriched", errata, time="2025-01-01T00:00:00Z")
    pro = next(d for d in enriched.descriptors if d.datasets == ["mmlu-pro"])
    out = tmp_path / "hub"
    plan = publish(pro.path, mmlu_lineage_dir, out, repo_id="TIGER-Lab/MMLU-Pro", base_card=MMLU_CARD)
    existing = tmp_path / "existing"
    (existing / "data").mkdir(parents=True)
    pq.write_table(pj.read_json(shared_data / "mmlu_pro" / "test.jsonl"), existing / "data" / "test-00000-of-00001.parquet")
    repo = repository(existing, out, tmp_path / "repo")
    expected = len(on_dataset(load_findings(errata), "mmlu-pro"))
    assert expected > 0 and plan.findings == expected and plan.kept_configs == ("default",)
    rows = load_every_config(repo, tmp_path / "cache", monkeypatch)
    assert rows == {"default": {"test": 12032}, "lineage_items": {"train": pro.items}, "lineage": {"train": pro.edges},
                    "findings": {"train": expected}}
    doc = json.loads((out / "croissant.json").read_text("utf-8"))
    assert unresolved_urls(repo, doc) == []
    assert "mmlu_pro/" not in json.dumps(doc)  # nothing left of the local data layout
    items = pq.read_table(out / "lineage" / "lineage_items.parquet")
    assert all(pc.all(pc.is_null(items.column(c))).as_py() for c in TEXT_COLUMNS)


def test_fixtures_are_the_shared_ones():
    assert shutil is not None and TOY_CARD.is_file() and MMLU_CARD.is_file()


def test_the_publishing_page_names_only_flags_publish_has():
    import re

    from croissant_lineage.cli import build_parser

    lines = (REPO / "docs" / "publishing.md").read_text("utf-8").splitlines()
    page = "\n".join(s for s in lines if not re.match(r"croissant-lineage (link|findings|enrich) ", s))
    page = re.sub(r"`(validate|link|enrich|findings|prov|route) [^`]*`", "", page)  # other commands' flags
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices["publish"]
    known = {s for a in sub._actions for s in a.option_strings}
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", page))
    assert named and named <= known, named - known
