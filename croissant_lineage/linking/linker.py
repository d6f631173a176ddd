"""Reconstructing item-level lineage: which child item came from which parent item.

For each derivation of a family spec with item data on both sides, every selected
child item is linked to at most one parent item, by the derivation's link rule:

* ``by: id`` / ``by: index`` - a child field (default: the child's own id) names the
  parent item id. ``index`` marks row-index conventions whose alignment is not
  guaranteed (verify them with :mod:`croissant_lineage.audits.translations`).
* ``by: text`` - the normalised stem, exact match first, then fuzzy
  (:mod:`croissant_lineage.linking.match`).

Every edge carries its evidence: method, stem score (0-100), the option diff (which
child option copies which parent option; added and dropped options), whether the
key's text was inherited, and whether ``ftfy`` repaired mojibake in either item's text
before they were compared (:func:`croissant_lineage.linking.normalize.repair_text`).
For ``re_release`` and ``copy`` derivations linked by text, a parent has at most one
child (:mod:`croissant_lineage.linking.assign`). Translations pair options by position. Identical items
within a dataset are grouped by :mod:`croissant_lineage.linking.duplicates`.
"""

from __future__ import annotations

import gc
import re
import threading
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from tqdm.auto import tqdm

from croissant_lineage.errors import SpecError
from croissant_lineage.family.spec import ONE_CHILD_PER_PARENT, Derivation, FamilySpec, LinkRule
from croissant_lineage.lineage.info import LinkSummary, family_info
from croissant_lineage.lineage.kept import KeptFolder, KeptRows, NullRecords
from croissant_lineage.lineage.keys import keys_unread
from croissant_lineage.lineage.model import Lineage, release_memory
from croissant_lineage.lineage.packed_records import PackedRecords
from croissant_lineage.lineage.schema import EDGES_SCHEMA, ITEMS_SCHEMA, UNMATCHED_SCHEMA
from croissant_lineage.linking.alignment import check_index_matches
from croissant_lineage.linking.duplicates import DuplicateGroup, duplicates_table, side_duplicates
from croissant_lineage.linking.edges import edges_table
from croissant_lineage.linking.match import IdMatches, Match, Unmatched, id_matches, match_text
from croissant_lineage.linking.normalize import (
    normalize_option,
    normalize_option_cased,
    normalize_stem,
)
from croissant_lineage.linking.sides import Side
from croissant_lineage.linking.threads import MAX_THREADED_ITEMS, thread_count, threaded_map

__all__ = ["ONE_CHILD_PER_PARENT", "assemble_lineage", "link_derivation", "link_family", "link_pairs"]


def link_derivation(
    deriv: Derivation, child_table: pa.Table, parent_table: pa.Table, *, translated: bool | None = None
) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """Link the items of one derivation.

    Args:
        deriv: The derivation (with its link rule).
        child_table, parent_table: Item tables of the two datasets.
        translated: Texts are in different languages, so options pair by position and
            stems are not compared (default: ``deriv.is_translation``).

    Returns:
        ``(edges, unmatched, stats)``: tables with EDGES_SCHEMA and UNMATCHED_SCHEMA,
        and counts (selected, linked per method, unmatched, ambiguous, key inherited).
    """
    return _link_sides(deriv, Side(child_table), Side(parent_table), translated=translated)


def link_pairs(
    deriv: Derivation, child_table: pa.Table, parent_table: pa.Table,
    pairs: Sequence[tuple[int, int, float]], *, method: str, translated: bool,
) -> pa.Table:
    """The edges (EDGES_SCHEMA) of pairs chosen elsewhere (discovery), with the linker's evidence.

    Args:
        deriv: The derivation the edges belong to.
        child_table, parent_table: Item tables of the two datasets.
        pairs: ``(child row, parent row, score)``; one pair per child row.
        method: The edges' ``method``.  When ``deriv``'s rule is ``by: index`` the pairs are
            row-index joins and are checked as the linker checks its own
            (:func:`~croissant_lineage.linking.alignment.check_index_matches`).
        translated: Options pair by position and stems are not compared.

    Returns:
        The edges, in child row order.
    """
    child, parent = Side(child_table), Side(parent_table)
    matches: Sequence[Match] = sorted((Match(i, j, method, float(score)) for i, j, score in pairs), key=lambda m: m.child)
    matches = check_index_matches(deriv, child, parent, matches)  # a ``by: index`` rule: re-link by a shift, or demote
    return _edges_table(deriv, child, parent, matches, translated=translated)


def _link_sides(
    deriv: Derivation, child: Side, parent: Side, *, translated: bool | None = None
) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """:func:`link_derivation` on sides that may be shared between derivations (a parent
    of several children is read into lists and normalised once)."""
    rule = deriv.link
    if rule is None:
        raise SpecError(f"derivation {deriv.child} <- {deriv.parent} has no item link rule")
    where = f"derivation {deriv.child} <- {deriv.parent}: "
    selected = _selected(child, rule, where)
    matches: Sequence[Match]
    if rule.by == "text":
        one_to_one = deriv.activity in ONE_CHILD_PER_PARENT
        by_text, unmatched = match_text(child, parent, rule, selected, where, one_to_one=one_to_one)
        matches = sorted(by_text, key=lambda m: m.child)
    else:
        found, unmatched = id_matches(child, parent, rule, selected, where)
        matches = found.by_child()  # columns: no Match object per item for id rules
    matches = check_index_matches(deriv, child, parent, matches)  # index joins: re-link by a shift, or demote
    if translated is None:
        translated = deriv.is_translation
    edges = _edges_table(deriv, child, parent, matches, translated=translated)
    stats = {
        "child": deriv.child,
        "parent": deriv.parent,
        "activity": deriv.activity,
        "children": len(child),
        "selected": len(selected),
        **_link_counts(matches, unmatched, edges),
    }
    return edges, _unmatched_table(deriv, child, parent, unmatched), stats


def _selected(child: Side, rule: LinkRule, where: str) -> list[int]:
    """The child items the rule links: all, or those its ``select`` regex matches."""
    selected = list(range(len(child)))
    if rule.select:
        rx = re.compile(rule.select["regex"])
        values = child.eval(rule.select["field"], where + "select ")
        selected = [i for i in selected if values[i] is not None and rx.search(str(values[i]))]
    return selected


def _edges_table(
    deriv: Derivation, child: Side, parent: Side, matches: Sequence[Match], *, translated: bool
) -> pa.Table:
    """The edges (EDGES_SCHEMA) of the matches, in their order (:func:`.edges.edges_table`)."""
    return edges_table(deriv, child, parent, matches, translated=translated)


def _unmatched_reason(rule: LinkRule, best: int | None, score: float) -> str:
    if rule.by != "text":
        return "no parent with that id"
    if best is None:
        return "no parent in block"
    if score >= rule.threshold:
        return "its candidate parents went to closer children (one child per parent)"
    return f"best stem score {score} < threshold {rule.threshold}"


def _unmatched_table(deriv: Derivation, child: Side, parent: Side, unmatched: Unmatched) -> pa.Table:
    """The unmatched children (UNMATCHED_SCHEMA), in child order, with their best candidate."""
    assert deriv.link is not None
    rows = sorted(unmatched.items())
    best = [j for _, (j, _s) in rows]
    names = iter(parent.ids.take([j for j in best if j is not None]))
    urows: dict[str, list[Any]] = {
        "child_dataset": [deriv.child] * len(rows),
        "child_item": child.ids.take([i for i, _ in rows]),
        "parent_dataset": [deriv.parent] * len(rows),
        "best_parent_item": [None if j is None else next(names) for j in best],
        "best_score": [s for _, (_j, s) in rows],
        "reason": [_unmatched_reason(deriv.link, j, s) for _, (j, s) in rows],
    }
    return pa.table(urows, schema=UNMATCHED_SCHEMA)


def _link_counts(matches: Sequence[Match], unmatched: Unmatched, edges: pa.Table) -> dict[str, Any]:
    """The counts of one derivation's stats: linked (per method), unmatched, ambiguous, keys."""
    key_inherited = edges.column("key_inherited")
    kept = pc.sum(key_inherited).as_py() or 0  # the true values (nulls: no key to compare)
    if isinstance(matches, IdMatches):  # one method, no alternatives, none ambiguous
        by_method, ambiguous, with_alternatives = ({matches.method: len(matches)} if len(matches) else {}), 0, 0
    else:
        by_method = dict(sorted(Counter(m.method for m in matches).items()))
        ambiguous = sum(m.ambiguous for m in matches)
        with_alternatives = sum(bool(m.alternatives) for m in matches)
    return {
        "linked": len(matches),
        "by_method": by_method,
        "unmatched": len(unmatched),
        "ambiguous": ambiguous,
        "with_alternatives": with_alternatives,
        "key_inherited": kept,
        "key_changed": len(key_inherited) - key_inherited.null_count - kept,
        "options_added": pc.sum(edges.column("options_added")).as_py() or 0,
    }


def link_family(
    spec: FamilySpec,
    tables: Mapping[str, pa.Table],
    *,
    records: Mapping[str, PackedRecords] | None = None,
    derivations: Sequence[Derivation] | None = None,
    progress: bool = False,
    kept: KeptFolder | None = None,
) -> Lineage:
    """Link the loaded items of a family: the one builder of a linked :class:`Lineage`.

    Only :mod:`croissant_lineage.workflows` calls it (it loads the items); every lineage it
    returns has the same shape: items, edges, duplicates, unmatched and the summary.

    Args:
        spec: The family spec.
        tables: Dataset name -> its items table (``ITEMS_SCHEMA``), in the order the
            lineage keeps them.
        records: Each dataset's raw records held packed apart from its table (what
            :func:`~croissant_lineage.lineage.items.load_items_packed` gives); the lineage
            then holds them packed too.
        derivations: The derivations to link (default: every item derivation of ``spec``);
            both their datasets must be in ``tables``.
        progress: Show progress bars (tqdm; works in terminals and notebooks).
        kept: The folder of a lineage of ``spec`` linked before, whose derivations are
            kept as they are: ``derivations`` (those it lacks) are linked among ``tables``
            (the datasets it lacks, with their records, and those they link with, read
            from it with ``records`` from it), and the result holds its items (left in
            its file until written: :meth:`Lineage.hold_kept_rows`), edges, unmatched
            rows and duplicate groups with the new ones, in spec order: what linking the
            whole family gives.

    Raises:
        LineageError: a link rule that cannot be applied (a field the records lack).
    """
    if kept is not None:
        return _link_kept(spec, kept, tables, records or {}, list(derivations or ()), progress)
    with _collector_paused():
        try:
            release_memory()
            edge_parts, unmatched_parts, stats, found = _link_derivations(
                spec, dict(tables), progress=progress, records=dict(records or {}), derivations=derivations)
            lineage = assemble_lineage(spec, list(tables.values()), edge_parts, unmatched_parts, stats, found,
                                       names=list(tables))
            if records:
                lineage.hold_packed_records([records[n] for n in tables])
            release_memory()
            return lineage
        finally:
            _release_normaliser_caches()


def _release_normaliser_caches() -> None:
    """The normalisers' caches pin up to 2 x 262,144 of a family's texts after a link
    (0.6 GB after a million-item link): release them."""
    normalize_stem.cache_clear()
    normalize_option.cache_clear()
    normalize_option_cased.cache_clear()


def _link_kept(spec: FamilySpec, kept: KeptFolder, tables: Mapping[str, pa.Table],
               records: Mapping[str, PackedRecords], derivations: list[Derivation], progress: bool) -> Lineage:
    """:func:`link_family` with ``kept`` (see there): ``records`` holds the raw records of
    every dataset of ``tables`` (the new ones' packed, the kept ones' in the kept file)."""
    with _collector_paused():
        try:
            release_memory()
            edge_parts, unmatched_parts, stats, found = _link_derivations(
                spec, dict(tables), progress=progress, records=dict(records), derivations=derivations)
            new = {(d.child, d.parent): k for k, d in enumerate(derivations)}
            old_parts = _kept_parts(kept)
            e_all, u_all, s_all = [], [], []
            for d in spec.item_derivations():
                if (d.child, d.parent) in new:
                    k = new[(d.child, d.parent)]
                    e_all.append(edge_parts[k])
                    u_all.append(unmatched_parts[k])
                    s_all.append(stats[k])
                else:
                    e, u, st = old_parts[(d.child, d.parent)]
                    e_all.append(e)
                    u_all.append(u)
                    s_all.append(st)
            found += _kept_groups(kept.duplicates, set(tables))
            names = [d.name for d in spec.datasets.values() if d.has_items]
            parts, ranges, at = [], [], 0
            for n in names:
                if n in kept.summary.items:  # (light: its rows are copied from the kept file)
                    parts.append(kept.light_items(n))
                    ranges.append((at, kept.rows(n)[0], parts[-1].num_rows))
                else:
                    parts.append(tables[n])
                at += parts[-1].num_rows
            lineage = assemble_lineage(spec, parts, e_all, u_all, s_all, found, names=names)
            held = [records[n] if n not in kept.summary.items else NullRecords(p.num_rows)
                    for n, p in zip(names, parts, strict=True)]
            lineage.items = _one_record_chunk_each(lineage.items, held)
            lineage.hold_packed_records(held)
            lineage.hold_kept_rows(KeptRows(kept.items_file, tuple(ranges)))
            release_memory()
            return lineage
        finally:
            _release_normaliser_caches()


def _one_record_chunk_each(items: pa.Table, parts: Sequence[PackedRecords]) -> pa.Table:
    """``items`` with its ``record`` column null, one chunk per part of ``parts``."""
    i = items.schema.get_field_index("record")
    nulls = pa.chunked_array([pa.nulls(len(p), pa.string()) for p in parts], pa.string())
    return items.set_column(i, items.schema.field("record"), nulls)


def _kept_parts(kept: KeptFolder) -> dict[tuple[str, str], tuple[pa.Table, pa.Table, dict[str, Any]]]:
    """Each derivation of ``kept``: its edges, its unmatched rows and its counts (the tables
    hold the derivations one after another, in the order of the summary's counts)."""
    out = {}
    e_at = u_at = 0
    for counts in kept.summary.derivations:
        st = counts.to_dict()
        n_e, n_u = st["linked"], st["unmatched"]
        out[(st["child"], st["parent"])] = (kept.edges.slice(e_at, n_e), kept.unmatched.slice(u_at, n_u), st)
        e_at += n_e
        u_at += n_u
    if e_at != kept.edges.num_rows or u_at != kept.unmatched.num_rows:
        raise ValueError("the lineage's tables do not hold its summary's counts")
    return out


def _kept_groups(duplicates: pa.Table, without: set[str]) -> list[DuplicateGroup]:
    """The duplicate groups of the duplicates table, but those of the datasets ``without``."""
    groups: dict[tuple[str, str], list[str]] = {}
    cols = (duplicates.column(c).to_pylist() for c in ("dataset", "item", "group"))
    for ds, item, group in zip(*cols, strict=True):
        if ds not in without:
            groups.setdefault((ds, group), []).append(item)
    return [(ds, members) for (ds, _g), members in groups.items()]


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (if on), and restore it.

    Linking allocates millions of small lists and tuples, freed by reference counting;
    the collector's repeated passes over them cost a quarter of the time of a large
    link and find next to nothing.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def assemble_lineage(
    spec: FamilySpec,
    items: list[pa.Table],
    edge_parts: list[pa.Table],
    unmatched_parts: list[pa.Table],
    stats: list[dict[str, Any]],
    found: list[DuplicateGroup],
    *,
    names: Sequence[str] | None = None,
) -> Lineage:
    """The :class:`Lineage` of linked parts: items, edges, unmatched, duplicates and summary.

    Args:
        spec: The family spec.
        items: Each dataset's items table, in spec order (the datasets with items).
        edge_parts, unmatched_parts, stats: Per derivation, in spec order.
        found: Every dataset's duplicate groups.
        names: The datasets of ``items``, in order (default: the spec's datasets with items).
    """
    with_items = list(names) if names is not None else [d.name for d in spec.datasets.values() if d.has_items]
    table = pa.concat_tables(items) if items else ITEMS_SCHEMA.empty_table()
    edges = pa.concat_tables(edge_parts) if edge_parts else EDGES_SCHEMA.empty_table()
    unmatched = pa.concat_tables(unmatched_parts) if unmatched_parts else UNMATCHED_SCHEMA.empty_table()
    duplicates = duplicates_table(found, edges)
    dup_groups = Counter(
        ds for ds, _g in set(zip(duplicates.column("dataset").to_pylist(), duplicates.column("group").to_pylist(), strict=True))
    )
    summary = {
        "family": spec.name,
        "items": {d: t.num_rows for d, t in zip(with_items, items, strict=True)},
        "edges": edges.num_rows,
        "derivations": stats,
        "duplicate_groups": dict(sorted(dup_groups.items())),
        "unmatched": unmatched.num_rows,
    }
    summary["keys_unread"] = keys_unread(table)  # keys the spec names that could not be read (CL-W002)
    return Lineage(family_info(spec), table, edges, duplicates, unmatched, LinkSummary.from_dict(summary))


def _link_derivations(
    spec: FamilySpec, tables: dict[str, pa.Table], *, progress: bool, records: dict[str, PackedRecords] | None = None,
    derivations: Sequence[Derivation] | None = None,
) -> tuple[list[pa.Table], list[pa.Table], list[dict[str, Any]], list[DuplicateGroup]]:
    """Link every item derivation of ``spec``, and find each dataset's duplicate groups.

    One side per dataset, shared by its derivations (lists and normalised texts built
    once), released with its duplicate groups after the last derivation that uses it.
    ``records``: each dataset's raw records when its table holds them apart (what a link
    rule's fields are read from).

    Returns:
        ``(edge tables, unmatched tables, stats)`` per derivation, in spec order, and the
        duplicate groups of every dataset in ``tables``.
    """
    derivations = spec.item_derivations() if derivations is None else list(derivations)
    last_use = {name: k for k, d in enumerate(derivations) for name in (d.child, d.parent)}
    found: list[DuplicateGroup] = []
    for name in tables:
        if name not in last_use:
            found.extend(side_duplicates(name, Side(tables[name])))
    if len(derivations) > 1 and sum(t.num_rows for t in tables.values()) <= MAX_THREADED_ITEMS and thread_count() > 1:
        edge_parts, unmatched_parts, stats, groups = _link_threaded(spec, tables, records or {}, derivations, progress)
        for k, deriv in enumerate(derivations):  # the order one thread releases the sides in
            for name in dict.fromkeys((deriv.child, deriv.parent)):
                if last_use[name] == k:
                    found.extend(groups[name])
        return edge_parts, unmatched_parts, stats, found
    sides: dict[str, Side] = {}
    edge_parts, unmatched_parts, stats = [], [], []
    for k, deriv in enumerate(tqdm(derivations, desc="link", unit="derivation", disable=not progress)):
        for name in (deriv.child, deriv.parent):
            if name not in sides:
                sides[name] = Side(tables[name], (records or {}).get(name))
        e, u, s = _link_one(spec, deriv, sides[deriv.child], sides[deriv.parent])
        edge_parts.append(e)
        unmatched_parts.append(u)
        stats.append(s)
        done = [name for name in dict.fromkeys((deriv.child, deriv.parent)) if last_use[name] == k]
        if done:
            release_memory()  # what the derivation freed, before the duplicates are ranked
        for name in done:
            found.extend(side_duplicates(name, sides.pop(name)))
        release_memory()
    return edge_parts, unmatched_parts, stats, found


def _link_one(spec: FamilySpec, deriv: Derivation, child: Side, parent: Side) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """:func:`_link_sides` of one derivation; a link rule naming a field the records lack points at the spec."""
    try:
        return _link_sides(deriv, child, parent)
    except SpecError as exc:
        if exc.path is not None:
            raise
        raise SpecError(exc.message, path=spec.path, hint=exc.hint) from None


class _SharedSides:
    """The sides of the derivations linked on several threads: each dataset's side made by
    the first derivation that asks for it, shared, and handed back (for its duplicate
    groups) when the last derivation using it is done."""

    def __init__(self, tables: Mapping[str, pa.Table], records: Mapping[str, PackedRecords],
                 derivations: Sequence[Derivation]):
        self._tables, self._records = tables, records
        self._uses: Counter[str] = Counter(n for d in derivations for n in dict.fromkeys((d.child, d.parent)))
        self._sides: dict[str, Side] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> Side:
        with self._lock:
            side = self._sides.get(name)
            if side is None:
                side = self._sides[name] = Side(self._tables[name], self._records.get(name))
            return side

    def done(self, deriv: Derivation) -> list[tuple[str, Side]]:
        """The sides no derivation uses any more once ``deriv`` is linked (no longer shared)."""
        out = []
        with self._lock:
            for name in dict.fromkeys((deriv.child, deriv.parent)):
                self._uses[name] -= 1
                if not self._uses[name]:
                    out.append((name, self._sides.pop(name)))
        return out


def _link_threaded(
    spec: FamilySpec, tables: Mapping[str, pa.Table], records: Mapping[str, PackedRecords],
    derivations: Sequence[Derivation], progress: bool,
) -> tuple[list[pa.Table], list[pa.Table], list[dict[str, Any]], dict[str, list[DuplicateGroup]]]:
    """:func:`_link_derivations`' derivations on :func:`.threads.thread_count` threads (in
    spec order; each result is what one thread gives), and the duplicate groups per dataset."""
    sides = _SharedSides(tables, records, derivations)
    groups: dict[str, list[DuplicateGroup]] = {}
    bar = tqdm(total=len(derivations), desc="link", unit="derivation", disable=not progress)

    def one(deriv: Derivation) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
        out = _link_one(spec, deriv, sides.get(deriv.child), sides.get(deriv.parent))
        for name, side in sides.done(deriv):
            groups[name] = side_duplicates(name, side)
            del side
        release_memory()
        bar.update()
        return out

    order = _costliest_first(derivations, tables)
    try:
        done = threaded_map(one, [derivations[k] for k in order])
    finally:
        bar.close()
    results: list[Any] = [None] * len(derivations)
    for k, result in zip(order, done, strict=True):
        results[k] = result
    return [r[0] for r in results], [r[1] for r in results], [r[2] for r in results], groups


def _costliest_first(derivations: Sequence[Derivation], tables: Mapping[str, pa.Table]) -> list[int]:
    """The derivations' indices, those likely to take longest first (then in spec order), so
    that a long one does not start last while the other thread has nothing left to do:
    matching by text reads both sides' texts, the first index join to a parent reads the
    evidence of the parent's items (those after it share it), a join by id only takes rows."""
    costs, evidence_read = [], set()
    for d in derivations:
        child, parent = tables[d.child].num_rows, tables[d.parent].num_rows
        by = d.link.by if d.link is not None else "id"
        if by == "text":
            costs.append(child + parent)
        elif by == "index" and d.parent not in evidence_read:
            evidence_read.add(d.parent)
            costs.append(parent)
        else:
            costs.append(child // 4)
    return sorted(range(len(derivations)), key=lambda k: (-costs[k], k))
