"""Regenerate the bad-input corpus (invented content; see README.md in this folder).

Each case is one folder (or file) holding exactly one kind of bad input; everything
else in it is a small valid setup, so the error a case gives can only come from its
one defect. ``_good/`` is the control: the same setup without a defect.

Run ``python tests/badinput/make_corpus.py`` from the repository root; the output is
deterministic. Inputs too large to keep in git (a gigantic CSV line) are written by
the tests themselves (see ``tests/test_badinput.py``).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "sc": "https://schema.org/",
    "cr": "http://mlcommons.org/croissant/",
    "dct": "http://purl.org/dc/terms/",
    "conformsTo": "dct:conformsTo",
    "recordSet": "cr:recordSet",
    "field": "cr:field",
    "source": "cr:source",
    "extract": "cr:extract",
    "column": "cr:column",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "includes": "cr:includes",
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
}
COLUMNS = ["id", "subject", "question", "A", "B", "C", "D", "answer"]
ROWS = [
    ["1", "glorbs", "How many corners does a glorb have?", "3", "4", "5", "6", "C"],
    ["2", "glorbs", "Which colour is a ripe glorb?", "Teal", "Mauve", "Ochre", "Umber", "A"],
    ["3", "wibbles", "Where do wibbles nest in winter?", "Under moss", "In reeds", "On cliffs", "Nowhere", "B"],
]


def csv_text(rows: list[list[str]] = ROWS, header: list[str] = COLUMNS, sep: str = ",") -> str:
    return "".join(sep.join(r) + "\n" for r in [header, *rows])


def descriptor(
    *,
    content_url: str = "data.csv",
    record_set: str = "default",
    columns: list[str] = COLUMNS,
    file_set: str | None = None,
    encoding: str = "text/csv",
) -> dict[str, Any]:
    """A minimal Croissant 1.1 descriptor: one file, one RecordSet, one field per column."""
    if file_set is None:
        dist = {"@type": "cr:FileObject", "@id": "data", "name": "data", "contentUrl": content_url,
                "encodingFormat": encoding, "sha256": "0" * 64}
        src_key = "fileObject"
    else:
        dist = {"@type": "cr:FileSet", "@id": "data", "name": "data", "encodingFormat": encoding,
                "includes": file_set}
        src_key = "fileSet"
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.1",
        "name": "bad",
        "description": "Bad-input corpus case (invented).",
        "url": "https://example.org/bad",
        "distribution": [dist],
        "recordSet": [
            {
                "@type": "cr:RecordSet",
                "@id": record_set,
                "name": record_set,
                "field": [
                    {"@type": "cr:Field", "@id": f"{record_set}/{c}", "name": c, "dataType": "sc:Text",
                     "source": {src_key: {"@id": "data"}, "extract": {"column": c}}}
                    for c in columns
                ],
            }
        ],
    }


def family(*, record_set: str = "default", stem: str = "question", extra: dict | None = None) -> dict[str, Any]:
    """A one-dataset family spec reading ``croissant.json`` beside it."""
    return {
        "name": "bad",
        "datasets": [
            {
                "name": "bad",
                "iri": "https://example.org/bad",
                "descriptor": "croissant.json",
                "record_set": record_set,
                "roles": {"id": "id", "subject": "subject", "stem": stem,
                          "options": ["A", "B", "C", "D"], "key": "answer"},
                **(extra or {}),
            }
        ],
    }


def dump(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def case(name: str, files: dict[str, str | bytes]) -> None:
    folder = HERE / name
    folder.mkdir()
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")


def setup(*, desc: Any = None, data: str | bytes | None = None, fam: Any = None, **more: str | bytes) -> dict[str, str | bytes]:
    """family.json + croissant.json + data.csv, each replaceable."""
    files: dict[str, str | bytes] = {
        "family.json": fam if isinstance(fam, str) else dump(fam or family()),
        "croissant.json": desc if isinstance(desc, str) else dump(desc or descriptor()),
        "data.csv": csv_text() if data is None else data,
    }
    files.update(more)
    return files


def alias_bomb(levels: int = 8, top: str = "") -> str:
    """A "billion laughs" YAML: each level lists the previous one nine times (9**levels)."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return top + "\n".join(lines) + "\n"


def deep(depth: int = 5000) -> str:
    """A JSON (and YAML flow) list nested deeper than Python recurses."""
    return "[" * depth + "]" * depth


def zip_bytes(members: dict[str, bytes], *, level: int = 9) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as zf:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return buf.getvalue()


def record(qid: Any, options: Any = ("Teal", "Mauve", "Ochre", "Umber"), answer: Any = "A", pred: Any = "A") -> dict:
    return {"question_id": qid, "question": "q?", "options": list(options), "answer": answer, "pred": pred}


def main() -> None:
    for p in HERE.iterdir():
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.name not in ("make_corpus.py", "README.md"):
            p.unlink()

    # --- control -------------------------------------------------------------------
    case("_good", setup())
    case("_outside", {"data.csv": csv_text()})  # a data file outside the symlink case's folder

    # --- descriptors ---------------------------------------------------------------
    case("descriptor_invalid_json", setup(desc='{"@context": {}, "@type": "sc:Dataset",\n  "name": "bad"\n'))
    case("descriptor_empty", setup(desc=""))
    case("descriptor_not_croissant", setup(desc=dump({"@context": {"@vocab": "https://schema.org/"},
                                                       "@type": "Person", "name": "not a dataset"})))
    case("descriptor_deep_nesting", setup(desc='{"@context": {}, "@type": "sc:Dataset", "x": ' + deep(150) + "}\n"))
    case("descriptor_nan", setup(desc=dump(descriptor()).replace('"name": "bad",', '"name": "bad",\n  "size": NaN,', 1)))
    case("descriptor_duplicate_key", setup(desc=dump(descriptor()).replace(
        '{\n  "@context"', '{\n  "@context": {"@vocab": "https://example.org/other/"},\n  "@context"', 1)))
    case("descriptor_json_list", setup(desc=dump([descriptor()])))
    case("descriptor_recordset_missing", setup(fam=family(record_set="questions")))
    case("descriptor_field_missing", setup(fam=family(stem="prompt")))
    case("descriptor_column_missing", setup(data=csv_text(header=["id", "subject", "prompt", "A", "B", "C", "D", "answer"])))
    case("contenturl_parent", setup(desc=descriptor(content_url="../../../../../../etc/passwd")))
    case("contenturl_absolute", setup(desc=descriptor(content_url="/etc/passwd")))
    case("contenturl_fileset_glob_outside", setup(desc=descriptor(file_set="../_outside/*.csv")))
    case("contenturl_fileset_glob_root", setup(desc=descriptor(file_set="/**/*.zzz")))
    case("family_descriptor_nul", setup(fam=dump(family()).replace('"croissant.json"', '"croissant.json\\u0000x"')))
    folder = HERE / "contenturl_symlink"
    case("contenturl_symlink", {k: v for k, v in setup().items() if k != "data.csv"})
    os.symlink("../_outside/data.csv", folder / "data.csv")

    # --- data files ----------------------------------------------------------------
    case("csv_empty", setup(data=""))
    mixed = csv_text().splitlines(keepends=True)
    mixed[2] = mixed[2].replace(",", ";")
    case("csv_mixed_delimiters", setup(data="".join(mixed)))
    case("csv_utf16", setup(data=csv_text().encode("utf-16")))
    case("csv_ragged", setup(data=csv_text() + "4,glorbs,Too short?,1,2\n"))
    case("csv_nul_bytes", setup(data=csv_text().encode() + b"5,glorbs,Nul\x00here?,1,2,3,4,A\n"))
    case("csv_unclosed_quote", setup(data=csv_text() + '4,glorbs,"Where does this end?,1,2,3,4,A\n'))
    jsonl = descriptor(content_url="data.jsonl", encoding="application/jsonlines")
    row = dict(zip(COLUMNS, ROWS[0], strict=True))
    files = {k: v for k, v in setup(desc=jsonl).items() if k != "data.csv"}
    files["data.jsonl"] = json.dumps(row) + "\n" + '{"id": "2", "question": ' + deep() + "}\n"
    case("jsonl_deep_nesting", files)
    files = {k: v for k, v in setup(desc=jsonl).items() if k != "data.csv"}
    files["data.jsonl"] = '{"id": "1", "question": ' + deep(1000) + "}\n" + json.dumps(row) + "\n"
    case("jsonl_deep_first_line", files)
    case("csv_binary", setup(data=bytes(range(256)) * 4))
    for name, key in (("key_index_negative", "-1"), ("key_index_fraction", "1.5"), ("key_index_huge", str(2**62))):
        rows = [[*ROWS[0][:-1], "2"], [*ROWS[1][:-1], key], [*ROWS[2][:-1], "1"]]
        case(name, setup(data=csv_text(rows=rows), fam=family(extra={"key_format": "index"})))
    case("duplicate_ids", setup(data=csv_text(rows=[*ROWS, ["2", "glorbs", "A second item 2?", "a", "b", "c", "d", "D"]])))

    # --- family specs --------------------------------------------------------------
    cyc = family()
    cyc["datasets"].append({**cyc["datasets"][0], "name": "bad-copy"})
    cyc["derivations"] = [
        {"child": "bad-copy", "parent": "bad", "activity": "snapshot", "link": {"by": "id"}},
        {"child": "bad", "parent": "bad-copy", "activity": "snapshot", "link": {"by": "id"}},
    ]
    case("family_cycle", setup(fam=cyc))
    case("family_invalid_json", setup(fam='{"name": "bad", "datasets": [\n'))
    case("family_empty", setup(fam=""))
    case("family_duplicate_key", setup(fam=dump(family()).replace('"name": "bad",', '"name": "bad",\n  "name": "other",', 1)))
    case("family_not_a_spec", setup(fam=dump({"name": "bad", "datasets": [{"name": "bad"}]})))
    case("family_yaml_alias_bomb", {k: v for k, v in setup().items() if k != "family.json"} | {
        "family.yaml": alias_bomb(top="name: bad\n")})
    case("family_yaml_tag", {k: v for k, v in setup().items() if k != "family.json"} | {
        "family.yaml": "name: bad\ndatasets: !!python/object/apply:os.system ['echo pwned']\n"})

    # --- lineage folders (edges as JSON; the tests write the Parquet) --------------
    (HERE / "lineage_cycle.json").write_text(dump({
        "note": "Two items that derive from each other, and a three-step loop. Written to a lineage folder by the tests.",
        "items": [["a", "1"], ["b", "1"], ["c", "1"]],
        "edges": [["a", "1", "b", "1"], ["b", "1", "a", "1"], ["c", "1", "a", "1"]],
    }))

    case("lineage_not_parquet", {name: "not a Parquet file\n" for name in (
        "items.parquet", "edges.parquet", "duplicates.parquet", "unmatched.parquet")} | {
        "family.json": dump({"name": "bad", "datasets": [], "derivations": []}),
        "summary.json": dump({"generator": "croissant_lineage", "family": "bad"})})

    # --- findings ------------------------------------------------------------------
    good = {"id": "F-1", "item": "bad:1", "target": "key", "kind": "wrong_key", "proposed": "4",
            "source": {"name": "tester", "kind": "manual"}, "evidence": ["counted"], "status": "proposed"}
    (HERE / "findings_unknown_field.json").write_text(dump({"findings": [{**good, "severity": "high"}]}))
    (HERE / "findings_unknown_status.json").write_text(dump({"findings": [{**good, "status": "maybe_later"}]}))
    (HERE / "findings_yaml_tag.yaml").write_text(
        "findings:\n  - !!python/object/apply:os.system ['echo pwned']\n")
    (HERE / "findings_yaml_alias_bomb.yaml").write_text(alias_bomb() + "findings: [*l8]\n")
    (HERE / "findings_deep_nesting.json").write_text('{"findings": ' + deep() + "}\n")
    (HERE / "findings_empty.yaml").write_text("")
    (HERE / "findings_invalid.json").write_text('{"findings": [\n')
    (HERE / "findings_not_a_list.yaml").write_text("findings: 42\n")
    (HERE / "findings_duplicate_key.json").write_text(
        dump({"findings": [good]}).replace('"status": "proposed"', '"status": "proposed",\n      "status": "rejected"', 1))

    # --- prediction archives (each folder is an --archives folder) -----------------
    ok = [record(1), record(2, pred="B")]
    case("archive_not_zip", {"model_outputs_x_5shots.zip": json.dumps(ok)})
    case("archive_two_files", {"model_outputs_x_5shots.zip": zip_bytes(
        {"a.json": json.dumps(ok).encode(), "b.json": json.dumps(ok).encode()})})
    case("archive_bomb", {"model_outputs_x_5shots.zip": zip_bytes(
        {"model_outputs_x_5shots.json": b"[" + b" " * (4 * 1024 * 1024) + b"]"})})
    case("archive_traversal", {"model_outputs_x_5shots.zip": zip_bytes(
        {"../../evil.json": json.dumps(ok).encode()})})
    case("archive_deep_nesting", {"model_outputs_x_5shots.zip": zip_bytes(
        {"model_outputs_x_5shots.json": ("[" + json.dumps(record(1)) + ", " + deep() + "]").encode()})})
    case("archive_truncated", {"model_outputs_x_5shots.zip": zip_bytes(
        {"model_outputs_x_5shots.json": json.dumps(ok).encode()})[:-30]})
    case("archive_wrong_shape", {"model_outputs_x_5shots.zip": zip_bytes({"model_outputs_x_5shots.json": json.dumps(
        [record(1), {"question_id": [1]}, "text", 7, None, record(2, options="Teal"), record(3, answer=5),
         {"pred": "A"}]).encode()})})


if __name__ == "__main__":
    main()
