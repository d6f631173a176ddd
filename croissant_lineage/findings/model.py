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

A finding without an ``id`` gets its stable id from :func:`finding_id`. Findings files
(reading, writing, checking) are :mod:`croissant_lineage.findings.files`.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from croissant_lineage._results import Result
from croissant_lineage.errors import FindingsError

__all__ = [
    "CONFIRMED",
    "KEY_KINDS",
    "KINDS",
    "STATUSES",
    "TARGETS",
    "Finding",
    "Source",
    "StatusChange",
    "finding_id",
    "select_findings",
]

#: What a finding questions: the key's text, one option, the stem, the whole item, the
#: subject/category the dataset files the item under, the worked solution or rationale, or
#: the tests that grade a solution (code items).
TARGETS = ("key", "option", "stem", "item", "category", "solution", "tests")

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
        target: ``key``, ``option``, ``stem``, ``item``, ``category``, ``solution`` or ``tests``.
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


def select_findings(
    findings: Iterable[Finding],
    *,
    statuses: Iterable[str] | None = None,
    kinds: Iterable[str] | None = None,
    item: str | None = None,
) -> list[Finding]:
    """The findings that pass every filter given, in their order.

    Args:
        findings: The findings to filter.
        statuses: Keep findings whose status is one of these (None or empty: any).
        kinds: Keep findings whose kind is one of these (None or empty: any).
        item: Keep findings on this item ref or raised by it (``source.item``); None: any.

    Returns:
        The findings kept, as a new list.
    """
    wanted_status = set(statuses or ())
    wanted_kind = set(kinds or ())
    return [
        f
        for f in findings
        if (not wanted_status or f.status in wanted_status)
        and (not wanted_kind or f.kind in wanted_kind)
        and (item is None or f.item == item or f.source.item == item)
    ]
