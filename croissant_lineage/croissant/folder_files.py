"""The data files of a benchmark folder as ``describe`` groups them: formats, splits, configs.

A data file's format comes from its suffix (:func:`encoding_format_of`; a ``.json`` file
is looked into: a list of records, JSON Lines, or a JSON-LD document that is no data),
its split from its path (:func:`split_regex`, as the Hub finds it), its config from its
first folder that names no split. Files of one config whose columns differ are grouped
into one config per set of columns (:func:`by_columns`).
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pyarrow as pa

from croissant_lineage._io import loads_json, probing_outputs, read_text, resolve_inside
from croissant_lineage.croissant.descriptor import match_files
from croissant_lineage.croissant.tables import PARQUET_FORMATS, parquet_shape, read_table
from croissant_lineage.errors import InputError, UnsafePathError

__all__ = [
    "SHORT_FORMAT",
    "SPLIT_NAMES",
    "FileGroup",
    "FileShape",
    "by_columns",
    "encoding_format_of",
    "file_shape",
    "folder_prefix",
    "group_files",
    "is_empty_column",
    "slug",
    "split_of",
    "split_regex",
    "unique_id",
]


_FORMATS = {
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".jsonl": "application/jsonlines",
    ".json": "application/json",
    ".parquet": "application/x-parquet",
    ".arrow": "application/vnd.apache.arrow.stream",
}


SHORT_FORMAT = {
    "text/csv": "csv",
    "text/tab-separated-values": "tsv",
    "application/jsonlines": "jsonlines",
    "application/json": "json",
    "application/x-parquet": "parquet",
    "application/vnd.apache.arrow.stream": "vnd.apache.arrow.stream",
}


#: Split names recognised in file paths, as the Hub recognises them.
SPLIT_NAMES = ("dev", "test", "train", "val", "validation")


_SKIP = {"dataset_info.json", "state.json", "metadata.json", "croissant.json", "dataset_dict.json"}


def encoding_format_of(path: Path) -> str | None:
    """The Croissant ``encodingFormat`` for a data file, by suffix; None if not data.

    Hidden files and the metadata files ``datasets`` and Croissant write
    (``dataset_info.json``, ``state.json``, ``croissant.json``...) are not data.
    """
    if path.name in _SKIP or path.name.startswith("."):
        return None
    return _FORMATS.get(path.suffix.lower())


def split_regex(splits: list[str] | tuple[str, ...], prefix: str = "") -> str:
    """The regex that finds a file's split in its path, as the ``split`` field applies it.

    A path component names split ``s`` when it is ``s``, starts with ``s-`` / ``s_`` /
    ``s.`` (``test-00000-of-00001.parquet``, ``test.jsonl``) or its stem ends with ``_s``
    (``abstract_algebra_test.csv``). The leftmost such component after ``prefix`` wins.
    The regex is meant for :func:`re.match` on the path relative to the descriptor's
    folder (mlcroissant's ``fullpath``); the split is the first group that matched.

    Args:
        splits: Split names to recognise.
        prefix: Literal path prefix (the described folder, relative to the descriptor).

    Returns:
        The regex source.
    """
    names = "|".join(_escape(s) for s in sorted(splits))
    return (
        f"^{_escape(prefix)}(?:[^/]*/)*?"
        f"(?:({names})(?:[-_][^/.]*)?|[^/.]*_({names}))(?:\\.[^/]*)?(?:/|$)"
    )


def _escape(text: str) -> str:
    """:func:`re.escape` for regex metacharacters only (``-``, ``/``, ``@`` stay readable)."""
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", text)


_ALL_SPLITS = re.compile(split_regex(SPLIT_NAMES))


def split_of(rel: str) -> str | None:
    m = _ALL_SPLITS.match(rel)
    if not m:
        return None
    return next(g for g in m.groups() if g is not None)


@dataclass
class FileGroup:
    """Data files of one config and one format (their tables once read)."""

    config: str
    fmt: str
    paths: list[Path]
    tables: list[FileShape]


def _config_of(rel: str, default: str) -> str:
    """The first folder of ``rel`` that names no split and is not ``data`` (the Hub keeps
    the default config's files in ``data/``); else ``default``."""
    for part in rel.split("/")[:-1]:
        if part != "data" and split_of(part + "/") is None:
            return part
    return default


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "default"


def _walk(root: Path) -> list[Path]:
    """Files under ``root``, folder symlinks not followed (as mlcroissant walks)."""
    out: list[Path] = []
    for dirpath, _dirs, names in os.walk(root):
        out.extend(Path(dirpath) / n for n in names)
    return out


def _json_kind(path: Path) -> str | None:
    """``application/json`` for a JSON list (or object) of records, ``application/jsonlines``
    for JSON Lines under a ``.json`` name, None for a JSON-LD document (not data)."""
    with probing_outputs():  # a look, not a read: a data file is recorded when read as data
        text, _ = read_text(path)
    try:
        data = loads_json(text, allow_nan=True)
    except json.JSONDecodeError:
        return "application/jsonlines"
    if isinstance(data, dict) and "@context" in data:
        return None
    return "application/json"


def _format_of(path: Path) -> str | None:
    fmt = encoding_format_of(path)
    if fmt == "application/json":
        return _json_kind(path)
    return fmt


def is_empty_column(table: pa.Table, name: str) -> bool:
    """Whether every value of the column is null or blank text."""
    values = table.column(name).to_pylist()
    return all(v is None or (isinstance(v, str) and not v.strip()) for v in values)


class FileShape(NamedTuple):
    """What a descriptor says of one data file: its columns' names and types, its row
    count, and which of its unnamed columns (``_unnamed_{i}``) are empty."""

    schema: pa.Schema
    num_rows: int
    empty: frozenset[str]

    @property
    def column_names(self) -> list[str]:
        return list(self.schema.names)


def file_shape(path: Path, fmt: str, csv_columns: list[str] | None) -> FileShape:
    """The shape of one data file: a Parquet file's from its metadata alone (no column
    is read), another's from its table, which is dropped once measured."""
    if fmt in PARQUET_FORMATS:
        schema, rows = parquet_shape(path)
        return FileShape(schema, rows, frozenset())
    table = read_table(path, fmt, csv_columns=csv_columns)
    empty = frozenset(c for c in table.column_names if c.startswith("_unnamed_") and is_empty_column(table, c))
    return FileShape(table.schema, table.num_rows, empty)


def unique_id(candidate: str, used: set[str]) -> str:
    out, i = candidate, 1
    while out in used:
        i += 1
        out = f"{candidate}_{i}"
    used.add(out)
    return out


def folder_prefix(root: Path, rel_to: Path) -> str:
    """``root`` relative to ``rel_to``, as a ``/``-ended prefix (``""`` for the same folder).

    Raises:
        UnsafePathError: ``root`` is not inside ``rel_to``.
    """
    prefix = os.path.relpath(root.resolve(), rel_to.resolve()).replace(os.sep, "/")
    if prefix == ".." or prefix.startswith("../"):
        raise UnsafePathError(
            f"the folder is not inside {rel_to}",
            path=root,
            hint="relative_to must be the folder itself or one of its parents",
        )
    return "" if prefix == "." else prefix + "/"


def _candidates(root: Path, include: list[str]) -> list[Path]:
    """Paths under ``root``, sorted, kept to the ``include`` globs when there are some."""
    candidates = sorted(_walk(root), key=os.fspath)
    if not include:
        return candidates
    keep: set[str] = set()
    for pattern in include:
        keep.update(match_files(root, pattern))
    return [p for p in candidates if p.relative_to(root).as_posix() in keep]


def group_files(
    root: Path, rel_to: Path, prefix: str, include: list[str], default_config: str
) -> dict[str, list[FileGroup]]:
    """The data files grouped by config and format: config -> its groups, sorted.

    Args:
        root: The described folder.
        rel_to: The folder the descriptor is meant to sit in.
        prefix: ``root`` relative to ``rel_to`` (:func:`folder_prefix`).
        include: Globs of data files relative to ``root`` (empty: every data file).
        default_config: The config of files not in a config folder.

    Raises:
        InputError: no data file.
        UnsafePathError: a symlink leads out of the folder.
    """
    groups: dict[tuple[str, str], FileGroup] = {}
    for p in _candidates(root, include):
        fmt = _format_of(p) if p.is_file() else None
        if fmt is None:
            continue
        rel = p.relative_to(root).as_posix()
        resolve_inside(rel_to, prefix + rel)  # a symlink out of the folder is refused
        config = _config_of(rel, default_config)
        group = groups.setdefault((config, fmt), FileGroup(config, fmt, [], []))
        group.paths.append(p)
    if not groups:
        raise InputError(
            "no data files (csv, tsv, jsonl, json, parquet, arrow)",
            path=root,
            hint="check the folder, or the --include globs",
        )
    per_config: dict[str, list[FileGroup]] = defaultdict(list)
    for (config, _fmt), group in sorted(groups.items()):
        per_config[config].append(group)
    return per_config


def _columns(table: FileShape) -> frozenset[str]:
    """The columns a file contributes (unnamed empty columns of a CSV do not count)."""
    return frozenset(c for c in table.column_names if c not in table.empty)


_SPLIT_TOKENS = re.compile(
    rf"(?:^|[-_.])(?:{'|'.join(SPLIT_NAMES)}|\d{{5}}-of-\d{{5}}|\d+)(?=$|[-_.])"
)


def _label(paths: list[Path], root: Path) -> str:
    """A config label for files: the longest common start of their names (cut at a
    separator), without split names and shard numbers; ``""`` when nothing is left."""
    stems = [p.relative_to(root).as_posix().split(".", 1)[0] for p in paths]
    first, last = min(stems), max(stems)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    common = first[:n]
    if len(stems) > 1 and common not in stems:
        common = re.sub(r"[^/_.-]*$", "", common)
    name = _SPLIT_TOKENS.sub("", common.rsplit("/", 1)[-1]).strip("-_. ")
    return slug(name) if name else ""


def by_columns(
    per_config: dict[str, list[FileGroup]], root: Path
) -> tuple[dict[str, list[FileGroup]], dict[str, list[str]]]:
    """Split each config whose files have different columns into one config per set of
    columns (first file first); returns the configs and ``config -> its new configs``."""
    out: dict[str, list[FileGroup]] = {}
    grouped: dict[str, list[str]] = {}
    for config, groups in per_config.items():
        files = [(_columns(t), g.fmt, p, t) for g in groups for p, t in zip(g.paths, g.tables, strict=True)]
        keys = list(dict.fromkeys(cols for cols, _, _, _ in sorted(files, key=lambda f: os.fspath(f[2]))))
        if len(keys) == 1:
            out[config] = groups
            continue
        used = set(per_config) | set(out)
        names: list[str] = []
        for key in keys:
            mine = [f for f in files if f[0] == key]
            label = _label([p for _, _, p, _ in mine], root) or SHORT_FORMAT.get(mine[0][1], "files")
            name = unique_id(f"{config}-{label}", used)
            names.append(name)
            by_fmt: dict[str, FileGroup] = {}
            for _, fmt, p, t in mine:
                g = by_fmt.setdefault(fmt, FileGroup(name, fmt, [], []))
                g.paths.append(p)
                g.tables.append(t)
            out[name] = [by_fmt[f] for f in sorted(by_fmt)]
        grouped[config] = names
    return out, grouped
