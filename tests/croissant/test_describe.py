"""describe: descriptors that mlcroissant 1.1.1 validates and reads like our reader does."""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from croissant_lineage._io import atomic_write_json, dumps_json
from croissant_lineage.cli import main
from croissant_lineage.croissant.describe import (
    CROISSANT_CONTEXT,
    SPLIT_NAMES,
    DescribeOptions,
    describe,
    describe_folder,
    split_regex,
)
from croissant_lineage.croissant.descriptor import (
    GENERATED_BY,
    GENERATOR,
    is_generated,
    read_descriptor,
)
from croissant_lineage.croissant.records import read_record_set
from croissant_lineage.errors import InputError, OutputExistsError, UnsafePathError
from tests.mlc_compare import mlc_rows, open_dataset, our_rows, root_cause

mlc = pytest.importorskip("mlcroissant")


# -- fixture folders (invented data) -------------------------------------------------


def _csv(folder: Path) -> None:
    (folder / "test.csv").write_text(
        'question,A,B,answer\n"What, with a comma?",x,y,A\n"Two\nlines",1,2,B\n', encoding="utf-8"
    )


def _tsv(folder: Path) -> None:
    (folder / "train.tsv").write_text("question\tA\tanswer\nq1\tx\tA\nq2\ty\tB\n", encoding="utf-8")


def _jsonl(folder: Path) -> None:
    rows = [{"q": "a", "opts": ["x", "y"], "n": 1}, {"q": "b", "opts": ["z"], "n": 2}]
    (folder / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _json_list(folder: Path) -> None:
    rows = [{"q": "a", "opts": ["x", "y"], "n": 1}, {"q": "b", "opts": ["z"], "n": 2}]
    (folder / "validation.json").write_text(json.dumps(rows), encoding="utf-8")


def _parquet_list(folder: Path) -> None:
    table = pa.table({"q": ["a", "b"], "options": [["x", "y", "z"], ["w"]], "score": [0.5, 1.5]})
    pq.write_table(table, folder / "test-00000-of-00001.parquet")


def _hub_configs(folder: Path) -> None:
    for cfg, split, rows in (("alpha", "test", 2), ("alpha", "validation", 1), ("beta", "test", 3)):
        (folder / cfg).mkdir(exist_ok=True)
        table = pa.table({
            "question": [f"{cfg}-{split}-{i}" for i in range(rows)],
            "options": [[f"o{i}", "p"] for i in range(rows)],
            "answer": list(range(rows)),
        })
        pq.write_table(table, folder / cfg / f"{split}-00000-of-00001.parquet")


FOLDERS = {
    "csv": _csv,
    "tsv": _tsv,
    "jsonl": _jsonl,
    "json-list": _json_list,
    "parquet-list": _parquet_list,
    "hub-configs": _hub_configs,
}


def _make(tmp_path: Path, kind: str) -> Path:
    folder = tmp_path / kind
    folder.mkdir()
    FOLDERS[kind](folder)
    return folder


def _context_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "@context" in r.getMessage()]


# -- mlcroissant agrees ----------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(FOLDERS))
def test_mlcroissant_validates_and_reads_the_same_rows(
    tmp_path: Path, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    folder = _make(tmp_path, kind)
    result = describe_folder(folder, DescribeOptions(license="MIT", version="1.0"))
    assert result.path == folder / "croissant.json"
    with caplog.at_level(logging.WARNING):
        ds = mlc.Dataset(result.path)
    assert ds.metadata.ctx.issues.errors == set()
    assert _context_warnings(caplog) == []
    desc = read_descriptor(result.path)
    data_sets = [rs for rs in desc.record_sets().values() if "data" not in rs.node]
    assert data_sets
    for rs in data_sets:
        ours = our_rows(desc, rs.id)
        assert len(ours) == result.rows[rs.id] > 0
        assert mlc_rows(ds, desc, rs.id) == ours


def test_hub_layout_has_one_record_set_per_config_and_splits(tmp_path: Path) -> None:
    folder = _make(tmp_path, "hub-configs")
    doc = describe(folder)
    ids = [rs["@id"] for rs in doc["recordSet"]]
    assert ids == ["alpha_splits", "alpha", "beta_splits", "beta"]
    assert doc["recordSet"][0]["data"] == [
        {"alpha_splits/split_name": "test"},
        {"alpha_splits/split_name": "validation"},
    ]
    assert [fs["includes"] for fs in doc["distribution"]] == ["alpha/*.parquet", "beta/*.parquet"]
    atomic_write_json(folder / "croissant.json", doc)
    table = read_record_set(read_descriptor(folder / "croissant.json"), "alpha")
    assert table.column("split").to_pylist() == ["test", "test", "validation"]
    field = next(f for f in doc["recordSet"][1]["field"] if f["@id"] == "alpha/options")
    assert field["isArray"] is True and field["dataType"] == "sc:Text"


def test_context_is_mlcroissant_standard_for_1_1(caplog: pytest.LogCaptureFixture) -> None:
    from mlcroissant._src.core.context import Context
    from mlcroissant._src.core.rdf import Rdf, make_context

    standard = make_context(Context(conforms_to="http://mlcommons.org/croissant/1.1"))
    assert {k: CROISSANT_CONTEXT[k] for k in standard} == standard
    assert set(CROISSANT_CONTEXT) - set(standard) == {"prov", "cl"}
    with caplog.at_level(logging.WARNING):
        Rdf.from_json(Context(conforms_to="http://mlcommons.org/croissant/1.1"), {"@context": CROISSANT_CONTEXT})
    assert _context_warnings(caplog) == []
    # The check can fail: the context the Hub writes lacks keys mlcroissant 1.1 expects.
    hub = {k: v for k, v in CROISSANT_CONTEXT.items() if k not in ("name", "description")}
    with caplog.at_level(logging.WARNING):
        Rdf.from_json(Context(conforms_to="http://mlcommons.org/croissant/1.1"), {"@context": hub})
    assert _context_warnings(caplog)


def test_generator_marker(tmp_path: Path) -> None:
    doc = describe(_make(tmp_path, "csv"))
    assert doc[GENERATED_BY] == GENERATOR
    assert doc["@context"]["cl"] == "https://w3id.org/croissant-lineage/ns#"
    assert is_generated(doc)
    assert not is_generated({**doc, GENERATED_BY: "someone-else"})
    assert not is_generated({k: v for k, v in doc.items() if k != GENERATED_BY})


# -- what mlcroissant cannot read (and we can) ----------------------------------------


def test_arrow_ipc_ours_only(tmp_path: Path) -> None:
    folder = tmp_path / "arrow"
    folder.mkdir()
    table = pa.table({"question": ["a", "b"], "answer": [0, 1]})
    with ipc.new_stream(folder / "data-00000-of-00001.arrow", table.schema) as writer:
        writer.write_table(table)
    (folder / "state.json").write_text("{}", encoding="utf-8")  # datasets.save_to_disk metadata
    result = describe_folder(folder, DescribeOptions(split="test"))
    fs = result.descriptor["distribution"][0]
    assert fs["encodingFormat"] == "application/vnd.apache.arrow.stream"
    assert fs["includes"] == "*.arrow"
    desc = read_descriptor(result.path)
    assert read_record_set(desc).column("question").to_pylist() == ["a", "b"]
    ds = open_dataset(result.path)  # validates: encodingFormat is not checked
    assert ds.metadata.ctx.issues.errors == set()
    with pytest.raises(Exception) as info:
        list(ds.records("default"))
    assert type(info.value).__name__ == "GenerationError"
    cause = root_cause(info.value)
    assert isinstance(cause, ValueError) and "encoding formats" in str(cause)


def test_headerless_csv_ours_only(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    (folder / "test").mkdir(parents=True)
    (folder / "test" / "algebra_test.csv").write_text("What is one?,1,2,A\nWhat is two?,1,2,B\n", encoding="utf-8")
    opts = DescribeOptions(
        csv_columns=["question", "A", "B", "answer"],
        file_fields={"subject": r"^(.+)_test\.csv$"},
        split="test",
    )
    result = describe_folder(folder, opts)
    assert result.descriptor["distribution"][0]["cl:csvColumns"] == ["question", "A", "B", "answer"]
    table = read_record_set(read_descriptor(result.path))
    assert table.column("question").to_pylist() == ["What is one?", "What is two?"]
    assert table.column("subject").to_pylist() == ["algebra", "algebra"]
    assert table.column("split").to_pylist() == ["test", "test"]
    ds = open_dataset(result.path)
    assert ds.metadata.ctx.issues.errors == set()
    with pytest.raises(Exception) as info:
        list(ds.records("default"))
    cause = root_cause(info.value)
    # mlcroissant takes the first data row as the header: no column "question".
    assert isinstance(cause, AssertionError) and "question" in str(cause)


def test_semicolon_csv_ours_only(tmp_path: Path) -> None:
    folder = tmp_path / "semi"
    folder.mkdir()
    (folder / "test.csv").write_text("question;A;answer\nq, one;x;A\nq two;y;B\n", encoding="utf-8")
    result = describe_folder(folder)
    assert our_rows(read_descriptor(result.path), "default")[0]["question"] == "q, one"
    ds = open_dataset(result.path)
    with pytest.raises(Exception) as info:
        list(ds.records("default"))
    assert type(info.value).__name__ == "GenerationError"


# -- split regex ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "split"),
    [
        ("test-00000-of-00001.parquet", "test"),
        ("cfg/validation-00000-of-00001.parquet", "validation"),
        ("test.jsonl", "test"),
        ("train", "train"),
        ("test/abstract_algebra_test.csv", "test"),
        ("dev/abstract_algebra_dev.csv", "dev"),
        ("abstract_algebra_val.csv", "val"),
        ("my_test_data/train.csv", "train"),  # a folder ending in _test_data names none
        ("test_abc_train.csv", "test"),  # leftmost, start of the component first
        ("contest.csv", None),
        ("latest-00000.parquet", None),
        ("attest/x.csv", None),
    ],
)
def test_split_regex(path: str, split: str | None) -> None:
    m = re.match(split_regex(SPLIT_NAMES), path)
    got = next((g for g in m.groups() if g is not None), None) if m else None
    assert got == split
    prefixed = re.match(split_regex(SPLIT_NAMES, "data/v1.0/"), "data/v1.0/" + path)
    assert (next(g for g in prefixed.groups() if g) if prefixed else None) == split
    assert re.match(split_regex(SPLIT_NAMES, "data/v1.0/"), "data/v1x0/" + path) is None


def test_data_folder_is_the_default_config(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    (folder / "data").mkdir(parents=True)
    pq.write_table(pa.table({"q": ["a"]}), folder / "data" / "train-00000-of-00001.parquet")
    pq.write_table(pa.table({"q": ["b"]}), folder / "data" / "test-00000-of-00001.parquet")
    doc = describe(folder)
    assert [rs["@id"] for rs in doc["recordSet"]] == ["default_splits", "default"]
    assert doc["distribution"][0]["includes"] == "data/*.parquet"


def test_no_split_field_when_a_path_names_no_split(tmp_path: Path) -> None:
    folder = tmp_path / "bench"
    folder.mkdir()
    (folder / "questions.csv").write_text("q,a\nx,y\n", encoding="utf-8")
    doc = describe(folder, DescribeOptions(split="test"))
    assert doc["recordSet"][0]["data"] == [{"default_splits/split_name": "test"}]
    assert [f["@id"] for f in doc["recordSet"][1]["field"]] == ["default/q", "default/a"]


# -- includes are exact under mlcroissant's glob semantics ----------------------------


def test_includes_listed_when_a_glob_would_take_other_files(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    (folder / "extra").mkdir(parents=True)
    _parquet_list(folder)
    pq.write_table(pa.table({"z": [1]}), folder / "extra" / "test-00000-of-00001.parquet")
    doc = describe(folder)
    includes = {fs["@id"]: fs["includes"] for fs in doc["distribution"]}
    # "*.parquet" at the root would also take extra/ (fnmatch's * crosses /): listed.
    assert includes == {
        "parquet-files-for-config-default": "test-00000-of-00001.parquet",
        "parquet-files-for-config-extra": "extra/*.parquet",
    }
    atomic_write_json(folder / "croissant.json", doc)
    desc = read_descriptor(folder / "croissant.json")
    assert read_record_set(desc, "default").num_rows == 2
    assert read_record_set(desc, "extra").num_rows == 1


def test_json_files_are_listed_and_descriptors_skipped(tmp_path: Path) -> None:
    folder = _make(tmp_path, "json-list")
    (folder / "other.json").write_text(json.dumps({"@context": {}, "@type": "sc:Dataset"}), encoding="utf-8")
    doc = describe(folder)
    (fs,) = doc["distribution"]
    assert fs["includes"] == "validation.json"
    field = next(f for f in doc["recordSet"][1]["field"] if f["@id"] == "default/q")
    assert field["source"]["extract"] == {"jsonPath": "$[*].q"}


def test_json_lines_under_json_name(tmp_path: Path) -> None:
    folder = tmp_path / "jl"
    folder.mkdir()
    (folder / "test.json").write_text('{"q": "a"}\n{"q": "b"}\n', encoding="utf-8")
    doc = describe(folder)
    assert doc["distribution"][0]["encodingFormat"] == "application/jsonlines"


def test_include_option_and_relative_to(tmp_path: Path) -> None:
    root = tmp_path / "data"
    folder = root / "bench"
    folder.mkdir(parents=True)
    _csv(folder)
    (folder / "notes.csv").write_text("x\n1\n", encoding="utf-8")
    doc = describe(folder, DescribeOptions(include=["test*.csv"], relative_to=root))
    assert doc["distribution"][0]["includes"] == "bench/test*.csv"
    split = doc["recordSet"][1]["field"][0]
    assert split["source"]["transform"]["regex"].startswith("^bench/")
    atomic_write_json(root / "croissant.json", doc)
    desc = read_descriptor(root / "croissant.json")
    assert read_record_set(desc).column("split").to_pylist() == ["test", "test"]
    ds = open_dataset(root / "croissant.json")
    assert mlc_rows(ds, desc, "default") == our_rows(desc, "default")


# -- fields --------------------------------------------------------------------------


def test_field_ids_are_unique_and_empty_unnamed_columns_dropped(tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "test.csv").write_text(
        "split,a b,a-b,Unnamed: 0,,\nS,1,2,3,,\nT,4,5,6,,\n", encoding="utf-8"
    )
    doc = describe(folder)
    fields = doc["recordSet"][1]["field"]
    ids = [f["@id"] for f in fields]
    assert ids == ["default/split", "default/split_2", "default/a-b", "default/a-b_2", "default/Unnamed-0"]
    assert [f.get("name") for f in fields] == [None, None, "a b", "a-b", "Unnamed: 0"]
    atomic_write_json(folder / "croissant.json", doc)
    desc = read_descriptor(folder / "croissant.json")
    table = read_record_set(desc)
    assert table.column("split").to_pylist() == ["test", "test"]
    assert table.column("split_2").to_pylist() == ["S", "T"]
    assert table.column("a b").to_pylist() == ["1", "4"]
    assert table.column("a-b").to_pylist() == ["2", "5"]
    ds = open_dataset(folder / "croissant.json")
    assert ds.metadata.ctx.issues.errors == set()


def test_column_types_across_files(tmp_path: Path) -> None:
    folder = tmp_path / "types"
    folder.mkdir()
    pq.write_table(pa.table({"n": [1], "x": [1.5], "b": [True], "m": [1]}), folder / "test-1.parquet")
    pq.write_table(pa.table({"n": [2], "x": [2.5], "b": [False], "m": ["two"]}), folder / "test-2.parquet")
    fields = {f["@id"]: f["dataType"] for f in describe(folder)["recordSet"][1]["field"]}
    assert fields == {
        "default/split": "sc:Text",
        "default/n": "cr:Int64",
        "default/x": "cr:Float64",
        "default/b": "sc:Boolean",
        "default/m": "sc:Text",
    }


# -- determinism, errors, writing ---------------------------------------------------------


def test_same_files_same_bytes(tmp_path: Path) -> None:
    folder = _make(tmp_path, "hub-configs")
    first = dumps_json(describe(folder))
    describe_folder(folder)
    assert dumps_json(describe(folder)) == first
    assert (folder / "croissant.json").read_text(encoding="utf-8") == first


def test_bad_folders(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        describe(tmp_path / "missing")
    assert info.value.code == "CL-E001"
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "README.md").write_text("no data", encoding="utf-8")
    with pytest.raises(InputError):
        describe(tmp_path / "empty")
    folder = _make(tmp_path, "csv")
    with pytest.raises(UnsafePathError) as err:
        describe(folder, DescribeOptions(relative_to=tmp_path / "elsewhere"))
    assert err.value.code == "CL-E006"


def test_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.csv"
    outside.write_text("q\nsecret\n", encoding="utf-8")
    folder = _make(tmp_path, "csv")
    os.symlink(outside, folder / "train.csv")
    with pytest.raises(UnsafePathError):
        describe(folder)


def test_describe_folder_refuses_foreign_output(tmp_path: Path) -> None:
    folder = _make(tmp_path, "csv")
    target = folder / "croissant.json"
    target.write_text('{"hand": "written"}\n', encoding="utf-8")
    with pytest.raises(OutputExistsError) as info:
        describe_folder(folder)
    assert info.value.code == "CL-E007"
    assert target.read_text(encoding="utf-8") == '{"hand": "written"}\n'
    forced = describe_folder(folder, force=True)
    assert forced.replaced and is_generated(json.loads(target.read_text(encoding="utf-8")))
    again = describe_folder(folder, DescribeOptions(name="renamed"))  # ours: replaced freely
    assert again.replaced and again.descriptor["name"] == "renamed"


def test_describe_folder_out_sets_relative_to(tmp_path: Path) -> None:
    folder = _make(tmp_path, "jsonl")
    out = tmp_path / "croissant.json"
    result = describe_folder(folder, out=out)
    assert result.descriptor["distribution"][0]["includes"] == "jsonl/*.jsonl"
    assert read_record_set(read_descriptor(out)).num_rows == 2
    with pytest.raises(OutputExistsError):
        describe_folder(folder, out=tmp_path)  # a folder


# -- CLI ------------------------------------------------------------------------------


def test_cli_describe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _make(tmp_path, "csv")
    out = folder / "meta.json"
    argv = ["describe", str(folder), "--out", str(out), "--name", "tiny", "--license", "MIT",
            "--dataset-version", "1.0", "--date", "2024-01-02", "--cite-as", "@misc{tiny}", "--json"]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == {"path": str(out), "files": 1, "rows": {"default": 2}, "replaced": False}
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert (doc["name"], doc["license"], doc["version"], doc["datePublished"], doc["citeAs"]) == (
        "tiny", "MIT", "1.0", "2024-01-02", "@misc{tiny}"
    )
    assert open_dataset(out).metadata.ctx.issues.warnings == set()  # nothing recommended missing
    assert main(argv) == 0  # ours: replaced
    (folder / "foreign.json").write_text("{}", encoding="utf-8")
    assert main(["describe", str(folder), "--out", str(folder / "foreign.json")]) == 2
    assert "CL-E007" in capsys.readouterr().err
    assert (folder / "foreign.json").read_text(encoding="utf-8") == "{}"
    assert main(["describe", str(folder), "--file-field", "nonsense", "--force"]) == 2


def test_cli_describe_options(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    (folder / "test").mkdir(parents=True)
    (folder / "test" / "algebra_test.csv").write_text("Q1,a,b,A\n", encoding="utf-8")
    argv = ["describe", str(folder), "--include", "test/*.csv", "--csv-columns", "question, A,B,answer",
            "--file-field", r"subject=^(.+)_test\.csv$", "--split", "test", "--config", "main", "-q"]
    assert main(argv) == 0
    desc = read_descriptor(folder / "croissant.json")
    assert [rs for rs in desc.record_sets()] == ["main_splits", "main"]
    row = read_record_set(desc).to_pylist()[0]
    assert (row["question"], row["subject"], row["split"]) == ("Q1", "algebra", "test")


def test_cli_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["describe", "--help"])
    assert "Examples:" in capsys.readouterr().out
