"""The validation report: coded issues, each with a severity and where it happened.

A :class:`ValidationReport` is data: :attr:`ValidationReport.valid` is what a CI job exits on,
:meth:`ValidationReport.to_dict` is exactly what ``croissant-lineage validate --json`` prints, and
:meth:`ValidationReport.to_pandas` gives one row per issue for a notebook.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from croissant_lineage._results import Result, render_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["SEVERITIES", "Checked", "Issue", "ValidationReport"]

#: Severities, most severe first. Only errors make a report invalid.
SEVERITIES = ("error", "warning")


@dataclass(frozen=True, order=True)
class Issue:
    """One problem found in one place.

    Attributes:
        code: Stable code (``CLV101``...) listed in :data:`croissant_lineage.validate.CODES`.
        severity: ``"error"`` or ``"warning"``.
        message: What is wrong and what to do about it (wording may change; the code
            does not).
        where: The file, then after ``#`` the place in it: a JSON pointer
            (``croissant.json#/recordSet/2/field/0``), a table row
            (``edges.parquet#row=12``) or an item ref (``edges.parquet#item=mmlu-pro:3542``).
    """

    code: str
    severity: str
    message: str
    where: str

    def to_dict(self) -> dict[str, str]:
        """The issue as a JSON object with keys code, severity, message, where."""
        return {"code": self.code, "severity": self.severity, "message": self.message, "where": self.where}

    def __str__(self) -> str:
        """``WHERE: CODE [SEVERITY] MESSAGE`` (the text view registered in render/)."""
        return render_text(self)


@dataclass(frozen=True)
class Checked:
    """A file or folder that was validated, and what kind it was taken for.

    Attributes:
        path: As given (or found inside a given folder).
        kind: ``descriptor``, ``enriched-descriptor``, ``lineage``, ``lineage-table``,
            ``family``, ``findings``, ``card`` or ``unknown``.
    """

    path: str
    kind: str

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "kind": self.kind}


@dataclass(frozen=True)
class ValidationReport(Result):
    """The result of :func:`croissant_lineage.validate.validate`.

    Attributes:
        issues: Sorted by where, then code, then message (deterministic).
        checked: Every input, in the order it was checked.
    """

    issues: tuple[Issue, ...] = ()
    checked: tuple[Checked, ...] = field(default_factory=tuple)

    @property
    def valid(self) -> bool:
        """True when no issue has severity ``error`` (warnings do not fail a build)."""
        return not any(i.severity == "error" for i in self.issues)

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "warning"]

    def codes(self) -> set[str]:
        """The distinct codes in the report."""
        return {i.code for i in self.issues}

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data: ``valid``, ``errors`` and ``warnings`` (counts),
        ``checked`` (list of ``{path, kind}``) and ``issues`` (list of issue objects)."""
        return {
            "valid": self.valid,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "checked": [c.to_dict() for c in self.checked],
            "issues": [i.to_dict() for i in self.issues],
        }

    def to_pandas(self) -> pd.DataFrame:
        """One row per issue, columns code, severity, message, where (empty frame if none)."""
        import pandas as pd

        return pd.DataFrame([i.to_dict() for i in self.issues], columns=["code", "severity", "message", "where"])
