"""``CLV305``: a Field's ``references`` joins two columns that pandas (which mlcroissant
uses) reads as different types (``int64`` vs ``str``), so ``records()`` fails.

A check of any Croissant descriptor, lineage or not: it loads nothing of the lineage
machinery, and pyarrow's Parquet reader only when a side of a join is a Parquet file.
"""

from __future__ import annotations

from typing import Any

from croissant_lineage.croissant.descriptor import Descriptor, as_list, node_id
from croissant_lineage.croissant.jsonld import pointer
from croissant_lineage.errors import LineageError
from croissant_lineage.validate.codes import issue
from croissant_lineage.validate.report import Issue

__all__ = ["check_references"]


def _kind_of_dtype(dtype: Any) -> str:
    import pandas as pd

    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(dtype):
        return "int"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    return "str"


def _inline_kind(rs_node: dict[str, Any], field_id: str) -> str | None:
    import pandas as pd

    data = rs_node.get("data")
    if not isinstance(data, list) or not data:
        return None
    values = [row.get(field_id) for row in data if isinstance(row, dict)]
    if all(v is None for v in values):
        return None
    return _kind_of_dtype(pd.Series(values).dtype)


def _file_kind(desc: Descriptor, field_node: dict[str, Any]) -> str | None:
    """The pandas kind mlcroissant will read a file-sourced field's column as (None if unknown)."""
    import pandas as pd

    src = field_node.get("source")
    if not isinstance(src, dict):
        return None
    file_id = node_id(src.get("fileObject")) or node_id(src.get("fileSet"))
    extract = src.get("extract") if isinstance(src.get("extract"), dict) else {}
    column = extract.get("column") if isinstance(extract, dict) else None
    if not file_id:
        return None
    if not isinstance(column, str):
        return "str" if isinstance(extract, dict) and "fileProperty" in extract else None
    if src.get("transform"):
        return "str"  # regex and friends yield strings
    try:
        paths = desc.local_paths(file_id)
        fmt = desc.files()[file_id].encoding_format
    except (LineageError, KeyError):
        return None
    paths = [p for p in paths if p.is_file()]
    if not paths:
        return None
    path = paths[0]
    import pyarrow as pa  # loaded with pandas (mlcroissant's reader) already

    try:
        if fmt in ("text/csv", "text/tab-separated-values"):
            frame = pd.read_csv(path, usecols=[column], sep="\t" if fmt.endswith("values") else ",")
            return _kind_of_dtype(frame[column].dtype)
        if "jsonl" in fmt or "jsonlines" in fmt:
            frame = pd.read_json(path, lines=True)
            return _kind_of_dtype(frame[column].dtype) if column in frame else None
        if "parquet" in fmt:
            import pyarrow.parquet as pq

            return _kind_of_dtype(pq.read_schema(path).field(column).type.to_pandas_dtype())
    except (ValueError, KeyError, OSError, pa.ArrowInvalid):
        return None
    return None


def check_references(desc: Descriptor, where: str) -> list[Issue]:
    """``CLV305``: ``references`` joins whose two columns pandas reads as different types.

    mlcroissant reads each side with pandas (``read_csv``, ``read_json(lines=True)``,
    ``read_parquet``, or a frame built from inline ``data``) and merges them; an ``int64``
    column merged with a ``str`` column raises in ``records()``. Sides whose data is not
    local (or not readable) are not judged.

    Returns:
        One issue per failing ``references``, at the referencing Field.
    """
    sets = desc.record_set_nodes()
    by_field: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for rs in sets:
        for f in as_list(rs.get("field")):
            fid = node_id(f) if isinstance(f, dict) else None
            if fid:
                by_field[fid] = (rs, f)
    out: list[Issue] = []
    for r, rs in enumerate(sets):
        for i, f in enumerate(as_list(rs.get("field"))):
            if not isinstance(f, dict) or "references" not in f:
                continue
            ref = f["references"]
            target = node_id(ref.get("field")) if isinstance(ref, dict) and "field" in ref else node_id(ref)
            if not target or target not in by_field:
                continue
            t_rs, t_field = by_field[target]
            fid = node_id(f) or ""
            mine = _inline_kind(rs, fid) or _file_kind(desc, f)
            theirs = _inline_kind(t_rs, target) or _file_kind(desc, t_field)
            if mine and theirs and mine != theirs and "str" in (mine, theirs):
                path = ("recordSet", r, "field", i, "references") if isinstance(rs.get("field"), list) else ("recordSet", r, "field", "references")
                out.append(issue("CLV305", f"{fid} (read as {mine}) references {target} (read as {theirs}): "
                                 "mlcroissant's join fails in records()", f"{where}#{pointer(path)}"))
    return out
