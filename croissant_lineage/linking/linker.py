"""Reconstructing item-level lineage: which child item came from which parent item.

For each derivation of a family spec with item data on both sides, every selected
child item is linked to at most one parent item:

* ``by: id`` / ``by: index`` - a child field (default: the child's own id) names the
  parent item id. ``index`` marks row-index conventions whose alignment is not
  guaranteed (verify them with :mod:`croissant_lineage.audits.translations`).
* ``by: text`` - the normalised stem is looked up among the parents of the same block
  (subject by default): an exact match first; where several parents share the stem,
  the one whose options the child copies best wins and the others are recorded as
  alternatives (``ambiguous`` when the options cannot separate them). The rest are
  scored with RapidFuzz (``ratio`` on normalised stems, one ``cdist`` per block) and
  linked only at or above the derivation's ``threshold``; among near-equal stems
  (within 3 points of the best) option overlap decides. Below the threshold the child
  is reported as unmatched with its best candidate.

Every edge carries its evidence: method, stem score (0-100), the option diff (which
child option copies which parent option; added and dropped options) and whether the
key's text was inherited. Translations pair options by position.
"""

from __future__ import annotations

import gc
import json
import re
import weakref
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from rapidfuzz import fuzz
from rapidfuzz.process import cdist
from tqdm.auto import tqdm

from croissant_lineage.errors import SpecError
from croissant_lineage.family.spec import Derivation, FamilySpec, LinkRule, load_family
from croissant_lineage.lineage.items import LETTERS, evaluate, load_items
from croissant_lineage.lineage.model import Lineage, family_info
from croissant_lineage.lineage.schema import DUPLICATES_SCHEMA, EDGES_SCHEMA, UNMATCHED_SCHEMA
from croissant_lineage.linking.normalize import normalize_option, normalize_stem
from croissant_lineage.linking.options import OptionDiff, diff_normalized, positional_diff

__all__ = ["Match", "find_duplicates", "link", "link_derivation", "match_text"]

#: Fuzzy candidates within this many points of the best stem score compete on options.
NEAR = 3.0


@dataclass(frozen=True)
class Match:
    """The chosen parent of one child item (indices into the parent table)."""

    child: int
    parent: int
    method: str
    score: float
    alternatives: tuple[int, ...] = ()
    ambiguous: bool = False


class _RecordColumns(Mapping[str, list[Any]]):
    """Record fields as columns, plus the roles ``subject`` and ``item`` (for fields the
    records lack). The records' JSON is parsed on first use and only the columns asked
    for are kept: keeping every field of every record doubled the memory of a link."""

    def __init__(self, side: _Side):
        self._side = weakref.proxy(side)  # no reference cycle: a side is freed on release
        self._names: dict[str, None] | None = None
        self._cols: dict[str, list[Any]] = {}

    def _load(self, key: str) -> None:
        if self._names is not None and (key in self._cols or key not in self._names):
            return
        names: dict[str, None] = {}
        values: list[Any] = []
        for r in self._side.table.column("record").to_pylist():
            rec = json.loads(r) if r else {}
            names.update(dict.fromkeys(rec))
            values.append(rec.get(key))
        self._names = names
        if key in names:
            self._cols[key] = values

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        self._load(key)
        return key in self._cols or key in ("subject", "item")

    def __getitem__(self, key: str) -> list[Any]:
        self._load(key)
        if key in self._cols:
            return self._cols[key]
        if key == "subject":
            return self._side.subjects
        if key == "item":
            return self._side.ids
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        self._load("")
        assert self._names is not None
        return iter([*self._names, *(k for k in ("subject", "item") if k not in self._names)])

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass
class _Side:
    """One dataset's items as Python lists, with lazily parsed records.

    Only what linking reads is kept as Python objects: ids, keys, option counts and
    the normalised stems and options (raw texts are read from the table when needed).
    """

    table: pa.Table

    def __post_init__(self) -> None:
        t = self.table
        self.ids: list[str] = t.column("item").to_pylist()
        self.keys: list[str | None] = t.column("key").to_pylist()
        #: Options per item (0 when None or empty).
        self.n_options: list[int] = pc.fill_null(pc.list_value_length(t.column("options")), 0).to_pylist()
        self._subjects: list[str | None] | None = None
        self._columns = _RecordColumns(self)
        self._norm: list[str] | None = None
        self._norm_opts: list[list[str] | None] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def subjects(self) -> list[str | None]:
        if self._subjects is None:
            self._subjects = self.table.column("subject").to_pylist()
        return self._subjects

    @property
    def norm_stems(self) -> list[str]:
        if self._norm is None:
            self._norm = [normalize_stem(s) for s in self.table.column("stem").to_pylist()]
        return self._norm

    @property
    def norm_options(self) -> list[list[str] | None]:
        if self._norm_opts is None:
            self._norm_opts = [
                None if o is None else [normalize_option(x) for x in o]
                for o in self.table.column("options").to_pylist()
            ]
        return self._norm_opts

    def columns(self) -> Mapping[str, list[Any]]:
        """Record fields as columns, plus the roles ``subject`` and ``item``."""
        return self._columns

    def eval(self, expr: Any, where: str) -> list[Any]:
        return evaluate(expr, self.columns(), len(self), where)


def _key_index(key: str | None) -> int | None:
    return LETTERS.index(key) if key and key in LETTERS else None


def _best_by_options(child_opts: list[str] | None, parent: _Side, cands: Iterable[int]) -> list[tuple[tuple[float, int], int]]:
    """Candidates sorted best first by (option score, copied options); options normalised."""
    scored = []
    for j in cands:
        popts = parent.norm_options[j]
        if child_opts is not None and popts is not None:
            d = diff_normalized(child_opts, popts)
            scored.append(((d.score, d.copied), j))
        else:
            scored.append(((0.0, 0), j))
    scored.sort(key=lambda t: (-t[0][0], -t[0][1], t[1]))
    return scored


def _block_keys(side: _Side, expr: Any, where: str) -> list[Any]:
    if expr is None:
        return [None] * len(side)
    return [None if v is None else str(v) for v in side.eval(expr, where)]


def match_text(
    child: _Side, parent: _Side, rule: LinkRule, selected: list[int], where: str = ""
) -> tuple[list[Match], dict[int, tuple[int | None, float]]]:
    """Link selected children to parents by stem (see module docstring).

    Returns:
        ``(matches, unmatched)`` where ``unmatched`` maps a child index to its best
        parent candidate (or None) and that candidate's score.
    """
    cblock = _block_keys(child, rule.child_block, where + "child_block ")
    pblock = _block_keys(parent, rule.parent_block, where + "parent_block ")
    by_block: dict[Any, list[int]] = defaultdict(list)
    exact: dict[tuple[Any, str], list[int]] = defaultdict(list)
    for j, (b, s) in enumerate(zip(pblock, parent.norm_stems, strict=True)):
        by_block[b].append(j)
        exact[(b, s)].append(j)
    matches: list[Match] = []
    pending: dict[Any, list[int]] = defaultdict(list)
    fallback: dict[int, Match] = {}
    for i in selected:
        b = cblock[i]
        cands = exact.get((b, child.norm_stems[i]))
        if not cands:
            pending[b].append(i)
            continue
        ranked = _best_by_options(child.norm_options[i], parent, cands)
        (best_ev, best), rest = ranked[0], ranked[1:]
        tie = any(ev == best_ev for ev, _ in rest)
        m = Match(i, best, "exact", 100.0, tuple(j for _, j in rest), tie)
        if best_ev[0] == 0.0 and child.n_options[i] and parent.n_options[best]:
            # Same stem, none of the options: a generic stem; let fuzzy look further.
            fallback[i] = m
            pending[b].append(i)
        else:
            matches.append(m)
    unmatched: dict[int, tuple[int | None, float]] = {}
    for b, kids in sorted(pending.items(), key=lambda kv: str(kv[0])):
        pool = by_block.get(b, [])
        if not pool:
            for i in kids:
                if i in fallback:
                    matches.append(fallback[i])
                else:
                    unmatched[i] = (None, 0.0)
            continue
        scores = cdist(
            [child.norm_stems[i] for i in kids],
            [parent.norm_stems[j] for j in pool],
            scorer=fuzz.ratio,
            dtype=np.float32,
            workers=1,
        )
        for row, i in enumerate(kids):
            srow = scores[row]
            k = int(srow.argmax())
            top = float(srow[k])
            if top < rule.threshold:
                if i in fallback:
                    matches.append(fallback[i])
                else:
                    unmatched[i] = (pool[k], round(top, 2))
                continue
            near = [pool[c] for c in np.flatnonzero(srow >= top - NEAR)]
            ranked = _best_by_options(child.norm_options[i], parent, near)
            order = sorted(
                ((ev, float(srow[pool.index(j)]), j) for ev, j in ranked),
                key=lambda t: (-t[0][0], -t[0][1], -t[1], t[2]),
            )
            best_ev, best_score, best = order[0]
            if i in fallback and best_ev[0] == 0.0:
                matches.append(fallback[i])
                continue
            tie = any(ev == best_ev and s == best_score for ev, s, _ in order[1:])
            alts = tuple(j for _, _, j in order[1:])
            matches.append(Match(i, best, "fuzzy", round(best_score, 2), alts, tie))
    return matches, unmatched


def _match_id(child: _Side, parent: _Side, rule: LinkRule, selected: list[int], where: str) -> tuple[list[Match], dict[int, tuple[int | None, float]]]:
    targets = child.eval(rule.child_field, where + "child_field ") if rule.child_field else child.ids
    index = {pid: j for j, pid in enumerate(parent.ids)}
    matches: list[Match] = []
    unmatched: dict[int, tuple[int | None, float]] = {}
    for i in selected:
        t = targets[i]
        key = None if t is None else (str(int(t)) if isinstance(t, float) and t.is_integer() else str(t))
        j = index.get(key) if key is not None else None
        if j is None:
            unmatched[i] = (None, 0.0)
        else:
            matches.append(Match(i, j, rule.by, 100.0))
    return matches, unmatched


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
    return _link_sides(deriv, _Side(child_table), _Side(parent_table), translated=translated)


def _link_sides(
    deriv: Derivation, child: _Side, parent: _Side, *, translated: bool | None = None
) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """:func:`link_derivation` on sides that may be shared between derivations (a parent
    of several children is read into lists and normalised once)."""
    rule = deriv.link
    if rule is None:
        raise SpecError(f"derivation {deriv.child} <- {deriv.parent} has no item link rule")
    where = f"derivation {deriv.child} <- {deriv.parent}: "
    selected = list(range(len(child)))
    if rule.select:
        rx = re.compile(rule.select["regex"])
        values = child.eval(rule.select["field"], where + "select ")
        selected = [i for i in selected if values[i] is not None and rx.search(str(values[i]))]
    if rule.by == "text":
        matches, unmatched = match_text(child, parent, rule, selected, where)
    else:
        matches, unmatched = _match_id(child, parent, rule, selected, where)
    matches.sort(key=lambda m: m.child)
    if translated is None:
        translated = deriv.is_translation
    rows: dict[str, list[Any]] = {f.name: [] for f in EDGES_SCHEMA}
    for m in matches:
        diff: OptionDiff
        if translated:  # options pair by position: only their counts matter
            diff = positional_diff(("",) * child.n_options[m.child], ("",) * parent.n_options[m.parent])
        else:
            diff = diff_normalized(child.norm_options[m.child] or [], parent.norm_options[m.parent] or [])
        ck, pk = _key_index(child.keys[m.child]), _key_index(parent.keys[m.parent])
        if translated:
            key_inh = None if ck is None or pk is None else ck == pk
            score, stem_changed = m.score, None
        else:
            key_inh = diff.key_inherited(ck, pk)
            same = child.norm_stems[m.child] == parent.norm_stems[m.parent]
            score = m.score if m.method in ("exact", "fuzzy") else (
                100.0 if same else round(fuzz.ratio(child.norm_stems[m.child], parent.norm_stems[m.parent]), 2)
            )
            stem_changed = not same
        rows["child_dataset"].append(deriv.child)
        rows["child_item"].append(child.ids[m.child])
        rows["parent_dataset"].append(deriv.parent)
        rows["parent_item"].append(parent.ids[m.parent])
        rows["activity"].append(deriv.activity)
        rows["method"].append(m.method)
        rows["score"].append(float(score))
        rows["options_score"].append(diff.score)
        rows["option_map"].append(list(diff.option_map))
        rows["options_copied"].append(diff.copied)
        rows["options_added"].append(diff.added)
        rows["options_dropped"].append(diff.dropped)
        rows["key_inherited"].append(key_inh)
        rows["stem_changed"].append(stem_changed)
        rows["ambiguous"].append(m.ambiguous)
        rows["alternatives"].append([parent.ids[j] for j in m.alternatives])
    edges = pa.table(rows, schema=EDGES_SCHEMA)
    urows: dict[str, list[Any]] = {f.name: [] for f in UNMATCHED_SCHEMA}
    for i, (j, s) in sorted(unmatched.items()):
        urows["child_dataset"].append(deriv.child)
        urows["child_item"].append(child.ids[i])
        urows["parent_dataset"].append(deriv.parent)
        urows["best_parent_item"].append(None if j is None else parent.ids[j])
        urows["best_score"].append(s)
        urows["reason"].append(
            "no parent with that id" if rule.by != "text"
            else ("no parent in block" if j is None else f"best stem score {s} < threshold {rule.threshold}")
        )
    methods = Counter(m.method for m in matches)
    stats = {
        "child": deriv.child,
        "parent": deriv.parent,
        "activity": deriv.activity,
        "children": len(child),
        "selected": len(selected),
        "linked": len(matches),
        "by_method": dict(sorted(methods.items())),
        "unmatched": len(unmatched),
        "ambiguous": sum(m.ambiguous for m in matches),
        "with_alternatives": sum(bool(m.alternatives) for m in matches),
        "key_inherited": sum(1 for v in rows["key_inherited"] if v is True),
        "key_changed": sum(1 for v in rows["key_inherited"] if v is False),
        "options_added": int(sum(rows["options_added"])),
    }
    return edges, pa.table(urows, schema=UNMATCHED_SCHEMA), stats


def find_duplicates(items: pa.Table, edges: pa.Table) -> pa.Table:
    """Groups of identical items within each dataset.

    Two items are duplicates when their normalised stems are equal and their
    normalised options are the same multiset (so a copy with permuted options still
    counts). ``parent_*`` is filled when every member has the same single parent
    (siblings copied from one parent).

    Returns:
        A table with DUPLICATES_SCHEMA, one row per member, sorted by dataset and group.
    """
    cols = [items.column(c).to_pylist() for c in ("dataset", "item", "stem", "options")]
    groups: dict[tuple[str, str, tuple[str, ...]], list[str]] = defaultdict(list)
    for ds, it, stem, opts in zip(*cols, strict=True):
        key = (ds, normalize_stem(stem), tuple(sorted(normalize_option(o) for o in (opts or []))))
        groups[key].append(it)
    return _duplicates_table([(ds, m) for (ds, s, _o), m in groups.items() if len(m) > 1 and s], edges)


def _side_duplicates(name: str, side: _Side) -> list[tuple[str, list[str]]]:
    """Groups of identical items (see :func:`find_duplicates`) of one dataset.

    Only items whose normalised stem occurs more than once can be in a group, so only
    their options are normalised (when linking has not done so already).
    """
    stems = side.norm_stems
    counts = Counter(stems)
    rows = [i for i, s in enumerate(stems) if s and counts[s] > 1]
    if not rows:
        return []
    if side._norm_opts is not None:
        opts: list[list[str] | None] = [side._norm_opts[i] for i in rows]
    else:
        raw = side.table.column("options").take(rows).to_pylist()
        opts = [None if o is None else [normalize_option(x) for x in o] for o in raw]
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = defaultdict(list)
    for i, o in zip(rows, opts, strict=True):
        groups[(stems[i], tuple(sorted(o or ())))].append(side.ids[i])
    return [(name, m) for m in groups.values() if len(m) > 1]


def _duplicates_table(found: list[tuple[str, list[str]]], edges: pa.Table) -> pa.Table:
    """The duplicates table of groups ``(dataset, members in item order)``."""
    members_of = {(ds, m) for ds, members in found for m in members}
    parents: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    if members_of:
        for cd, ci, pd_, pi in zip(*(edges.column(c).to_pylist() for c in ("child_dataset", "child_item", "parent_dataset", "parent_item")), strict=True):
            if (cd, ci) in members_of:
                parents[(cd, ci)].add((pd_, pi))
    rows: dict[str, list[Any]] = {f.name: [] for f in DUPLICATES_SCHEMA}
    found = sorted(found, key=lambda t: (t[0], t[1][0]))
    for ds, members in found:
        ps = [parents.get((ds, m), set()) for m in members]
        common = set.intersection(*ps) if all(ps) else set()
        parent = sorted(common)[0] if len(common) >= 1 else (None, None)
        for m in members:
            rows["dataset"].append(ds)
            rows["item"].append(m)
            rows["group"].append(members[0])
            rows["parent_dataset"].append(parent[0])
            rows["parent_item"].append(parent[1])
            rows["size"].append(len(members))
    return pa.table(rows, schema=DUPLICATES_SCHEMA)


def link(
    family: FamilySpec | str | Path,
    *,
    data_dir: str | Path | None = None,
    progress: bool = False,
    allow_outside: bool = False,
) -> Lineage:
    """Load every dataset of a family and link their items.

    Args:
        family: A :class:`FamilySpec`, a built-in family name (``"mmlu"``) or a spec path.
        data_dir: Folder the shipped descriptors' file URLs resolve against.
        progress: Show progress bars (tqdm; works in terminals and notebooks).
        allow_outside: Allow descriptor file URLs that leave their base folder.

    Returns:
        The :class:`Lineage` (items of every dataset, edges, duplicates, unmatched,
        summary).

    Raises:
        LineageError: any input problem (missing files, bad descriptor, bad spec).
    """
    with _collector_paused():
        try:
            return _link_family(family, data_dir=data_dir, progress=progress, allow_outside=allow_outside)
        finally:
            # The normalisers' caches now pin up to 2 x 262,144 of this family's texts
            # (0.6 GB after a million-item link): release them.
            normalize_stem.cache_clear()
            normalize_option.cache_clear()


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


def _link_family(
    family: FamilySpec | str | Path,
    *,
    data_dir: str | Path | None,
    progress: bool,
    allow_outside: bool,
) -> Lineage:
    """:func:`link`'s work, with the collector paused."""
    spec = family if isinstance(family, FamilySpec) else load_family(family)
    with_items = [d for d in spec.datasets.values() if d.has_items]
    tables: dict[str, pa.Table] = {}
    for ds in tqdm(with_items, desc="load", unit="dataset", disable=not progress):
        tables[ds.name] = load_items(ds, data_dir=data_dir, allow_outside=allow_outside)
    # One side per dataset, shared by its derivations (lists and normalised texts built
    # once), released with its duplicate groups after the last derivation that uses it.
    derivations = spec.item_derivations()
    last_use = {name: k for k, d in enumerate(derivations) for name in (d.child, d.parent)}
    sides: dict[str, _Side] = {}
    found: list[tuple[str, list[str]]] = []
    for name in tables:
        if name not in last_use:
            found.extend(_side_duplicates(name, _Side(tables[name])))
    edge_parts, unmatched_parts, stats = [], [], []
    for k, deriv in enumerate(tqdm(derivations, desc="link", unit="derivation", disable=not progress)):
        for name in (deriv.child, deriv.parent):
            if name not in sides:
                sides[name] = _Side(tables[name])
        try:
            e, u, s = _link_sides(deriv, sides[deriv.child], sides[deriv.parent])
        except SpecError as exc:  # a link rule names a field the records lack: point at the spec
            if exc.path is not None:
                raise
            raise SpecError(exc.message, path=spec.path, hint=exc.hint) from None
        edge_parts.append(e)
        unmatched_parts.append(u)
        stats.append(s)
        for name in dict.fromkeys((deriv.child, deriv.parent)):
            if last_use[name] == k:
                found.extend(_side_duplicates(name, sides.pop(name)))
    items = pa.concat_tables([tables[d.name] for d in with_items])
    edges = pa.concat_tables(edge_parts) if edge_parts else EDGES_SCHEMA.empty_table()
    unmatched = pa.concat_tables(unmatched_parts) if unmatched_parts else UNMATCHED_SCHEMA.empty_table()
    duplicates = _duplicates_table(found, edges)
    dup_groups = Counter(
        ds for ds, g in set(zip(duplicates.column("dataset").to_pylist(), duplicates.column("group").to_pylist(), strict=True))
    )
    summary = {
        "family": spec.name,
        "items": {d.name: tables[d.name].num_rows for d in with_items},
        "edges": edges.num_rows,
        "derivations": stats,
        "duplicate_groups": dict(sorted(dup_groups.items())),
        "unmatched": unmatched.num_rows,
    }
    return Lineage(family_info(spec), items, edges, duplicates, unmatched, summary)
