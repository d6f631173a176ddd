"""The local data files a descriptor distributes: CLV701 (missing), CLV702 (outside its folder)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from croissant_lineage.cli import main
from croissant_lineage.croissant.describe import DescribeOptions, describe_folder
from croissant_lineage.validate import validate
from croissant_lineage.validate.files import local_path


def _bench(root: Path) -> Path:
    """A described folder: croissant.json beside data/test.csv (a FileSet)."""
    (root / "data").mkdir(parents=True)
    (root / "data" / "test.csv").write_text("question,answer\nq1,A\nq2,B\n", encoding="utf-8")
    return describe_folder(root, DescribeOptions(license="MIT", version="1.0", cite_as="x",
                                                 date_published="2024-01-01")).path


def _codes(report) -> list[str]:
    return sorted(i.code for i in report.issues if i.code.startswith("CLV7"))


def test_descriptor_with_its_data_passes(tmp_path: Path) -> None:
    desc = _bench(tmp_path / "bench")
    report = validate(desc)
    assert report.valid and _codes(report) == []


def test_descriptor_without_its_data_is_an_error_unless_metadata_only(tmp_path: Path) -> None:
    desc = _bench(tmp_path / "bench")
    shutil.rmtree(tmp_path / "bench" / "data")  # committed without its data
    report = validate(desc)
    assert not report.valid and _codes(report) == ["CLV701"]
    (hit,) = [i for i in report.issues if i.code == "CLV701"]
    assert hit.where.endswith("#/distribution/0/includes") and hit.severity == "error"
    assert validate(desc, metadata_only=True).valid
    assert _codes(validate(desc, metadata_only=True)) == []


def _file_object_descriptor(folder: Path, url: str, **extra: object) -> Path:
    doc = json.loads((folder / "croissant.json").read_text("utf-8"))
    doc["distribution"].append({"@type": "cr:FileObject", "@id": "extra", "name": "extra", "contentUrl": url,
                                "encodingFormat": "text/csv", "sha256": "0" * 64, **extra})
    out = folder / "croissant.json"
    out.write_text(json.dumps(doc), "utf-8")
    return out


def test_file_objects_missing_outside_and_remote(tmp_path: Path) -> None:
    desc = _bench(tmp_path / "bench")
    (tmp_path / "elsewhere.csv").write_text("a\n1\n", "utf-8")
    cases = {
        "data/missing.csv": ["CLV701"],
        "../elsewhere.csv": ["CLV702"],  # present, but outside the descriptor's folder
        str(tmp_path / "elsewhere.csv"): ["CLV702"],  # an absolute path too
        (tmp_path / "elsewhere.csv").as_uri(): ["CLV702"],  # and a file:// URL
        "../gone.csv": ["CLV702"],  # outside: never looked up, so never CLV701
        "https://example.org/data.csv": [],  # remote: not checked offline
        "s3://bucket/data.csv": [],
        "data/test.csv": [],
    }
    for url, codes in cases.items():
        _bench(tmp_path / url.replace("/", "_").replace(":", "_"))
        folder = tmp_path / url.replace("/", "_").replace(":", "_")
        report = validate(_file_object_descriptor(folder, url))
        assert _codes(report) == codes, url
        assert report.valid is ("CLV701" not in codes), url
    # a FileObject inside an archive or repository is not a local file: not checked
    report = validate(_file_object_descriptor(tmp_path / "bench", "in/archive.csv", containedIn={"@id": "repo"}))
    assert "CLV701" not in _codes(report) and desc.exists()


def test_fileset_glob_outside_the_folder_warns_and_fails_with_data(tmp_path: Path) -> None:
    desc = _bench(tmp_path / "bench")
    doc = json.loads(desc.read_text("utf-8"))
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "test.csv").write_text("question,answer\nq,A\n", "utf-8")
    doc["distribution"][0]["includes"] = "../shared/*.csv"
    desc.write_text(json.dumps(doc), "utf-8")
    report = validate(desc, metadata_only=True)
    assert _codes(report) == ["CLV702"] and report.valid
    # a file matches there, but mlcroissant lists only the descriptor's folder: no record loads
    with_data = validate(desc)
    assert sorted(_codes(with_data)) == ["CLV701", "CLV702"] and not with_data.valid


@pytest.mark.parametrize(
    ("url", "expected"),
    [("data/x.csv", "data/x.csv"), ("https://h/x", None), ("hf://datasets/a/b", None),
     ("file:///tmp/x%20y.csv", "/tmp/x y.csv"), ("C:\\data\\x.csv", "C:\\data\\x.csv")],
)
def test_local_path(url: str, expected: str | None) -> None:
    assert local_path(url) == expected


def _family(root: Path, *, relative_to_data_dir: bool) -> Path:
    """A family spec naming bench/croissant.json (whose data sits in data_dir/ or beside it)."""
    spec = {
        "name": "fam",
        "datasets": [{"name": "bench", "iri": "https://example.org/bench", "descriptor": "bench/croissant.json",
                      "record_set": "default",
                      "files_relative_to_data_dir": relative_to_data_dir,
                      "roles": {"id": "{_row}", "stem": "question", "options": ["answer"], "key": "answer"}}],
        "derivations": [],
    }
    path = root / "family.json"
    path.write_text(json.dumps(spec), "utf-8")
    return path


def test_family_descriptors_resolve_against_the_data_dir(tmp_path: Path) -> None:
    desc = _bench(tmp_path / "bench")
    shutil.move(tmp_path / "bench" / "data", tmp_path / "data-dir")
    (tmp_path / "data-dir").rename(tmp_path / "store")
    (tmp_path / "store" / "data").mkdir()
    (tmp_path / "store" / "test.csv").rename(tmp_path / "store" / "data" / "test.csv")
    spec = _family(tmp_path, relative_to_data_dir=True)
    assert _codes(validate(desc)) == ["CLV701"]  # alone: resolved against its own folder
    assert _codes(validate([desc, spec])) == []  # the spec says: the data folder, not given here
    assert _codes(validate([desc, spec], data_dir=tmp_path / "store")) == []
    assert validate([desc, spec], data_dir=tmp_path / "store").valid
    assert _codes(validate([desc, spec], data_dir=tmp_path)) == ["CLV701"]
    assert _codes(validate([desc], family=spec, data_dir=tmp_path / "store")) == []


def test_enriched_copy_apart_from_its_data_is_an_error_with_its_family_too(tmp_path: Path) -> None:
    """A loader resolves an enriched copy's files against the copy's folder: a copy written
    apart from its data loads no record of its benchmark, so --family does not excuse it."""
    _bench(tmp_path / "bench")
    spec = _family(tmp_path, relative_to_data_dir=False)
    doc = json.loads((tmp_path / "bench" / "croissant.json").read_text("utf-8"))
    doc["cl:familyDataset"] = [{"@id": "https://example.org/bench", "sc:name": {"@value": "bench"}}]
    (tmp_path / "enriched").mkdir()
    enriched = tmp_path / "enriched" / "bench.json"
    enriched.write_text(json.dumps(doc), "utf-8")  # written apart from its data, as enrich --out does
    assert _codes(validate(enriched)) == ["CLV701"]
    assert _codes(validate(enriched, family=spec)) == ["CLV701"]
    assert not validate(enriched, family=spec).valid
    beside = tmp_path / "bench" / "croissant.enriched.json"  # as enrich --in-place writes it
    beside.write_text(json.dumps(doc), "utf-8")
    assert validate(beside, family=spec).valid and validate(beside).valid


def test_cli_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    desc = _bench(tmp_path / "bench")
    shutil.rmtree(tmp_path / "bench" / "data")
    assert main(["validate", str(desc), "--json"]) == 1
    assert "CLV701" in {i["code"] for i in json.loads(capsys.readouterr().out)["issues"]}
    assert main(["validate", str(desc), "--metadata-only", "--json"]) == 0
    capsys.readouterr()
    assert main(["validate", str(desc), "--family", str(tmp_path / "nope.json")]) == 2
    capsys.readouterr()
