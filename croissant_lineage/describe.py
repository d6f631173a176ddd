"""Writing a Croissant 1.1 descriptor for a local benchmark folder.

The descriptor has the shape the Hugging Face Hub generates for a dataset: a FileSet
per config, a ``{config}_splits`` RecordSet listing the splits, and a RecordSet per
config whose first field is ``split`` (from the file path) followed by one field per
column of the data files. File globs are relative to the folder the descriptor is
meant to sit in (``relative_to``), as Croissant resolves them.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from .errors import InputError
from .tables import read_table

__all__ = ["CROISSANT_CONTEXT", "DescribeOptions", "describe", "encoding_format_of"]

#: The Croissant 1.1 ``@context`` as the Hub writes it, plus this library's prefix.
CROISSANT_CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "arrayShape": "cr:arrayShape",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "containedIn": "cr:containedIn",
    "cr": "http://mlcommons.org/croissant/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isArray": "cr:isArray",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "prov": "http://www.w3.org/ns/prov#",
    "equivalentProperty": "cr:equivalentProperty",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}

_FORMATS = {
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".jsonl": "application/jsonlines",
    ".json": "application/json",
    ".parquet": "application/x-parquet",
    ".arrow": "application/vnd.apache.arrow.stream",
}
_SPLITS = ("train", "validation", "test", "dev", "val")
_SKIP = {"dataset_info.json", "state.json", "metadata.json", "croissant.json", "dataset_dict.json"}


def encoding_format_of(path: Path) -> str | None:
    """The Croissant ``encodingFormat`` for a data file, by suffix; None if not data."""
    if path.name in _SKIP or path.name.startswith("."):
        return None
    return _FORMATS.get(path.suffix.lower())


@dataclass
class DescribeOptions:
    """What :func:`describe` cannot guess from the files.

    Attributes:
        name: Dataset name (default: the folder name).
        description: Free text.
        url: Dataset URL (``url``), e.g. its Hub or repository page.
        license: SPDX id or URL.
        version: Dataset version string.
        date_published: ISO date of the release.
        include: Glob(s) of data files relative to the folder (default: all data files).
        csv_columns: Column names for headerless CSV files.
        file_fields: Extra fields extracted from each file's path: name -> regex with one
            group (e.g. ``{"subject": r"([^/]+)_test\\.csv$"}``).
        relative_to: Folder the descriptor will sit in (globs are relative to it);
            default: the described folder.
        config: Name of the config when files are not split into config folders.
        split: Split name for files whose path names none (train/validation/test/dev/val).
    """

    name: str | None = None
    description: str | None = None
    url: str | None = None
    license: str | None = None
    version: str | None = None
    date_published: str | None = None
    include: list[str] = field(default_factory=list)
    csv_columns: list[str] | None = None
    file_fields: dict[str, str] = field(default_factory=dict)
    relative_to: Path | None = None
    config: str = "default"
    split: str = "train"


def _data_type(t: pa.DataType) -> tuple[str, bool]:
    """(Croissant dataType, is_array) for an Arrow type."""
    is_array = pa.types.is_list(t) or pa.types.is_large_list(t)
    if is_array:
        t = t.value_type
    if pa.types.is_boolean(t):
        return "sc:Boolean", is_array
    if pa.types.is_integer(t):
        return "cr:Int64", is_array
    if pa.types.is_floating(t):
        return "cr:Float64", is_array
    return "sc:Text", is_array


def _split_of(rel: str, default: str) -> str:
    for part in rel.replace("\\", "/").split("/"):
        stem = part.split(".")[0].lower()
        for s in _SPLITS:
            if stem == s or stem.startswith(s + "-") or stem.startswith(s + "_") or stem.endswith("_" + s):
                return s
    return default


def _config_of(rel: str, default: str) -> str:
    parts = rel.replace("\\", "/").split("/")[:-1]
    for part in parts:
        if part.lower() not in _SPLITS:
            return part
    return default


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "default"


def describe(folder: str | Path, options: DescribeOptions | None = None) -> dict[str, Any]:
    """Build a Croissant 1.1 descriptor for the data files in a local folder.

    Args:
        folder: Folder holding CSV, TSV, JSONL, JSON, Parquet or Arrow files (nested
            folders are configs or splits, as on the Hub).
        options: See :class:`DescribeOptions`.

    Returns:
        The descriptor as a JSON object (dict). Same files in, same dict out.

    Raises:
        InputError: the folder does not exist or holds no data file.
    """
    opts = options or DescribeOptions()
    root = Path(folder)
    if not root.is_dir():
        raise InputError("not a folder", path=root)
    rel_to = Path(opts.relative_to) if opts.relative_to is not None else root
    files: list[Path] = []
    if opts.include:
        for pattern in opts.include:
            files.extend(p for p in root.glob(pattern) if p.is_file())
    else:
        files = [p for p in root.rglob("*") if p.is_file()]
    files = sorted({p for p in files if encoding_format_of(p)})
    if not files:
        raise InputError("no data files (csv, tsv, jsonl, json, parquet, arrow)", path=root)
    prefix = os.path.relpath(root, rel_to).replace(os.sep, "/")
    prefix = "" if prefix == "." else prefix + "/"

    groups: dict[tuple[str, str], list[Path]] = defaultdict(list)
    for p in files:
        rel = p.relative_to(root).as_posix()
        groups[(_config_of(rel, opts.config), encoding_format_of(p) or "")].append(p)

    distribution: list[dict[str, Any]] = []
    record_sets: list[dict[str, Any]] = []
    for (config, fmt), paths in sorted(groups.items()):
        cfg = _slug(config)
        fs_id = f"{fmt.split('/')[-1].replace('x-', '')}-files-for-config-{cfg}"
        rels = [p.relative_to(root).as_posix() for p in paths]
        if opts.include:
            hit = {p.relative_to(root).as_posix() for p in paths}
            patterns = [pat for pat in opts.include if any(fnmatch.fnmatch(r, pat) for r in hit)]
            includes = [f"{prefix}{pat}" for pat in patterns]
        else:
            dirs = sorted({os.path.dirname(r) for r in rels})
            suffixes = sorted({Path(r).suffix for r in rels})
            includes = [f"{prefix}{d + '/' if d else ''}*{s}" for d in dirs for s in suffixes]
        fs: dict[str, Any] = {
            "@type": "cr:FileSet",
            "@id": fs_id,
            "name": fs_id,
            "description": f"{fmt} files of config {config}.",
            "encodingFormat": fmt,
            "includes": includes if len(includes) > 1 else includes[0],
        }
        if opts.csv_columns and fmt == "text/csv":
            fs["cl:csvColumns"] = list(opts.csv_columns)
        distribution.append(fs)

        splits = sorted({_split_of(r, opts.split) for r in rels})
        sample = read_table(paths[0], fmt, csv_columns=opts.csv_columns if fmt == "text/csv" else None)
        src = {"fileSet": {"@id": fs_id}}
        record_sets.append({
            "@type": "cr:RecordSet",
            "dataType": "cr:Split",
            "key": {"@id": f"{cfg}_splits/split_name"},
            "@id": f"{cfg}_splits",
            "name": f"{cfg}_splits",
            "description": f"Splits for the {config} config.",
            "field": [{"@type": "cr:Field", "@id": f"{cfg}_splits/split_name", "dataType": "sc:Text"}],
            "data": [{f"{cfg}_splits/split_name": s} for s in splits],
        })
        fields: list[dict[str, Any]] = []
        if all(_split_of(r, "") for r in rels):
            # A split field only where every file path names its split (the Hub's shape).
            split_rx = "(?:^|/|_|-)(" + "|".join(splits) + r")(?:[/_.-]|$)"
            fields.append({
                "@type": "cr:Field",
                "@id": f"{cfg}/split",
                "dataType": "sc:Text",
                "source": {**src, "extract": {"fileProperty": "fullpath"}, "transform": {"regex": split_rx}},
                "references": {"field": {"@id": f"{cfg}_splits/split_name"}},
            })
        for fname, rx in sorted(opts.file_fields.items()):
            fields.append({
                "@type": "cr:Field",
                "@id": f"{cfg}/{fname}",
                "dataType": "sc:Text",
                "source": {**src, "extract": {"fileProperty": "filename"}, "transform": {"regex": rx}},
            })
        for col in sample.schema:
            if col.name.startswith("_unnamed_"):
                continue
            dtype, is_array = _data_type(col.type)
            fnode: dict[str, Any] = {"@type": "cr:Field", "@id": f"{cfg}/{_slug(col.name)}"}
            if _slug(col.name) != col.name:
                fnode["name"] = col.name
            fnode["dataType"] = dtype
            fnode["source"] = {**src, "extract": {"column": col.name}}
            if is_array:
                fnode["isArray"] = True
                fnode["arrayShape"] = "-1"
            fields.append(fnode)
        record_sets.append({
            "@type": "cr:RecordSet",
            "@id": cfg,
            "name": cfg,
            "description": f"{opts.name or root.name} - {config!r} config; splits: {', '.join(splits)}",
            "field": fields,
        })

    doc: dict[str, Any] = {
        "@context": dict(CROISSANT_CONTEXT, cl="https://w3id.org/croissant-lineage/ns#"),
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.1",
        "name": opts.name or root.name,
        "description": opts.description or f"Local benchmark data in {root.name}.",
    }
    for key, value in (
        ("url", opts.url),
        ("license", opts.license),
        ("version", opts.version),
        ("datePublished", opts.date_published),
    ):
        if value:
            doc[key] = value
    doc["distribution"] = distribution
    doc["recordSet"] = record_sets
    return doc
