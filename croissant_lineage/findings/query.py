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


def route_graph(folder: str | Path, query: str | Finding, findings: Iterable[Finding] = ()) -> LineageGraph:
    """The graph of the rows routing ``query`` (an item ref, a finding id among ``findings``,
    or a :class:`Finding`) reads from the lineage folder.

    Raises:
        InputError: the folder is not a lineage folder.
    """
    known = list(findings)
    by_id = {f.id: f for f in known}
    if isinstance(query, str) and query in by_id:
        query = by_id[query]
    start = finding_refs(query) if isinstance(query, Finding) else [query]
    named = [(set(finding_refs(f)), f) for f in known]

    def more(refs: set[str]) -> list[str]:
        return sorted({r for names, _ in named if names & refs for r in names})

    return LineageGraph(family_lineage(folder, start, closure="component", more=more))
