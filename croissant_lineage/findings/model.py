"""Audit findings: an object attached to an item, with its source, evidence and status.

A :class:`Finding` names an item (``"{dataset}:{item}"``), what is questioned (the key,
one option, the stem or the whole item), the kind of defect, the proposed correction if
any, who raised it (:class:`Source`), the evidence, and where it stands with the
maintainers (its *status*, with a date).

Statuses follow how maintainers actually answer:

================================  =========================================================
``proposed``                      published or raised, not yet put to the maintainers
``submitted``                     put to the maintainers (an issue, a discussion post)
``confirmed_fixed``               the maintainers agreed and changed the data
``confirmed_documented``          the maintainers agreed and documented it (data unchanged)
``acknowledged_ambiguous``        the maintainers agreed the item is ambiguous, no fix
``rejected``                      the maintainers (or a review) rejected it: needs a reason
``no_response``                   no answer as of a date: needs that date
================================  =========================================================

Silence is never confirmation: only ``confirmed_fixed`` and ``confirmed_documented``
count as confirmed (:attr:`Finding.is_confirmed`), and only those may change a key.

Findings files are JSON or YAML, checked against ``schemas/finding.schema.json``: an
object ``{"findings": [...]}`` or a bare list. Entries are findings, or *status
updates* a reviewer appends by hand (``{"id": ..., "status": ..., "status_date": ...}``),
which apply to the finding with that id defined earlier. A finding without an ``id``
gets its stable id from :func:`finding_id`.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from croissant_lineage._io import atomic_write_text, dumps_json, load_yaml, read_json, read_text
from croissant_lineage._results import Result
from croissant_lineage.errors import FindingsError, InputError

__all__ = [
    "CONFIRMED",
    "KEY_KINDS",
    "KINDS",
    "STATUSES",
    "TARGETS",
    "Finding",
    "Source",
    "StatusChange",
    "dates_to_text",
    "entry_validator",
    "finding_id",
    "findings_from_document",
    "findings_to_document",
    "load_findings",
    "save_findings",
]

#: What a finding questions: the key's text, one option, the stem, the whole item, or
#: the subject/category the dataset files the item under.
TARGETS = ("key", "option", "stem", "item", "category")

#: Kinds of defect.
KINDS = (
    "wrong_key",
    "no_correct_answer",
    "bad_question_clarity",
    "bad_options_clarity",
    "multiple_correct_answers",
    "stale_fact",
    "duplicate",
    "other",
)

#: Kinds that say the published key is wrong.
KEY_KINDS = ("wrong_key", "no_correct_answer")

#: Review statuses, in lifecycle order.
STATUSES = (
    "proposed",
    "submitted",
    "confirmed_fixed",
    "confirmed_documented",
    "acknowledged_ambiguous",
    "rejected",
    "no_response",
)

#: The only statuses that count as confirmation.
CONFIRMED = ("confirmed_fixed", "confirmed_documented")


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


@dataclass(frozen=True)
class Source:
    """Who raised a finding, and where.

    Attributes:
        name: A paper, a dataset, a maintainers' discussion, a person.
        url: Where to read it.
        kind: ``paper``, ``dataset``, ``discussion``, ``community_review``, ``person``,
            ``model`` or ``other``.
        item: The annotation row itself when it is an item of the family (e.g.
            ``mmlu-redux:college_chemistry/99``); routing lists it as the source annotation.
    """

    name: str
    url: str | None = None
    kind: str = "other"
    item: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.url:
            out["url"] = self.url
        out["kind"] = self.kind
        if self.item:
            out["item"] = self.item
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Source:
        return cls(
            name=d["name"], url=d.get("url"), kind=d.get("kind", "other"), item=d.get("item")
        )


@dataclass(frozen=True)
class StatusChange:
    """An earlier status of a finding (see :attr:`Finding.history`)."""

    status: str
    date: str | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status}
        if self.date:
            out["date"] = self.date
        if self.reason:
            out["reason"] = self.reason
        return out


def finding_id(
    source: Source, item: str, target: str, kind: str, option_index: int | None = None
) -> str:
    """The stable id of a finding: ``F-`` and 12 hex digits of a SHA-256.

    Hashes the source name, the source item (when there is one), the item, the target,
    the option index and the kind, so re-importing the same annotation gives the same id.
    """
    parts = [
        source.name,
        source.item or "",
        item,
        target,
        "" if option_index is None else str(option_index),
        kind,
    ]
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return f"F-{digest[:12]}"


def _check_date(value: str | None, what: str) -> None:
    if value is None:
        return
    try:
        _dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        raise FindingsError(f"{what} {value!r} is not an ISO date (YYYY-MM-DD)") from None


@dataclass(frozen=True, kw_only=True)
class Finding(Result):
    """An audit finding attached to one item.

    Attributes:
        id: Stable id (computed by :func:`finding_id` when left empty).
        item: The item ref the finding is about (``mmlu:college_chemistry/test/86``).
        target: ``key``, ``option``, ``stem``, ``item`` or ``category``.
        option_index: 0-based option of ``item`` (``target == "option"`` only).
        kind: One of :data:`KINDS`.
        proposed: The proposed answer text (key findings) or corrected text; None if none.
        source: Who raised it.
        evidence: Free-text evidence lines (the annotation's own fields, list names...).
        status: One of :data:`STATUSES`.
        status_date: ISO date of the status (required for ``no_response``).
        status_reason: Why (required for ``rejected``).
        answers: Option texts the source names as correct (several for
            ``multiple_correct_answers``); empty when none resolve to an option.
        label: The source's own label, normalised (``wrong_groundtruth``, ``expert``...).
        related: Other item refs the finding involves (the other copy of a duplicate).
        history: Earlier statuses, oldest first.

    Raises:
        FindingsError: on construction, when a field breaks the rules above.
    """

    item: str
    target: str
    kind: str
    source: Source
    id: str = ""
    option_index: int | None = None
    proposed: str | None = None
    evidence: list[str] = field(default_factory=list)
    status: str = "proposed"
    status_date: str | None = None
    status_reason: str | None = None
    answers: list[str] = field(default_factory=list)
    label: str | None = None
    related: list[str] = field(default_factory=list)
    history: list[StatusChange] = field(default_factory=list)

    def __post_init__(self) -> None:
        dataset, sep, rest = self.item.partition(":")
        if not sep or not dataset or not rest:
            raise FindingsError(
                f"item {self.item!r} is not a ref 'dataset:item' (e.g. mmlu-pro:3542)"
            )
        if self.target not in TARGETS:
            raise FindingsError(f"target {self.target!r} is not one of {', '.join(TARGETS)}")
        if self.kind not in KINDS:
            raise FindingsError(f"kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.status not in STATUSES:
            raise FindingsError(f"status {self.status!r} is not one of {', '.join(STATUSES)}")
        if (self.target == "option") != (self.option_index is not None):
            raise FindingsError("option_index is required for target 'option' and only for it")
        if self.option_index is not None and self.option_index < 0:
            raise FindingsError(f"option_index {self.option_index} is negative")
        _check_date(self.status_date, "status_date")
        if self.status == "rejected" and not self.status_reason:
            raise FindingsError("status 'rejected' needs a status_reason")
        if self.status == "no_response" and not self.status_date:
            raise FindingsError("status 'no_response' needs a status_date (as of when)")
        if not self.id:
            object.__setattr__(
                self,
                "id",
                finding_id(self.source, self.item, self.target, self.kind, self.option_index),
            )

    def __hash__(self) -> int:
        # Lists make the generated hash fail; equal findings share id and status.
        return hash((self.id, self.status, self.status_date))

    @property
    def is_confirmed(self) -> bool:
        """True only for ``confirmed_fixed`` and ``confirmed_documented``."""
        return self.status in CONFIRMED

    def with_status(
        self,
        status: str,
        *,
        date: str | None = None,
        reason: str | None = None,
        evidence: Sequence[str] = (),
    ) -> Finding:
        """A copy with a new status; the current status moves to :attr:`history`.

        Raises:
            FindingsError: unknown status, ``rejected`` without a reason, ``no_response``
                without a date, or a date that is not ISO.
        """
        previous = StatusChange(self.status, self.status_date, self.status_reason)
        return replace(
            self,
            status=status,
            status_date=date,
            status_reason=reason,
            evidence=[*self.evidence, *evidence],
            history=[*self.history, previous],
        )

    def to_dict(self) -> dict[str, Any]:
        """The finding as a findings-file entry (None and empty fields left out)."""
        out: dict[str, Any] = {"id": self.id, "item": self.item, "target": self.target}
        if self.option_index is not None:
            out["option_index"] = self.option_index
        out["kind"] = self.kind
        if self.proposed is not None:
            out["proposed"] = self.proposed
        if self.answers:
            out["answers"] = list(self.answers)
        if self.label:
            out["label"] = self.label
        if self.related:
            out["related"] = list(self.related)
        out["source"] = self.source.to_dict()
        if self.evidence:
            out["evidence"] = list(self.evidence)
        out["status"] = self.status
        if self.status_date:
            out["status_date"] = self.status_date
        if self.status_reason:
            out["status_reason"] = self.status_reason
        if self.history:
            out["history"] = [h.to_dict() for h in self.history]
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        """Build a finding from a findings-file entry (already schema-checked).

        Raises:
            FindingsError: a rule of :class:`Finding` is broken.
        """
        return cls(
            id=d.get("id", ""),
            item=d["item"],
            target=d["target"],
            option_index=d.get("option_index"),
            kind=d["kind"],
            proposed=d.get("proposed"),
            answers=list(d.get("answers", [])),
            label=d.get("label"),
            related=list(d.get("related", [])),
            source=Source.from_dict(d["source"]),
            evidence=list(d.get("evidence", [])),
            status=d.get("status", "proposed"),
            status_date=d.get("status_date"),
            status_reason=d.get("status_reason"),
            history=[
                StatusChange(h["status"], h.get("date"), h.get("reason"))
                for h in d.get("history", [])
            ],
        )


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


def _parse(path: Path) -> Any:
    if path.suffix.lower() == ".json":
        return read_json(path, expected="a findings document")
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


def findings_to_document(findings: Iterable[Finding]) -> dict[str, Any]:
    """The findings-file document (``{"$schema", "findings"}``) for ``findings``."""
    return {
        "$schema": "https://w3id.org/croissant-lineage/schemas/finding.schema.json",
        "findings": [f.to_dict() for f in findings],
    }


def save_findings(path: str | Path, findings: Iterable[Finding]) -> Path:
    """Write a findings file atomically: YAML for ``.yaml``/``.yml``, JSON otherwise.

    The output is deterministic (same findings, same bytes) and reads back with
    :func:`load_findings` to equal findings.

    Returns:
        The path written.
    """
    dest = Path(path)
    doc = findings_to_document(findings)
    if dest.suffix.lower() in (".yaml", ".yml"):
        text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    else:
        text = dumps_json(doc)
    atomic_write_text(dest, text)
    return dest
