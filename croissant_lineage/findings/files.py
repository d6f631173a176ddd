"""Findings files: reading, checking and writing them.

Findings files are JSON or YAML, checked against ``schemas/finding.schema.json``: an
object ``{"findings": [...]}`` or a bare list. Entries are findings, or *status
updates* a reviewer appends by hand (``{"id": ..., "status": ..., "status_date": ...}``),
which apply to the finding with that id defined earlier. A finding without an ``id``
gets its stable id from :func:`~croissant_lineage.findings.model.finding_id`.

YAML is read with libyaml's C loader where PyYAML has it (``yaml.CSafeLoader``), and a
YAML file larger than :data:`MAX_YAML_BYTES` (64 MiB) is refused before it is read
(``CL-E008``): YAML costs about 25 bytes of memory per byte of text even with the C
loader. Set ``croissant_lineage.findings.files.MAX_YAML_BYTES`` to change the limit. A
JSON findings file larger than :data:`croissant_lineage._io.reads.MAX_DOCUMENT_BYTES` (64 MiB)
is refused the same way, and an object that holds one key twice is an ``InputError``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import warnings
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from croissant_lineage._io import (
    MAX_YAML_CHARS,
    atomic_write_text,
    dumps_json,
    load_yaml,
    loads_json,
    read_json,
    read_text,
)
from croissant_lineage.errors import FindingsError, InputError, SizeLimitError
from croissant_lineage.findings.model import Finding

__all__ = [
    "FINDINGS_SCHEMA_URL",
    "MAX_YAML_BYTES",
    "dates_to_text",
    "entry_validator",
    "findings_from_document",
    "findings_to_document",
    "is_findings_output",
    "load_findings",
    "save_findings",
]


@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    text = (
        resources.files("croissant_lineage")
        .joinpath("schemas/finding.schema.json")
        .read_text("utf-8")
    )
    return dict(json.loads(text))


@lru_cache(maxsize=1)
def entry_validator() -> jsonschema.Draft202012Validator:
    """A validator of one findings-file entry (``$defs/entry`` of ``schemas/finding.schema.json``)."""
    schema = _schema()
    return jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/entry"})


def dates_to_text(obj: Any) -> Any:
    """``obj`` with dates as ISO strings (YAML reads ``2025-01-02`` as a date; findings keep text)."""
    if isinstance(obj, (_dt.date, _dt.datetime)):
        return obj.isoformat()[:10]
    if isinstance(obj, dict):
        return {k: dates_to_text(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [dates_to_text(v) for v in obj]
    return obj


def _where(path: Iterable[Any]) -> str:
    return "/".join(str(p) for p in path) or "(top level)"


def findings_from_document(
    doc: Any, path: str | Path | None = None, *, known: Sequence[Finding] = ()
) -> list[Finding]:
    """Check a parsed findings document and build its findings.

    Args:
        doc: The parsed JSON/YAML: ``{"findings": [...]}`` or a bare list.
        path: The file it came from (for error messages).
        known: Findings loaded before this document; status updates may name them.

    Returns:
        ``known`` followed by this document's new findings, with every status update
        applied, in file order.

    Raises:
        FindingsError: the document breaks the schema (the message gives the JSON path,
            e.g. ``findings/3/status``), repeats an id, or updates an unknown id.
    """
    doc = dates_to_text(doc)
    if isinstance(doc, dict):
        extra = sorted(set(doc) - {"$schema", "title", "description", "findings"})
        if extra:
            raise FindingsError(
                f"at (top level): unknown field {extra[0]!r}",
                path=path,
                hint="a findings file has 'findings' (optional: '$schema', 'title', 'description')",
            )
        if not isinstance(doc.get("findings"), list):
            raise FindingsError("at findings: expected a list of findings", path=path)
        entries, prefix = doc["findings"], ["findings"]
    elif isinstance(doc, list):
        entries, prefix = doc, []
    else:
        raise FindingsError("expected an object with 'findings' or a list of findings", path=path)
    validator = entry_validator()
    out: dict[str, Finding] = {f.id: f for f in known}
    for i, entry in enumerate(entries):
        errors = list(validator.iter_errors(entry))
        if errors:
            err = max(errors, key=lambda e: len(e.absolute_path))
            at: list[Any] = [*prefix, i, *err.absolute_path]
            message = err.message
            if err.validator == "additionalProperties" and isinstance(err.instance, dict):
                allowed = set(err.schema.get("properties", {}))
                unknown = sorted(k for k in err.instance if k not in allowed)
                if unknown:
                    at.append(unknown[0])
                    message = f"unknown field {unknown[0]!r}"
            raise FindingsError(
                f"at {_where(at)}: {message}", path=path, hint="see schemas/finding.schema.json"
            )
        where = _where([*prefix, i])
        try:
            if "item" in entry:
                finding = Finding.from_dict(entry)
                if finding.id in out:
                    raise FindingsError(
                        f"at {where}: id {finding.id!r} is already defined",
                        path=path,
                        hint="to change its status, append a status update {id, status, ...}",
                    )
                out[finding.id] = finding
            else:
                fid = entry["id"]
                if fid not in out:
                    raise FindingsError(
                        f"at {where}/id: no finding {fid!r} defined before this update", path=path
                    )
                out[fid] = out[fid].with_status(
                    entry["status"],
                    date=entry.get("status_date"),
                    reason=entry.get("status_reason"),
                    evidence=entry.get("evidence", ()),
                )
        except FindingsError as exc:
            if exc.path:
                raise
            raise FindingsError(f"at {where}: {exc.message}", path=path) from None
    return list(out.values())


#: A findings YAML file larger than this is refused before it is read (CL-E008).
MAX_YAML_BYTES = MAX_YAML_CHARS


def _parse(path: Path) -> Any:
    if path.suffix.lower() == ".json":
        return read_json(path, expected="a findings document")
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # read_text reports a missing or unreadable file
    if size > MAX_YAML_BYTES:
        raise SizeLimitError(
            f"findings YAML of {size:,} bytes is over the limit of {MAX_YAML_BYTES:,}",
            path=path,
            hint="split it, or raise croissant_lineage.findings.files.MAX_YAML_BYTES",
        )
    text, _ = read_text(path)
    if not text.strip():
        raise InputError("empty file", path=path, hint="expected a findings document")
    try:
        return load_yaml(text)
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise FindingsError(
            f"YAML tag not allowed{at}: {exc.problem}",
            path=path,
            hint="findings files hold plain data; remove the !tag",
        ) from None
    except yaml.YAMLError as exc:
        raise InputError(f"does not parse as YAML: {exc}".splitlines()[0], path=path) from None


def load_findings(paths: str | Path | Sequence[str | Path]) -> list[Finding]:
    """Read findings files (JSON, or YAML read with ``yaml.safe_load``) in order.

    Status updates in a later file (or later in the same file) apply to findings
    defined before them, so a review file can sit beside an imported one.

    Args:
        paths: One file or several.

    Returns:
        The findings, in the order they were first defined, with updates applied.

    Raises:
        InputError: a file is missing or does not parse.
        FindingsError: a file breaks ``schemas/finding.schema.json``, repeats an id,
            updates an unknown id, or uses a YAML tag that constructs objects.
    """
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    found: list[Finding] = []
    for p in items:
        path = Path(p)
        found = findings_from_document(_parse(path), path, known=found)
    return found


#: The ``$schema`` of every findings file this library writes.
FINDINGS_SCHEMA_URL = "https://w3id.org/croissant-lineage/schemas/finding.schema.json"


def findings_to_document(findings: Iterable[Finding]) -> dict[str, Any]:
    """The findings-file document (``{"$schema", "findings"}``) for ``findings``."""
    return {
        "$schema": FINDINGS_SCHEMA_URL,
        "findings": [f.to_dict() for f in findings],
    }


def _findings_text(doc: dict[str, Any], path: Path) -> str:
    """The bytes :func:`save_findings` writes for ``doc`` at ``path`` (YAML or JSON by suffix)."""
    if path.suffix.lower() in (".yaml", ".yml"):
        return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    return dumps_json(doc)


#: A findings file larger than this is not read to decide whether it is ours (64 MiB).
_MAX_OWN_FINDINGS_BYTES = 64 * 1024 * 1024


def is_findings_output(path: str | Path) -> bool:
    """True when ``path`` is a findings file as :func:`save_findings` writes it: this
    library's ``$schema`` mark, nothing else at the top, and the exact layout it writes."""
    p = Path(path)
    try:
        if p.stat().st_size > _MAX_OWN_FINDINGS_BYTES:
            return False
        text = p.read_text("utf-8")
        doc = load_yaml(text) if p.suffix.lower() in (".yaml", ".yml") else loads_json(text)
    except (OSError, ValueError, yaml.YAMLError):
        return False
    if not isinstance(doc, dict) or list(doc) != ["$schema", "findings"] or doc["$schema"] != FINDINGS_SCHEMA_URL:
        return False
    return _findings_text(doc, p) == text


def _findings_first(findings: Any, path: Any) -> tuple[Any, Any]:
    """``(findings, path)``, swapped (with a DeprecationWarning) when given in the version 1
    order ``save_findings(path, findings)``."""
    path_like = (str, os.PathLike)
    if isinstance(findings, path_like) and isinstance(path, Iterable) and not isinstance(path, path_like):
        warnings.warn(
            "save_findings(path, findings) is deprecated; call save_findings(findings, path)",
            DeprecationWarning,
            stacklevel=3,
        )
        return path, findings
    return findings, path


def save_findings(findings: Iterable[Finding], path: str | Path) -> Path:
    """Write a findings file atomically: YAML for ``.yaml``/``.yml``, JSON otherwise.

    The output is deterministic (same findings, same bytes) and reads back with
    :func:`load_findings` to equal findings. The version 1 order
    ``save_findings(path, findings)`` still works for one release, with a
    :class:`DeprecationWarning`.

    Args:
        findings: The findings to write, in order.
        path: Destination.

    Returns:
        The path written.
    """
    findings, path = _findings_first(findings, path)
    dest = Path(path)
    atomic_write_text(dest, _findings_text(findings_to_document(findings), dest))
    return dest
