"""Where an enriched copy is written and whether its benchmark's own RecordSets load from
there: the warning of a copy apart from its data (CL-W001), ``in_place`` copies beside the
data, ``rebase`` copies whose paths are rewritten and restored by ``strip_enrichment``,
each read with mlcroissant 1.1.1 against the original descriptor."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from croissant_lineage._io import dumps_json
from croissant_lineage.cli import main
from croissant_lineage.enrich import enrich_family, strip_enrichment
from croissant_lineage.enrich.files import RECORD_SETS
from croissant_lineage.enrich.places import UNLOADABLE, rebase_urls, unloadable_record_sets
from croissant_lineage.errors import InputError, OutputExistsError
from croissant_lineage.validate import validate
from croissant_lineage.workflows import link
from tests.mlc_compare import normalise, open_dataset, quiet_mlcroissant, root_cause

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy"
TOY_DATASETS = ("toy-base", "toy-pro", "toy-redux", "toy-fr", "toy-pro-v2", "toy-math", "toy-math-perturbed", "toy-code",
                "toy-code-js")
TIME = "2025-01-01T00:00:00Z"
ANNOTATION = "cl_was_derived_from"


def _outcome(path: Path, record_set: str, limit: int | None = None) -> tuple[str, Any]:
    """What mlcroissant gives for one RecordSet: ("rows", rows) or ("error", root cause)."""
    ds = open_dataset(path)
    try:
        with quiet_mlcroissant():
            rows = []
            for n, rec in enumerate(ds.records(record_set)):
                if limit is not None and n >= limit:
                    break
                rows.append({k: normalise(v) for k, v in rec.items() if not k.endswith(ANNOTATION)})
    except Exception as exc:
        cause = root_cause(exc)
        return "error", (type(cause).__name__, str(cause).split("\n", 1)[0])
    return "rows", rows


def _own_record_sets(doc: dict[str, Any]) -> list[str]:
    return [rs["@id"] for rs in doc["recordSet"] if rs.get("@index") != "croissant-lineage"]


def _check_loads_like(original: Path, enriched: Path, files: dict[str, str], limit: int | None = None,
                      record_sets: list[str] | None = None) -> int:
    """Every benchmark RecordSet of ``enriched`` has the outcome it has in ``original``, and every
    lineage RecordSet yields its Parquet file's rows. Returns the benchmark rows compared."""
    doc = json.loads(enriched.read_text("utf-8"))
    compared = 0
    for rs in record_sets or _own_record_sets(doc):
        mine, theirs = _outcome(enriched, rs, limit), _outcome(original, rs, limit)
        assert mine == theirs, (enriched, rs, mine[0], theirs[0])
        compared += len(mine[1]) if mine[0] == "rows" else 0
    for rs_id, spec in RECORD_SETS.items():
        kind, rows = _outcome(enriched, rs_id)
        assert kind == "rows", (enriched, rs_id, rows)
        assert len(rows) == pq.ParquetFile(files[spec.kind]).metadata.num_rows
    return compared


@pytest.fixture()
def toy_copy(tmp_path: Path) -> Path:
    """A copy of the toy family (its data and descriptors), so that copies can be written beside it."""
    return Path(shutil.copytree(TOY, tmp_path / "toy"))


# --- a copy apart from its data -----------------------------------------------------------


def test_copy_apart_from_its_data_is_warned_and_fails_validate(toy_lineage, tmp_path: Path) -> None:
    result = enrich_family(toy_lineage, TOY / "family.json", tmp_path / "out", time=TIME)
    assert [w.code for w in result.warnings] == [UNLOADABLE] * 9
    assert [w.record_sets for w in result.warnings] == [["default"]] * 9
    assert [w.path for w in result.warnings] == [d.path for d in result.descriptors]
    assert result.to_dict()["warnings"][0]["code"] == UNLOADABLE
    # every toy dataset reads a FileSet: only --in-place makes it load, and only that is offered
    assert [w.resources for w in result.warnings][:2] == [["csv-files-for-config-default"],
                                                          ["jsonlines-files-for-config-default"]]
    assert all("--in-place" in w.message and "--rebase-urls" not in w.message for w in result.warnings)
    for name in TOY_DATASETS:  # the default keeps the original's paths: loads nothing of its benchmark
        doc = json.loads((tmp_path / "out" / f"{name}.json").read_text("utf-8"))
        original = json.loads((TOY / name / "croissant.json").read_text("utf-8"))
        assert doc["distribution"][0] == original["distribution"][0]
        assert unloadable_record_sets(doc, tmp_path / "out") == ["default"]
        assert unloadable_record_sets(original, TOY / name) == []
    for spec in (None, TOY / "family.json"):
        report = validate([tmp_path / "out"], family=spec)
        assert not report.valid
        assert sorted({i.code for i in report.errors}) == ["CLV701"] and len(report.errors) == 9


def test_cli_prints_one_coded_warning_per_descriptor(toy_lineage_path: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    args = ["enrich", "--family", str(TOY / "family.json"), "--lineage", str(toy_lineage_path), "--time", TIME]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert sum(line.startswith(f"warning {UNLOADABLE} ") for line in out.splitlines()) == 9
    assert main([*args, "--out", str(tmp_path / "b"), "--json"]) == 0
    captured = capsys.readouterr()
    assert [w["record_sets"] for w in json.loads(captured.out)["warnings"]] == [["default"]] * 9
    assert sum(line.startswith(UNLOADABLE) for line in captured.err.splitlines()) == 9
    assert main([*args, "--out", str(tmp_path / "c"), "--in-place", "x.json"]) == 2  # one of them
    assert main(["enrich", "--family", str(TOY / "family.json"), "--lineage", str(toy_lineage_path)]) == 2


# --- in place ------------------------------------------------------------------------------


def test_in_place_copies_load_every_record_set_like_the_original(toy_copy: Path) -> None:
    lin = link(toy_copy / "family.json")
    result = enrich_family(lin, toy_copy / "family.json", None, time=TIME, in_place="croissant.enriched.json")
    assert result.out_dir is None and result.warnings == []
    assert [d.path for d in result.descriptors] == [
        str(toy_copy / n / "croissant.enriched.json") for n in TOY_DATASETS
    ]
    # toy-pro-v2 reads every *.parquet file under its folder: its lineage files are .pq there
    assert Path(result.descriptors[4].files["items"]).name == "croissant.enriched.items.pq"
    assert Path(result.descriptors[1].files["items"]).name == "croissant.enriched.items.parquet"
    compared = 0
    for d in result.descriptors:
        compared += _check_loads_like(Path(d.path).with_name("croissant.json"), Path(d.path), d.files)
    assert compared > 0
    report = validate([toy_copy / n / "croissant.enriched.json" for n in TOY_DATASETS], family=toy_copy / "family.json")
    assert not report.errors, str(report)
    again = enrich_family(lin, toy_copy / "family.json", None, time=TIME, in_place="croissant.enriched.json")
    assert [Path(d.path).read_bytes() for d in again.descriptors] == [
        Path(d.path).read_bytes() for d in result.descriptors]  # ours: replaced, same bytes


def test_in_place_never_over_the_original_nor_one_file_twice(toy_copy: Path) -> None:
    lin = link(toy_copy / "family.json")
    before = (toy_copy / "toy-pro" / "croissant.json").read_bytes()
    with pytest.raises(OutputExistsError):
        enrich_family(lin, toy_copy / "family.json", None, time=TIME, in_place="croissant.json")
    assert (toy_copy / "toy-pro" / "croissant.json").read_bytes() == before
    with pytest.raises(InputError):  # toy-redux reads *.csv
        enrich_family(lin, toy_copy / "family.json", None, time=TIME, in_place="enriched.csv")
    with pytest.raises(InputError):
        enrich_family(lin, toy_copy / "family.json", None, time=TIME, in_place="../x.json")
    with pytest.raises(InputError):
        enrich_family(lin, toy_copy / "family.json", toy_copy / "out", time=TIME, in_place="x.json")
    assert not list(toy_copy.glob("*/x.json"))


# --- rebased ---------------------------------------------------------------------------


def _as_file_object(folder: Path) -> None:
    """toy-pro's data declared as one FileObject (its FileSet ``*.jsonl`` -> ``test.jsonl``)."""
    path = folder / "croissant.json"
    doc = json.loads(path.read_text("utf-8"))
    node = doc["distribution"][0]
    node["@type"], node["contentUrl"] = "cr:FileObject", "test.jsonl"
    node["sha256"] = hashlib.sha256((folder / "test.jsonl").read_bytes()).hexdigest()
    del node["includes"]
    text = json.dumps(doc).replace('"fileSet": {"@id": "jsonlines-files-for-config-default"}',
                                   '"fileObject": {"@id": "jsonlines-files-for-config-default"}')
    path.write_text(dumps_json(json.loads(text)), "utf-8")


def test_rebased_copy_loads_its_file_objects_and_strips_to_the_original_bytes(toy_copy: Path, tmp_path: Path) -> None:
    _as_file_object(toy_copy / "toy-pro")
    lin = link(toy_copy / "family.json")
    out = tmp_path / "deep" / "enriched"
    plain = enrich_family(lin, toy_copy / "family.json", tmp_path / "plain", time=TIME)
    [w] = [w for w in plain.warnings if Path(w.path).stem == "toy-pro"]  # a FileObject: rebasing helps
    assert "--rebase-urls" in w.message and w.resources == ["jsonlines-files-for-config-default"]
    result = enrich_family(lin, toy_copy / "family.json", out, time=TIME, rebase=True)
    by_name = {Path(d.path).stem: d for d in result.descriptors}
    pro = by_name["toy-pro"]
    doc = json.loads(Path(pro.path).read_text("utf-8"))
    assert doc["distribution"][0]["contentUrl"] == "../../toy/toy-pro/test.jsonl"  # relative, machine-independent
    assert _check_loads_like(toy_copy / "toy-pro" / "croissant.json", Path(pro.path), pro.files) == 13  # default: 12, default_splits: 1
    # a FileSet is matched by mlcroissant only under the copy's folder: left as it was, warned, named
    warned = {Path(w.path).stem: w for w in result.warnings}
    assert sorted(warned) == sorted(n for n in by_name if n != "toy-pro")
    for name, w in warned.items():
        original = json.loads((toy_copy / name / "croissant.json").read_text("utf-8"))
        assert w.resources == [original["distribution"][0]["@id"]] and w.record_sets == ["default"]
        assert "--in-place" in w.message and "--rebase-urls" not in w.message
        assert w.to_dict()["resources"] == w.resources
    for name, d in by_name.items():
        original = (toy_copy / name / "croissant.json").read_text("utf-8")
        rebased = json.loads(Path(d.path).read_text("utf-8"))
        assert dumps_json(strip_enrichment(rebased)) == original  # byte for byte
        assert rebased["distribution"][0] == json.loads(original)["distribution"][0] or name == "toy-pro"
        records = [r for a in rebased["prov:wasGeneratedBy"] for r in a.get("cl:rebasedValues", [])]
        assert len(records) == (name == "toy-pro")
    [record] = next(a for a in doc["prov:wasGeneratedBy"] if "cl:rebasedValues" in a)["cl:rebasedValues"]
    assert (record["cl:at"], json.loads(record["cl:original"])) == ("/distribution/0/contentUrl", "test.jsonl")
    # validate says what mlcroissant does: the copies whose FileSets stayed behind load nothing
    report = validate([out], family=toy_copy / "family.json")
    assert sorted({i.code for i in report.errors}) == ["CLV701"] and len(report.errors) == 8
    assert not [i for i in report.errors if "toy-pro.json" in str(i)]


def test_mlcroissant_matches_no_fileset_outside_the_descriptors_folder(toy_copy: Path, tmp_path: Path) -> None:
    """Why a FileSet is not rebased: a ``../`` or absolute ``includes`` reads no record in
    mlcroissant 1.1.1 (the files under the folder are walked, nothing else): an error here
    ("No objects to concatenate"), 0 records and no error for a CSV FileSet."""
    doc = json.loads((toy_copy / "toy-pro" / "croissant.json").read_text("utf-8"))
    assert doc["distribution"][0]["includes"] == "*.jsonl"
    apart = tmp_path / "apart"
    apart.mkdir()
    for n, includes in enumerate(["../toy/toy-pro/*.jsonl", f"{(toy_copy / 'toy-pro').as_posix()}/*.jsonl"]):
        doc["distribution"][0]["includes"] = includes
        (apart / f"{n}.json").write_text(dumps_json(doc), "utf-8")
        kind, got = _outcome(apart / f"{n}.json", "default")
        assert kind == "error" or got == [], (includes, kind, got)
    assert len(_outcome(toy_copy / "toy-pro" / "croissant.json", "default")[1]) == 12
    # rebase_urls rewrites a FileSet only when its data is under the copy's folder
    assert rebase_urls(doc, toy_copy / "toy-pro", apart) == []
    doc["distribution"][0]["includes"] = "*.jsonl"
    [record] = rebase_urls(doc, toy_copy / "toy-pro", toy_copy)
    assert doc["distribution"][0]["includes"] == "toy-pro/*.jsonl" and json.loads(record["cl:original"]) == "*.jsonl"
    (toy_copy / "above.json").write_text(dumps_json(doc), "utf-8")
    assert len(_outcome(toy_copy / "above.json", "default")[1]) == 12


def test_rebase_is_opt_in_and_the_default_bytes_do_not_change(toy_lineage, tmp_path: Path) -> None:
    plain = enrich_family(toy_lineage, TOY / "family.json", tmp_path / "a", time=TIME)
    for d in plain.descriptors:
        doc = json.loads(Path(d.path).read_text("utf-8"))
        assert not any("cl:rebasedValues" in a for a in doc["prov:wasGeneratedBy"] if isinstance(a, dict))
    with pytest.raises(InputError):
        enrich_family(toy_lineage, TOY / "family.json", None, time=TIME, in_place="x.json", rebase=True)


# --- real data: MMLU ----------------------------------------------------------------------


def _linked_data(shared: Path, into: Path) -> Path:
    """The shared data folder as hard links (same bytes, no copy), so copies can be written beside it."""
    for src in shared.rglob("*"):
        if src.is_file() and "croissant-examples" not in src.parts:
            dest = into / src.relative_to(shared)
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                dest.hardlink_to(src)
            except OSError:
                shutil.copyfile(src, dest)
    return into


@pytest.mark.slow
def test_mmlu_in_place_copies_load_like_the_originals(mmlu_lineage, shared_data: Path, tmp_path: Path) -> None:
    data = _linked_data(shared_data, tmp_path / "data")
    with pytest.raises(InputError):  # the descriptors share the data folder: one name would clash
        enrich_family(mmlu_lineage, "mmlu", None, time=TIME, in_place="enriched.json", data_dir=data)
    with pytest.raises(InputError):  # where the data is must be said
        enrich_family(mmlu_lineage, "mmlu", None, time=TIME, in_place="{stem}.enriched.json")
    result = enrich_family(mmlu_lineage, "mmlu", None, time=TIME, in_place="{stem}.enriched.json", data_dir=data)
    assert result.warnings == [] and len(result.descriptors) == 12
    compared = 0
    for d in result.descriptors:
        enriched = Path(d.path)
        doc = json.loads(enriched.read_text("utf-8"))
        original = enriched.with_name(enriched.name.replace(".enriched.json", ".original.json"))
        original.write_text(dumps_json(strip_enrichment(doc)), "utf-8")  # the original, beside its data
        compared += _check_loads_like(original, enriched, d.files, limit=25, record_sets=_own_record_sets(doc)[:2])
    assert compared >= 200  # 238 rows on the shared data: up to 25 per RecordSet, 2 per descriptor


@pytest.mark.slow
def test_mmlu_rebased_copies_strip_to_the_original_bytes(mmlu_lineage, shared_data: Path, tmp_path: Path) -> None:
    """Every MMLU descriptor reads FileSets: --rebase-urls leaves them as they were (mlcroissant
    would match a ``../`` glob against nothing), so each copy is warned, naming its FileSets and
    offering --in-place only, and ``validate`` fails it as mlcroissant would read it."""
    from croissant_lineage.family.spec import load_family

    spec = load_family("mmlu")
    result = enrich_family(mmlu_lineage, spec, tmp_path / "out", time=TIME, rebase=True, data_dir=shared_data)
    originals = {d.descriptor for d in spec.datasets.values() if d.descriptor is not None}
    texts = [Path(d.path).read_text("utf-8") for d in result.descriptors]
    assert {dumps_json(strip_enrichment(json.loads(t))) for t in texts} == {p.read_text("utf-8") for p in originals}
    assert not [t for t in texts if "cl:rebasedValues" in t]
    plain = enrich_family(mmlu_lineage, spec, tmp_path / "plain", time=TIME, data_dir=shared_data)
    assert [Path(d.path).read_text("utf-8") for d in plain.descriptors] == texts  # the default's bytes
    assert [w.path for w in result.warnings] == [d.path for d in result.descriptors]  # 12
    for w, text in zip(result.warnings, texts, strict=True):
        own = [n["@id"] for n in json.loads(text)["distribution"] if n.get("@index") != "croissant-lineage"]
        assert w.resources == own and "--rebase-urls" not in w.message and "--in-place" in w.message
    assert sum(len(w.resources) for w in result.warnings) == 16  # 11 FileSets + global-mmlu-subset's 5
    report = validate([tmp_path / "out"], family="mmlu", data_dir=shared_data)
    assert {i.code for i in report.errors} == {"CLV701"} and len(report.errors) == 16
