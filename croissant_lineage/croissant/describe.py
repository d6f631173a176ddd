"""Writing a Croissant 1.1 descriptor for a local benchmark folder.

The descriptor has the shape the Hugging Face Hub generates for a dataset: a FileSet
per config (and file format), a ``{config}_splits`` RecordSet listing the splits, and a
RecordSet per config whose first field is ``split`` (from the file path) followed by one
field per column of the data files. It is written so that mlcroissant 1.1.1 validates it
with no error and no ``@context`` warning, and so that ``mlcroissant.Dataset.records``
and :func:`croissant_lineage.croissant.records.read_record_set` yield the same rows:

* ``includes`` globs are matched the way mlcroissant matches them (``fnmatch`` on the
  path relative to the descriptor's folder, ``*`` crossing ``/``); when a glob would
  take any other file, the files are listed one by one instead;
* the ``split`` field's regex is applied with ``re.match`` on that relative path, as
  mlcroissant applies it, and the split of each file is computed with that same regex;
* JSON files (a list of records) are read by ``jsonPath`` ``$[*].column``, since
  mlcroissant reads a JSON file by ``column`` as one single record;
* files of one config whose columns differ are never merged into one RecordSet (mlcroissant
  cannot read a column some files lack): they are grouped by their set of columns into
  separate configs, ``{config}-{label}``, as the Hub keeps one set of features per config
  (:attr:`DescribeResult.grouped` says which).

Only what the descriptor says of a file is kept: its columns' names and types and its row
count. A Parquet file's come from its metadata (no column is read); a file of another
format is read (under :mod:`.tables`' limits) and its table dropped once measured.

File globs are relative to the folder the descriptor is meant to sit in
(``relative_to``), as Croissant resolves them. The descriptor carries
``"cl:generatedBy": "croissant-lineage"`` (:data:`croissant_lineage.croissant.descriptor.GENERATOR`),
which is how :func:`describe_folder` recognises a file it may replace.
"""

from __future__ import annotations

import glob
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage._io import atomic_write_json
from croissant_lineage._results import Result
from croissant_lineage.croissant.descriptor import (
    CL_NS,
    GENERATED_BY,
    GENERATOR,
    ensure_replaceable,
    match_files,
)
from croissant_lineage.croissant.folder_files import (
    SHORT_FORMAT,
    SPLIT_NAMES,
    FileGroup,
    by_columns,
    encoding_format_of,
    file_shape,
    folder_prefix,
    group_files,
    slug,
    split_of,
    split_regex,
    unique_id,
)
from croissant_lineage.croissant.namespaces import CROISSANT_NS, PROV_NS, RAI_NS, SCHEMA_NS
from croissant_lineage.errors import InputError

__all__ = [
    "CROISSANT_CONTEXT",
    "SPLIT_NAMES",
    "DescribeOptions",
    "DescribeResult",
    "describe",
    "describe_folder",
    "encoding_format_of",
    "split_regex",
]

#: The ``@context`` mlcroissant 1.1.1 treats as standard for Croissant 1.1
#: (``mlcroissant._src.core.rdf.make_context`` for a 1.1 document, same keys, values and
#: order), plus the ``prov`` prefix the Hub also declares and this library's ``cl`` prefix.
CROISSANT_CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": SCHEMA_NS,
    "arrayShape": "cr:arrayShape",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "containedIn": "cr:containedIn",
    "cr": CROISSANT_NS,
    "rai": RAI_NS,
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "description": {"@container": "@language"},
    "equivalentProperty": "cr:equivalentProperty",
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
    "name": {"@container": "@language"},
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": SCHEMA_NS,
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
    "prov": PROV_NS,
    "cl": CL_NS,
}


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
        cite_as: How to cite the dataset (``citeAs``: a BibTeX entry or a reference).
        include: Glob(s) of data files relative to the folder, matched as Croissant
            ``includes`` are (``fnmatch``: ``*`` also crosses ``/``); default: every data
            file in the folder and its sub-folders.
        csv_columns: Column names for headerless CSV files (written as ``cl:csvColumns``;
            mlcroissant cannot read such files, this library can).
        file_fields: Extra fields extracted from each file's name: name -> regex whose
            first group is the value (e.g. ``{"subject": r"^(.+)_test\\.csv$"}``).
        relative_to: Folder the descriptor will sit in (globs are relative to it); it
            must contain the described folder. Default: the described folder.
        config: Name of the config for files not in a config folder.
        split: Split name for files whose path names none (the splits RecordSet lists it;
            there is then no ``split`` field, since no regex can yield it).
    """

    name: str | None = None
    description: str | None = None
    url: str | None = None
    license: str | None = None
    version: str | None = None
    date_published: str | None = None
    cite_as: str | None = None
    include: list[str] = field(default_factory=list)
    csv_columns: list[str] | None = None
    file_fields: dict[str, str] = field(default_factory=dict)
    relative_to: Path | None = None
    config: str = "default"
    split: str = "train"


@dataclass(frozen=True)
class DescribeResult(Result):
    """What :func:`describe_folder` wrote.

    Attributes:
        path: The descriptor file.
        descriptor: The descriptor (as written).
        files: Number of data files described.
        rows: Rows per data RecordSet id, as read while describing.
        replaced: True when an earlier descriptor written by this library was replaced.
        grouped: Configs whose files have different columns -> the configs they were
            grouped into (one per set of columns); empty when every config has one.
    """

    path: Path
    descriptor: dict[str, Any]
    files: int
    rows: dict[str, int]
    replaced: bool
    grouped: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (the descriptor itself is left out: it is in ``path``);
        ``grouped`` only when a config was grouped by columns."""
        out: dict[str, Any] = {
            "path": str(self.path),
            "files": self.files,
            "rows": dict(self.rows),
            "replaced": self.replaced,
        }
        if self.grouped:
            out["grouped"] = {k: list(v) for k, v in self.grouped.items()}
        return out


@dataclass
class _Built:
    doc: dict[str, Any]
    files: int
    rows: dict[str, int]
    grouped: dict[str, list[str]] = field(default_factory=dict)


def _data_type(types: list[pa.DataType]) -> tuple[str, bool]:
    """(Croissant dataType, is_array) for the Arrow types one column has across files."""
    known = [t for t in types if not pa.types.is_null(t)]
    if not known or any(t != known[0] for t in known):
        return "sc:Text", False
    t = known[0]
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


def _includes(
    group: FileGroup, root: Path, rel_to: Path, prefix: str, opts: DescribeOptions
) -> list[str]:
    """Globs that take exactly the group's files (relative to ``rel_to``), or the files."""
    rels = [p.relative_to(root).as_posix() for p in group.paths]
    wanted = {prefix + r for r in rels}
    esc = glob.escape(prefix)
    if opts.include:
        candidates = [esc + pat for pat in opts.include]
    else:
        dirs = sorted({os.path.dirname(r) for r in rels})
        # A glob on a folder also takes its sub-folders: keep the outermost folders.
        dirs = [d for d in dirs if not any(_covers(o, d) for o in dirs)]
        suffixes = sorted({Path(r).suffix for r in rels})
        candidates = [f"{esc}{_dir_glob(d)}*{s}" for d in dirs for s in suffixes]
    if group.fmt != "application/json":
        taken: set[str] = set()
        useful = []
        for pat in candidates:
            hits = set(match_files(rel_to, pat))
            if hits & wanted:
                useful.append(pat)
                taken |= hits
        if taken == wanted:
            return useful
    # JSON files are always listed: a *.json glob would also take descriptors beside them.
    return [glob.escape(w) for w in sorted(wanted)]


def _covers(outer: str, inner: str) -> bool:
    return outer != inner and (outer == "" or inner.startswith(outer + "/"))


def _dir_glob(folder: str) -> str:
    return glob.escape(folder) + "/" if folder else ""


def _record_set(
    group: FileGroup,
    rs_id: str,
    splits_id: str,
    fs_id: str,
    rels: list[str],
    prefix: str,
    opts: DescribeOptions,
    name: str,
) -> dict[str, Any]:
    """The data RecordSet of one group; ``rels`` are its files relative to the folder."""
    src: dict[str, Any] = {"fileSet": {"@id": fs_id}}
    ids: set[str] = set()
    shorts: set[str] = set()
    fields: list[dict[str, Any]] = []
    file_splits = [split_of(r) for r in rels]
    if all(file_splits):
        names = sorted({s for s in file_splits if s})
        fid = unique_id(f"{rs_id}/split", ids)
        shorts.add("split")
        fields.append({
            "@type": "cr:Field",
            "@id": fid,
            "dataType": "sc:Text",
            "source": {
                **src,
                "extract": {"fileProperty": "fullpath"},
                "transform": {"regex": split_regex(names, prefix)},
            },
            "references": {"field": {"@id": f"{splits_id}/split_name"}},
        })
    for fname, rx in sorted(opts.file_fields.items()):
        fid = unique_id(f"{rs_id}/{slug(fname)}", ids)
        shorts.add(fid.removeprefix(f"{rs_id}/"))
        fields.append({
            "@type": "cr:Field",
            "@id": fid,
            "dataType": "sc:Text",
            "source": {**src, "extract": {"fileProperty": "filename"}, "transform": {"regex": rx}},
        })
    columns: dict[str, list[pa.DataType]] = {}
    for table in group.tables:
        for col in table.schema:
            columns.setdefault(col.name, []).append(col.type)
    for column, types in columns.items():
        if column.startswith("_unnamed_") and all(
            column not in t.column_names or column in t.empty for t in group.tables
        ):
            continue
        dtype, is_array = _data_type(types)
        fid = unique_id(f"{rs_id}/{slug(column)}", ids)
        short = fid.removeprefix(f"{rs_id}/")
        fnode: dict[str, Any] = {"@type": "cr:Field", "@id": fid}
        if short != column and column not in shorts:
            fnode["name"] = column
            short = column
        shorts.add(short)
        fnode["dataType"] = dtype
        if group.fmt == "application/json":
            simple = re.fullmatch(r"[A-Za-z0-9_\-]+", column) is not None
            path = f"$[*].{column}" if simple else "$[*][" + json.dumps(column) + "]"
            fnode["source"] = {**src, "extract": {"jsonPath": path}}
        else:
            fnode["source"] = {**src, "extract": {"column": column}}
        if is_array:
            fnode["isArray"] = True
            fnode["arrayShape"] = "-1"
        fields.append(fnode)
    splits = sorted({s for s in file_splits if s}) if all(file_splits) else [opts.split]
    return {
        "@type": "cr:RecordSet",
        "@id": rs_id,
        "name": rs_id,
        "description": f"{name} - {group.config!r} config; splits: {', '.join(splits)}",
        "field": fields,
    }


def _splits_record_set(splits_id: str, config: str, splits: set[str]) -> dict[str, Any]:
    """The RecordSet listing a config's splits (inline ``data``)."""
    return {
        "@type": "cr:RecordSet",
        "dataType": "cr:Split",
        "key": {"@id": f"{splits_id}/split_name"},
        "@id": splits_id,
        "name": splits_id,
        "description": f"Splits for the {config} config.",
        "field": [
            {"@type": "cr:Field", "@id": f"{splits_id}/split_name", "dataType": "sc:Text"}
        ],
        "data": [{f"{splits_id}/split_name": s} for s in sorted(splits)],
    }


@dataclass
class _Layout:
    """What :func:`_build` collects, config by config."""

    root: Path
    rel_to: Path
    prefix: str
    opts: DescribeOptions
    name: str
    distribution: list[dict[str, Any]] = field(default_factory=list)
    record_sets: list[dict[str, Any]] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    files: int = 0
    used_ids: set[str] = field(default_factory=set)


def _file_set(layout: _Layout, group: FileGroup, config: str, fs_id: str, csv_cols: Any) -> dict[str, Any]:
    """The FileSet of one group's files."""
    fs: dict[str, Any] = {
        "@type": "cr:FileSet",
        "@id": fs_id,
        "name": fs_id,
        "description": f"{group.fmt} files of config {config}.",
        "encodingFormat": group.fmt,
    }
    includes = _includes(group, layout.root, layout.rel_to, layout.prefix, layout.opts)
    fs["includes"] = includes if len(includes) > 1 else includes[0]
    if csv_cols:
        fs["cl:csvColumns"] = list(csv_cols)
    return fs


def _add_config(layout: _Layout, config: str, config_groups: list[FileGroup]) -> None:
    """Read one config's files; add its FileSets, its splits RecordSet and its data RecordSets."""
    opts = layout.opts
    cfg = slug(config)
    splits_id = unique_id(f"{cfg}_splits", layout.used_ids)
    all_splits: set[str] = set()
    data_sets: list[dict[str, Any]] = []
    for group in config_groups:
        csv_cols = opts.csv_columns if group.fmt == "text/csv" else None
        short_fmt = SHORT_FORMAT.get(group.fmt, group.fmt.split("/")[-1])
        fs_id = unique_id(f"{short_fmt}-files-for-config-{cfg}", layout.used_ids)
        layout.distribution.append(_file_set(layout, group, config, fs_id, csv_cols))
        rels = [p.relative_to(layout.root).as_posix() for p in group.paths]
        file_splits = [split_of(r) for r in rels]
        if all(file_splits):
            all_splits.update(s for s in file_splits if s)
        else:
            all_splits.add(opts.split)
        rs_id = unique_id(cfg if len(config_groups) == 1 else f"{cfg}-{short_fmt}", layout.used_ids)
        data_sets.append(_record_set(group, rs_id, splits_id, fs_id, rels, layout.prefix, opts, layout.name))
        layout.rows[rs_id] = sum(t.num_rows for t in group.tables)
        layout.files += len(group.paths)
    layout.record_sets.append(_splits_record_set(splits_id, config, all_splits))
    layout.record_sets.extend(data_sets)


def _dataset(layout: _Layout) -> dict[str, Any]:
    """The descriptor: the dataset's own properties, then distribution and RecordSets."""
    opts = layout.opts
    doc: dict[str, Any] = {
        "@context": dict(CROISSANT_CONTEXT),
        "@type": "sc:Dataset",
        "conformsTo": f"{CROISSANT_NS}1.1",
        GENERATED_BY: GENERATOR,
        "name": layout.name,
        "description": opts.description or f"Local benchmark data in {layout.root.resolve().name}.",
    }
    for key, value in (
        ("url", opts.url),
        ("license", opts.license),
        ("version", opts.version),
        ("datePublished", opts.date_published),
        ("citeAs", opts.cite_as),
    ):
        if value:
            doc[key] = value
    doc["distribution"] = layout.distribution
    doc["recordSet"] = layout.record_sets
    return doc


def _build(folder: str | Path, options: DescribeOptions | None) -> _Built:
    opts = options or DescribeOptions()
    root = Path(folder)
    if not root.is_dir():
        raise InputError("not a folder", path=root, hint="give the folder holding the data files")
    rel_to = Path(opts.relative_to) if opts.relative_to is not None else root
    prefix = folder_prefix(root, rel_to)
    per_config = group_files(root, rel_to, prefix, opts.include, opts.config)
    for config_groups in per_config.values():
        for group in config_groups:
            csv_cols = opts.csv_columns if group.fmt == "text/csv" else None
            group.tables = [file_shape(p, group.fmt, csv_cols) for p in group.paths]
    per_config, grouped = by_columns(per_config, root)
    layout = _Layout(root, rel_to, prefix, opts, opts.name or root.resolve().name)
    for config, config_groups in per_config.items():
        _add_config(layout, config, config_groups)
    return _Built(_dataset(layout), layout.files, layout.rows, grouped)


def describe(folder: str | Path, options: DescribeOptions | None = None) -> dict[str, Any]:
    """Build a Croissant 1.1 descriptor for the data files in a local folder.

    Args:
        folder: Folder holding CSV, TSV, JSONL, JSON, Parquet or Arrow files (nested
            folders are configs or splits, as on the Hub).
        options: See :class:`DescribeOptions`.

    Returns:
        The descriptor as a JSON object (dict). Same files in, same dict out.

    Raises:
        InputError: the folder does not exist or holds no data file; unreadable files.
        DataError: a data file does not parse (ragged CSV row, bad JSON line...).
        UnsafePathError: ``relative_to`` does not contain the folder.
    """
    return _build(folder, options).doc


def describe_folder(
    folder: str | Path,
    options: DescribeOptions | None = None,
    *,
    out: str | Path | None = None,
    force: bool = False,
) -> DescribeResult:
    """Describe a folder (see :func:`describe`) and write the descriptor atomically.

    Args:
        folder: The data folder.
        options: See :class:`DescribeOptions`. When ``relative_to`` is not set and ``out``
            is, globs are made relative to ``out``'s folder (where the descriptor sits).
        out: Where to write; default ``croissant.json`` in ``relative_to`` (or ``folder``).
        force: Replace ``out`` even when it was not written by this library.

    Returns:
        A :class:`DescribeResult`.

    Raises:
        OutputExistsError: ``out`` exists, was not written by this library, and not
            ``force``. Nothing is written.
        InputError, DataError, UnsafePathError: as :func:`describe`; nothing is written.
    """
    opts = DescribeOptions(**(options or DescribeOptions()).__dict__)
    if out is not None and opts.relative_to is None:
        opts.relative_to = Path(out).parent
    target = Path(out) if out is not None else Path(opts.relative_to or folder) / "croissant.json"
    replaced = ensure_replaceable(target, force=force)
    built = _build(folder, opts)
    atomic_write_json(target, built.doc)
    return DescribeResult(target, built.doc, built.files, built.rows, replaced, built.grouped)
