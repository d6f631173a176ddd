"""Routing a finding along the lineage: the ranked re-review queue.

A finding questions some content of one item: its key text, one option, its stem, or
the whole item. :func:`route` follows that content through every known relative of
the item (ancestors, their descendants, duplicates, translations) and says, for each:

* ``inherited``: the questioned content is there, copied from the item it came from;
* ``added``: the content entered there (the defect entered at that step, or the item
  is where the content first appears);
* ``unaffected``: the content is not there (an option added later, a key changed on
  the way, a line that branched off before the content entered);
* ``unverified``: documented coverage only (a translation with no item data here), or
  the content rewritten on the way (a stem finding across an ``edited`` stem: the
  questioned wording may or may not be there);
* ``re-check``: a child whose key was recomputed from the questioned one (its stem
  changed and its key differs: ``key_status`` ``recomputed``): not inherited,
  but made from it.

The edge evidence decides, never the activity's name: a key is carried where the
edge's ``key_status`` is ``copied`` (or ``translated`` by the option map), else where
``key_inherited`` is true; a stem is unverified across an ``edited`` stem (and at every
relative reached through it); an option
is carried where ``option_map`` maps it (``-1`` marks an option added at that step);
a stem or the whole item travels along every edge. Fuzzy or ambiguous links, and
edges whose evidence is unknown, make a row *probable* rather than *certain*.

Ranks: 0 a finding to amend: the source annotation itself when its finding was
rejected, or an existing finding on the same content that the routed one contradicts,
refines or duplicates (:mod:`croissant_lineage.findings.related`); 1 items that certainly carry the content; 2 items that probably do; 3
documented coverage (unverified); 4 relatives the content does not reach.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from croissant_lineage._results import Result
from croissant_lineage.errors import ArgumentError, InputError
from croissant_lineage.findings.carrying import (
    CarryNode,
    TreeStep,
    carry_along,
    carry_mode,
    edge_sure,
    find_carriers,
    path_doubts,
    relation_of,
    relatives_tree,
)
from croissant_lineage.findings.model import Finding
from croissant_lineage.findings.query import finding_refs, route_graph
from croissant_lineage.findings.queueview import QueueLine, group_keys, queue_lines
from croissant_lineage.findings.related import RelatedFinding, related_findings
from croissant_lineage.findings.versions import VersionFold, fold_versions
from croissant_lineage.lineage.graph import LineageGraph, LineageLike, as_graph
from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.linking.normalize import normalize_option

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "QUEUE_COLUMNS",
    "RANKS",
    "ROUTE_STATUSES",
    "Queue",
    "QueueRow",
    "finding_by_id",
    "relevant_findings",
    "route",
    "route_item",
]

#: Status of the questioned content at a relative.
ROUTE_STATUSES = ("inherited", "added", "unaffected", "unverified", "re-check")

#: Rank -> what it means.
RANKS = {
    0: "finding to amend: a rejected finding's source annotation, or an existing finding "
    "the routed one contradicts, refines or duplicates",
    1: "certainly carries the questioned content",
    2: "probably carries it (fuzzy or ambiguous link, or unknown edge evidence)",
    3: "unverified: documented coverage only, or rewritten or made from the questioned content "
    "(a stem edited on the way: unverified; a key recomputed from it: re-check)",
    4: "the questioned content does not reach it",
}

#: Columns of :meth:`Queue.to_pandas`, in order.
QUEUE_COLUMNS = (
    "rank",
    "ref",
    "dataset",
    "relation",
    "status",
    "certainty",
    "letter",
    "transformation",
    "depth",
    "finding",
    "note",
)


@dataclass(frozen=True)
class QueueRow:
    """One relative in the re-review queue.

    Attributes:
        rank: See :data:`RANKS`.
        ref: The item ref, or the dataset name for documented-coverage rows.
        dataset: The relative's dataset.
        relation: ``finding_item`` (the item the finding names), ``source_annotation``,
            ``ancestor``, ``descendant``, ``collateral`` (descends from an ancestor),
            ``duplicate`` (an identical copy), ``related`` (named by the finding) or
            ``documented`` (dataset-level coverage, no item data).
        status: ``inherited``, ``added``, ``unaffected``, ``unverified`` or ``re-check``.
        certainty: ``certain``, ``probable``, ``unverified`` or ``none`` (unaffected).
        letter: Where the questioned key or option sits in this item (``A``...), if known.
        transformation: The steps from the finding's item to this one
            (``up:option_expansion, down:translation``).
        depth: Number of steps from the finding's item.
        finding: The finding routed (None when an item was routed without findings).
        note: One line saying why.
    """

    rank: int
    ref: str
    dataset: str
    relation: str
    status: str
    certainty: str
    letter: str | None
    transformation: str
    depth: int
    finding: str | None
    note: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Queue(Result):
    """A ranked re-review queue.

    Attributes:
        query: What was routed (an item ref or a finding id).
        item: The queried item ref (for a finding: the item it names).
        findings: Ids of the findings routed (empty: the item was routed as a whole).
        rows: Sorted by rank, finding, depth, ref: every relative, every version.
        related: The existing findings the routed ones contradict, refine or duplicate
            (each shown at rank 0 on its row).
        folds: The item versions the text and HTML views fold into one line.
        groups: (finding, ref) -> dataset family, for the rows the views may group.
        expanded: The views show every row (nothing folded or grouped).
    """

    query: str
    item: str
    findings: list[str] = field(default_factory=list)
    rows: list[QueueRow] = field(default_factory=list)
    related: list[RelatedFinding] = field(default_factory=list)
    folds: list[VersionFold] = field(default_factory=list, repr=False)
    groups: dict[tuple[str | None, str], str] = field(default_factory=dict, repr=False)
    expanded: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (what ``croissant-lineage route --json`` prints): every row."""
        return {
            "query": self.query,
            "item": self.item,
            "findings": list(self.findings),
            "ranks": {str(k): v for k, v in RANKS.items()},
            "rows": [r.to_dict() for r in self.rows],
            "related_findings": [r.to_dict() for r in self.related],
        }

    def lines(self) -> list[QueueLine]:
        """The view's lines: versions folded and translations grouped, unless ``expanded``
        (see :func:`~croissant_lineage.findings.queueview.queue_lines`)."""
        return queue_lines(self.rows, self.folds, self.groups, expand=self.expanded)

    def expand(self) -> Queue:
        """The same queue, its views showing every row."""
        return replace(self, expanded=True)

    def to_pandas(self) -> pd.DataFrame:
        """The rows as a DataFrame with :data:`QUEUE_COLUMNS`."""
        import pandas as pd  # here: importing the package (and resolving) does not need pandas

        return pd.DataFrame([r.to_dict() for r in self.rows], columns=list(QUEUE_COLUMNS))

    def row(self, ref: str, finding: str | None = None) -> QueueRow:
        """The row of ``ref`` (for ``finding`` when several findings were routed).

        Raises:
            KeyError: ``ref`` is not in the queue.
        """
        for r in self.rows:
            if r.ref == ref and (finding is None or r.finding == finding):
                return r
        raise KeyError(ref)


# --------------------------------------------------------------------------- routing


def _letter(index: int | None) -> str | None:
    return LETTERS[index] if index is not None and 0 <= index < len(LETTERS) else None


def _option_of(graph: LineageGraph, ref: str, text: str | None) -> int | None:
    """Index of the option of ``ref`` whose text is ``text`` (normalised), if any."""
    if not text or ref not in graph:
        return None
    options = [normalize_option(o) for o in graph.item(ref).options]
    want = normalize_option(text)
    return options.index(want) if want in options else None


def _has_no_options(graph: LineageGraph, ref: str) -> bool:
    """The item is known and has no options (a free-form or code item)."""
    try:
        return not graph.item(ref).options
    except InputError:  # named by an edge, missing from the item table: not known
        return False


def _proposed_note(graph: LineageGraph, node: CarryNode, finding: Finding | None) -> str:
    if finding is None or finding.target != "key" or not finding.proposed:
        return ""
    index = (
        node.proposed
        if node.proposed is not None
        else _option_of(graph, node.ref, finding.proposed)
    )
    if index is not None:
        return f"; proposed answer is option {LETTERS[index]} here"
    if _has_no_options(graph, node.ref):
        return ""  # an item without options: no option to name
    return "; proposed answer is not among its options"


def _unaffected_why(
    graph: LineageGraph, path: list[TreeStep], carriers: dict[str, CarryNode], mode: str
) -> tuple[str, bool]:
    """Why the content does not reach a relative: the step where its path leaves the
    items that carry the content; and whether that step made the relative's own content
    from the questioned one (a key recomputed there: to re-check)."""
    for s in path:
        if s.edge is None or s.target in carriers:
            continue
        near = s.edge.child if s.kind == "up" else s.edge.parent
        if near in carriers:
            c = carry_along(graph, s.edge, mode, carriers[near].index, up=s.kind == "up")
            if c.recheck and s is path[-1]:
                return f"re-check: {c.why}", True
            return f"not present: {c.why or 'not carried'} in {s.edge.child}", False
    return "not on a line that carries the questioned content", False


def _carrier_note(graph: LineageGraph, node: CarryNode, target: str, finding: Finding | None) -> str:
    if node.origin and graph.parents(node.ref):
        note = f"the questioned {target} entered here"
    elif node.origin:
        verb = "appear" if target == "tests" else "appears"
        note = f"the questioned {target} first {verb} here (no parent item known)"
    else:
        note = f"carries the questioned {target}"
    if finding is not None and finding.status == "rejected":
        note += " (finding rejected: keep as is)"
    return note + _proposed_note(graph, node, finding)


def _letter_at(graph: LineageGraph, node: CarryNode, target: str) -> str | None:
    if target == "option":
        return _letter(node.index)
    if target == "key" and node.ref in graph:
        return graph.item(node.ref).key
    return None


def _carrier_row(
    graph: LineageGraph, node: CarryNode, path: list[TreeStep], target: str, finding: Finding | None, start: bool,
    mode: str,
) -> tuple[str, str, int, str | None, str]:
    """Status, certainty, rank, letter and note of a relative that carries the content
    (``start``: the routed item itself, never unverified)."""
    if node.unverified and not start:
        return "unverified", "unverified", 3, None, f"unverified: {node.unverified}; the questioned {target} may not be there"
    certain = node.sure and all(s.edge is None or edge_sure(s.edge) for s in path)
    certainty, rank = ("certain", 1) if certain else ("probable", 2)
    status = "added" if node.origin else "inherited"
    note = _carrier_note(graph, node, target, finding)
    if not certain:
        note += "".join(f"; {why}" for why in dict.fromkeys(path_doubts(graph, path, mode)))
    return status, certainty, rank, _letter_at(graph, node, target), note


def _route_one(
    graph: LineageGraph,
    finding: Finding | None,
    item: str,
    target: str,
    index: int | None,
    queried: str,
    others: Iterable[Finding] = (),
) -> tuple[list[QueueRow], list[RelatedFinding]]:
    fid = finding.id if finding else None
    proposed = _option_of(graph, item, finding.proposed) if finding else None
    mode = carry_mode(target, finding.kind if finding else None)
    carriers = find_carriers(graph, item, mode, index, proposed)
    paths = relatives_tree(graph, item, finding.related if finding else ())
    source_item = finding.source.item if finding else None
    rows: list[QueueRow] = []
    for ref, path in paths.items():
        relation = "source_annotation" if ref == source_item else relation_of(path)
        node = carriers.get(ref)
        if node is None:
            note, recheck = _unaffected_why(graph, path, carriers, mode)
            status, certainty, rank, letter = ("re-check", "unverified", 3, None) if recheck else ("unaffected", "none", 4, None)
        else:
            status, certainty, rank, letter, note = _carrier_row(graph, node, path, target, finding, ref == item, mode)
        if finding is not None and ref == item:
            note = f"{finding.kind} on the {target} ({finding.status}); {note}"
        if finding is not None and relation == "source_annotation":
            if finding.status == "rejected":
                rank = 0
                why = finding.status_reason
                note = f"source annotation; finding rejected ({why}): amend the annotation"
            else:
                note = f"source annotation ({finding.source.name}, {finding.status}); {note}"
        twins = [d for d in graph.duplicates(ref) if d in paths]
        if twins:
            note += f"; identical copy of {', '.join(twins)}"
        if ref == queried and ref != item:
            note += "; the queried item"
        rows.append(
            QueueRow(
                rank=rank,
                ref=ref,
                dataset=ref.partition(":")[0],
                relation=relation,
                status=status,
                certainty=certainty,
                letter=letter,
                transformation=", ".join(s.label() for s in path),
                depth=len(path),
                finding=fid,
                note=note,
            )
        )
    rows += _documented_rows(graph, rows, target, fid)
    if finding is None:
        return rows, []
    related = related_findings(graph, finding, others, carriers, [r.ref for r in rows])
    return _mark_related(rows, related), related


def _mark_related(rows: list[QueueRow], related: list[RelatedFinding]) -> list[QueueRow]:
    """Rank 0 on the row of each related finding, its note saying what it should become."""
    notes: dict[str, list[str]] = {}
    for rel in related:
        notes.setdefault(rel.ref, []).append(
            f"existing finding {rel.id} ({rel.source}, {rel.label}, {rel.status}) "
            f"{rel.relation}: {rel.note}"
        )
    return [
        replace(r, rank=0, note="; ".join([*notes[r.ref], r.note])) if r.ref in notes else r
        for r in rows
    ]


def _documented_rows(
    graph: LineageGraph, rows: list[QueueRow], target: str, fid: str | None
) -> list[QueueRow]:
    """Dataset-level rows for documented coverage of the datasets in ``rows``: unverified
    where that dataset's items carry the content, unaffected where they do not."""
    out = []
    for ds in sorted({r.dataset for r in rows}):
        carried = any(r.dataset == ds and r.status in ("inherited", "added") for r in rows)
        for doc in graph.documented_children(ds):
            langs = f", {doc['languages']} languages" if doc.get("languages") else ""
            note = (
                f"documented coverage only{langs}; no item data here"
                if carried
                else f"documented coverage of {ds}; its items lack the questioned {target}"
            )
            out.append(
                QueueRow(
                    rank=3 if carried else 4,
                    ref=doc["child"],
                    dataset=doc["child"],
                    relation="documented",
                    status="unverified" if carried else "unaffected",
                    certainty="unverified" if carried else "none",
                    letter=None,
                    transformation=f"down:{doc['activity']} of {ds}",
                    depth=0,
                    finding=fid,
                    note=note,
                )
            )
    return out


def relevant_findings(graph: LineageGraph, ref: str, findings: Iterable[Finding]) -> list[Finding]:
    """Findings on ``ref``'s relatives (or raised by one of them), in input order."""
    family = set(relatives_tree(graph, ref))
    return [
        f
        for f in findings
        if f.item in family or (f.source.item in family) or any(r in family for r in f.related)
    ]


def _check_finding(graph: LineageGraph, finding: Finding) -> None:
    if finding.item not in graph:
        raise InputError(
            f"finding {finding.id} names {finding.item!r}, which is not in the lineage",
            hint="import the findings with the same lineage, or check the item ref",
        )
    if finding.target == "option" and finding.option_index is not None:
        n = len(graph.item(finding.item).options)
        if finding.option_index >= n:
            raise InputError(
                f"finding {finding.id}: option_index {finding.option_index} but "
                f"{finding.item} has {n} options"
            )


def _graph(lineage: LineageLike, start: list[str], findings: list[Finding]) -> LineageGraph:
    """The graph routing from the refs ``start`` queries: of a lineage folder, the rows of
    their family alone (:func:`~croissant_lineage.findings.query.route_graph`: the same
    queue as the whole lineage's); of a ``Lineage``, its kept graph."""
    if isinstance(lineage, (str, os.PathLike)):
        return route_graph(Path(lineage), start, findings)
    return as_graph(lineage, "lineage")  # (anything else: CL-E011 naming the parameter)


def route(
    lineage: LineageLike,
    finding: Finding,
    findings: Iterable[Finding] | None = None,
) -> Queue:
    """The ranked re-review queue of a finding.

    Args:
        lineage: The linked family (a ``Lineage``, its folder, or a ``LineageGraph``
            built once for many calls). Of a folder, only the rows of the family of the
            finding's items are read (and of the items the findings on it name).
        finding: The finding to route (see :func:`finding_by_id` for one known by its id).
        findings: Known findings: the routed finding is related to those on the same
            content (rank 0, :attr:`Queue.related`).

    Returns:
        A :class:`Queue`: one row per relative, sorted by rank.

    Raises:
        InputError: the finding's item is not in the lineage, or its option index is
            out of range.
        ArgumentError: ``finding`` is not a :class:`Finding` (an item ref goes to
            :func:`route_item`).
    """
    if not isinstance(finding, Finding):
        raise ArgumentError(
            f"finding must be a Finding, not {type(finding).__name__}",
            hint="route an item ref with route_item(lineage, ref, findings)",
        )
    known = list(findings or [])
    return _queue(_graph(lineage, finding_refs(finding), known), finding.id, finding.item, [finding], known, None)


def route_item(
    lineage: LineageLike,
    ref: str,
    findings: Iterable[Finding] | None = None,
    *,
    option_index: int | None = None,
) -> Queue:
    """The ranked re-review queue of an item: every finding on one of its relatives.

    Args:
        lineage: The linked family (a ``Lineage``, its folder, or a ``LineageGraph``
            built once for many calls). Of a folder, only the rows of the item's family
            are read (and of the items the findings on it name).
        ref: An item ref (``mmlu-pro:3542``).
        findings: Known findings. Every finding on one of the item's relatives is routed,
            each related to those listed before it (list older findings first); with
            none, the item is routed as a whole (target ``item``), or its option
            ``option_index`` (target ``option``) when that is given.
        option_index: See ``findings``.

    Returns:
        A :class:`Queue`: one row per relative (per finding), sorted by rank.

    Raises:
        InputError: the item (or a finding's item) is not in the lineage, or a finding's
            option index is out of range.
        ArgumentError: ``ref`` is not a string (a finding goes to :func:`route`).
    """
    if not isinstance(ref, str):
        raise ArgumentError(
            f"ref must be an item ref, not {type(ref).__name__}",
            hint="route a Finding with route(lineage, finding, findings)",
        )
    known = list(findings or [])
    graph = _graph(lineage, [ref], known)
    graph.ancestors(ref)  # raises InputError when the item is unknown
    return _queue(graph, ref, ref, relevant_findings(graph, ref, known), known, option_index)


def finding_by_id(findings: Iterable[Finding], finding_id: str) -> Finding | None:
    """The finding of ``findings`` whose id is ``finding_id`` (the last one), or None."""
    return {f.id: f for f in findings}.get(finding_id)


def _queue(
    graph: LineageGraph,
    query: str,
    item: str,
    chosen: list[Finding],
    known: list[Finding],
    option_index: int | None,
) -> Queue:
    rows: list[QueueRow] = []
    related: list[RelatedFinding] = []
    for i, f in enumerate(chosen):
        _check_finding(graph, f)
        later = {g.id for g in chosen[i:]}
        others = [g for g in known if g.id not in later]
        mine, rel = _route_one(graph, f, f.item, f.target, f.option_index, item, others)
        rows += mine
        related += rel
    if not chosen:
        target = "item" if option_index is None else "option"
        rows = _route_one(graph, None, item, target, option_index, item)[0]
    order = {f.id: i for i, f in enumerate(chosen)}
    rows.sort(key=lambda r: (r.rank, order.get(r.finding or "", 0), r.depth, r.ref))
    return Queue(
        query=query,
        item=item,
        findings=[f.id for f in chosen],
        rows=rows,
        related=related,
        folds=fold_versions(graph, rows),
        groups=group_keys(graph, rows),
    )
