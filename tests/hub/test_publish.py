"""Publishing: the dry-run folder (card, configs, Parquet), merging a card, and the upload
path with a stand-in for huggingface_hub.HfApi (no network)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import ClassVar

import pyarrow.parquet as pq
import pytest
import yaml

from croissant_lineage.cli import main
from croissant_lineage.enrich import enrich_family
from croissant_lineage.errors import InputError, OutputExistsError, PublishError
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.parquet import FINDINGS_SCHEMA, findings_from_table
from croissant_lineage.hub.publish import BEGIN, END, hub_url, publish, size_category
from croissant_lineage.lineage.schema import ITEMS_FILE_SCHEMA, LINEAGE_FILE_SCHEMA
from croissant_lineage.validate import validate
from croissant_lineage.validate.card import card_header
from croissant_lineage.workflows import link
from tests.hub.hub_repo import repository

REPO = Path(__file__).resolve().parents[2]
TOY_PRO = REPO / "examples" / "toy" / "toy-pro" / "croissant.json"
#: The toy repository's card: its own default config (the benchmark's test split under data/).
TOY_CARD = REPO / "tests" / "fixtures" / "hub" / "toy-pro-card.md"
SOURCE = {"name": "Invented review", "kind": "community_review"}


@pytest.fixture(scope="module")
def toy_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("toy-lineage")
    link(REPO / "examples" / "toy" / "family.json").write(out)
    return out


@pytest.fixture
def toy_existing(tmp_path: Path) -> Path:
    """The toy repository before the update: the benchmark's test split as its card's default
    config names it (Parquet, as the Hub converts and serves data)."""
    import pyarrow.json as pj

    existing = tmp_path / "existing"
    (existing / "data").mkdir(parents=True)
    pq.write_table(pj.read_json(TOY_PRO.parent / "test.jsonl"), existing / "data" / "test-00000-of-00001.parquet")
    return existing


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


TABLE_FILES = ["lineage/findings.parquet", "lineage/lineage.parquet", "lineage/lineage_items.parquet"]


def test_dry_run_folder(tmp_path: Path, toy_dir: Path, findings_file: Path, toy_existing: Path):
    from huggingface_hub import DatasetCard

    out = tmp_path / "hub"
    plan = publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", base_card=TOY_CARD, findings=findings_file)
    assert not plan.uploaded and plan.dataset == "toy-pro"
    assert [f.path for f in plan.files] == ["README.md", "croissant.json", *TABLE_FILES]
    assert plan.configs == ("lineage_items", "lineage", "findings")
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [f.path for f in plan.files]
    card = DatasetCard.load(out / "README.md")  # offline: a local path
    header = card.data.to_dict()
    ours = {**header, "configs": [c for c in header["configs"] if c["config_name"] != "default"]}
    assert sorted(_configs_point_at_files(out, ours)) == TABLE_FILES  # each table once
    assert [c["config_name"] for c in header["configs"]] == ["default", "lineage_items", "lineage", "findings"]
    assert plan.kept_configs == ("default",) and plan.card_from == "base_card"
    assert header["license"] == "cc0-1.0"
    assert header["source_datasets"] == ["extended|https://example.org/toy/base"]
    assert BEGIN in card.text and END in card.text
    edges = pq.read_table(out / "lineage" / "lineage.parquet")
    assert edges.schema == LINEAGE_FILE_SCHEMA  # the table enrichment writes beside descriptors
    assert set(edges.column("child").to_pylist()) == {f"toy-pro:{i}" for i in range(101, 111)}
    items = pq.read_table(out / "lineage" / "lineage_items.parquet")
    assert items.schema == ITEMS_FILE_SCHEMA and items.num_rows == 12
    assert set(items.column("dataset").to_pylist()) == {"toy-pro"}
    found = pq.read_table(out / "lineage" / "findings.parquet")
    assert found.column("id").to_pylist() == ["F-1"]
    assert found.schema == FINDINGS_SCHEMA
    assert found.column("dataset").to_pylist() == ["toy-pro"]
    assert found.column("item_iri").to_pylist() == ["https://example.org/toy/pro#101"]
    assert findings_from_table(found) == [f for f in load_findings(findings_file) if f.id == "F-1"]
    published = json.loads((out / "croissant.json").read_text("utf-8"))
    given = json.loads(TOY_PRO.read_text("utf-8"))
    assert published["distribution"][0]["includes"] == "data/test-*.parquet"  # the repository's default config
    assert published["distribution"][0]["encodingFormat"] == "application/x-parquet"
    for key in ("includes", "encodingFormat"):
        published["distribution"][0][key] = given["distribution"][0][key]
    assert published == given  # and nothing else changed
    report = validate([repository(toy_existing, out, tmp_path / "repo")], metadata_only=True)
    assert report.valid and not report.errors, str(report)
    assert {c.kind for c in report.checked} >= {"card", "descriptor", "findings", "lineage-table"}


def test_card_metadata_is_complete_for_the_hub(tmp_path: Path, toy_dir: Path, findings_file: Path):
    """The keys the Hub indexes, checked offline with huggingface_hub's and datasets' own
    card classes and value lists."""
    import datasets
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard, DatasetCardData

    out = tmp_path / "hub"
    publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", base_card=TOY_CARD, findings=findings_file)
    data = DatasetCard.load(out / "README.md").data
    assert isinstance(data, DatasetCardData)
    for key in ("license", "language", "multilinguality", "size_categories", "task_categories",
                "task_ids", "pretty_name", "source_datasets"):
        assert getattr(data, key), key
    assert data.language == ["en"] and data.multilinguality == "monolingual"
    assert data.pretty_name == "Toy option-expanded copy"
    assert data.size_categories == ["n<1K"] and data.task_categories == ["question-answering"]
    resources = Path(datasets.__file__).parent / "utils" / "resources"
    assert set(data.size_categories) <= set(json.loads((resources / "size_categories.json").read_text()))
    assert set(data.language) <= set(json.loads((resources / "languages.json").read_text()))
    assert data.multilinguality in json.loads((resources / "multilingualities.json").read_text())
    configs = MetadataConfigs.from_dataset_card_data(data)  # raises on a malformed data_files
    assert sorted(configs) == ["default", "findings", "lineage", "lineage_items"]


def test_size_categories_and_hub_urls():
    assert [size_category(n) for n in (0, 999, 1000, 12032, 99_999, 100_000, 2_000_000)] == [
        "n<1K", "n<1K", "1K<n<10K", "10K<n<100K", "10K<n<100K", "100K<n<1M", "1M<n<10M"]
    assert hub_url("https://huggingface.co/datasets/TIGER-Lab/MMLU-Pro@2025-08-03") == (
        "https://huggingface.co/datasets/TIGER-Lab/MMLU-Pro/tree/2025-08-03")
    assert hub_url("https://huggingface.co/datasets/CohereLabs/Global-MMLU#en") == (
        "https://huggingface.co/datasets/CohereLabs/Global-MMLU")
    assert hub_url("https://huggingface.co/datasets/cais/mmlu") == "https://huggingface.co/datasets/cais/mmlu"
    assert hub_url("https://github.com/hendrycks/test") == "https://github.com/hendrycks/test"


HUB_LINK = re.compile(r"^https://huggingface\.co/datasets/[\w.-]+/[\w.-]+(/tree/[\w.-]+)?$")


def test_every_hub_url_in_the_card_is_one_the_hub_serves(tmp_path: Path, toy_dir: Path):
    """A family whose IRIs are Hub ids with revisions (``ORG/NAME@REV``) and subsets
    (``#config``): the card links ``.../tree/REV`` and the dataset page."""
    lineage = tmp_path / "lineage"
    shutil.copytree(toy_dir, lineage)
    family = json.loads((lineage / "family.json").read_text("utf-8"))
    for d in family["datasets"]:
        d["iri"] = d["iri"].replace("https://example.org/toy/", "https://huggingface.co/datasets/toy-org/")
        if d["name"] == "toy-base":
            d["iri"] += "#en"
    (lineage / "family.json").write_text(json.dumps(family), "utf-8")
    for dataset in ("toy-pro", "toy-pro-v2"):
        out = tmp_path / dataset
        publish(TOY_PRO, lineage, out, repo_id="me/toy-pro", base_card=TOY_CARD, dataset=dataset)
        text = (out / "README.md").read_text("utf-8")
        urls = re.findall(r"https?://huggingface\.co[^\s)|\"'`]*", text)
        assert urls and all(HUB_LINK.match(u) for u in urls), urls
    assert "https://huggingface.co/datasets/toy-org/pro/tree/v2" in text


def test_enriched_descriptor_reads_its_tables_from_the_hub_folder(tmp_path: Path, toy_dir: Path, findings_file: Path,
                                                                 toy_existing: Path):
    """The published croissant.json points its lineage FileObjects at the published tables:
    mlcroissant reads each added RecordSet there, twice, with as many rows as the table."""
    import mlcroissant as mlc

    enriched = enrich_family(toy_dir, REPO / "examples" / "toy" / "family.json", tmp_path / "enriched",
                             findings_file, time="2025-01-01T00:00:00Z")
    pro = next(d for d in enriched.descriptors if d.datasets == ["toy-pro"])
    out = tmp_path / "hub"
    plan = publish(pro.path, toy_dir, out, repo_id="me/toy-pro", base_card=TOY_CARD, findings=findings_file)
    assert [f.path for f in plan.files] == ["README.md", "croissant.json", *TABLE_FILES]
    doc = json.loads((out / "croissant.json").read_text("utf-8"))
    ours = {fo["@id"]: fo for fo in doc["distribution"] if fo.get("@id", "").startswith("cl-")}
    assert {fo["contentUrl"] for fo in ours.values()} == set(TABLE_FILES)
    for fo in ours.values():
        assert fo["sha256"] == hashlib.sha256((out / fo["contentUrl"]).read_bytes()).hexdigest()
    ds = mlc.Dataset(jsonld=str(out / "croissant.json"))
    rows = {"lineage_items": 12, "item_texts": 12, "lineage": 10, "findings": 1}
    for rs, n in rows.items():
        assert [sum(1 for _ in ds.records(rs)) for _ in range(2)] == [n, n], rs
    report = validate([repository(toy_existing, out, tmp_path / "repo")], metadata_only=True)
    assert report.valid and "CLV606" not in report.codes(), str(report)


def test_same_inputs_same_bytes_and_rerun_in_place(tmp_path: Path, toy_dir: Path):
    a = publish(TOY_PRO, toy_dir, tmp_path / "a", repo_id="me/toy-pro", base_card=TOY_CARD)
    b = publish(TOY_PRO, toy_dir, tmp_path / "b", repo_id="me/toy-pro", base_card=TOY_CARD)
    assert [(f.path, f.sha256) for f in a.files] == [(f.path, f.sha256) for f in b.files]
    again = publish(TOY_PRO, toy_dir, tmp_path / "a", repo_id="me/toy-pro", base_card=TOY_CARD)  # publish's own folder
    assert again.files == a.files


def test_refuses_a_foreign_folder(tmp_path: Path, toy_dir: Path):
    out = tmp_path / "busy"
    out.mkdir()
    (out / "notes.txt").write_text("mine", "utf-8")
    with pytest.raises(OutputExistsError):
        publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", base_card=TOY_CARD)
    publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", base_card=TOY_CARD, force=True)
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
    assert [c["config_name"] for c in header["configs"]] == ["default", "lineage_items", "lineage"]  # no findings
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
    plan = publish(TOY_PRO, toy_dir, out, repo_id="me/toy-pro", token="hf_x", upload=True)
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
    plan = publish(TOY_PRO, toy_dir, tmp_path / "hub", repo_id="me/toy-pro", base_card=TOY_CARD, token="hf_x")
    assert not plan.uploaded and fake_hub.calls == []


def test_hub_failure_is_a_publish_error(tmp_path: Path, toy_dir: Path, fake_hub):
    fake_hub.fail = True
    with pytest.raises(PublishError):
        publish(TOY_PRO, toy_dir, tmp_path / "hub", repo_id="me/toy-pro", base_card=TOY_CARD, token="hf_x", upload=True)


def test_hub_client_gets_timeouts_and_they_are_restored():
    import huggingface_hub
    from huggingface_hub.utils import _http

    from croissant_lineage.hub.client import _hub_timeouts

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
            "--repo-id", "me/toy-pro", "--base-card", str(TOY_CARD), "--json"]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["uploaded"] is False
    again = publish(TOY_PRO, toy_dir, tmp_path / "hub", repo_id="me/toy-pro", base_card=TOY_CARD)
    assert printed == again.to_dict()
    assert main([*args[:-1]]) == 0
    assert "add README.md" in capsys.readouterr().out


def test_parquet_the_descriptor_distributes_is_published_with_a_config(tmp_path: Path, toy_dir: Path, toy_existing: Path):
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
    plan = publish(src / "croissant.json", toy_dir, out, repo_id="me/toy-pro", base_card=TOY_CARD)
    assert "croissant.lineage.parquet" in [f.path for f in plan.files]
    assert "descriptor_lineage" in plan.configs
    assert (out / "croissant.lineage.parquet").read_bytes() == (src / "croissant.lineage.parquet").read_bytes()
    report = validate([repository(toy_existing, out, tmp_path / "repo")], metadata_only=True)
    assert report.valid and "CLV606" not in report.codes(), str(report)


@pytest.mark.slow
def test_mmlu_pro_dry_run(tmp_path: Path, mmlu_lineage_dir: Path, mmlu_enriched):
    """publish --dry-run of enriched MMLU-Pro: each table once, the card's metadata complete,
    every Hub URL in the card one the Hub serves, croissant.json read from the folder."""
    from huggingface_hub import DatasetCard

    pro = next(d for d in mmlu_enriched.descriptors if d.datasets == ["mmlu-pro"])
    out = tmp_path / "hub"
    plan = publish(pro.path, mmlu_lineage_dir, out, repo_id="TIGER-Lab/MMLU-Pro",
                   base_card=REPO / "tests" / "fixtures" / "hub" / "mmlu-pro-card.md")
    assert [f.path for f in plan.files] == ["README.md", "croissant.json", *TABLE_FILES]
    data = DatasetCard.load(out / "README.md").data
    assert [c["config_name"] for c in data.configs] == ["default", "lineage_items", "lineage"]  # no findings
    assert data.language == ["en"] and data.size_categories == ["10K<n<100K"] and data.license == "mit"
    assert data.task_categories and data.pretty_name
    assert pq.read_metadata(out / "lineage" / "lineage.parquet").num_rows == pro.edges
    assert pq.read_metadata(out / "lineage" / "lineage_items.parquet").num_rows == pro.items
    text = (out / "README.md").read_text("utf-8")
    urls = re.findall(r"https?://huggingface\.co[^\s)|\"'`]*", text)
    assert urls and all(HUB_LINK.match(u) for u in urls), urls
    assert "@" not in "".join(urls)
    report = validate([out], metadata_only=True)  # the benchmark's own files are in the Hub repository
    assert report.codes() <= {"CLV103", "CLV603", "CLV606"}, str(report)  # default config: files in the repository; findings: empty, no config
