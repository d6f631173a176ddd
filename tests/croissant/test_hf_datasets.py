"""A Hub dataset id read through ``datasets``: offline (``HF_HUB_OFFLINE``), from a
``datasets`` cache built here in a temporary folder; never the network."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage.croissant.hf_datasets import read_hub_dataset
from croissant_lineage.errors import InputError, SpecError
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items

QUESTIONS = pa.table({
    "qid": ["q1", "q2", "q3"],
    "question": ["Is a stub true?", "Is a mock false?", "Is a fake real?"],
    "options": [["yes", "no"], ["yes", "no", "maybe"], ["yes", "no"]],
    "answer": ["A", "B", "B"],
})


def _cache_hub_dataset(cache: Path, repo_id: str, config: str, splits: dict[str, pa.Table]) -> None:
    """Put ``splits`` in a ``datasets`` cache as ``load_dataset(repo_id)`` leaves it: prepared
    by the Parquet builder, under ``{owner}___{name}/{config}/{version}/{commit}``."""
    from datasets.data_files import DataFilesDict
    from datasets.packaged_modules.parquet.parquet import Parquet

    src = cache.parent / "src"
    src.mkdir(parents=True, exist_ok=True)
    for name, table in splits.items():
        pq.write_table(table, src / f"{name}.parquet")
    owner, name = repo_id.split("/")
    builder = Parquet(cache_dir=str(cache), dataset_name=name, config_name=config,
                      data_files=DataFilesDict.from_patterns({s: [str(src / f"{s}.parquet")] for s in splits}))
    builder.download_and_prepare()
    built = Path(builder.cache_dir)  # {cache}/{name}/{config}-{hash}/{version}
    target = cache / f"{owner}___{name}" / config / built.name / ("0" * 40)
    target.mkdir(parents=True)
    for f in built.iterdir():
        if f.is_file():
            shutil.move(str(f), target / f.name)
    shutil.rmtree(cache / name)


@pytest.fixture
def offline_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import datasets.config
    import huggingface_hub.constants

    cache = tmp_path / "datasets-cache"
    _cache_hub_dataset(cache, "owner/quiz", "default", {"test": QUESTIONS, "dev": QUESTIONS.slice(0, 1)})
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache)
    return cache


def test_reads_a_cached_hub_dataset_offline(offline_cache: Path) -> None:
    table = read_hub_dataset("owner/quiz", "default", split="test")
    assert table.column_names == ["qid", "question", "options", "answer", "split", "_file", "_row"]
    assert table.column("qid").to_pylist() == ["q1", "q2", "q3"]
    assert table.column("_file").to_pylist() == ["hf://datasets/owner/quiz/default/test"] * 3
    assert table.column("_row").to_pylist() == [0, 1, 2]
    both = read_hub_dataset("owner/quiz")
    assert sorted(set(both.column("split").to_pylist())) == ["dev", "test"] and both.num_rows == 4


def test_offline_and_not_cached_is_one_input_error(offline_cache: Path) -> None:
    with pytest.raises(InputError, match="HF_HUB_OFFLINE"):
        read_hub_dataset("owner/absent")
    with pytest.raises(InputError, match="no split"):
        read_hub_dataset("owner/quiz", split="train")


def test_family_spec_hub_id_with_the_datasets_loader(offline_cache: Path, tmp_path: Path) -> None:
    spec_path = tmp_path / "family.json"
    spec_path.write_text(json.dumps({
        "name": "quizfam",
        "datasets": [{
            "name": "quiz", "iri": "https://huggingface.co/datasets/owner/quiz", "descriptor": "hf://owner/quiz",
            "loader": "datasets", "record_set": "default", "where": {"split": "test"},
            "roles": {"id": "qid", "stem": "question", "options": "options", "key": "answer"},
        }],
        "derivations": [],
    }), "utf-8")
    spec = load_family(spec_path)
    items = load_items(spec.datasets["quiz"])
    assert items.column("item").to_pylist() == ["q1", "q2", "q3"]
    assert items.column("key").to_pylist() == ["A", "B", "B"]
    assert items.column("options").to_pylist()[1] == ["yes", "no", "maybe"]


def test_datasets_loader_needs_a_hub_id(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text("{}", "utf-8")
    spec_path = tmp_path / "family.json"
    spec_path.write_text(json.dumps({"name": "f", "datasets": [{
        "name": "x", "iri": "https://example.org/x", "descriptor": "d.json", "loader": "datasets",
        "record_set": "default", "roles": {"id": "qid", "stem": "question"}}], "derivations": []}), "utf-8")
    with pytest.raises(SpecError):
        load_family(spec_path)
