"""records.read_record_set: what a descriptor says is what is read; nothing outside it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from croissant_lineage.croissant.descriptor import Descriptor, match_files, read_descriptor
from croissant_lineage.croissant.records import (
    FILE_COLUMN,
    ROW_COLUMN,
    apply_regex,
    read_record_set,
)
from croissant_lineage.errors import DataError, DescriptorError, UnsafePathError


def _field(name: str, source: dict[str, Any], extract: dict[str, Any], regex: str | None = None) -> dict[str, Any]:
    src: dict[str, Any] = {**source, "extract": extract}
    if regex is not None:
        src["transform"] = {"regex": regex}
    return {"@type": "cr:Field", "@id": f"rs/{name}", "dataType": "sc:Text", "source": src}


def _descriptor(
    folder: Path,
    files: list[dict[str, Any]],
    fields: list[dict[str, Any]],
    *,
    name: str = "croissant.json",
) -> Descriptor:
    doc = {
        "@context": {"@vocab": "https://schema.org/", "cr": "http://mlcommons.org/croissant/"},
        "@type": "sc:Dataset",
        "name": "t",
        "distribution": files,
        "recordSet": [{"@type": "cr:RecordSet", "@id": "rs", "field": fields}],
    }
    path = folder / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return read_descriptor(path)


def _file_set(includes: str | list[str], excludes: list[str] | None = None, fmt: str = "text/csv") -> dict[str, Any]:
    node: dict[str, Any] = {"@type": "cr:FileSet", "@id": "fs", "encodingFormat": fmt, "includes": includes}
    if excludes:
        node["excludes"] = excludes
    return node


def _file_object(url: str, fmt: str = "text/csv") -> dict[str, Any]:
    return {"@type": "cr:FileObject", "@id": "fo", "contentUrl": url, "encodingFormat": fmt}


FS = {"fileSet": {"@id": "fs"}}
FO = {"fileObject": {"@id": "fo"}}


@pytest.fixture()
def bench(tmp_path: Path) -> Path:
    """data/{algebra,biology}_test.csv, data/extra/chem_test.csv, data/notes.txt."""
    data = tmp_path / "data"
    (data / "extra").mkdir(parents=True)
    (data / "algebra_test.csv").write_text("q,a\nA1,x\nA2,y\n", encoding="utf-8")
    (data / "biology_test.csv").write_text("a;q\nz;B1\n", encoding="utf-8")
    (data / "extra" / "chem_test.csv").write_text("q,a\nC1,w\n", encoding="utf-8")
    (data / "notes.txt").write_text("not data", encoding="utf-8")
    return data


# -- regex ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "pattern", "expected"),
    [
        ("algebra_test.csv", r"^(.+)_test\.csv$", "algebra"),
        ("dir/test-0.parquet", r"(test)", "dir/test-0.parquet"),  # match is anchored: no match
        ("test-0.parquet", r"(train)|(test)", "test"),  # first group that took part
        ("abc", r"abc", "abc"),  # no group: the value itself
        (None, r"(.*)", None),
        (12, r"(\d)", "1"),
    ],
)
def test_apply_regex_is_mlcroissants(value: Any, pattern: str, expected: Any) -> None:
    assert apply_regex(value, pattern) == expected


# -- fields from file properties and columns ------------------------------------------


def test_file_property_regex_fields_and_provenance_columns(bench: Path) -> None:
    desc = _descriptor(
        bench,
        [_file_set("*_test.csv")],
        [
            _field("subject", FS, {"fileProperty": "filename"}, r"^(.+)_test\.csv$"),
            _field("path", FS, {"fileProperty": "fullpath"}),
            _field("q", FS, {"column": "q"}),
        ],
    )
    table = read_record_set(desc)
    assert table.column("subject").to_pylist() == ["algebra", "algebra", "biology", "chem"]
    assert table.column("path").to_pylist() == [
        "algebra_test.csv", "algebra_test.csv", "biology_test.csv", "extra/chem_test.csv"
    ]
    assert table.column("q").to_pylist() == ["A1", "A2", "B1", "C1"]
    assert table.column(FILE_COLUMN).to_pylist()[-1] == "extra/chem_test.csv"
    assert table.column(ROW_COLUMN).to_pylist() == [0, 1, 0, 0]


def test_only_the_named_fields(bench: Path) -> None:
    desc = _descriptor(bench, [_file_set("algebra_test.csv")], [_field("q", FS, {"column": "q"}), _field("a", FS, {"column": "a"})])
    table = read_record_set(desc, "rs", fields=["a"])
    assert table.column_names == ["a", FILE_COLUMN, ROW_COLUMN]
    with pytest.raises(DescriptorError) as info:
        read_record_set(desc, "rs", fields=["nope"])
    assert info.value.code == "CL-E002"
    with pytest.raises(DescriptorError):
        read_record_set(desc, "other")


def test_column_missing_from_every_file(bench: Path) -> None:
    desc = _descriptor(bench, [_file_set("algebra_test.csv")], [_field("x", FS, {"column": "question"})])
    with pytest.raises(DataError) as info:
        read_record_set(desc)
    assert info.value.code == "CL-E004"


def test_column_missing_from_some_files_reads_as_null(bench: Path) -> None:
    (bench / "extra" / "bio2_test.csv").write_text("q,b\nD1,v\n", encoding="utf-8")
    desc = _descriptor(bench, [_file_set("extra/*.csv")], [_field("a", FS, {"column": "a"})])
    assert read_record_set(desc).column("a").to_pylist() == [None, "w"]


def test_json_path_extracts(tmp_path: Path) -> None:
    (tmp_path / "l.json").write_text(json.dumps([{"q": "a", "n": 1}, {"q": "b", "n": 2}]), encoding="utf-8")
    fields = [
        _field("q", FO, {"jsonPath": "$[*].q"}),
        _field("n", FO, {"jsonPath": "$['n']"}),
    ]
    desc = _descriptor(tmp_path, [_file_object("l.json", "application/json")], fields)
    table = read_record_set(desc)
    assert table.column("q").to_pylist() == ["a", "b"] and table.column("n").to_pylist() == [1, 2]
    bad = _descriptor(tmp_path, [_file_object("l.json", "application/json")], [_field("q", FO, {"jsonPath": "$.a.b"})])
    with pytest.raises(DescriptorError):
        read_record_set(bad)


def test_csv_columns_extension(tmp_path: Path) -> None:
    (tmp_path / "h.csv").write_text("Q1,A\nQ2,B\n", encoding="utf-8")
    fo = {**_file_object("h.csv"), "cl:csvColumns": ["question", "answer"]}
    desc = _descriptor(tmp_path, [fo], [_field("question", FO, {"column": "question"})])
    assert read_record_set(desc).column("question").to_pylist() == ["Q1", "Q2"]


def test_unsupported_file_property_and_bad_regex(bench: Path) -> None:
    desc = _descriptor(bench, [_file_set("algebra_test.csv")], [_field("c", FS, {"fileProperty": "content"})])
    with pytest.raises(DescriptorError):
        read_record_set(desc)
    desc = _descriptor(bench, [_file_set("algebra_test.csv")], [_field("c", FS, {"fileProperty": "filename"}, "(")])
    with pytest.raises(DescriptorError):
        read_record_set(desc)


def test_fields_from_two_sources_are_refused(bench: Path) -> None:
    files = [_file_set("algebra_test.csv"), _file_object("biology_test.csv")]
    desc = _descriptor(bench, files, [_field("q", FS, {"column": "q"}), _field("a", FO, {"column": "a"})])
    with pytest.raises(DescriptorError):
        read_record_set(desc)


# -- FileSet includes / excludes -----------------------------------------------------------


def test_includes_use_mlcroissant_glob_semantics(bench: Path) -> None:
    # fnmatch: "*" crosses "/", so *_test.csv also takes extra/chem_test.csv.
    assert sorted(match_files(bench, "*_test.csv")) == [
        "algebra_test.csv", "biology_test.csv", "extra/chem_test.csv"
    ]
    assert match_files(bench, "extra/*.csv") == ["extra/chem_test.csv"]
    assert match_files(bench, "notes.txt") == ["notes.txt"]
    assert match_files(bench, "missing.csv") == []
    assert match_files(bench, "Algebra_test.csv") == []  # case-sensitive


def test_excludes(bench: Path) -> None:
    desc = _descriptor(
        bench, [_file_set(["*.csv"], excludes=["extra/*", "bio*"])], [_field("q", FS, {"column": "q"})]
    )
    assert read_record_set(desc).column("q").to_pylist() == ["A1", "A2"]


def test_several_includes_and_order(bench: Path) -> None:
    (bench / "a-c_test.csv").write_text("q,a\nH,h\n", encoding="utf-8")
    (bench / "a").mkdir()
    (bench / "a" / "b_test.csv").write_text("q,a\nS,s\n", encoding="utf-8")
    desc = _descriptor(bench, [_file_set(["a/*.csv", "a-c_test.csv", "a*.csv"])], [_field("q", FS, {"column": "q"})])
    # Files sorted by path string, as mlcroissant sorts: "a-c..." < "a/b..." < "algebra...".
    assert read_record_set(desc).column(FILE_COLUMN).to_pylist() == [
        "a-c_test.csv", "a/b_test.csv", "algebra_test.csv", "algebra_test.csv"
    ]


def test_no_file_matches(bench: Path) -> None:
    desc = _descriptor(bench, [_file_set("*.parquet", fmt="application/x-parquet")], [_field("q", FS, {"column": "q"})])
    with pytest.raises(DataError) as info:
        read_record_set(desc)
    assert info.value.code == "CL-E004"


def test_remote_file_object(tmp_path: Path) -> None:
    desc = _descriptor(tmp_path, [_file_object("https://example.org/x.csv")], [_field("q", FO, {"column": "q"})])
    with pytest.raises(DescriptorError):
        read_record_set(desc)


# -- nothing outside the base folder ---------------------------------------------------------


@pytest.fixture()
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "secret.csv"
    path.write_text("q\nsecret\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("url", ["../secret.csv", "extra/../../secret.csv", "ABSOLUTE", "file://ABSOLUTE"])
def test_content_url_outside_is_refused(bench: Path, outside: Path, url: str) -> None:
    url = url.replace("ABSOLUTE", str(outside))
    desc = _descriptor(bench, [_file_object(url)], [_field("q", FO, {"column": "q"})])
    with pytest.raises(UnsafePathError) as info:
        read_record_set(desc)
    assert info.value.code == "CL-E006"
    allowed = read_record_set(desc, allow_outside=True)
    assert allowed.column("q").to_pylist() == ["secret"]


@pytest.mark.parametrize("pattern", ["../*.csv", "../secret.csv", "ABSOLUTE", "ABSOLUTE_GLOB", "extra/../../*.csv"])
def test_includes_outside_are_refused(bench: Path, outside: Path, pattern: str) -> None:
    pattern = pattern.replace("ABSOLUTE_GLOB", str(outside.parent) + "/*.csv").replace("ABSOLUTE", str(outside))
    desc = _descriptor(bench, [_file_set(pattern)], [_field("q", FS, {"column": "q"})])
    with pytest.raises(UnsafePathError):
        read_record_set(desc)


def test_symlink_pointing_outside_is_refused(bench: Path, outside: Path) -> None:
    os.symlink(outside, bench / "zz_test.csv")
    desc = _descriptor(bench, [_file_set("*_test.csv")], [_field("q", FS, {"column": "q"})])
    with pytest.raises(UnsafePathError):
        read_record_set(desc)
    assert "secret" in read_record_set(desc, allow_outside=True).column("q").to_pylist()
    fo = _descriptor(bench, [_file_object("zz_test.csv")], [_field("q", FO, {"column": "q"})], name="fo.json")
    with pytest.raises(UnsafePathError):
        read_record_set(fo)


def test_symlink_inside_is_read_folder_symlink_not_followed(bench: Path) -> None:
    os.symlink(bench / "algebra_test.csv", bench / "extra" / "alias_test.csv")
    os.symlink(bench / "extra", bench / "linked")
    desc = _descriptor(bench, [_file_set("*_test.csv")], [_field("q", FS, {"column": "q"})])
    files = set(read_record_set(desc).column(FILE_COLUMN).to_pylist())
    assert "extra/alias_test.csv" in files
    assert not any(f.startswith("linked/") for f in files)


def _paths_one_by_one(desc: Descriptor, root: Path, patterns: list[str], allow_outside: bool) -> list[Path]:
    """What ``local_paths`` gave before it found folders' real paths once: each file resolved
    and checked alone."""
    from croissant_lineage._io import resolve_inside

    found = {}
    for pattern in patterns:
        for rel in match_files(root, pattern, allow_outside=allow_outside):
            resolve_inside(root, rel, allow_outside=allow_outside)
            if (root / rel).is_file():
                found[os.fspath(root / rel)] = root / rel
    return [found[k] for k in sorted(found)]


@pytest.mark.parametrize("pattern", ["*_test.csv", "out/*.csv", "out/secret.csv", "alias/*.csv", "*", "dead.csv"])
@pytest.mark.parametrize("allow_outside", [False, True])
def test_file_set_paths_are_those_each_file_resolved_alone_gives(
    tmp_path: Path, bench: Path, outside: Path, pattern: str, allow_outside: bool
) -> None:
    """Links to files and folders inside and outside, a dangling link, a base folder
    reached through a link: the same files, or the same refusal."""
    os.symlink(bench / "algebra_test.csv", bench / "extra" / "alias_test.csv")
    os.symlink(outside.parent, bench / "out")  # a folder outside, named by a literal path
    os.symlink(bench / "extra", bench / "alias")
    os.symlink(tmp_path / "nowhere.csv", bench / "dead.csv")
    os.symlink(bench, tmp_path / "linked_base")
    for base in (bench, tmp_path / "linked_base"):
        desc = _descriptor(base, [_file_set(pattern)], [_field("q", FS, {"column": "q"})])
        try:
            want: Any = _paths_one_by_one(desc, base, [pattern], allow_outside)
        except UnsafePathError as exc:
            want = (f"file 'fs': {exc.message}", exc.hint)  # local_paths names the FileSet first
        try:
            got: Any = desc.local_paths("fs", allow_outside=allow_outside)
        except UnsafePathError as exc:
            got = (exc.message, exc.hint)
        assert got == want
    if pattern == "out/secret.csv" and not allow_outside:
        assert isinstance(want, tuple) and "resolves outside" in want[0]


def test_base_dir_override(bench: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "meta"
    elsewhere.mkdir()
    doc_path = _descriptor(elsewhere, [_file_object("algebra_test.csv")], [_field("q", FO, {"column": "q"})]).path
    assert doc_path is not None
    with pytest.raises(Exception):  # noqa: B017 - not found next to the descriptor
        read_record_set(read_descriptor(doc_path))
    desc = read_descriptor(doc_path, base_dir=bench)
    assert read_record_set(desc).column("q").to_pylist() == ["A1", "A2"]
