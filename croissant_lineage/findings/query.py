"""The graph a routing query needs, read from a lineage folder: one item's family only.

:func:`route_graph` reads the rows of the family of the routed item (every item reachable
from it through edges and duplicate groups) and of every item a finding on that family
names, with :func:`croissant_lineage.lineage.query.family_lineage`: the queue
:func:`~croissant_lineage.findings.routing.route` builds on it is the one it builds on the
whole lineage.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from croissant_lineage.errors import ArgumentError
from croissant_lineage.findings.model import Finding
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.lineage.query import family_lineage

__all__ = ["finding_refs", "route_graph"]


def finding_refs(finding: Finding) -> list[str]:
    """The item refs a finding names: its item, its source annotation's item, its related refs."""
    refs = [finding.item, *finding.related]
    if finding.source.item is not None:
        refs.append(finding.source.item)
    return [r for r in refs if isinstance(r, str)]


def route_graph(folder: str | Path, start: Iterable[str], findings: Iterable[Finding] = ()) -> LineageGraph:
    """The graph of the rows routing from the item refs ``start`` reads from the lineage
    folder: ``[ref]`` for an item's queue (:func:`~croissant_lineage.findings.routing.route_item`),
    :func:`finding_refs` of the finding for a finding's
    (:func:`~croissant_lineage.findings.routing.route`).

    Raises:
        InputError: the folder is not a lineage folder.
        ArgumentError: ``start`` is a single string, not a collection of refs.
    """
    if isinstance(start, str):
        raise ArgumentError(
            "start must be a collection of item refs, not one string",
            hint="route_graph(folder, [ref], findings)",
        )
    named = [(set(finding_refs(f)), f) for f in findings]

    def more(refs: set[str]) -> list[str]:
        return sorted({r for names, _ in named if names & refs for r in names})

    return LineageGraph(family_lineage(folder, list(start), closure="component", more=more))
