"""One (child, parent) pair of datasets: candidate rows, parents chosen greedily, the linker's
edges, and the :class:`~croissant_lineage.discovery.proposal.Proposal` built from them.

Single-dataset discovery (:mod:`croissant_lineage.discovery.propose`) and family discovery
(:mod:`croissant_lineage.discovery.family`) choose parents differently, but link a chosen pair
and name its activity through the same functions here (:func:`text_proposal`,
:func:`reference_proposal`, :func:`translation_proposal`): the same pair gets the same edges
and activity in both modes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from rapidfuzz import fuzz

from croissant_lineage.discovery.activity import pair_activity, translation_activity
from croissant_lineage.discovery.content import (
    ContentComparison,
    compare_contents,
    mask_numbers,
    stem_text,
)
from croissant_lineage.discovery.index import StemIndex
from croissant_lineage.discovery.proposal import Proposal
from croissant_lineage.discovery.refs import (
    ParentField,
    ParentLookup,
    child_fields,
    lookup,
    parent_field,
    stem_closeness,
)
from croissant_lineage.discovery.translations import TranslationMatch, translation_edges
from croissant_lineage.family.spec import Derivation, LinkRule
from croissant_lineage.linking.linker import link_derivation, link_pairs
from croissant_lineage.linking.normalize import normalize_stem

__all__ = [
    "MIN_ITEMS",
    "MIN_SHARE",
    "Hits",
    "best_references",
    "choose_parents",
    "reference_proposal",
    "reference_rule",
    "stem_hits",
    "text_proposal",
    "translation_proposal",
]

#: A parent explains at least this many of the child's items...
MIN_ITEMS = 3
#: ...and at least this share of them.
MIN_SHARE = 0.01
#: An id join holds when this share of the children share an id with a same-stem parent item.
_ALL = 0.95
#: An edited stem needs at least this option score (share of the parent's options copied).
_HALF = 50.0
#: A pair is a perturbation, whose number-only stem edits are evidence, when this share of its edges has them.
_HALF_SHARE = 0.5


@dataclass
class Hits:
    """Per corpus dataset: child row -> its candidate corpus rows (and whether one is exact)."""

    rows: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    exact: dict[str, set[int]] = field(default_factory=dict)


def stem_hits(index: StemIndex, stems: list[str], threshold: float, exclude: range | None = None) -> Hits:
    """Each stem's candidate rows in the index, per corpus dataset (``exclude``: rows that are no candidates)."""
    hits = Hits()
    for i, stem in enumerate(stems):
        if not stem:
            continue
        for c in index.candidates(stem, threshold=threshold, exclude=exclude):
            ds = index.datasets[c.row]
            hits.rows.setdefault(ds, {}).setdefault(i, []).append(c.row)
            if c.exact:
                hits.exact.setdefault(ds, set()).add(i)
    return hits


def choose_parents(hits: Hits, n: int, exclude: str) -> list[tuple[str, list[int], dict[str, int]]]:
    """Greedy parents: ``(dataset, child rows it explains, other datasets' counts on them)``."""
    remaining = set(range(n))
    chosen: list[tuple[str, list[int], dict[str, int]]] = []
    names = sorted(d for d in hits.rows if d != exclude)
    while True:
        scored = []
        for d in names:
            kids = remaining.intersection(hits.rows[d])
            scored.append((len(kids), len(kids & hits.exact.get(d, set())), d, kids))
        scored.sort(key=lambda t: (-t[0], -t[1], t[2]))
        if not scored or scored[0][0] < max(MIN_ITEMS, MIN_SHARE * n):
            return chosen
        _, _, best, kids = scored[0]
        others = {d: c for c, _, d, _ in scored[1:] if c}
        chosen.append((best, sorted(kids), others))
        remaining -= kids
        names.remove(best)


def _id_join_holds(child_table: pa.Table, parent_table: pa.Table, kids: list[int], threshold: float) -> bool:
    """True when >= 95 % of the children share an id with a parent item whose stem scores at
    least ``threshold`` against theirs (a snapshot or a re-release that kept its ids)."""
    pids = {pid: j for j, pid in enumerate(parent_table.column("item").to_pylist())}
    cids = child_table.column("item").to_pylist()
    cstems = child_table.column("stem").to_pylist()
    pstems = parent_table.column("stem").to_pylist()
    agree = 0
    for i in kids:
        j = pids.get(cids[i])
        if j is not None and fuzz.ratio(normalize_stem(cstems[i]), normalize_stem(pstems[j])) >= threshold:
            agree += 1
    return bool(kids) and agree >= _ALL * len(kids)


#: The activity a pair is linked as before its own is guessed: one under which a parent may
#: have several children (``copy`` and ``re_release`` give each parent one child, which
#: would drop a child's duplicates before the guess sees them).
_UNKNOWN_ACTIVITY = "filter"


def _link_pair(
    child: str, parent: str, child_table: pa.Table, parent_table: pa.Table, kids: list[int], prows: list[int], threshold: float,
    tolerance: float = 0.0,
) -> tuple[pa.Table, pa.Table]:
    """The linker's edges and unmatched rows for the proposed children: by id when the ids
    join (see :func:`_id_join_holds`), else by stem on the parent rows the index proposed."""
    if _id_join_holds(child_table, parent_table, kids, threshold):
        deriv = Derivation(child, parent, _UNKNOWN_ACTIVITY, LinkRule(by="id"), key_tolerance=tolerance)
        edges, unmatched, _ = link_derivation(deriv, child_table.take(kids), parent_table, translated=False)
        return edges, unmatched
    parents = parent_table.take(sorted(set(prows)))
    kids_table = child_table.take(kids)
    first: list[pa.Table] = []
    if _subjects_shared(kids_table, parents):  # same subject values: the linker's subject blocks first
        deriv = Derivation(child, parent, _UNKNOWN_ACTIVITY, LinkRule(by="text", child_block="subject", parent_block="subject", threshold=threshold),
                           key_tolerance=tolerance)
        edges, _, _ = link_derivation(deriv, kids_table, parents, translated=False)
        first.append(edges)
        done = set(edges.column("child_item").to_pylist())
        kids_table = kids_table.filter(pa.array([i not in done for i in kids_table.column("item").to_pylist()], pa.bool_()))
    deriv = Derivation(child, parent, _UNKNOWN_ACTIVITY, LinkRule(by="text", child_block=None, parent_block=None, threshold=threshold),
                       key_tolerance=tolerance)
    edges, unmatched, _ = link_derivation(deriv, kids_table, parents, translated=False)
    return (pa.concat_tables([*first, edges]) if first else edges), unmatched


def _subjects_shared(child: pa.Table, parent: pa.Table) -> bool:
    """True when >= 95 % of the children's subjects are subject values of the parent's items:
    the two datasets name their subjects alike, so an identical item in two subjects (MMLU has
    college_medicine items copied into clinical_knowledge) is linked within its own subject."""
    subjects = [s for s in child.column("subject").to_pylist() if s]
    known = set(parent.column("subject").to_pylist())
    return bool(subjects) and sum(1 for s in subjects if s in known) >= _ALL * len(subjects)


def _numbers_only(edges: pa.Table, child: pa.Table, parent: pa.Table) -> pa.Array:
    """Per edge: the stems differ, and only in their numbers."""
    crow = {it: i for i, it in enumerate(child.column("item").to_pylist())}
    prow = {it: j for j, it in enumerate(parent.column("item").to_pylist())}
    cs, ps = child.column("stem").to_pylist(), parent.column("stem").to_pylist()
    out = []
    for c, p in zip(edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist(), strict=True):
        a, b = stem_text(cs[crow[c]]) if c in crow else None, stem_text(ps[prow[p]]) if p in prow else None
        out.append(a is not None and b is not None and a != b and mask_numbers(a) == mask_numbers(b))
    return pa.array(out, pa.bool_())


def _drop_weak(edges: pa.Table, child: pa.Table | None = None, parent: pa.Table | None = None) -> tuple[pa.Table, int]:
    """The edges without those whose stem was edited and which copy fewer than half of the
    parent's options (both having options): with no declared derivation, a near stem alone
    is not evidence (templated questions differ by their numbers); and how many were dropped.
    When the stems of most of the pair's edges differ only in their numbers (a perturbation:
    values changed, options recomputed), those edges are kept (given ``child`` and ``parent``)."""
    if edges.num_rows == 0:
        return edges, 0
    both_have_options = pc.and_(
        pc.greater(pc.add(edges.column("options_copied"), edges.column("options_added")), 0),
        pc.greater(pc.add(edges.column("options_copied"), edges.column("options_dropped")), 0),
    )
    no_copy = pc.and_(pc.less(edges.column("options_score"), _HALF), both_have_options)
    weak = pc.and_(pc.fill_null(edges.column("stem_changed"), False), no_copy)
    if child is not None and parent is not None and pc.any(weak).as_py():
        numbers = _numbers_only(edges, child, parent)
        if int(pc.sum(numbers.cast(pa.int64())).as_py() or 0) >= _HALF_SHARE * edges.num_rows:
            weak = pc.and_(weak, pc.invert(numbers))
    keep = pc.invert(weak)
    return edges.filter(keep), edges.num_rows - int(pc.sum(keep.cast(pa.int64())).as_py() or 0)


def _with(edges: pa.Table, activity: str) -> pa.Table:
    n = edges.num_rows
    edges = edges.set_column(edges.schema.get_field_index("activity"), "activity", pa.array([activity] * n, pa.string()))
    return edges.set_column(edges.schema.get_field_index("method"), "method", pa.array(["discovered"] * n, pa.string()))




def best_references(
    name: str, table: pa.Table, corpus: dict[str, pa.Table], lookups: dict[str, ParentLookup]
) -> list[tuple[str, ParentField]]:
    """The corpus datasets a field of ``name`` refers to (:mod:`croissant_lineage.discovery.refs`),
    best first (most child items named, then ids before rows before stems, then the child's
    stems closest to the named rows' (:func:`~croissant_lineage.discovery.refs.stem_closeness`:
    row numbers name rows of every dataset alike), then by name); a field that holds one
    dataset's ids is not read as another's row numbers."""
    fields = child_fields(table)
    found = []
    for other in sorted(corpus):
        if other == name:
            continue
        if other not in lookups:
            lookups[other] = lookup(corpus[other])
        pf = parent_field(fields, lookups[other])
        if pf is not None and pf.matched >= max(MIN_ITEMS, MIN_SHARE * table.num_rows):
            found.append((other, replace(pf, closeness=stem_closeness(table, corpus[other], pf.pairs))))
    as_ids = {pf.field for _, pf in found if pf.kind == "id"}  # a field that holds ids is no row number elsewhere
    found = [(o, pf) for o, pf in found if not (pf.kind == "row" and pf.field in as_ids)]
    found.sort(key=lambda t: (-t[1].matched, t[1].rank()[2], -t[1].closeness, t[0]))
    return found


def reference_rule(child: str, parent: str, pf: ParentField, child_items: int) -> str:
    """The direction rule of a reference, in words with its counts."""
    return (f"reference: {child}.{pf.field} names {pf.kind}s of {parent} on {pf.matched} of {child_items} items"
            f"{' (the name says so)' if pf.named else ''}")


def _proposal(child: str, parent: str, child_table: pa.Table, parent_table: pa.Table, edges: pa.Table,
              activity: str, counts: dict[str, Any], contents: ContentComparison | None, **extra: Any) -> Proposal:
    n, m = child_table.num_rows, parent_table.num_rows
    return Proposal(child, parent, activity, n, m, edges.num_rows, edges.num_rows / n if n else 0.0,
                    counts["parents_reached"] / m if m else 0.0, counts, contents=contents, **extra)


def reference_proposal(
    child: str, parent: str, child_table: pa.Table, parent_table: pa.Table, pf: ParentField, tolerance: float = 0.0,
) -> tuple[Proposal, pa.Table]:
    """The proposal and edges of a pair joined by a parent-reference field (both modes);
    ``tolerance``: the larger of the two datasets' number key tolerances."""
    deriv = Derivation(child, parent, _UNKNOWN_ACTIVITY, LinkRule(by="id", child_field=pf.field), key_tolerance=tolerance)
    edges = link_pairs(deriv, child_table, parent_table, list(pf.pairs), method="reference", translated=False)
    activity, counts, content = pair_activity(edges, child_table, parent_table, reference=pf.field)
    evidence: dict[str, Any] = {**counts, **pf.evidence()}
    prop = _proposal(child, parent, child_table, parent_table, edges, activity, evidence, content,
                     rule=reference_rule(child, parent, pf, child_table.num_rows))
    return prop, _with(edges, activity)


def text_proposal(
    child: str, parent: str, child_table: pa.Table, parent_table: pa.Table, kids: list[int], prows: list[int],
    threshold: float, tolerance: float = 0.0,
) -> tuple[Proposal | None, pa.Table, pa.Table]:
    """The proposal, edges and unmatched rows of a pair related by stems (both modes): the
    children ``kids`` linked on the parent rows ``prows`` the index proposed
    (:func:`_link_pair`, number keys equal under ``tolerance``), weak edges dropped
    (:func:`_drop_weak`), the activity from the edges and contents. None when fewer than
    :data:`MIN_ITEMS` (and :data:`MIN_SHARE`) edges remain."""
    edges, unmatched = _link_pair(child, parent, child_table, parent_table, kids, prows, threshold, tolerance)
    edges, weak = _drop_weak(edges, child_table, parent_table)
    if edges.num_rows < max(MIN_ITEMS, MIN_SHARE * child_table.num_rows):
        return None, edges, unmatched
    activity, counts, content = pair_activity(edges, child_table, parent_table)
    counts["dropped_edited_stem_few_options"] = weak
    prop = _proposal(child, parent, child_table, parent_table, edges, activity, counts, content)
    return prop, _with(edges, activity), unmatched


def translation_proposal(
    child: str, parent: str, child_table: pa.Table, parent_table: pa.Table, match: TranslationMatch,
    languages: dict[str, str | None],
) -> tuple[Proposal, pa.Table]:
    """The proposal and edges of a translation pair (both modes): ``code_translation``
    between two programming languages, else ``translation``."""
    edges, counts = translation_edges(child, child_table, parent_table, match, languages)
    counts["parents_reached"] = len({j for _, j, _ in match.pairs})
    activity = translation_activity(languages.get(child), languages.get(parent))
    content = compare_contents([(i, j) for i, j, _ in match.pairs], child_table, parent_table, translated=True)
    prop = _proposal(child, parent, child_table, parent_table, edges, activity, counts, content)
    return prop, _with(edges, activity)
