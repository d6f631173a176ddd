"""What the importers share: the import result and attaching a row to its parent item (a
dataset's items are loaded by :func:`croissant_lineage.lineage.items.load_items`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from croissant_lineage._results import Result
from croissant_lineage.findings.model import Finding

__all__ = [
    "Attachment",
    "ImportResult",
    "Unattached",
    "as_graph",
    "attach",
]



@dataclass(frozen=True)
class Unattached:
    """A source row or id that could not be attached to the item it concerns.

    Attributes:
        ref: The source row (``mmlu-redux:virology/3``) or the id as given (``mmlu-pro:8``).
        reason: Why it was not attached.
        finding: The id of the finding made anyway (attached to the source row itself),
            or None when no finding was made.
    """

    ref: str
    reason: str
    finding: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"ref": self.ref, "reason": self.reason, "finding": self.finding}


@dataclass
class ImportResult(Result):
    """What an importer returns.

    Iterating over it, or ``len()``, goes over :attr:`findings`.

    Attributes:
        source: Name of what was imported (``MMLU-Redux``...).
        findings: The findings, in source order, ids unique.
        counts: Rows (or ids) per normalised label, including labels that make no
            finding (MMLU-Redux ``ok``), sorted by label.
        kinds: Findings per kind, sorted by kind.
        unattached: Rows or ids not attached to the item they concern.
        notes: Facts about the import worth a line each (e.g. repeated ids dropped).
    """

    source: str
    findings: list[Finding] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, int] = field(default_factory=dict)
    unattached: list[Unattached] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    def to_dict(self) -> dict[str, Any]:
        """Counts, unattached rows and notes (not the findings themselves)."""
        return {
            "source": self.source,
            "findings": len(self.findings),
            "counts": dict(self.counts),
            "kinds": dict(self.kinds),
            "unattached": [u.to_dict() for u in self.unattached],
            "notes": list(self.notes),
        }


class _GraphLike(Protocol):
    def parents(self, ref: str) -> list[Any]: ...


def as_graph(lineage_or_graph: Any) -> _GraphLike:
    """A :class:`~croissant_lineage.lineage.graph.LineageGraph` for a ``Lineage`` (built once),
    or the graph itself when one is given."""
    if hasattr(lineage_or_graph, "parents") and not isinstance(lineage_or_graph, (str, os.PathLike)):
        return lineage_or_graph  # a graph (a path has ``parents`` too: it names a lineage folder)
    from croissant_lineage.lineage.graph import (
        as_graph,  # imported here: the graph is only needed with a lineage
    )

    return as_graph(lineage_or_graph)


@dataclass(frozen=True)
class Attachment:
    """Where a source row attaches: its parent item, or None with the reason."""

    parent: str | None
    reason: str = ""
    evidence: tuple[str, ...] = ()


def attach(graph: _GraphLike, ref: str, parent_dataset: str) -> Attachment:
    """The parent item of ``ref`` in ``parent_dataset``, from the lineage edges.

    An ambiguous edge (several parents tied) still attaches, to the parent the linker
    chose, and says so in the evidence.
    """
    edges = [e for e in graph.parents(ref) if e.parent.partition(":")[0] == parent_dataset]
    if not edges:
        return Attachment(None, f"no lineage edge to {parent_dataset}")
    edge = edges[0]
    evidence = [f"linked {ref} -> {edge.parent} by {edge.method} (score {edge.score:.1f})"]
    if edge.ambiguous:
        alts = ", ".join(edge.alternatives or [])
        evidence.append(f"ambiguous link: tied with {alts or 'other parents'}")
    return Attachment(edge.parent, evidence=tuple(evidence))
