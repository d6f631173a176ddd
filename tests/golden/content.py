"""The content of an output file as canonical lines, and a digest of them that localises changes.

Golden outputs are compared by what they say, not by bytes a library version decides: a Parquet
footer names the pyarrow that wrote it, matplotlib's SVG carries its version and path
coordinates. Each file is read into canonical text lines by its kind:

* ``.parquet``: a line for the schema (names and types), one per schema metadata entry, then one
  canonical JSON line per row;
* ``.json`` / ``.jsonld``: one line per leaf, ``path<TAB>value`` (keys sorted, list positions kept);
* ``.svg``: the element tree (tags by depth) with the text each element shows, not coordinates,
  styles or the generator's comments;
* anything else: its text lines.

:func:`digest` keeps the line count and a short hash per :data:`CHUNK` lines; :func:`compare`
names the first chunk that differs and prints those lines of the new output, so a failure says
where the content changed, not only which file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

#: Lines per hashed chunk: small enough to point at the rows that changed, large enough that the
#: recorded digests of the MMLU family's tables stay a few KB each.
CHUNK = 256

#: Lines of the new output a failure prints, and characters kept of each.
SHOWN_LINES = 8
SHOWN_CHARS = 240


def _scalar(value: Any) -> Any:
    if isinstance(value, bytes):
        return "base64:" + base64.b64encode(value).decode("ascii")
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {str(k): _scalar(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scalar(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)  # dates, decimals: their canonical text


def _json_line(value: Any) -> str:
    return json.dumps(_scalar(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def parquet_lines(path: Path) -> list[str]:
    """Schema, schema metadata and rows of a Parquet file, one canonical line each."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    schema = table.schema
    lines = ["schema\t" + ",".join(f"{f.name}:{f.type}" for f in schema)]
    for key, value in sorted((schema.metadata or {}).items()):
        if key == b"ARROW:schema":  # pyarrow's own serialisation of the schema above
            continue
        lines.append(f"meta\t{key.decode('utf-8', 'replace')}\t{value.decode('utf-8', 'replace')}")
    for batch in table.to_batches(max_chunksize=4096):
        lines.extend(_json_line(row) for row in batch.to_pylist())
    return lines


def json_lines(value: Any, path: str = "$") -> list[str]:
    """One ``path<TAB>value`` line per leaf of a JSON value (empty objects and lists are leaves)."""
    if isinstance(value, dict) and value:
        return [line for key in sorted(value) for line in json_lines(value[key], f"{path}.{key}")]
    if isinstance(value, list) and value:
        return [line for i, item in enumerate(value) for line in json_lines(item, f"{path}[{i}]")]
    return [f"{path}\t{_json_line(value)}"]


def svg_lines(text: str) -> list[str]:
    """An SVG's structure: each element's depth and tag, with the text it shows."""
    root = ET.fromstring(text)
    lines: list[str] = []

    def walk(element: ET.Element, depth: int) -> None:
        tag = element.tag.rsplit("}", 1)[-1]
        if tag in {"metadata", "style", "defs"}:  # the generator's version, fonts and path shapes
            return
        shown = (element.text or "").strip()
        lines.append(f"{depth}\t{tag}" + (f"\t{shown}" if shown else ""))
        for child in element:
            walk(child, depth + 1)

    walk(root, 0)
    return lines


def file_lines(path: Path) -> list[str]:
    """The canonical lines of one output file, by its kind."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return parquet_lines(path)
    text = path.read_text(encoding="utf-8")
    if suffix in {".json", ".jsonld"}:
        return json_lines(json.loads(text))
    if suffix == ".svg":
        return svg_lines(text)
    return text.splitlines()


def _chunk_hash(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


def digest(lines: list[str]) -> dict[str, Any]:
    """The line count and one short hash per :data:`CHUNK` lines."""
    chunks = [_chunk_hash(lines[i : i + CHUNK]) for i in range(0, len(lines), CHUNK)]
    return {"lines": len(lines), "chunks": chunks}


def tree_digests(root: Path) -> dict[str, dict[str, Any]]:
    """:func:`digest` of every regular file below ``root``, by its POSIX path relative to it."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    return {p.relative_to(root).as_posix(): digest(file_lines(p)) for p in files}


def compare(name: str, recorded: dict[str, Any] | None, lines: list[str] | None) -> str | None:
    """``None`` when ``lines`` have the recorded digest, else what differs and the new lines there."""
    if recorded is None:
        return f"{name}: written now, not recorded"
    if lines is None:
        return f"{name}: recorded, not written now"
    now = digest(lines)
    if now == recorded:
        return None
    first = next(
        (i for i, (a, b) in enumerate(zip(recorded["chunks"], now["chunks"], strict=False)) if a != b),
        min(len(recorded["chunks"]), len(now["chunks"])),
    )
    start = first * CHUNK
    shown = [line[:SHOWN_CHARS] for line in lines[start : start + SHOWN_LINES]]
    head = (
        f"{name}: {recorded['lines']} lines recorded, {now['lines']} now; "
        f"first difference in lines {start + 1}-{start + CHUNK} (the new output there):"
    )
    return "\n    ".join([head, *shown])


def compare_trees(recorded: dict[str, dict[str, Any]], root: Path) -> list[str]:
    """One message per file whose content differs from ``recorded`` (empty when all agree)."""
    files = {p.relative_to(root).as_posix(): p for p in root.rglob("*") if p.is_file() and not p.is_symlink()}
    problems = []
    for name in sorted(set(recorded) | set(files)):
        lines = file_lines(files[name]) if name in files else None
        message = compare(name, recorded.get(name), lines)
        if message is not None:
            problems.append(message)
    return problems
