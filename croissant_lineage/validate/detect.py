"""What kind of file (or folder) a path is, decided from its content.

Kinds: ``descriptor`` / ``enriched-descriptor`` (Croissant JSON-LD; enriched when it
carries PROV-O properties), ``lineage`` (a folder with ``edges.parquet``
and ``items.parquet`` or ``family.json``), ``lineage-table`` (one lineage Parquet
table), ``lineage-family`` (a lineage folder's ``family.json`` on its own), ``family``
(a family spec, JSON or YAML), ``findings`` (a findings file, JSON, YAML or Parquet),
``card`` (a dataset card ``README.md``), and ``unknown``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from croissant_lineage import _io
from croissant_lineage._io import DuplicateKeyError, load_yaml, loads_json
from croissant_lineage.croissant.jsonld import JsonLdContext, walk
from croissant_lineage.croissant.namespaces import PROV_NS

__all__ = ["Target", "detect", "expand_folder", "is_enriched", "is_lineage_folder"]

_SKIP_DIRS = {".git", "__pycache__", "node_modules", ".venv", "venv", ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
_FINDINGS_COLUMNS = {"id", "item", "target", "kind", "status"}


@dataclass
class Target:
    """A file or folder to validate.

    Attributes:
        path: Where it is.
        kind: See the module docstring.
        doc: The parsed JSON/YAML document (JSON kinds), or the table (Parquet kinds).
        problem: Why it could not be parsed (then ``kind`` is ``unknown``).
        table: For ``lineage-table``: which table (``edges.parquet``...).
    """

    path: Path
    kind: str
    doc: Any = None
    problem: str | None = None
    table: str | None = None


def is_lineage_folder(path: Path) -> bool:
    """A folder holding ``edges.parquet`` or ``items.parquet``: checked whole, so a folder
    missing one of the lineage tables gets the verdict the commands that read it give
    (``CLV306``), not a pass on the tables it has."""
    return path.is_dir() and ((path / "edges.parquet").is_file() or (path / "items.parquet").is_file())


def is_enriched(doc: dict[str, Any]) -> bool:
    """True when some property of the descriptor is a PROV-O property."""
    ctx = JsonLdContext(doc.get("@context"))
    for _, node in walk(doc, skip_keys=frozenset({"data", "examples"})):
        for key in node:
            iri = ctx.expand_iri(key, vocab=True).iri or ""
            if iri.startswith(PROV_NS):
                return True
    return False


def _json_kind(doc: Any) -> str:
    if isinstance(doc, dict):
        if "@context" in doc or "@type" in doc:
            return "enriched-descriptor" if is_enriched(doc) else "descriptor"
        if isinstance(doc.get("findings"), list):
            return "findings"
        datasets = doc.get("datasets")
        if isinstance(datasets, list) and "name" in doc:
            if any(isinstance(d, dict) and ("coverage" in d and "roles" not in d) for d in datasets):
                return "lineage-family"
            return "family"
    if (isinstance(doc, list) and doc and all(isinstance(e, dict) for e in doc)
            and all("item" in e or ("id" in e and "status" in e) for e in doc)):
        return "findings"
    return "unknown"


def detect(path: Path) -> Target:
    """Decide the kind of one existing path (see module docstring).

    Returns:
        A :class:`Target`; a file that does not parse has ``kind="unknown"`` and a
        ``problem``.
    """
    if path.is_dir():
        return Target(path, "lineage" if is_lineage_folder(path) else "unknown")
    suffix = path.suffix.lower()
    if suffix == ".md":
        return Target(path, "card")
    if suffix == ".parquet":
        return _parquet_target(path)
    if suffix in (".json", ".jsonld", ".yaml", ".yml"):
        try:
            if path.stat().st_size > _io.reads.MAX_DOCUMENT_BYTES:
                return Target(path, "unknown", problem=f"larger than the {_io.reads.MAX_DOCUMENT_BYTES:,} bytes a document may take")
            text = path.read_text("utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            return Target(path, "unknown", problem=f"cannot read: {exc}"[:300])
        if suffix in (".json", ".jsonld"):
            try:
                doc = loads_json(text)
            except DuplicateKeyError as exc:
                return Target(path, "unknown", problem=exc.msg)
            except json.JSONDecodeError as exc:
                return Target(path, "unknown", problem=f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")
            return Target(path, _json_kind(doc), doc=doc)
        return _yaml_target(path, text)
    return Target(path, "unknown")


def _parquet_target(path: Path) -> Target:
    """A Parquet file: findings or a lineage table, by its columns (pyarrow's Parquet reader
    and the lineage schemas are loaded for Parquet files only)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from croissant_lineage.validate.lineage import table_kind

    try:
        schema = pq.read_schema(path)
    except (pa.ArrowInvalid, OSError) as exc:
        return Target(path, "unknown", problem=f"not a Parquet file: {exc}"[:300])
    if set(schema.names) >= _FINDINGS_COLUMNS:
        return Target(path, "findings")
    name = table_kind(schema)
    return Target(path, "lineage-table" if name else "unknown", table=name)


def _yaml_target(path: Path, text: str) -> Target:
    import yaml

    try:
        doc = load_yaml(text)
    except yaml.YAMLError as exc:
        return Target(path, "unknown", problem=f"does not parse as YAML: {exc}".replace("\n", " ")[:300])
    return Target(path, _json_kind(doc), doc=doc)


def _has_header(path: Path) -> bool:
    try:
        with path.open("r", encoding="utf-8", errors="replace") as fh:
            return fh.read(64).lstrip().startswith("---")
    except OSError:
        return False


def expand_folder(folder: Path) -> list[Target]:
    """The targets inside a folder that is not itself a lineage folder, sorted by path.

    Lineage folders inside it are one target each; dataset cards are ``README.md``
    files that start with a YAML header; files of unknown kind are left out (files that fail to parse are kept, with
    their problem).
    """
    out: list[Target] = []
    stack = [folder]
    while stack:
        cur = stack.pop()
        for entry in sorted(cur.iterdir(), reverse=True):
            if entry.name.startswith(".") or entry.name in _SKIP_DIRS:
                continue
            if entry.is_dir():
                if is_lineage_folder(entry):
                    out.append(Target(entry, "lineage"))
                else:
                    stack.append(entry)
                continue
            if entry.suffix.lower() == ".md" and (entry.name.lower() != "readme.md" or not _has_header(entry)):
                continue
            if entry.name in ("summary.json",):
                continue
            t = detect(entry)
            if t.kind != "unknown" or t.problem:
                out.append(t)
    return sorted(out, key=lambda t: t.path.as_posix())
