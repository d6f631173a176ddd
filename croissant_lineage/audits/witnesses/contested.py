"""Contested items: wrong-key claims whose proposed answer is one of a snapshot item's options.

A *claim* is ``(finding id, item ref, proposed answer text)`` on an item of the snapshot
being judged (e.g. ``mmlu-pro``). :func:`contested_items` keeps the claims whose proposed
text is one of the item's options and not its key; :func:`claims_from_findings` builds
claims from wrong-key findings, routing a finding made on an ancestor item (e.g. an
MMLU item annotated by MMLU-Redux) to its descendants in the snapshot with the router
(:func:`croissant_lineage.findings.routing.route_item`, following the proposed option through
each edge's ``option_map``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pyarrow as pa

from croissant_lineage._results import RowTable
from croissant_lineage.errors import DataError, InputError
from croissant_lineage.findings.routing import route_item
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.lineage.info import FamilyInfo
from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import ITEMS_SCHEMA, split_ref

__all__ = [
    "SKIP_REASONS",
    "ClaimRouting",
    "Contested",
    "ContestedClaim",
    "ContestedItem",
    "SkippedClaim",
    "SnapshotItem",
    "UnroutedFinding",
    "claims_from_findings",
    "contested_items",
    "item_sort_key",
    "snapshot_index",
    "snapshot_name",
]

#: Why a claim does not make a contested item.
SKIP_REASONS = (
    "not_in_snapshot",  # the claim's item is not an item of the snapshot
    "no_key",  # the snapshot item has no key or no options
    "not_among_options",  # the proposed text is not one of the item's options
    "proposes_key",  # the proposed text is the item's key
)

#: Why a finding gives no claim.
UNROUTED_REASONS = (
    "not_wrong_key",  # the finding is not a wrong-key finding
    "no_proposal",  # it proposes no answer
    "no_lineage",  # it is on another dataset and no lineage edges were given
    "no_path",  # no descendant of its item is in the snapshot
)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _find_option(options: Sequence[str], text: str) -> int | None:
    """Index of ``text`` among ``options``: exact first, then whitespace/case-insensitive."""
    if text in options:
        return list(options).index(text)
    wanted = _norm(text)
    for i, o in enumerate(options):
        if _norm(o) == wanted:
            return i
    return None


@dataclass(frozen=True)
class SnapshotItem:
    """What a record must match to be admitted.

    Attributes:
        item: The item id (``"3542"``).
        stem: The question text.
        options: The options, in order.
        key: The key letter (None when the item has none).
    """

    item: str
    stem: str | None
    options: tuple[str, ...]
    key: str | None


def snapshot_index(items: pa.Table) -> dict[str, SnapshotItem]:
    """Index a snapshot's item table (:data:`~croissant_lineage.lineage.schema.ITEMS_SCHEMA`) by id.

    Returns:
        Item id -> :class:`SnapshotItem`.

    Raises:
        DataError: the table holds no items, several datasets, or lacks item columns.
    """
    missing = {"dataset", "item", "stem", "options", "key"} - set(items.column_names)
    if missing:
        raise DataError(
            f"the snapshot table lacks columns {sorted(missing)}", hint="give an items table"
        )
    datasets = set(items.column("dataset").to_pylist())
    if len(datasets) != 1:
        raise DataError(
            f"the snapshot table holds {len(datasets)} datasets; give one dataset's items",
            hint="filter the table to one dataset, e.g. mmlu-pro",
        )
    out: dict[str, SnapshotItem] = {}
    for it, stem, opts, key in zip(
        items.column("item").to_pylist(),
        items.column("stem").to_pylist(),
        items.column("options").to_pylist(),
        items.column("key").to_pylist(),
        strict=True,
    ):
        out[it] = SnapshotItem(it, stem, tuple(opts or ()), key)
    return out


def snapshot_name(items: pa.Table) -> str:
    """The one dataset name of an items table (\"\" when it holds none or several)."""
    names = set(items.column("dataset").to_pylist()) if items.num_rows else set()
    return str(next(iter(names))) if len(names) == 1 else ""


@dataclass(frozen=True)
class ContestedClaim:
    """A claim that an item's key is wrong and another answer is right.

    Attributes:
        finding_id: The finding the claim comes from.
        item: The item ref in the snapshot (``mmlu-pro:3542``).
        proposed: The proposed answer text.
        via: The ref of the item the finding was made on, when it was routed through
            lineage (None when the finding is on ``item`` itself).
    """

    finding_id: str
    item: str
    proposed: str
    via: str | None = None


@dataclass(frozen=True)
class ContestedItem:
    """A snapshot item whose key is contested by a proposal that is one of its options.

    Attributes:
        item: The item ref.
        finding_ids: The findings proposing this answer for this item (sorted).
        key: The published key letter.
        proposed: The proposed answer, as the item's option text.
        proposed_letter: Its letter.
        options: How many options the item has.
        via: Refs the findings were made on, when routed through lineage (sorted).
    """

    item: str
    finding_ids: tuple[str, ...]
    key: str
    proposed: str
    proposed_letter: str
    options: int
    via: tuple[str, ...] = ()


@dataclass(frozen=True)
class SkippedClaim:
    """A claim that did not make a contested item, with the reason (:data:`SKIP_REASONS`)."""

    finding_id: str
    item: str
    proposed: str
    reason: str


@dataclass
class Contested(RowTable):
    """The contested items of a snapshot and the claims left out.

    Attributes:
        snapshot: The snapshot's dataset name.
        rows: Contested items, sorted by item ref then proposed letter.
        skipped: Claims left out, with reasons.
    """

    row_type: ClassVar[type] = ContestedItem
    snapshot: str
    rows: list[ContestedItem] = field(default_factory=list)
    skipped: list[SkippedClaim] = field(default_factory=list)

    def conflicting(self) -> set[str]:
        """Item refs for which different answers are proposed."""
        letters: dict[str, set[str]] = defaultdict(set)
        for r in self.rows:
            letters[r.item].add(r.proposed_letter)
        return {i for i, s in letters.items() if len(s) > 1}


def _as_claim(c: Any) -> ContestedClaim:
    if isinstance(c, ContestedClaim):
        return c
    if isinstance(c, (tuple, list)) and len(c) in (3, 4):
        return ContestedClaim(*(str(x) if x is not None else None for x in c))  # type: ignore[arg-type]
    raise InputError(f"a claim must be (finding_id, item_ref, proposed_text), not {c!r}")


def item_sort_key(ref: str) -> tuple[str, int, str]:
    """Sort key for item refs: dataset, then numeric ids in numeric order."""
    ds, it = split_ref(ref)
    return (ds, int(it), "") if it.isdigit() else (ds, -1, it)


def contested_items(items: pa.Table, claims: Iterable[ContestedClaim | Sequence[str]]) -> Contested:
    """Keep the claims whose proposed answer is one of the snapshot item's options.

    The proposed text is looked up exactly, then ignoring case and runs of whitespace.
    Claims proposing the same answer for the same item are merged.

    Args:
        items: The snapshot's items (one dataset).
        claims: :class:`ContestedClaim` objects or ``(finding_id, item_ref, proposed_text)``
            sequences; item refs name the snapshot's dataset.

    Returns:
        The :class:`Contested` items and the skipped claims.

    Raises:
        DataError: ``items`` is not one dataset's item table.
        InputError: a claim is not a claim.
    """
    snap = snapshot_index(items)
    dataset = snapshot_name(items)
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    skipped: list[SkippedClaim] = []
    for raw in claims:
        c = _as_claim(raw)
        try:
            ds, it = split_ref(c.item)
        except ValueError:
            ds, it = "", c.item
        item = snap.get(it) if ds == dataset else None
        reason = ""
        idx: int | None = None
        if item is None:
            reason = "not_in_snapshot"
        elif item.key is None or not item.options:
            reason = "no_key"
        else:
            idx = _find_option(item.options, c.proposed)
            if idx is None:
                reason = "not_among_options"
            elif LETTERS[idx] == item.key:
                reason = "proposes_key"
        if reason or item is None or idx is None or item.key is None:
            skipped.append(SkippedClaim(c.finding_id, c.item, c.proposed, reason))
            continue
        entry = merged.setdefault(
            (c.item, LETTERS[idx]),
            {"item": item, "idx": idx, "findings": set(), "via": set()},
        )
        entry["findings"].add(c.finding_id)
        if c.via:
            entry["via"].add(c.via)
    rows = [
        ContestedItem(
            item=ref,
            finding_ids=tuple(sorted(e["findings"])),
            key=e["item"].key,
            proposed=e["item"].options[e["idx"]],
            proposed_letter=letter,
            options=len(e["item"].options),
            via=tuple(sorted(e["via"])),
        )
        for (ref, letter), e in merged.items()
    ]
    rows.sort(key=lambda r: (item_sort_key(r.item), r.proposed_letter))
    skipped.sort(key=lambda s: (s.finding_id, s.item))
    return Contested(snapshot=dataset, rows=rows, skipped=skipped)


@dataclass(frozen=True)
class UnroutedFinding:
    """A finding that gave no claim on the snapshot, with the reason.

    Reasons: ``not_wrong_key``, ``no_proposal``, ``no_lineage`` (the finding is on
    another dataset and no lineage was given), ``no_path`` (no descendant in the snapshot).
    """

    finding_id: str
    item: str
    reason: str


@dataclass
class ClaimRouting:
    """Claims on the snapshot built from findings.

    Attributes:
        claims: One claim per (finding, snapshot item), sorted.
        unrouted: Findings that gave no claim, with reasons.
    """

    claims: list[ContestedClaim] = field(default_factory=list)
    unrouted: list[UnroutedFinding] = field(default_factory=list)


def _options_at(graph: LineageGraph, ref: str) -> list[str]:
    try:
        return list(graph.item(ref).options)
    except InputError:
        return []


def claims_from_findings(
    findings: Iterable[Any],
    *,
    dataset: str,
    items: pa.Table | None = None,
    edges: pa.Table | None = None,
    max_depth: int = 4,
) -> ClaimRouting:
    """Claims on a snapshot from wrong-key findings, routed through lineage when needed.

    A finding (any object with ``id``, ``item``, ``kind``, ``proposed``) gives claims only
    when its kind is ``wrong_key`` and it proposes an answer. A finding on an item of
    ``dataset`` gives one claim on that item. A finding on another dataset's item is
    routed (:func:`croissant_lineage.findings.routing.route_item`, as its proposed option) to
    every descendant in ``dataset`` up to ``max_depth`` steps down; the proposed answer's
    option index is carried through each edge's ``option_map`` (so formatting changes in
    copied options do not lose it), and, where it is not carried, the text is looked up
    among the descendant's options.

    Args:
        findings: Findings (e.g. :class:`croissant_lineage.findings.model.Finding`).
        dataset: The snapshot's dataset name (``mmlu-pro``).
        items: Items of every dataset on the paths (e.g. ``Lineage.items``), for options.
        edges: Lineage edges (:data:`~croissant_lineage.lineage.schema.EDGES_SCHEMA`).
        max_depth: Longest path followed.

    Returns:
        The :class:`ClaimRouting`: claims (sorted by finding id, item) and unrouted findings.
    """
    routing = ClaimRouting()
    graph = None
    if edges is not None:
        graph = LineageGraph(Lineage(FamilyInfo(), items if items is not None else ITEMS_SCHEMA.empty_table(), edges))
    for f in findings:
        fid, ref, proposed = str(f.id), str(f.item), f.proposed
        if f.kind != "wrong_key":
            routing.unrouted.append(UnroutedFinding(fid, ref, "not_wrong_key"))
            continue
        if proposed is None or not str(proposed).strip():
            routing.unrouted.append(UnroutedFinding(fid, ref, "no_proposal"))
            continue
        proposed = str(proposed)
        if ref.partition(":")[0] == dataset:
            routing.claims.append(ContestedClaim(fid, ref, proposed))
            continue
        if graph is None:
            routing.unrouted.append(UnroutedFinding(fid, ref, "no_lineage"))
            continue
        found = _route(graph, ref, proposed, dataset, max_depth)
        if not found:
            routing.unrouted.append(UnroutedFinding(fid, ref, "no_path"))
        routing.claims.extend(ContestedClaim(fid, child, text, via=ref) for child, text in found)
    routing.claims.sort(key=lambda c: (c.finding_id, c.item))
    routing.unrouted.sort(key=lambda u: (u.finding_id, u.item))
    return routing


def _route(graph: LineageGraph, ref: str, proposed: str, dataset: str, max_depth: int) -> list[tuple[str, str]]:
    """Descendants of ``ref`` in ``dataset`` (at most ``max_depth`` steps down) with the
    proposed answer's text there, from the router's queue for the proposed option: its
    letter where the option maps are followed, else the text looked up among the options."""
    if ref not in graph:
        return []
    start = _options_at(graph, ref)
    queue = route_item(graph, ref, option_index=_find_option(start, proposed) if start else None)
    found: dict[str, str] = {}
    for row in queue.rows:
        if row.relation != "descendant" or row.dataset != dataset or row.depth > max_depth:
            continue
        opts = _options_at(graph, row.ref)
        idx = LETTERS.index(row.letter) if row.letter else (_find_option(opts, proposed) if opts else None)
        found[row.ref] = opts[idx] if idx is not None and idx < len(opts) else proposed
    return sorted(found.items())
