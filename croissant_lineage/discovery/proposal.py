"""A proposed derivation and how it is written: the report's entry, the fragment's link rule, the files.

:class:`Proposal` extends the lineage summary's
:class:`~croissant_lineage.lineage.info.ProposalCounts` (its counts are declared there once)
with the evidence only the report carries: the rule that decided it, the runner-up parent and
the per-content comparison. Both discovery modes write their results with :func:`write_result`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from croissant_lineage._io import atomic_write_json
from croissant_lineage.discovery.content import ContentComparison
from croissant_lineage.lineage.info import ProposalCounts
from croissant_lineage.lineage.model import Lineage

__all__ = ["Proposal", "fragment_rule", "rule_note", "write_result"]


@dataclass(frozen=True)
class Proposal(ProposalCounts):
    """One proposed derivation ``child <- parent`` with its evidence.

    Attributes:
        child, parent: Dataset names.
        activity: The guessed activity (one of the family spec's activities, or one of
            :mod:`croissant_lineage.discovery.activity`'s).
        child_items, parent_items: Item counts of the two datasets.
        linked: Child items linked to a parent item.
        share: ``linked / child_items`` (0-1).
        parent_coverage: Distinct parent items linked / ``parent_items`` (0-1).
        evidence: Counts behind the guess (exact stems, fuzzy stems, options added,
            dropped, keys changed, same ids, ambiguous).
        also_matched: Other corpus datasets with candidates for the same children, and
            how many (copies of the parent, usually).
        rule: The rule that chose this parent and its direction, in words with its counts.
        runner_up: The best other candidate parent and its score (``{"parent", "score"}``),
            or None when there was none.
        contents: Per content (stem, options, key, solution, tests, each record field), how
            many pairs copied, edited, recomputed, translated, added or dropped it
            (:class:`~croissant_lineage.discovery.content.ContentComparison`; None: not compared).
    """

    evidence: dict[str, Any] = field(default_factory=dict)
    rule: str = ""
    runner_up: dict[str, Any] | None = None
    contents: ContentComparison | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (the summary's counts, then the report's evidence)."""
        out = super().to_dict()
        out["share"], out["parent_coverage"] = round(self.share, 4), round(self.parent_coverage, 4)
        out["runner_up"] = dict(self.runner_up) if self.runner_up else None
        out["contents"] = self.contents.to_dict() if self.contents is not None else None
        return out


#: What a person must do for the spec to reproduce a translation discovered by positions or tokens.
_RULE_NOTES = {
    "positions": ". The child's ids end in the parent item's row number within the subject: set the "
                 "child's id role so that it names the parent's ids (e.g. '{Subject}/test/{ID}').",
    "tokens": ". Paired by the numbers, formulas and names that survive translation: no link rule "
              "reproduces these pairs; review the edges in lineage/ before declaring one.",
}


def fragment_rule(p: Proposal) -> dict[str, Any]:
    """The derivation's link rule in the fragment (none for token pairs: no rule reproduces them)."""
    if "reference_field" in p.evidence:  # the child names its parent in a field: the rule names it
        if p.evidence["reference_kind"] == "stem":
            return {"link": {"by": "text", "child_block": None, "parent_block": None, "threshold": 85}}
        return {"link": {"by": "index" if p.evidence["reference_kind"] == "row" else "id", "child_field": p.evidence["reference_field"]}}
    how = p.evidence.get("paired_by")
    if how == "ids":  # ids re-linked by a row shift: only ``by: index`` runs the shift check that re-links them
        return {"link": {"by": "index" if p.evidence.get("relinked_by_shift") else "id"}}
    if how == "positions":
        return {"link": {"by": "index"}}
    if how == "tokens":
        return {}
    return {"link": {"by": "text", "child_block": None, "parent_block": None, "threshold": 85}}


class _Written(Protocol):
    """What :func:`_write` needs of a discovery result."""

    lineage: Lineage

    def fragment(self) -> dict[str, Any]: ...
    def to_dict(self) -> dict[str, Any]: ...


def write_result(result: _Written, out: Path, *, force: bool = False) -> Path:
    """``OUT/lineage/`` (first: a folder this library did not write is replaced only with
    ``force``), ``OUT/family-fragment.json`` and ``OUT/discover.json`` (without the index's folder)."""
    out.mkdir(parents=True, exist_ok=True)
    result.lineage.write(out / "lineage", force=force)
    atomic_write_json(out / "family-fragment.json", result.fragment())
    report = result.to_dict()
    report["index"] = {k: v for k, v in report["index"].items() if k in ("rows", "fingerprint")}
    atomic_write_json(out / "discover.json", report)
    return out


def rule_note(p: Proposal) -> str:
    """What a person must do for the spec to reproduce the proposal's pairs ("" when nothing)."""
    return _RULE_NOTES.get(str(p.evidence.get("paired_by")), "")
