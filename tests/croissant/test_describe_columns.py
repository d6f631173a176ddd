"""describe on folders whose files have different columns: one config per set of columns,
and mlcroissant reads every RecordSet it produces (as our reader does)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage.cli import main
from croissant_lineage.croissant.describe import DescribeOptions, describe, describe_folder
from croissant_lineage.croissant.descriptor import read_descriptor
from tests.mlc_compare import mlc_rows, open_dataset, our_rows

mlc = pytest.importorskip("mlcroissant")

OPTS = DescribeOptions(license="MIT", version="1.0", cite_as="x", date_published="2024-01-01")


def _mixed_csv(folder: Path) -> Path:
    """questions_{test,dev}.csv share columns; meta_test.csv has others."""
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "questions_test.csv").write_text("question,answer\nq1,A\nq2,B\n", "utf-8")
    (folder / "data" / "questions_dev.csv").write_text("answer,question\nC,q3\n", "utf-8")  # same set, other order
    (folder / "data" / "meta_test.csv").write_text("id,source\nm1,web\nm2,book\nm3,web\n", "utf-8")
    return folder


def _mixed_configs(folder: Path) -> Path:
    """Config alpha: a parquet split and a jsonl of other columns; config beta: one schema."""
    (folder / "alpha").mkdir(parents=True)
    (folder / "beta").mkdir()
    pq.write_table(pa.table({"question": ["a", "b"], "options": [["x", "y"], ["z"]]}),
                   folder / "alpha" / "test-00000-of-00001.parquet")
    (folder / "alpha" / "notes-test.jsonl").write_text('{"note": "n1", "score": 1}\n', "utf-8")
    pq.write_table(pa.table({"question": ["c"], "answer": [1]}), folder / "beta" / "test-00000-of-00001.parquet")
    return folder


def _data_record_sets(doc: dict) -> list[str]:
    return [rs["@id"] for rs in doc["recordSet"] if "data" not in rs]


@pytest.mark.parametrize("make", [_mixed_csv, _mixed_configs])
def test_mlcroissant_reads_every_record_set(tmp_path: Path, make) -> None:
    folder = make(tmp_path / make.__name__)
    result = describe_folder(folder, OPTS)
    ds = open_dataset(result.path)
    assert ds.metadata.ctx.issues.errors == set()
    desc = read_descriptor(result.path)
    ids = _data_record_sets(result.descriptor)
    assert len(ids) >= 2
    for rs in ids:
        ours = our_rows(desc, rs)
        assert len(ours) == result.rows[rs] > 0
        assert mlc_rows(ds, desc, rs) == ours, rs


def test_files_are_grouped_by_their_columns(tmp_path: Path) -> None:
    result = describe_folder(_mixed_csv(tmp_path / "bench"), OPTS)
    assert result.grouped == {"default": ["default-meta", "default-questions"]}
    assert result.rows == {"default-meta": 3, "default-questions": 3}
    doc = result.descriptor
    assert [rs["@id"] for rs in doc["recordSet"]] == [
        "default-meta_splits", "default-meta", "default-questions_splits", "default-questions"]
    fields = {rs["@id"]: sorted(f["@id"].split("/", 1)[1] for f in rs["field"]) for rs in doc["recordSet"]
              if "data" not in rs}
    assert fields == {"default-meta": ["id", "source", "split"],
                      "default-questions": ["answer", "question", "split"]}
    # each FileSet takes exactly its group's files (data/*.csv would take the other group's)
    includes = {fs["@id"]: fs["includes"] for fs in doc["distribution"]}
    assert includes == {"csv-files-for-config-default-meta": "data/meta_test.csv",
                        "csv-files-for-config-default-questions": ["data/questions_dev.csv",
                                                                   "data/questions_test.csv"]}
    assert doc["recordSet"][2]["data"] == [{"default-questions_splits/split_name": s} for s in ("dev", "test")]


def test_only_the_config_with_different_columns_is_grouped(tmp_path: Path) -> None:
    result = describe_folder(_mixed_configs(tmp_path / "hub"), OPTS)
    assert result.grouped == {"alpha": ["alpha-notes", "alpha-parquet"]}
    assert _data_record_sets(result.descriptor) == ["alpha-notes", "alpha-parquet", "beta"]
    assert result.to_dict()["grouped"] == {"alpha": ["alpha-notes", "alpha-parquet"]}


def test_one_set_of_columns_is_not_grouped(tmp_path: Path) -> None:
    folder = tmp_path / "same"
    folder.mkdir()
    (folder / "a_test.csv").write_text("question,answer\nq1,A\n", "utf-8")
    (folder / "b_test.csv").write_text("answer,question\nB,q2\n", "utf-8")
    result = describe_folder(folder, OPTS)
    assert result.grouped == {} and "grouped" not in result.to_dict()
    assert _data_record_sets(result.descriptor) == ["default"]


def test_grouping_is_deterministic(tmp_path: Path) -> None:
    a = describe(_mixed_configs(tmp_path / "a" / "hub"), OPTS)
    b = describe(_mixed_configs(tmp_path / "b" / "hub"), OPTS)
    assert json.dumps(a) == json.dumps(b)


def test_cli_says_what_was_grouped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _mixed_csv(tmp_path / "bench")
    assert main(["describe", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "'default': files with different columns" in out and "default-meta, default-questions" in out
    assert main(["describe", str(folder), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["grouped"] == {"default": ["default-meta", "default-questions"]}
