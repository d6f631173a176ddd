"""A RecordSet of a descriptor read into one Arrow table, fast.

This is the library's own reader for the part of Croissant that benchmark
descriptors use: fields whose ``source`` is a FileObject or FileSet, extracted by
``column``, ``jsonPath`` (``$.name``) or ``fileProperty`` (``filename``, ``filepath``,
``fullpath``), with optional ``transform.regex``. It reads with pyarrow and the
standard library instead of mlcroissant's pandas pipeline (see ``benchmarks/``), and it
honours exactly what the descriptor says: which files, which columns, which splits.
Joins between RecordSets (``source.field``) are left to mlcroissant.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pyarrow as pa

from .croissant import CL_NS, Descriptor, FieldNode
from .errors import DataError, DescriptorError
from .tables import read_table

__all__ = ["FILE_COLUMN", "ROW_COLUMN", "read_record_set"]

#: Extra columns every table gets: the file a record came from and its 0-based row in it.
FILE_COLUMN = "_file"
ROW_COLUMN = "_row"


def _csv_columns(node: dict[str, Any]) -> list[str] | None:
    for key in ("cl:csvColumns", f"{CL_NS}csvColumns"):
        value = node.get(key)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
    return None


def _column_name(field: FieldNode) -> tuple[str, str]:
    """(kind, name) of what a field extracts: ("column", c) or ("fileProperty", p)."""
    ext = field.extract
    if isinstance(ext.get("column"), str):
        return "column", ext["column"]
    if isinstance(ext.get("jsonPath"), str):
        path = ext["jsonPath"]
        m = re.fullmatch(r"\$\.([A-Za-z0-9_\-]+)|\$\[['\"](.+)['\"]\]", path)
        if not m:
            raise DescriptorError(
                f"field {field.id!r}: jsonPath {path!r} is not a single key",
                hint="this reader supports $.name; use mlcroissant for nested paths",
            )
        return "column", m.group(1) or m.group(2)
    if isinstance(ext.get("fileProperty"), str):
        return "fileProperty", ext["fileProperty"]
    return "column", field.name


def _apply_regex(values: list[Any], patterns: list[str]) -> list[Any]:
    for pat in patterns:
        rx = re.compile(pat)
        out = []
        for v in values:
            if v is None:
                out.append(None)
                continue
            m = rx.search(str(v))
            out.append((m.group(1) if m.groups() else m.group(0)) if m else None)
        values = out
    return values


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
    sources = {f.source_file for f in wanted}
    if len(sources) != 1:
        raise DescriptorError(
            f"RecordSet {rs.id!r} reads from several files ({', '.join(sorted(s for s in sources if s))})",
            path=desc.path,
            hint="this reader handles one FileObject/FileSet per RecordSet",
        )
    file_id = sources.pop()
    assert file_id is not None
    fnode = desc.files()[file_id] if file_id in desc.files() else None
    if fnode is None:
        raise DescriptorError(f"field source {file_id!r} is not in distribution", path=desc.path)
    paths = desc.local_paths(file_id, allow_outside=allow_outside)
    if not paths:
        raise DataError(f"{fnode.kind} {file_id!r} matches no file under {desc.base_dir}", path=desc.path)
    csv_cols = _csv_columns(fnode.node)
    parts: list[pa.Table] = []
    for path in paths:
        table = read_table(path, fnode.encoding_format, csv_columns=csv_cols)
        rel = os.path.relpath(path, desc.base_dir)
        cols: dict[str, pa.Array | list[Any]] = {}
        for f in wanted:
            kind, name = _column_name(f)
            if kind == "fileProperty":
                value = {"filename": path.name, "filepath": rel, "fullpath": rel}.get(name)
                if value is None:
                    raise DescriptorError(f"field {f.id!r}: fileProperty {name!r} not supported")
                col: Any = [value] * table.num_rows
            else:
                if name not in table.column_names:
                    raise DataError(
                        f"field {f.id!r} extracts column {name!r}, which {path.name} does not have",
                        path=path,
                        hint=f"columns are: {', '.join(table.column_names)}",
                    )
                col = table.column(name)
            if f.regexes:
                col = _apply_regex(col if isinstance(col, list) else col.to_pylist(), f.regexes)
            cols[f.name] = col
        cols[FILE_COLUMN] = [rel] * table.num_rows
        cols[ROW_COLUMN] = pa.array(range(table.num_rows), pa.int64())
        parts.append(pa.table(cols))
    try:
        return pa.concat_tables(parts, promote_options="permissive")
    except pa.ArrowInvalid as exc:
        raise DataError(f"files of {file_id!r} disagree on column types: {exc}", path=desc.path) from None
