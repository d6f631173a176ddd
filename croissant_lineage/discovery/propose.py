"""Proposing the derivations nobody declared: parents, activities and item edges.

:func:`discover` takes datasets of unknown origin (Croissant descriptors, roles inferred by
:mod:`croissant_lineage.discovery.roles`) and a reference corpus (a family, descriptors or a
lineage folder), and for each unknown dataset:

1. looks every item's normalised stem up in the corpus index
   (:mod:`croissant_lineage.discovery.index`): candidates scoring at least ``threshold``;
2. chooses parents greedily: the corpus dataset with candidates for the most items (ties:
   more exact stems, then name), then, among the items it leaves, the next one, while a
   dataset explains at least :data:`MIN_ITEMS` items and :data:`MIN_SHARE` of the child;
3. links the items of each (child, parent) pair with the linker's own function
   (:func:`~croissant_lineage.linking.linker.link_derivation`): by id when 95 % of the
   children share an id with a parent item of the same stem (a snapshot), else by stem
   (exact, fuzzy, options aligned, key compared) on the parent rows the index proposed,
   within subject blocks first when the two datasets' subject values are the same names
   (then without blocks for the children left), else without subject blocks;
4. drops edges whose stem was edited and which copy under half of the parent's options (a near
   stem alone is no evidence without a declared derivation: templated questions differ
   only by their numbers);
5. guesses the activity from the edges' evidence (:func:`guess_activity`), with the counts
   (a key column the child adds beside the parent's key counts as re-annotation evidence:
   :func:`added_key_changes`).

It writes ``OUT/family-fragment.json`` (datasets and proposed derivations in the family
spec's syntax, for a person to review), ``OUT/lineage/`` (a lineage folder whose edges say
``method: discovered``), ``OUT/discover.json`` (the report) and ``OUT/index/`` (reused by the
next run on the same corpus). A dataset with no relative in the corpus gets no derivation,
and the report says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.compute as pc
from rapidfuzz import fuzz

from croissant_lineage._io import atomic_write_json, read_json
from croissant_lineage._results import Result
from croissant_lineage.discovery.index import StemIndex, load_or_build
from croissant_lineage.discovery.refs import (
    ParentField,
    ParentLookup,
    child_fields,
    lookup,
    parent_field,
)
from croissant_lineage.discovery.roles import RoleGuess, guess_dataset
from croissant_lineage.discovery.translations import discover_translation, translation_edges
from croissant_lineage.errors import InputError
from croissant_lineage.family.spec import (
    DatasetSpec,
    Derivation,
    FamilySpec,
    LinkRule,
    as_spec,
)
from croissant_lineage.lineage.info import LinkSummary, family_info
from croissant_lineage.lineage.items import LETTERS, key_letter, load_items
from croissant_lineage.lineage.model import Lineage, is_lineage_folder
from croissant_lineage.lineage.schema import EDGES_SCHEMA, ITEMS_SCHEMA, UNMATCHED_SCHEMA
from croissant_lineage.linking.alignment import Checker
from croissant_lineage.linking.linker import link_derivation, link_pairs
from croissant_lineage.linking.normalize import normalize_stem

__all__ = [
    "MIN_ITEMS", "MIN_SHARE", "Discovery", "Proposal", "added_key_changes", "best_references", "discover", "guess_activity",
    "reference_proposal", "reference_rule",
]

#: A parent explains at least this many of the child's items...
MIN_ITEMS = 3
#: ...and at least this share of them.
MIN_SHARE = 0.01
#: Activity thresholds (shares of the pair's edges or of the parent's items).
_MOST = 0.5
_SOME = 0.01
_ALL = 0.95
#: An edited stem needs at least this option score (share of the parent's options copied).
_HALF = 50.0


@dataclass(frozen=True)
class Proposal:
    """One proposed derivation ``child <- parent`` with its evidence.

    Attributes:
        child, parent: Dataset names.
        activity: The guessed activity (one of the family spec's activities).
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
    """

    child: str
    parent: str
    activity: str
    child_items: int
    parent_items: int
    linked: int
    share: float
    parent_coverage: float
    evidence: dict[str, Any]
    also_matched: dict[str, int] = field(default_factory=dict)
    rule: str = ""
    runner_up: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        return {
            "child": self.child,
            "parent": self.parent,
            "activity": self.activity,
            "child_items": self.child_items,
            "parent_items": self.parent_items,
            "linked": self.linked,
            "share": round(self.share, 4),
            "parent_coverage": round(self.parent_coverage, 4),
            "evidence": dict(self.evidence),
            "also_matched": dict(self.also_matched),
            "rule": self.rule,
            "runner_up": dict(self.runner_up) if self.runner_up else None,
        }


@dataclass(repr=False)
class Discovery(Result):
    """What :func:`discover` found.

    Attributes:
        proposals: Proposed derivations, per child in input order, best parent first.
        roles: Per unknown dataset, the roles guessed (or why they could not be).
        no_relative: Unknown datasets with roles but no parent in the corpus.
        index: The corpus index's size, fingerprint and whether it was reused.
        lineage: Items (of the children and proposed parents) and discovered edges.
        out: The folder written (None when nothing was written).
    """

    proposals: list[Proposal]
    roles: dict[str, RoleGuess]
    no_relative: list[str]
    index: dict[str, Any]
    lineage: Lineage
    out: Path | None = None

    def __repr__(self) -> str:
        return f"Discovery(proposals={len(self.proposals)}, no_relative={self.no_relative}, refused={self.refused})"

    @property
    def refused(self) -> list[str]:
        """Unknown datasets whose roles could not be inferred."""
        return [name for name, g in self.roles.items() if not g.ok]

    def fragment(self) -> dict[str, Any]:
        """The family-spec fragment: the unknown datasets and the proposed derivations."""
        return _fragment(self)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: proposals, roles, refusals, datasets with no relative, the index."""
        return {
            "proposals": [p.to_dict() for p in self.proposals],
            "roles": {k: g.to_dict() for k, g in self.roles.items()},
            "refused": self.refused,
            "no_relative": list(self.no_relative),
            "index": dict(self.index),
            "edges": self.lineage.edges.num_rows,
        }


def guess_activity(edges: pa.Table, child_items: int, parent_items: int, *, rekeyed: int = 0) -> tuple[str, dict[str, int]]:
    """The activity a pair's edges point to, and the counts that support it.

    In order: ``snapshot`` (>= 95 % of edges join items of the same id and >= 95 % of the
    parent's items are reached: a subset with the same ids is a filter), ``option_expansion``
    (options added on most edges), ``re_annotation`` (keys changed, or re-keyed in an added
    column (``rekeyed``, :func:`added_key_changes`), on >= 1 % of edges), ``re_release``
    (stems edited on >= 1 %), ``filter`` (< 95 % of the parent's items reached), else ``copy``.

    Args:
        edges: The pair's edges (EDGES_SCHEMA).
        child_items, parent_items: Item counts of the two datasets.
        rekeyed: Linked child items whose key, in a column the parent does not have,
            names another answer than the parent's key (:func:`added_key_changes`);
            counted as ``key_changed_added_column``.

    Returns:
        ``(activity, counts)``.
    """
    n = edges.num_rows
    cols = {c: edges.column(c).to_pylist() for c in ("method", "stem_changed", "options_added", "options_dropped", "key_inherited", "child_item", "parent_item", "ambiguous")}
    counts = {
        "edges": n,
        "exact_stem": sum(1 for v in cols["stem_changed"] if v is False),
        "stem_edited": sum(1 for v in cols["stem_changed"] if v is True),
        "options_added": sum(1 for v in cols["options_added"] if v),
        "options_dropped": sum(1 for v in cols["options_dropped"] if v),
        "key_changed": sum(1 for v in cols["key_inherited"] if v is False),
        "key_inherited": sum(1 for v in cols["key_inherited"] if v is True),
        "same_id": sum(1 for c, p in zip(cols["child_item"], cols["parent_item"], strict=True) if c == p),
        "ambiguous": sum(1 for v in cols["ambiguous"] if v),
        "parents_reached": len(set(cols["parent_item"])),
        "key_changed_added_column": rekeyed,
    }
    if n == 0:
        return "copy", counts
    if counts["same_id"] >= _ALL * n and counts["parents_reached"] >= _ALL * parent_items:
        return "snapshot", counts
    if counts["options_added"] >= _MOST * n:
        return "option_expansion", counts
    if counts["key_changed"] + rekeyed >= _SOME * n:
        return "re_annotation", counts
    if counts["stem_edited"] >= _SOME * n:
        return "re_release", counts
    if counts["parents_reached"] < _ALL * parent_items:
        return "filter", counts
    return "copy", counts


def _key_text(value: Any, options: list[str] | None) -> str | None:
    """The option a key value names (a letter or a 0-based index), or None."""
    if value is None or isinstance(value, bool) or not options:
        return None
    letter = key_letter(value, "index", None) if str(value).strip().isdigit() else key_letter(value, "letter", None)
    if letter is None or LETTERS.index(letter) >= len(options):
        return None
    return normalize_stem(options[LETTERS.index(letter)])


def _row_pairs(edges: pa.Table, child: pa.Table, parent: pa.Table) -> list[tuple[int, int]]:
    """The edges as ``(child row, parent row)``."""
    crow = {it: i for i, it in enumerate(child.column("item").to_pylist())}
    prow = {it: j for j, it in enumerate(parent.column("item").to_pylist())}
    cols = (edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist())
    return [(crow[c], prow[p]) for c, p in zip(*cols, strict=True) if c in crow and p in prow]


def _column_keys(records: list[dict[str, Any]], col: str, options: list[list[str] | None]) -> list[tuple[int, str]] | None:
    """``(pair, option text)`` of each set value of ``col`` that reads as a key, or None when
    the column is not a key column (fewer than :data:`MIN_ITEMS` such values, or under half
    of its set values)."""
    values = [(n, r[col]) for n, r in enumerate(records) if r.get(col) not in (None, "", "None", "nan")]
    read = [(n, k) for n, v in values if (k := _key_text(v, options[n])) is not None]
    return read if len(read) >= MIN_ITEMS and len(read) >= _MOST * len(values) else None


def _parent_key_text(options: list[str] | None, key: str | None) -> str | None:
    if not options or key is None or key not in LETTERS or LETTERS.index(key) >= len(options):
        return None
    return normalize_stem(options[LETTERS.index(key)])


def added_key_changes(edges: pa.Table, child: pa.Table, parent: pa.Table) -> tuple[int, list[str]]:
    """Linked child items re-keyed in a column the parent does not have.

    A re-annotation often keeps the source's key and adds its verdict beside it (MMLU-Redux:
    ``correct_answer``). A child record field absent from the parent's records is a *key
    column* when, on the linked items, at least :data:`MIN_ITEMS` of its set values, and at
    least half of them, read as a key (a letter or a 0-based index naming one of the item's
    options). An item counts when a key column names an option whose text differs from the
    text of the parent item's key.

    Args:
        edges: The pair's edges (EDGES_SCHEMA).
        child, parent: Item tables of the two datasets (with their ``record`` JSON).

    Returns:
        ``(items re-keyed, the key columns found)``.
    """
    pairs = _row_pairs(edges, child, parent)
    if not pairs:
        return 0, []
    precs, crecs = parent.column("record"), child.column("record")
    parent_fields: set[str] = set()
    for _, j in pairs[:200]:
        parent_fields.update(json.loads(precs[j].as_py() or "{}"))
    records = [json.loads(crecs[i].as_py() or "{}") for i, _ in pairs]
    copts, popts, pkeys = child.column("options").to_pylist(), parent.column("options").to_pylist(), parent.column("key").to_pylist()
    options = [copts[i] for i, _ in pairs]
    parent_keys = [_parent_key_text(popts[j], pkeys[j]) for _, j in pairs]
    changed: set[int] = set()
    columns = []
    for col in sorted({k for r in records for k in r} - parent_fields):
        read = _column_keys(records, col, options)
        if read is None:
            continue
        columns.append(col)
        changed.update(n for n, k in read if parent_keys[n] is not None and k != parent_keys[n])
    return len(changed), columns


# ---------------------------------------------------------------- inputs


def _corpus_specs(against: list[str | Path | FamilySpec], data_dir: str | Path | None) -> tuple[dict[str, pa.Table], dict[str, DatasetSpec]]:
    """The reference corpus: dataset name -> item table (and its spec when there is one)."""
    tables: dict[str, pa.Table] = {}
    specs: dict[str, DatasetSpec] = {}
    for src in against:
        if isinstance(src, FamilySpec) or not _is_descriptor(src):
            if not isinstance(src, FamilySpec) and is_lineage_folder(src):
                items = Lineage.read(src).items
                for name in sorted(set(items.column("dataset").to_pylist())):
                    tables[name] = items.filter(pc.equal(items.column("dataset"), name))
                continue
            spec = as_spec(src, "against")
            for ds in spec.datasets.values():
                if ds.has_items:
                    tables[ds.name] = load_items(ds, data_dir=data_dir)
                    specs[ds.name] = ds
            continue
        ref, guess = guess_dataset(src, data_dir=data_dir)
        if ref is None:
            raise InputError(f"reference descriptor: roles not inferable ({guess.refused})", path=src)
        tables[ref.name] = load_items(ref, data_dir=data_dir)
        specs[ref.name] = ref
    return tables, specs


def _is_descriptor(src: str | Path) -> bool:
    """A JSON file that is not a family spec (no ``datasets`` list)."""
    path = Path(src)
    if not (path.suffix == ".json" and path.is_file()):
        return False
    try:
        doc = read_json(path)
    except InputError:
        return False
    return not (isinstance(doc, dict) and isinstance(doc.get("datasets"), list))


# ---------------------------------------------------------------- matching


@dataclass
class _Hits:
    """Per corpus dataset: child row -> its candidate corpus rows (and whether one is exact)."""

    rows: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    exact: dict[str, set[int]] = field(default_factory=dict)


def _hits(index: StemIndex, stems: list[str], threshold: float) -> _Hits:
    hits = _Hits()
    for i, stem in enumerate(stems):
        if not stem:
            continue
        for c in index.candidates(stem, threshold=threshold):
            ds = index.datasets[c.row]
            hits.rows.setdefault(ds, {}).setdefault(i, []).append(c.row)
            if c.exact:
                hits.exact.setdefault(ds, set()).add(i)
    return hits


def _choose_parents(hits: _Hits, n: int, exclude: str) -> list[tuple[str, list[int], dict[str, int]]]:
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
    child: str, parent: str, child_table: pa.Table, parent_table: pa.Table, kids: list[int], prows: list[int], threshold: float
) -> tuple[pa.Table, pa.Table]:
    """The linker's edges and unmatched rows for the proposed children: by id when the ids
    join (see :func:`_id_join_holds`), else by stem on the parent rows the index proposed."""
    if _id_join_holds(child_table, parent_table, kids, threshold):
        deriv = Derivation(child, parent, _UNKNOWN_ACTIVITY, LinkRule(by="id"))
        edges, unmatched, _ = link_derivation(deriv, child_table.take(kids), parent_table, translated=False)
        return edges, unmatched
    parents = parent_table.take(sorted(set(prows)))
    kids_table = child_table.take(kids)
    first: list[pa.Table] = []
    if _subjects_shared(kids_table, parents):  # same subject values: the linker's subject blocks first
        deriv = Derivation(child, parent, _UNKNOWN_ACTIVITY, LinkRule(by="text", child_block="subject", parent_block="subject", threshold=threshold))
        edges, _, _ = link_derivation(deriv, kids_table, parents, translated=False)
        first.append(edges)
        done = set(edges.column("child_item").to_pylist())
        kids_table = kids_table.filter(pa.array([i not in done for i in kids_table.column("item").to_pylist()], pa.bool_()))
    deriv = Derivation(child, parent, _UNKNOWN_ACTIVITY, LinkRule(by="text", child_block=None, parent_block=None, threshold=threshold))
    edges, unmatched, _ = link_derivation(deriv, kids_table, parents, translated=False)
    return (pa.concat_tables([*first, edges]) if first else edges), unmatched


def _subjects_shared(child: pa.Table, parent: pa.Table) -> bool:
    """True when >= 95 % of the children's subjects are subject values of the parent's items:
    the two datasets name their subjects alike, so an identical item in two subjects (MMLU has
    college_medicine items copied into clinical_knowledge) is linked within its own subject."""
    subjects = [s for s in child.column("subject").to_pylist() if s]
    known = set(parent.column("subject").to_pylist())
    return bool(subjects) and sum(1 for s in subjects if s in known) >= _ALL * len(subjects)


def _drop_weak(edges: pa.Table) -> tuple[pa.Table, int]:
    """The edges without those whose stem was edited and which copy fewer than half of the
    parent's options (both having options): with no declared derivation, a near stem alone
    is not evidence (templated questions differ by their numbers); and how many were dropped."""
    both_have_options = pc.and_(
        pc.greater(pc.add(edges.column("options_copied"), edges.column("options_added")), 0),
        pc.greater(pc.add(edges.column("options_copied"), edges.column("options_dropped")), 0),
    )
    no_copy = pc.and_(pc.less(edges.column("options_score"), _HALF), both_have_options)
    weak = pc.and_(pc.fill_null(edges.column("stem_changed"), False), no_copy)
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
    best first (most child items named, then ids before rows before stems, then by name); a
    field that holds one dataset's ids is not read as another's row numbers."""
    fields = child_fields(table)
    found = []
    for other in sorted(corpus):
        if other == name:
            continue
        if other not in lookups:
            lookups[other] = lookup(corpus[other])
        pf = parent_field(fields, lookups[other])
        if pf is not None and pf.matched >= max(MIN_ITEMS, MIN_SHARE * table.num_rows):
            found.append((other, pf))
    as_ids = {pf.field for _, pf in found if pf.kind == "id"}  # a field that holds ids is no row number elsewhere
    found = [(o, pf) for o, pf in found if not (pf.kind == "row" and pf.field in as_ids)]
    found.sort(key=lambda t: (-t[1].matched, t[1].rank()[2], t[0]))
    return found


def reference_rule(child: str, parent: str, pf: ParentField, child_items: int) -> str:
    """The direction rule of a reference, in words with its counts."""
    return (f"reference: {child}.{pf.field} names {pf.kind}s of {parent} on {pf.matched} of {child_items} items"
            f"{' (the name says so)' if pf.named else ''}")


def reference_proposal(
    child: str, parent: str, child_table: pa.Table, parent_table: pa.Table, pf: ParentField
) -> tuple[Proposal, pa.Table]:
    """The proposal and edges of a pair joined by a parent-reference field (both modes)."""
    deriv = Derivation(child, parent, _UNKNOWN_ACTIVITY, LinkRule(by="id", child_field=pf.field))
    edges = link_pairs(deriv, child_table, parent_table, list(pf.pairs), method="reference", translated=False)
    rekeyed, _ = added_key_changes(edges, child_table, parent_table)
    activity, counts = guess_activity(edges, child_table.num_rows, parent_table.num_rows, rekeyed=rekeyed)
    n, m = child_table.num_rows, parent_table.num_rows
    evidence: dict[str, Any] = {**counts, **pf.evidence()}
    prop = Proposal(child, parent, activity, n, m, edges.num_rows, edges.num_rows / n if n else 0.0,
                    counts["parents_reached"] / m if m else 0.0, evidence, rule=reference_rule(child, parent, pf, n))
    return prop, _with(edges, activity)


def _discover_by_reference(
    name: str, table: pa.Table, corpus: dict[str, pa.Table], lookups: dict[str, ParentLookup]
) -> tuple[list[Proposal], list[pa.Table]]:
    refs = best_references(name, table, corpus, lookups)
    if not refs:
        return [], []
    parent, pf = refs[0]
    prop, edges = reference_proposal(name, parent, table, corpus[parent], pf)
    others = {o: r.matched for o, r in refs[1:]}
    runner = {"parent": refs[1][0], "score": refs[1][1].matched, "by": f"reference {refs[1][1].field}"} if len(refs) > 1 else None
    return [replace(prop, also_matched=others, runner_up=runner)], [edges]


def _discover_one(
    name: str, table: pa.Table, corpus: dict[str, pa.Table], index: StemIndex, threshold: float
) -> tuple[list[Proposal], list[pa.Table], list[pa.Table]]:
    stems = [normalize_stem(s) for s in table.column("stem").to_pylist()]
    hits = _hits(index, stems, threshold)
    start: dict[str, int] = {}
    for j, d in enumerate(index.datasets):
        start.setdefault(d, j)
    proposals, edge_parts, unmatched_parts = [], [], []
    for parent, kids, others in _choose_parents(hits, table.num_rows, name):
        prows = [r - start[parent] for i in kids for r in hits.rows[parent][i]]
        edges, unmatched = _link_pair(name, parent, table, corpus[parent], kids, prows, threshold)
        edges, weak = _drop_weak(edges)
        if edges.num_rows < max(MIN_ITEMS, MIN_SHARE * table.num_rows):
            continue
        rekeyed, _ = added_key_changes(edges, table, corpus[parent])
        activity, counts = guess_activity(edges, table.num_rows, corpus[parent].num_rows, rekeyed=rekeyed)
        counts["dropped_edited_stem_few_options"] = weak
        edge_parts.append(_with(edges, activity))
        unmatched_parts.append(unmatched)
        runner = next(({"parent": d, "score": c, "by": "stems"} for d, c in sorted(others.items(), key=lambda t: (-t[1], t[0]))), None)
        rule = (f"stems: {len(kids)} of {table.num_rows} items have a candidate in {parent}, the most of any corpus dataset"
                + (f" ({runner['parent']} {runner['score']})" if runner else ""))
        proposals.append(
            Proposal(
                name, parent, activity, table.num_rows, corpus[parent].num_rows, edges.num_rows,
                edges.num_rows / table.num_rows if table.num_rows else 0.0,
                counts["parents_reached"] / corpus[parent].num_rows if corpus[parent].num_rows else 0.0,
                counts, others, rule=rule, runner_up=runner,
            )
        )
    return proposals, edge_parts, unmatched_parts


def _discover_translated(
    name: str, table: pa.Table, corpus: dict[str, pa.Table], languages: dict[str, str | None],
    parent_checkers: dict[str, Checker],
) -> tuple[list[Proposal], list[pa.Table]]:
    """The translation pass (:mod:`croissant_lineage.discovery.translations`) of a dataset
    the stem index found no relative for."""
    best, tried = discover_translation(name, table, corpus, languages, parent_checkers)
    if best is None:
        return [], []
    edges, counts = translation_edges(name, table, corpus[best.parent], best, languages)
    counts["parents_reached"] = len({j for _, j, _ in best.pairs})
    parent_items = corpus[best.parent].num_rows
    others = {m.parent: len(m.pairs) for m in tried if m is not best}
    runner = next(({"parent": d, "score": c, "by": "translation pairs"} for d, c in sorted(others.items(), key=lambda t: (-t[1], t[0]))), None)
    proposal = Proposal(
        name, best.parent, "translation", table.num_rows, parent_items, edges.num_rows,
        edges.num_rows / table.num_rows if table.num_rows else 0.0,
        counts["parents_reached"] / parent_items if parent_items else 0.0,
        counts, others,
        rule=f"translation: {len(best.pairs)} of {table.num_rows} items paired by {best.how} with {best.parent}, the most of any corpus dataset",
        runner_up=runner,
    )
    return [proposal], [_with(edges, "translation")]


# ---------------------------------------------------------------- the entry point


def discover(
    descriptors: list[str | Path],
    against: list[str | Path | FamilySpec],
    *,
    out: str | Path | None = None,
    data_dir: str | Path | None = None,
    roles: dict[str, Any] | None = None,
    key_format: str | None = None,
    threshold: float = 85.0,
    index_dir: str | Path | None = None,
    force: bool = False,
) -> Discovery:
    """Propose the parents, activities and item edges of datasets of unknown origin.

    Args:
        descriptors: Croissant descriptors of the unknown datasets.
        against: The reference corpus: family names or spec paths, descriptors, or
            lineage folders.
        out: Folder to write (fragment, lineage, report, index); None writes nothing
            but the index when ``index_dir`` is given.
        data_dir: Folder relative file URLs resolve against (descriptors and families).
        roles: Role overrides for the unknown datasets (spec syntax).
        key_format: The key's format (``letter``, ``index`` or ``text``) when ``roles``
            overrides the key.
        threshold: Minimum stem score (0-100) of a candidate parent item.
        index_dir: Where the corpus index is saved and reused (default ``OUT/index``).
        force: Replace an ``OUT/lineage`` folder this library did not write.

    Returns:
        The :class:`Discovery`.

    Raises:
        LineageError: unreadable corpus, or an unknown dataset named twice.
        InputError: a descriptor does not exist (checked before anything is read or written).
    """
    for path in descriptors:
        if not Path(path).is_file():
            raise InputError("descriptor not found", path=path, hint="give the path of a Croissant descriptor")
    guesses: dict[str, RoleGuess] = {}
    unknown: dict[str, tuple[DatasetSpec, pa.Table]] = {}
    for path in descriptors:
        ds, guess = guess_dataset(path, data_dir=data_dir, roles=roles, key_format=key_format)
        label = ds.name if ds is not None else Path(path).parent.name if Path(path).name == "metadata.json" else Path(path).stem
        if label in guesses:
            raise InputError(f"dataset {label!r} given twice", path=path)
        guesses[label] = guess
        if ds is not None:
            unknown[label] = (ds, load_items(ds, data_dir=data_dir))
    corpus, corpus_specs = _corpus_specs(against, data_dir)
    corpus = {k: v for k, v in corpus.items() if k not in unknown}
    if index_dir is None and out is not None:
        index_dir = Path(out) / "index"
    index = load_or_build(index_dir, corpus)
    proposals: list[Proposal] = []
    edges: list[pa.Table] = []
    unmatched: list[pa.Table] = []
    languages = {n: (s.languages[0] if s.languages else None) for n, s in corpus_specs.items()}
    parent_checkers: dict[str, Checker] = {}
    lookups: dict[str, ParentLookup] = {}
    for name, (ds, table) in unknown.items():
        p, e = _discover_by_reference(name, table, corpus, lookups)  # a field naming the parent decides
        u: list[pa.Table] = []
        if not p:
            p, e, u = _discover_one(name, table, corpus, index, threshold)
        if not p:  # no relative in the same language: a translation?
            languages[name] = ds.languages[0] if ds.languages else None
            p, e = _discover_translated(name, table, corpus, languages, parent_checkers)
        proposals += p
        edges += e
        unmatched += u
    no_relative = [n for n in unknown if not any(p.child == n for p in proposals)]
    lineage = _lineage(unknown, corpus, corpus_specs, proposals, edges, unmatched)
    result = Discovery(
        proposals, guesses, no_relative,
        {"rows": len(index), "fingerprint": index.fingerprint, "reused": index.reused, "folder": str(index_dir) if index_dir else None},
        lineage,
    )
    if out is not None:
        result.out = _write(result, Path(out), force=force)
    return result


def _lineage(
    unknown: dict[str, tuple[DatasetSpec, pa.Table]],
    corpus: dict[str, pa.Table],
    corpus_specs: dict[str, DatasetSpec],
    proposals: list[Proposal],
    edges: list[pa.Table],
    unmatched: list[pa.Table],
) -> Lineage:
    parents = sorted({p.parent for p in proposals})
    datasets = {n: s for n, (s, _) in unknown.items()}
    for p in parents:
        datasets[p] = corpus_specs.get(p) or DatasetSpec(name=p, iri=p)
    derivs = tuple(
        Derivation(p.child, p.parent, p.activity, LinkRule(by="text", child_block=None, parent_block=None))
        for p in proposals
    )
    spec = FamilySpec("discovered", None, datasets, derivs, title="Discovered derivations")
    items = pa.concat_tables([t for _, t in unknown.values()] + [corpus[p] for p in parents]) if datasets else None
    e = pa.concat_tables(edges) if edges else EDGES_SCHEMA.empty_table()
    u = pa.concat_tables(unmatched) if unmatched else UNMATCHED_SCHEMA.empty_table()
    summary = {
        "family": "discovered",
        "items": {n: t.num_rows for n, (_, t) in unknown.items()} | {p: corpus[p].num_rows for p in parents},
        "edges": e.num_rows,
        "derivations": [p.to_dict() for p in proposals],
        "unmatched": u.num_rows,
    }
    return Lineage(family_info(spec), items if items is not None else ITEMS_SCHEMA.empty_table(), e, unmatched=u, summary=LinkSummary.from_dict(summary))


#: What a person must do for the spec to reproduce a translation discovered by positions or tokens.
_RULE_NOTES = {
    "positions": ". The child's ids end in the parent item's row number within the subject: set the "
                 "child's id role so that it names the parent's ids (e.g. '{Subject}/test/{ID}').",
    "tokens": ". Paired by the numbers, formulas and names that survive translation: no link rule "
              "reproduces these pairs; review the edges in lineage/ before declaring one.",
}


def _fragment_rule(p: Proposal) -> dict[str, Any]:
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


def _fragment(result: Discovery) -> dict[str, Any]:
    datasets = []
    for name, guess in result.roles.items():
        if guess.ok:
            datasets.append({"name": name, "roles": guess.roles, "key_format": guess.key_format})
    derivations = [
        {
            "child": p.child,
            "parent": p.parent,
            "activity": p.activity,
            **_fragment_rule(p),
            "note": (
                f"discovered: {p.linked} of {p.child_items} child items linked ({100 * p.share:.1f} %), "
                f"{p.evidence['parents_reached']} of {p.parent_items} parent items reached; "
                + ", ".join(f"{k} {v}" for k, v in p.evidence.items() if k not in ("edges", "parents_reached"))
                + _RULE_NOTES.get(str(p.evidence.get("paired_by")), "")
                + (f"; {p.rule}" if p.rule else "")
            ),
        }
        for p in result.proposals
    ]
    return {"datasets": datasets, "derivations": derivations}


class _Written(Protocol):
    """What :func:`_write` needs of a discovery result."""

    lineage: Lineage

    def fragment(self) -> dict[str, Any]: ...
    def to_dict(self) -> dict[str, Any]: ...


def _write(result: _Written, out: Path, *, force: bool = False) -> Path:
    """``OUT/lineage/`` (first: a folder this library did not write is replaced only with
    ``force``), ``OUT/family-fragment.json`` and ``OUT/discover.json`` (without the index's folder)."""
    out.mkdir(parents=True, exist_ok=True)
    result.lineage.write(out / "lineage", force=force)
    atomic_write_json(out / "family-fragment.json", result.fragment())
    report = result.to_dict()
    report["index"] = {k: v for k, v in report["index"].items() if k in ("rows", "fingerprint")}
    atomic_write_json(out / "discover.json", report)
    return out
