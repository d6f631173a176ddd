"""Publishing: the dry-run folder (card, configs, Parquet), merging a card, and the upload
path with a stand-in for huggingface_hub.HfApi (no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pyarrow.parquet as pq
import pytest
import yaml

from croissant_lineage.cli import main
from croissant_lineage.errors import InputError, OutputExistsError, PublishError
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.parquet import FINDINGS_SCHEMA, findings_from_table
from croissant_lineage.hub.publish import BEGIN, END, publish
from croissant_lineage.lineage.schema import EDGES_SCHEMA
from croissant_lineage.linking.linker import link
from croissant_lineage.validate import validate
from croissant_lineage.validate.card import card_header

REPO = Path(__file__).resolve().parents[2]
TOY_PRO = REPO / "examples" / "toy" / "toy-pro" / "croissant.json"
SOURCE = {"name": "Invented review", "kind": "community_review"}


@pytest.fixture(scope="module")
def toy_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("toy-lineage")
    link(REPO / "examples" / "toy" / "family.json").write(out)
    return out


@pytest.fixture
def findings_file(tmp_path: Path) -> Path:
    path = tmp_path / "findings.yaml"
    entries = [
        {"id": "F-1", "item": "toy-pro:101", "target": "key", "kind": "wrong_key", "proposed": "Sable",
         "source": SOURCE, "status": "submitted"},
        {"id": "F-2", "item": "toy-base:astronomy/test/1", "target": "stem", "kind": "other",
         "source": SOURCE, "status": "proposed"},  # another dataset's item: not published here
    ]
    path.write_text(yaml.safe_dump({"findings": entries}), "utf-8")
    return path


def _configs_point_at_files(out: Path, header: dict) -> list[str]:
    paths = []
    for cfg in header["configs"]:
        for entry in cfg["data_files"]:
            assert (out / entry["path"]).is_file()
            paths.append(entry["path"])
    return paths


def test_dry_run_folder(tmp_path: Path, toy_dir: Path, findings_file: Path):
    from huggingface_hub import DatasetCard

    out = tmp_path / "hub"
    plan = publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", findings=findings_file)
    assert not plan.uploaded and plan.dataset == "toy-pro"
    assert [f.path for f in plan.files] == [
        "README.md", "croissant.json", "findings/findings.parquet", "lineage/duplicates.parquet", "lineage/edges.parquet"]
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [f.path for f in plan.files]
    card = DatasetCard.load(out / "README.md")  # offline: a local path
    header = card.data.to_dict()
    assert sorted(_configs_point_at_files(out, header)) == [
        "findings/findings.parquet", "lineage/duplicates.parquet", "lineage/edges.parquet"]
    assert header["license"] == "cc0-1.0"
    assert header["source_datasets"] == ["extended|https://example.org/toy/base"]
    assert BEGIN in card.text and END in card.text
    edges = pq.read_table(out / "lineage" / "edges.parquet")
    assert edges.schema.names == EDGES_SCHEMA.names
    assert set(edges.column("child_dataset").to_pylist()) == {"toy-pro", "toy-pro-v2"}
    found = pq.read_table(out / "findings" / "findings.parquet")
    assert found.column("id").to_pylist() == ["F-1"]
    assert found.schema == FINDINGS_SCHEMA  # the table enrichment writes beside descriptors
    assert found.column("dataset").to_pylist() == ["toy-pro"]
    assert found.column("item_iri").to_pylist() == ["https://example.org/toy/pro#101"]
    assert findings_from_table(found) == [f for f in load_findings(findings_file) if f.id == "F-1"]
    assert json.loads((out / "croissant.json").read_text("utf-8")) == json.loads(TOY_PRO.read_text("utf-8"))
    report = validate([out], metadata_only=True)  # an update: the data files are in the Hub repository
    assert report.valid and not report.errors, str(report)
    assert {c.kind for c in report.checked} >= {"card", "descriptor", "findings", "lineage-table"}


def test_same_inputs_same_bytes_and_rerun_in_place(tmp_path: Path, toy_dir: Path):
    a = publish(TOY_PRO, toy_dir, tmp_path / "a", repo_id="me/toy-pro")
    b = publish(TOY_PRO, toy_dir, tmp_path / "b", repo_id="me/toy-pro")
    assert [(f.path, f.sha256) for f in a.files] == [(f.path, f.sha256) for f in b.files]
    again = publish(TOY_PRO, toy_dir, tmp_path / "a", repo_id="me/toy-pro")  # publish's own folder
    assert again.files == a.files


def test_refuses_a_foreign_folder(tmp_path: Path, toy_dir: Path):
    out = tmp_path / "busy"
    out.mkdir()
    (out / "notes.txt").write_text("mine", "utf-8")
    with pytest.raises(OutputExistsError):
        publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro")
    publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", overwrite=True)
    assert (out / "notes.txt").exists()  # only publish's own files are written


def test_bad_arguments(tmp_path: Path, toy_dir: Path):
    with pytest.raises(InputError):
        publish(TOY_PRO, toy_dir, tmp_path / "x", repo_id="not-a-repo")
    with pytest.raises(InputError):
        publish(TOY_PRO, toy_dir, tmp_path / "x", repo_id="me/x", dataset="nope")


BASE_CARD = """---
license: cc0-1.0
language:
- en
configs:
- config_name: default
  data_files:
  - split: test
    path: data/test-*.parquet
- config_name: lineage_edges
  data_files: old/edges.parquet
---

# Toy Pro

Maintainers' own text.
"""


def test_merges_an_existing_card(tmp_path: Path, toy_dir: Path):
    base = tmp_path / "README.md"
    base.write_text(BASE_CARD, "utf-8")
    out = tmp_path / "hub"
    plan = publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", base_card=base)
    assert plan.merged_card
    text = (out / "README.md").read_text("utf-8")
    header, _ = card_header(text)
    assert header is not None
    assert header["language"] == ["en"]
    assert [c["config_name"] for c in header["configs"]] == ["default", "lineage_edges", "lineage_duplicates"]
    assert "Maintainers' own text." in text and text.count(BEGIN) == 1
    # Publishing onto that card again rewrites only our section.
    base.write_text(text, "utf-8")
    publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", base_card=base)
    assert (out / "README.md").read_text("utf-8") == text


class FakeApi:
    """Stands in for huggingface_hub.HfApi: records calls, never touches the network."""

    calls: ClassVar[list[tuple[str, dict]]] = []
    card: ClassVar[str | None] = None
    fail: ClassVar[bool] = False
    tmp: ClassVar[str] = ""

    def __init__(self, token: str | None = None, **kw):
        self.token = token

    def file_exists(self, repo_id, filename, repo_type=None):
        FakeApi.calls.append(("file_exists", {"repo_id": repo_id, "filename": filename, "repo_type": repo_type}))
        return FakeApi.card is not None

    def hf_hub_download(self, repo_id, filename, repo_type=None):
        path = Path(FakeApi.tmp) / "downloaded-README.md"
        path.write_text(FakeApi.card or "", "utf-8")
        return str(path)

    def create_commit(self, repo_id, operations, *, commit_message, repo_type=None, **kw):
        if FakeApi.fail:
            raise OSError("connection reset")
        FakeApi.calls.append(("create_commit", {"repo_id": repo_id, "operations": list(operations),
                                                "message": commit_message, "repo_type": repo_type}))

        class Info:
            commit_url = f"https://huggingface.co/datasets/{repo_id}/commit/abc"

        return Info()


@pytest.fixture
def fake_hub(monkeypatch, tmp_path: Path):
    import huggingface_hub

    FakeApi.calls, FakeApi.card, FakeApi.fail, FakeApi.tmp = [], None, False, str(tmp_path)
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    return FakeApi


def test_upload_is_one_commit_of_the_written_files(tmp_path: Path, toy_dir: Path, fake_hub):
    fake_hub.card = BASE_CARD
    out = tmp_path / "hub"
    plan = publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", token="hf_x", dry_run=False)
    commits = [c for name, c in fake_hub.calls if name == "create_commit"]
    assert len(commits) == 1 and plan.uploaded and plan.merged_card
    commit = commits[0]
    assert commit["repo_type"] == "dataset" and commit["repo_id"] == "me/toy-pro"
    assert [op.path_in_repo for op in commit["operations"]] == [f.path for f in plan.files]
    for op in commit["operations"]:
        assert Path(op.path_or_fileobj).read_bytes() == (out / op.path_in_repo).read_bytes()
    assert "Maintainers' own text." in (out / "README.md").read_text("utf-8")
    assert plan.commit_url and plan.commit_url.endswith("/commit/abc")


def test_dry_run_with_token_does_not_call_the_hub(tmp_path: Path, toy_dir: Path, fake_hub):
    plan = publish(TOY_PRO, toy_dir, tmp_path / "hub", repo_id="me/toy-pro", token="hf_x", dry_run=True)
    assert not plan.uploaded and fake_hub.calls == []


def test_hub_failure_is_a_publish_error(tmp_path: Path, toy_dir: Path, fake_hub):
    fake_hub.fail = True
    with pytest.raises(PublishError):
        publish(TOY_PRO, toy_dir, tmp_path / "hub", repo_id="me/toy-pro", token="hf_x", dry_run=False)


def test_hub_client_gets_timeouts_and_they_are_restored():
    import huggingface_hub
    from huggingface_hub.utils import _http

    from croissant_lineage.hub.publish import _hub_timeouts

    if not hasattr(huggingface_hub, "set_client_factory"):
        pytest.skip("requests-based huggingface_hub sets its own timeouts")
    before = _http._GLOBAL_CLIENT_FACTORY
    with _hub_timeouts(12.0):
        client = _http._GLOBAL_CLIENT_FACTORY()
        assert client.timeout.read == 12.0 and client.timeout.connect is not None
        client.close()
    assert _http._GLOBAL_CLIENT_FACTORY is before


def test_cli_dry_run_json_equals_plan(tmp_path: Path, toy_dir: Path, capsys, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    args = ["publish", str(TOY_PRO), "--lineage", str(toy_dir), "--out", str(tmp_path / "hub"),
            "--repo-id", "me/toy-pro", "--json"]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["uploaded"] is False
    again = publish(TOY_PRO, toy_dir, tmp_path / "hub", repo_id="me/toy-pro")
    assert printed == again.to_dict()
    assert main([*args[:-1]]) == 0
    assert "add README.md" in capsys.readouterr().out


def test_parquet_the_descriptor_distributes_is_published_with_a_config(tmp_path: Path, toy_dir: Path):
    """An enriched descriptor reads lineage Parquet from beside itself: publish ships those
    files at the same paths, each with a configs entry, so croissant.json resolves in the repo."""
    src = tmp_path / "enriched"
    src.mkdir()
    doc = json.loads(TOY_PRO.read_text("utf-8"))
    pq.write_table(pq.read_table(toy_dir / "edges.parquet").slice(0, 3), src / "croissant.lineage.parquet")
    doc["distribution"].append({"@type": "cr:FileObject", "@id": "lineage-file", "name": "lineage-file",
                                "contentUrl": "croissant.lineage.parquet", "encodingFormat": "application/x-parquet",
                                "sha256": "0" * 64})
    doc["recordSet"].append({"@type": "cr:RecordSet", "@id": "lineage", "name": "lineage", "field": [
        {"@type": "cr:Field", "@id": "lineage/child_item", "dataType": "sc:Text",
         "source": {"fileObject": {"@id": "lineage-file"}, "extract": {"column": "child_item"}}}]})
    (src / "croissant.json").write_text(json.dumps(doc), "utf-8")
    out = tmp_path / "hub"
    plan = publish(src / "croissant.json", toy_dir, out, repo_id="me/toy-pro")
    assert "croissant.lineage.parquet" in [f.path for f in plan.files]
    assert "descriptor_lineage" in plan.configs
    assert (out / "croissant.lineage.parquet").read_bytes() == (src / "croissant.lineage.parquet").read_bytes()
    report = validate([out], metadata_only=True)  # an update: the data files are in the Hub repository
    assert report.valid and "CLV606" not in report.codes(), str(report)
