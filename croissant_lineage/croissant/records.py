"""A RecordSet of a descriptor read into one Arrow table, fast.

This is the library's own reader for the part of Croissant that benchmark
descriptors use: fields whose ``source`` is one FileObject or FileSet, extracted by
``column``, ``jsonPath`` (``$.name`` / ``$[*].name``) or ``fileProperty``
(``filename``, ``filepath``, ``fullpath``), with optional ``transform.regex``. It reads
with pyarrow and the standard library (see :mod:`croissant_lineage.croissant.tables`) instead of
mlcroissant's pandas pipeline, and honours what the descriptor says: which files
(``includes`` / ``excludes``, see :meth:`Descriptor.local_paths`), which columns, which
splits. Joins between RecordSets (``source.field``) are left to mlcroissant.

Where it matches mlcroissant 1.1.1 on purpose: files in the order of their path string;
``transform.regex`` applied with :func:`re.match` (see :func:`apply_regex`); a column
that some files of a FileSet lack reads as null. Where it differs: ``filepath`` is the
path relative to the base folder (mlcroissant gives the absolute path on this machine);
CSV cells are strings and an empty cell is ``""`` (pandas infers numbers and reads empty
cells, ``NA``, ``null``... as NaN); ``excludes`` are honoured (mlcroissant ignores them);
CSV files with ``;`` delimiters, stray non-UTF-8 bytes, headerless CSV
(``cl:csvColumns``) and Arrow IPC are read (mlcroissant cannot).
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from croissant_lineage.croissant.descriptor import CL_NS, Descriptor, FieldNode
from croissant_lineage.croissant.file_batches import read_tables
from croissant_lineage.errors import DataError, DescriptorError

__all__ = ["FILE_COLUMN", "ROW_COLUMN", "apply_regex", "read_record_set"]

_FILE_PROPERTIES = ("filename", "filepath", "fullpath")

#: Extra columns every table gets: the file a record came from and its 0-based row in it.
FILE_COLUMN = "_file"
ROW_COLUMN = "_row"


def _csv_columns(node: dict[str, Any]) -> list[str] | None:
    for key in ("cl:csvColumns", f"{CL_NS}csvColumns"):
        value = node.get(key)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
    return None


_JSON_PATH = re.compile(r"\$(?:\[\*\])?(?:\.([A-Za-z0-9_\-]+)|\[['\"](.+)['\"]\])")


def _column_name(field: FieldNode) -> tuple[str, str]:
    """(kind, name) of what a field extracts: ("column", c) or ("fileProperty", p).

    ``jsonPath`` is supported for one key of each record: ``$.name``, ``$[*].name``
    (a JSON file holding a list of records, as :func:`~croissant_lineage.croissant.describe.describe`
    writes it) and the bracket forms ``$['name']``, ``$[*]['name']``.
    """
    ext = field.extract
    if isinstance(ext.get("column"), str):
        return "column", ext["column"]
    if isinstance(ext.get("jsonPath"), str):
        path = ext["jsonPath"]
        m = _JSON_PATH.fullmatch(path)
        if not m:
            raise DescriptorError(
                f"field {field.id!r}: jsonPath {path!r} is not a single key",
                hint="this reader supports $.name and $[*].name; use mlcroissant for nested paths",
            )
        return "column", m.group(1) or m.group(2)
    if isinstance(ext.get("fileProperty"), str):
        return "fileProperty", ext["fileProperty"]
    return "column", field.name


def apply_regex(value: Any, pattern: str) -> Any:
    """Apply a ``transform.regex`` to one value exactly as mlcroissant 1.1.1 does.

    The regex must match at the start of the value (:meth:`re.Pattern.match`); the
    result is the first group that took part in the match. When the regex does not
    match, or matches with no group taking part, the value is returned unchanged.
    Null values stay null.

    Returns:
        The extracted string, or ``value`` itself.
    """
    if value is None:
        return None
    m = _regex(pattern).match(str(value))
    if m is None:
        return value
    for group in m.groups():
        if group is not None:
            return group
    return value


@functools.cache
def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise DescriptorError(f"invalid transform regex {pattern!r}: {exc}") from None


def _apply_regexes(values: list[Any], patterns: list[str]) -> list[Any]:
    # mlcroissant applies a transform to each element of a list value.
    for pat in patterns:
        values = [
            [apply_regex(x, pat) for x in v] if isinstance(v, list) else apply_regex(v, pat)
            for v in values
        ]
    return values


def _regexes_column(col: list[Any] | pa.ChunkedArray, patterns: list[str]) -> list[Any] | pa.Array:
    """A field's values after its transform regexes: a file property (one value for the
    whole file) and a string column are transformed once per distinct value, other
    columns value by value (the same values as :func:`_apply_regexes`)."""
    if isinstance(col, list):
        return [_apply_regexes(col[:1], patterns)[0]] * len(col) if col else col
    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        return _apply_regexes(col.to_pylist(), patterns)
    encoded = col.combine_chunks().dictionary_encode()
    distinct = pa.array(_apply_regexes(encoded.dictionary.to_pylist(), patterns))
    return distinct.take(encoded.indices)


def read_record_set(
    desc: Descriptor,
    record_set: str | None = None,
    *,
    fields: list[str] | None = None,
    allow_outside: bool = False,
) -> pa.Table:
    """Read the records of one RecordSet into an Arrow table.

    Args:
        desc: The descriptor.
        record_set: RecordSet id; optional when the descriptor has one data RecordSet.
        fields: Short field names to read (default: every field with a file source).
        allow_outside: Allow file URLs that leave the descriptor's base folder.

    Returns:
        A table with one column per field (named by the field's short name), plus
        ``_file`` (path relative to the base folder) and ``_row`` (0-based row in it).
        Files are read in sorted path order, rows in file order.

    Raises:
        DescriptorError: unknown RecordSet/field, or fields from several files.
        InputError, DataError: unreadable data files.
    """
    rs = desc.record_set(record_set)
    wanted = [rs.field(f) for f in fields] if fields else list(rs.fields.values())
    wanted = [f for f in wanted if f.source_file]
    if not wanted:
        raise DescriptorError(f"RecordSet {rs.id!r} has no fields read from files", path=desc.path)
    sources = sorted({f.source_file for f in wanted if f.source_file})
    if len(sources) != 1:
        raise DescriptorError(
            f"RecordSet {rs.id!r} reads from several files ({', '.join(sources)})",
            path=desc.path,
            hint="this reader handles one FileObject/FileSet per RecordSet",
        )
    file_id = sources[0]
    fnode = desc.files().get(file_id)
    if fnode is None:
        raise DescriptorError(f"field source {file_id!r} is not in distribution", path=desc.path)
    paths = desc.local_paths(file_id, allow_outside=allow_outside)
    if not paths:
        raise DataError(
            f"{fnode.kind} {file_id!r} matches no file under {desc.base_dir}",
            path=desc.path,
            hint=_data_dir_hint(desc.base_dir),
        )
    csv_cols = _csv_columns(fnode.node)
    extracts = {f.name: _column_name(f) for f in wanted}
    found: set[str] = set()
    first_columns: list[str] = []
    parts: list[pa.Table] = []
    needed = sorted({name for kind, name in extracts.values() if kind == "column"})
    for path, table in read_tables(paths, fnode.encoding_format, csv_columns=csv_cols, columns=needed):
        first_columns = first_columns or list(table.column_names)
        rel = os.path.relpath(path, desc.base_dir).replace(os.sep, "/")
        n = table.num_rows
        has = set(table.column_names)
        cols: dict[str, Any] = {}
        for f in wanted:
            kind, name = extracts[f.name]
            col: Any
            if kind == "fileProperty":
                if name not in _FILE_PROPERTIES:
                    raise DescriptorError(
                        f"field {f.id!r}: fileProperty {name!r} not supported",
                        path=desc.path,
                        hint=f"use one of: {', '.join(_FILE_PROPERTIES)}",
                    )
                col = [path.name if name == "filename" else rel] * n
                found.add(f.name)
            elif name in has:
                col = table.column(name)
                found.add(f.name)
            else:
                # As mlcroissant (pandas concat): a column some files lack reads as null.
                col = pa.nulls(n)
            if f.regexes:
                col = _regexes_column(col, f.regexes)
            cols[f.name] = col
        # (A file of no rows: a column of type null, which the concatenation promotes.)
        cols[FILE_COLUMN] = pa.repeat(pa.scalar(rel, pa.string()), n) if n else []
        cols[ROW_COLUMN] = pa.array(np.arange(n, dtype=np.int64))
        parts.append(pa.table(cols))
        if len(parts) >= _MERGE_EVERY:  # a FileSet of many small files: few small tables live at once
            parts = [_concat(parts, file_id, desc).combine_chunks()]
    missing = [f for f in wanted if f.name not in found]
    if missing:
        f = missing[0]
        raise DataError(
            f"field {f.id!r} extracts column {extracts[f.name][1]!r}, which no file of "
            f"{file_id!r} has",
            path=paths[0],
            hint=f"columns of {paths[0].name} are: {', '.join(first_columns)}",
        )
    return _concat(parts, file_id, desc)


#: Tables of this many files are merged into one while reading a FileSet: each small Arrow
#: table costs about 13 KB, so 100,000 one-record files kept apart cost 1.3 GB.
_MERGE_EVERY = 256


def _concat(parts: list[pa.Table], file_id: str, desc: Descriptor) -> pa.Table:
    try:
        return pa.concat_tables(parts, promote_options="permissive")
    except pa.ArrowException as exc:
        raise DataError(
            f"files of {file_id!r} disagree on column types: {exc}", path=desc.path
        ) from None


def _data_dir_hint(base_dir: Path) -> str:
    """What to do when a descriptor's files are not found under ``base_dir``."""
    where = "that folder does not exist" if not base_dir.is_dir() else "none of its files are there"
    return (
        f"{where}; give --data-dir DIR (data_dir= in Python), the folder the descriptor's file "
        "URLs resolve against, e.g. ../shared/data for the MMLU family"
    )
