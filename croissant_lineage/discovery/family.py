"""A family's derivation forest from its datasets alone: parents, directions, activities, edges.

:func:`discover_family` takes a family spec and ignores its derivations: every dataset with
item data is compared with every other (all against all), and the derivations are proposed
from the item evidence, each with the rule that decided its DIRECTION and the counts behind
it. Steps:

1. **Related pairs.** One stem index of all the datasets
   (:mod:`croissant_lineage.discovery.index`); each dataset's stems are looked up in it. Two
   datasets of the same language (or with no language declared) are *related by text* when
   one has candidates for at least :data:`~croissant_lineage.discovery.propose.MIN_ITEMS`
   items and :data:`~croissant_lineage.discovery.propose.MIN_SHARE` of its items in the other.
   A dataset is also paired with the datasets of OTHER declared languages by ids and
   positions (then, if neither pairs it with anything and it has no relative by text, by
   translation-surviving tokens), as
   :func:`~croissant_lineage.discovery.translations.discover_translation` does: *related by
   translation* when the tokens support the pairs.
2. **Direction of each pair**, from the evidence, never from names. Text pairs: by
   :func:`~croissant_lineage.discovery.direction.direction` (content rules vote: options,
   subset, and for twins answers expanded and values perturbed; dates decide only when no
   content rule applies and the dates differ; otherwise the direction is *undecided*,
   reported, never guessed). A translation pair: the parent is the
   side with more relatives by text in its own language (its items circulate in that
   language: copied, filtered, expanded; a translation's items have few or none); as many
   on both sides (two translations of the same source), undecided. A pair one of whose sides
   names the other's items in a field is a *reference* pair: the side that names is the child.
3. **One parent per dataset** (:func:`_choose`): among the relatives whose decided direction
   makes them its parent, the one explaining the most of its items (text: items with a
   candidate, then exact stems; translation: pairs, then the share of the pairs with tokens
   whose tokens agree, in whole percent: the token weights depend on the candidate, so the
   same text paired with two copies can differ by a pair). Ties: between candidates that
   are twins of each other, the one whose contents the child copies on the most pairs; then,
   when the child and the tied candidates are dated, the latest candidate dated before the
   child when no other is as late (a snapshot chain); else the candidate that is an ancestor
   of the others (the items' origin, not a copy of it); else, among the candidates none of the
   others descends from (twins no content tells apart), the one the spec lists first (in
   :func:`_choose` without an order, the first by name), flagged ``tied_with``. A
   cycle (possible only when votes of different pairs conflict) is broken by dropping its
   weakest link.
4. **Edges and activity**: each chosen pair is linked and its activity guessed from its
   edges and contents by the functions of :mod:`croissant_lineage.discovery.pairs`, the
   same as :func:`~croissant_lineage.discovery.propose.discover` uses for one unknown dataset.

Related pairs with no derivation chosen are reported: *siblings* (both descend from a common
ancestor in the proposed forest: their shared items come from it), or *undecided* (the
evidence does not say which copied which).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage._results import Result
from croissant_lineage.croissant.descriptor import read_descriptor
from croissant_lineage.discovery.content import compare_contents
from croissant_lineage.discovery.direction import INSIDE, direction, option_counts, pair_counts
from croissant_lineage.discovery.index import StemIndex, load_or_build
from croissant_lineage.discovery.pairs import (
    MIN_ITEMS,
    MIN_SHARE,
    Hits,
    best_references,
    reference_proposal,
    reference_rule,
    stem_hits,
    text_proposal,
    translation_proposal,
)
from croissant_lineage.discovery.proposal import Proposal, fragment_rule, write_result
from croissant_lineage.discovery.refs import ParentField, ParentLookup
from croissant_lineage.discovery.translations import (
    TranslationMatch,
    discover_translation,
)
from croissant_lineage.errors import LineageError
from croissant_lineage.family.spec import (
    DatasetSpec,
    Derivation,
    FamilySpec,
    LinkRule,
    as_spec,
)
from croissant_lineage.lineage.info import LinkSummary, family_info
from croissant_lineage.lineage.items import load_items
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import EDGES_SCHEMA, ITEMS_SCHEMA, UNMATCHED_SCHEMA
from croissant_lineage.linking.alignment import Checker
from croissant_lineage.linking.normalize import normalize_stem

__all__ = ["INSIDE", "FamilyDiscovery", "Relation", "direction", "discover_family"]

@dataclass(frozen=True)
class Relation:
    """Two related datasets, the evidence between them, and the direction it decides.

    Attributes:
        a, b: The two datasets (``a < b`` by name).
        kind: ``text`` (stems found in the index) or ``translation`` (paired by ids,
            positions or tokens across languages).
        counts: The evidence (see :func:`direction` for text pairs; pairs and token
            agreement for translations).
        parent: The side the evidence makes the parent, or None (undecided).
        rule: The rules that voted, with their counts, or why the direction is undecided.
    """

    a: str
    b: str
    kind: str
    counts: dict[str, Any]
    parent: str | None
    rule: str

    @property
    def child(self) -> str | None:
        """The other side of a decided pair."""
        return None if self.parent is None else self.b if self.parent == self.a else self.a

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        return {"a": self.a, "b": self.b, "kind": self.kind, "parent": self.parent, "child": self.child,
                "rule": self.rule, "counts": dict(self.counts)}


@dataclass(repr=False)
class FamilyDiscovery(Result):
    """What :func:`discover_family` found.

    Attributes:
        proposals: The proposed derivations (one parent per dataset at most), by child name.
        relations: Every related pair with its evidence and decided (or undecided) direction.
        choices: Per child: the candidate parents considered, best first, and how the tie
            (if any) was broken.
        status: Per related pair without a proposed derivation: ``siblings of X`` or
            ``direction undecided``.
        no_relative: Datasets related to no other.
        index: The stem index's size, fingerprint and whether it was reused.
        lineage: The datasets' items and the discovered edges.
        out: The folder written (None when nothing was written).
    """

    proposals: list[Proposal]
    relations: list[Relation]
    choices: dict[str, dict[str, Any]]
    status: dict[str, str]
    no_relative: list[str]
    index: dict[str, Any]
    lineage: Lineage
    out: Path | None = None

    def __repr__(self) -> str:
        return f"FamilyDiscovery(proposals={len(self.proposals)}, relations={len(self.relations)}, no_relative={self.no_relative})"

    def parent_of(self, child: str) -> str | None:
        """The proposed parent of ``child`` (None when none was proposed)."""
        return next((p.parent for p in self.proposals if p.child == child), None)

    @property
    def twins(self) -> list[Relation]:
        """Related pairs each of whose sides holds the other's items (>= 95 % found both ways),
        with the content evidence between them and the direction it decides (or None)."""
        return [r for r in self.relations if r.counts.get("twins")]

    @property
    def undecided(self) -> list[Relation]:
        """Related pairs whose direction the evidence does not decide (and that are not siblings)."""
        return [r for r in self.relations if self.status.get(f"{r.a} ~ {r.b}") == "direction undecided"]

    def fragment(self) -> dict[str, Any]:
        """The proposed derivations in the family spec's syntax, and the undecided pairs."""
        derivations = []
        for p in self.proposals:
            link = fragment_rule(p).get("link", {})
            derivations.append({
                "child": p.child, "parent": p.parent, "activity": p.activity, **({"link": link} if link else {}),
                "note": f"discovered: {p.linked} of {p.child_items} child items linked; direction: {self.choices[p.child]['rule']}",
            })
        undecided = [{"a": r.a, "b": r.b, "why": r.rule} for r in self.undecided]
        twins = [{"a": r.a, "b": r.b, "parent": r.parent, "why": r.rule} for r in self.twins]
        return {"derivations": derivations, "direction_undecided": undecided, "twins": twins}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: proposals, relations with their status, choices, loners, the index."""
        return {
            "proposals": [p.to_dict() for p in self.proposals],
            "relations": [r.to_dict() | {"status": self.status.get(f"{r.a} ~ {r.b}", "derivation")} for r in self.relations],
            "choices": self.choices,
            "twins": [{"a": r.a, "b": r.b, "parent": r.parent, "rule": r.rule} for r in self.twins],
            "no_relative": list(self.no_relative),
            "index": dict(self.index),
            "edges": self.lineage.edges.num_rows,
        }


# ---------------------------------------------------------------- inputs


def _date(ds: DatasetSpec) -> str | None:
    """The dataset's date: the spec's ``date``, else its descriptor's ``datePublished``."""
    if ds.date:
        return str(ds.date)[:10]
    if ds.descriptor is None:
        return None
    try:
        value = read_descriptor(ds.descriptor).doc.get("datePublished")
    except LineageError:
        return None
    return str(value)[:10] if isinstance(value, str) and value else None


# ---------------------------------------------------------------- text relations


def _related(counts: dict[str, Any], x: str, y: str) -> bool:
    return any(
        counts[f"{s}_covered"] >= max(MIN_ITEMS, MIN_SHARE * counts[f"{s}_items"]) for s in (x, y)
    )


def _same_language(a: str, b: str, languages: dict[str, str | None]) -> bool:
    la, lb = languages.get(a), languages.get(b)
    return la is None or lb is None or la == lb


def _text_relations(
    tables: dict[str, pa.Table], index: StemIndex, languages: dict[str, str | None], dates: dict[str, str | None],
    threshold: float,
) -> tuple[list[Relation], dict[tuple[str, str], Hits]]:
    start: dict[str, int] = {}
    for j, d in enumerate(index.datasets):
        start.setdefault(d, j)
    hits: dict[tuple[str, str], Hits] = {}
    stems: dict[str, set[str]] = {}
    for name in sorted(tables):
        normalised = [normalize_stem(s) for s in tables[name].column("stem").to_pylist()]
        stems[name] = set(normalised)
        own = range(start[name], start[name] + tables[name].num_rows) if name in start else None
        h = stem_hits(index, normalised, threshold, own)
        for other in h.rows:
            if other != name and _same_language(name, other, languages):
                hits[(name, other)] = h
    opts = {n: option_counts(t) for n, t in tables.items()}

    def elsewhere(stem: str, excluded: set[str]) -> bool:  # a stem held verbatim by another dataset of the family
        return any(stem in held for n, held in stems.items() if n not in excluded)

    relations = []
    for x, y in sorted({tuple(sorted(k)) for k in hits}):
        counts = pair_counts(x, y, hits, tables, start, opts, elsewhere)
        if _related(counts, x, y):
            parent, rule = direction(x, y, counts, dates)
            relations.append(Relation(x, y, "text", counts, parent, rule))
    return relations, hits


# ---------------------------------------------------------------- reference relations


def _reference_relations(
    tables: dict[str, pa.Table], relations: list[Relation],
) -> tuple[list[Relation], dict[tuple[str, str], ParentField]]:
    """The relations with every pair one of whose sides names the other's items in a field
    (:mod:`croissant_lineage.discovery.refs`) made a ``reference`` relation: the side that
    names the other is the child, whatever else voted (the relation it replaces is kept in
    the counts as ``replaced``)."""
    lookups: dict[str, ParentLookup] = {}
    refs: dict[tuple[str, str], ParentField] = {}
    for name in sorted(tables):
        for parent, pf in best_references(name, tables[name], tables, lookups):
            if (parent, name) not in refs:  # the side found first names the other
                refs[(name, parent)] = pf
    if not refs:
        return relations, refs
    pairs = {tuple(sorted(k)): k for k in refs}
    out = [r for r in relations if (r.a, r.b) not in pairs]
    replaced = {(r.a, r.b): r for r in relations if (r.a, r.b) in pairs}
    for (a, b), (child, parent) in sorted(pairs.items()):
        pf = refs[(child, parent)]
        counts: dict[str, Any] = {f"{child}_items": tables[child].num_rows, f"{parent}_items": tables[parent].num_rows,
                                  **pf.evidence()}
        if (a, b) in replaced:
            counts["replaced"] = f"{replaced[(a, b)].kind}: {replaced[(a, b)].rule}"
        out.append(Relation(a, b, "reference", counts, parent, reference_rule(child, parent, pf, tables[child].num_rows)))
    return out, refs


# ---------------------------------------------------------------- translation relations


def _translation_relations(
    tables: dict[str, pa.Table], languages: dict[str, str | None], text: list[Relation],
) -> tuple[list[Relation], dict[tuple[str, str], TranslationMatch]]:
    """Pairs across declared languages, paired by ids or positions (tokens for a dataset with
    no text relative that nothing pairs otherwise), with the direction of the module
    docstring's rule. Each dataset is paired with the datasets having at least as many text
    relatives as itself, so that the pairs and their token counts are read from the side
    that would be the child (the same way for all of its candidate parents)."""
    relatives: dict[str, int] = {}
    for r in text:
        for s in (r.a, r.b):
            relatives[s] = relatives.get(s, 0) + 1
    checkers: dict[str, Checker] = {}
    found: dict[tuple[str, str], TranslationMatch] = {}
    for name in sorted(tables):
        if languages.get(name) is None:
            continue
        mine = relatives.get(name, 0)
        corpus = {o: t for o, t in tables.items()  # a pair found from the other side is not paired again
                  if languages.get(o) not in (None, languages[name]) and relatives.get(o, 0) >= mine and (o, name) not in found}
        if not corpus:
            continue
        matches = _supported(name, tables[name], corpus, languages, checkers, ("ids", "positions"))
        if not matches and not mine:  # tokens (costly) only for a dataset with no text relative
            matches = _supported(name, tables[name], corpus, languages, checkers, ("tokens",))
        for m in matches:
            found[(name, m.parent)] = m
    relations = []
    for (child, parent), m in sorted(found.items()):
        a, b = sorted((child, parent))
        counts = {"paired_by": m.how, "pairs": len(m.pairs), f"{child}_items": tables[child].num_rows,
                  f"{parent}_items": tables[parent].num_rows, **{k: v for k, v in m.counts.items() if k != "pairs"},
                  "languages": f"{child} {languages[child]}, {parent} {languages[parent]}",
                  f"{child}_text_relatives": relatives.get(child, 0), f"{parent}_text_relatives": relatives.get(parent, 0)}
        nc, np_ = relatives.get(child, 0), relatives.get(parent, 0)
        if np_ > nc:
            p: str | None = parent
            rule = (f"translation: {parent} ({languages[parent]}) has {np_} relatives by text in its language, "
                    f"{child} ({languages[child]}) {nc}")
        else:
            p, rule = None, f"direction undecided: translation pair whose sides have as many relatives by text ({nc})"
        relations.append(Relation(a, b, "translation", counts, p, rule))
    return relations, found


def _supported(name: str, table: pa.Table, corpus: dict[str, pa.Table], languages: dict[str, str | None],
               checkers: dict[str, Checker], ways: tuple[str, ...]) -> list[TranslationMatch]:
    _, tried = discover_translation(name, table, corpus, languages, checkers, ways=ways)
    return [m for m in tried if m.supported]


# ---------------------------------------------------------------- one parent per dataset


def _support(r: Relation, child: str) -> tuple[int, int, int]:
    c = r.counts
    if r.kind == "reference":  # ids before rows before stems, then the stems closest to the named rows'
        return (int(c["reference_matched"]), 2 - ("id", "row", "stem").index(str(c["reference_kind"])),
                int(c.get("reference_stem_closeness", -1)))
    if r.kind == "translation":  # the agreeing share in whole percent: the token weights depend on
        agree, disagree = int(c.get("evidence_agrees", 0)), int(c.get("evidence_disagrees", 0))  # the corpus side,
        return int(c["pairs"]), round(100 * agree / (agree + disagree)) if agree + disagree else 0, 0  # +-1 pair is noise
    return int(c[f"{child}_covered"]), int(c[f"{child}_exact"]), 0


def _ancestors(node: str, parent: dict[str, str]) -> list[str]:
    out: list[str] = []
    while node in parent and parent[node] not in out and parent[node] != node:
        node = parent[node]
        out.append(node)
    return out


#: Separates tied candidates: ``(child, tied) -> (the candidates whose contents the child copies most; why)``.
Separator = Callable[[str, list[str]], tuple[list[str], str]]


def _break_tie(child: str, tied: list[str], dates: dict[str, str | None], provisional: dict[str, str],
               separate: Separator | None = None, order: dict[str, int] | None = None) -> tuple[str, str]:
    """The tied candidate chosen, and how (see the module docstring, step 3)."""
    content = ""
    if separate is not None:
        best, why = separate(child, tied)
        if len(best) == 1:
            return best[0], f"tie broken by content: {why}"
        content = f"{why}; " if why else ""
        tied = best or tied
    dc = dates.get(child)
    if dc:
        earlier = sorted((d, t) for t in tied if (d := dates.get(t)) and d < dc)
        if earlier and len(earlier) == len(tied) and (len(earlier) == 1 or earlier[-2][0] < earlier[-1][0]):
            return earlier[-1][1], f"{content}tie broken by dates: {earlier[-1][1]} is the latest before {child} ({dc})"
    origins = [t for t in tied if not any(o in _ancestors(t, provisional) for o in tied if o != t)]
    if len(origins) == 1:
        t = origins[0]
        return t, f"{content}tie broken by ancestry: {t} is an ancestor of {', '.join(o for o in tied if o != t)}"
    pool = origins or tied
    if order:
        first = min(pool, key=lambda t: (order.get(t, len(order)), t))
        return first, f"{content}tie not broken by the evidence: {first}, listed first in the spec"
    return pool[0], f"{content}tie not broken by the evidence: first by name"


def _separator(tables: dict[str, pa.Table], hits: dict[tuple[str, str], Hits], start: dict[str, int],
               twins: set[frozenset[str]], refs: dict[tuple[str, str], ParentField] | None = None) -> Separator:
    """Tied candidates that are twins of each other told apart by the contents the child copies
    from each (a third dataset whose items match both twins copies one twin's answers, or both
    alike); the pairs are those a parent-reference field names, else the stem candidates.
    Candidates that are not twins (a dataset and a subset of it) are left to the dates
    and the ancestry: the subset's contents are its origin's. When some copy more than the
    others without one standing out, those are the candidates left."""
    refs = refs or {}

    def separate(child: str, tied: list[str]) -> tuple[list[str], str]:
        if any(frozenset((a, b)) not in twins for a in tied for b in tied if a < b):
            return [], ""
        if any((child, t) not in hits and (child, t) not in refs for t in tied):
            return [], "content not compared (a tied candidate is no text relative)"
        scores = []
        for t in tied:
            if (child, t) in refs:
                pairs = [(i, j) for i, j, _ in refs[(child, t)].pairs]
            else:
                rows = hits[(child, t)].rows.get(t, {})
                pairs = [(i, c[0] - start[t]) for i, c in sorted(rows.items())]
            got = compare_contents(pairs, tables[child], tables[t], records=False)
            scores.append((sum(got.count(c, "copied") for c in got.contents), t))
        scores.sort(key=lambda x: (-x[0], x[1]))
        said = ", ".join(f"{t}'s on {n}" for n, t in scores)
        if scores[0][0] > scores[1][0]:
            return [scores[0][1]], f"{child} copies {said} (item contents)"
        best = sorted(t for n, t in scores if n == scores[0][0])
        if len(best) < len(scores):
            return best, f"{child} copies {', '.join(best)}'s contents the most ({said})"
        return [], f"{child} copies its tied candidates' contents alike ({said})"

    return separate


def _candidates(relations: list[Relation]) -> dict[str, list[tuple[tuple[int, int, int], str, Relation]]]:
    cands: dict[str, list[tuple[tuple[int, int, int], str, Relation]]] = {}
    for r in relations:
        if r.parent is not None and r.child is not None:
            cands.setdefault(r.child, []).append((_support(r, r.child), r.parent, r))
    for lst in cands.values():
        lst.sort(key=lambda t: (-t[0][0], -t[0][1], -t[0][2], t[1]))
    return cands


def _choose(relations: list[Relation], dates: dict[str, str | None], separate: Separator | None = None,
            order: dict[str, int] | None = None) -> tuple[dict[str, Relation], dict[str, dict[str, Any]]]:
    """Per child, the relation to its chosen parent, and the choice's record."""
    cands = _candidates(relations)
    provisional = {c: lst[0][1] for c, lst in cands.items()}
    chosen: dict[str, Relation] = {}
    record: dict[str, dict[str, Any]] = {}
    for child in sorted(cands):
        lst = cands[child]
        tied = [p for s, p, _ in lst if s == lst[0][0]]
        parent, how = (tied[0], "most items explained") if len(tied) == 1 else _break_tie(child, tied, dates, provisional, separate, order)
        rel = next(r for _, p, r in lst if p == parent)
        chosen[child] = rel
        record[child] = {
            "parent": parent, "rule": rel.rule, "choice": how,
            "candidates": [{"parent": p, "items": s[0], "exact_stems_or_tokens_agree_pct": s[1],
                            **({"stem_closeness_per_mille": s[2]} if r.kind == "reference" else {})} for s, p, r in lst],
            **({"tied_with": [t for t in tied if t != parent]} if len(tied) > 1 else {}),
        }
    _break_cycles(chosen, record)
    return chosen, record


def _break_cycles(chosen: dict[str, Relation], record: dict[str, dict[str, Any]]) -> None:
    """Drop the weakest link of every cycle of chosen parents (recorded as ``cycle``)."""
    while True:
        parent = {c: r.parent for c, r in chosen.items() if r.parent is not None}
        cycle = next((c for c in sorted(parent) if c in _ancestors(c, parent)), None)
        if cycle is None:
            return
        members = [cycle, *_ancestors(cycle, parent)]
        members = members[: members.index(cycle, 1)] if cycle in members[1:] else members
        weakest = min(members, key=lambda c: (_support(chosen[c], c), c))
        record[weakest]["cycle"] = f"dropped: {weakest} <- {chosen[weakest].parent} closed a cycle through {', '.join(members)}"
        del chosen[weakest]


# ---------------------------------------------------------------- edges


def _text_proposal(child: str, parent: str, tables: dict[str, pa.Table], hits: dict[tuple[str, str], Hits],
                   start: dict[str, int], threshold: float, tolerance: float = 0.0) -> tuple[Proposal | None, pa.Table, pa.Table]:
    rows: dict[int, list[int]] = dict(hits[(child, parent)].rows.get(parent, {})) if (child, parent) in hits else {}
    if not rows and (parent, child) in hits:  # the child's own near-copies filled its candidates: read the pair from the parent
        for j, cands in hits[(parent, child)].rows.get(child, {}).items():
            for r in cands:
                rows.setdefault(r - start[child], []).append(j + start[parent])
    kids = sorted(rows)
    prows = [r - start[parent] for i in kids for r in rows[i]]
    return text_proposal(child, parent, tables[child], tables[parent], kids, prows, threshold, tolerance)


def _status(relations: list[Relation], chosen: dict[str, Relation]) -> dict[str, str]:
    """Related pairs without a proposed derivation: siblings (a common ancestor) or undecided."""
    parent = {c: r.parent for c, r in chosen.items() if r.parent is not None}
    out: dict[str, str] = {}
    for r in relations:
        if any(chosen.get(s) is r for s in (r.a, r.b)):
            continue
        key = f"{r.a} ~ {r.b}"
        la = [r.a, *_ancestors(r.a, parent)]
        lb = {r.b, *_ancestors(r.b, parent)}
        common = next((x for x in la if x in lb), None)
        if common is not None and common not in (r.a, r.b):  # siblings: their shared items come from the common ancestor
            out[key] = f"related through {common}"
        elif r.parent is not None and r.child is not None:
            better = parent.get(r.child)
            out[key] = f"{r.parent} -> {r.child} decided, not chosen: " + (
                f"{r.child}'s parent {better} is better supported" if better else f"{r.child} got no parent")
        else:
            out[key] = f"related through {common}" if common is not None else "direction undecided"
    return out


# ---------------------------------------------------------------- the entry point


def discover_family(
    spec: str | Path | FamilySpec,
    *,
    data_dir: str | Path | None = None,
    out: str | Path | None = None,
    threshold: float = 85.0,
    index_dir: str | Path | None = None,
    force: bool = False,
) -> FamilyDiscovery:
    """Propose the derivation forest of a family from its datasets alone (its derivations ignored).

    Args:
        spec: A family name, a spec path or a :class:`FamilySpec`; its derivations are not read.
        data_dir: Folder the spec's relative file URLs resolve against.
        out: Folder to write (fragment, lineage, report, index); None writes nothing but
            the index when ``index_dir`` is given.
        threshold: Minimum stem score (0-100) of a candidate parent item.
        index_dir: Where the stem index is saved and reused (default ``OUT/index``).
        force: Replace an ``OUT/lineage`` folder this library did not write.

    Returns:
        The :class:`FamilyDiscovery`.

    Raises:
        LineageError: the spec or a dataset's items cannot be read.
    """
    fam = as_spec(spec, "spec")
    datasets = {n: ds for n, ds in fam.datasets.items() if ds.has_items}
    tables = {n: load_items(ds, data_dir=data_dir) for n, ds in sorted(datasets.items())}
    dates = {n: _date(ds) for n, ds in datasets.items()}
    languages = {n: (ds.languages[0] if ds.languages else None) for n, ds in datasets.items()}
    if index_dir is None and out is not None:
        index_dir = Path(out) / "index"
    index = load_or_build(index_dir, tables)
    text, hits = _text_relations(tables, index, languages, dates, threshold)
    trans, matches = _translation_relations(tables, languages, text)
    relations, refs = _reference_relations(tables, text + trans)
    start: dict[str, int] = {}
    for j, d in enumerate(index.datasets):
        start.setdefault(d, j)
    twins = {frozenset((r.a, r.b)) for r in relations if r.counts.get("twins")}
    order = {n: k for k, n in enumerate(fam.datasets)}
    chosen, record = _choose(relations, dates, _separator(tables, hits, start, twins, refs), order)
    proposals: list[Proposal] = []
    edges: list[pa.Table] = []
    unmatched: list[pa.Table] = []
    for child in sorted(chosen):
        rel = chosen[child]
        parent = str(rel.parent)
        tolerance = max(datasets[child].key_tolerance, datasets[parent].key_tolerance)
        if rel.kind == "reference":
            rp, e = reference_proposal(child, parent, tables[child], tables[parent], refs[(child, parent)], tolerance)
            proposals.append(_with_choice(rp, record[child]))
            edges.append(e)
            continue
        if rel.kind == "translation":
            match = matches.get((child, parent))
            if match is None:  # found from the other side: pair this way round
                record[child]["note"] = "pairs found with the roles reversed; re-paired from the child"
                got = _supported(child, tables[child], {parent: tables[parent]}, languages, {}, ("ids", "positions", "tokens"))
                if not got:
                    continue
                match = got[0]
            p, e = translation_proposal(child, parent, tables[child], tables[parent], match, languages)
            proposals.append(_with_choice(p, record[child]))
            edges.append(e)
            continue
        tp, e, u = _text_proposal(child, parent, tables, hits, start, threshold, tolerance)
        if tp is None:
            record[child]["dropped"] = "too few edges once linked"
            continue
        proposals.append(_with_choice(tp, record[child]))
        edges.append(e)
        unmatched.append(u)
    kept = {p.child: chosen[p.child] for p in proposals}
    status = _status(relations, kept)
    related = {s for r in relations for s in (r.a, r.b)}
    no_relative = [n for n in sorted(tables) if n not in related]
    lineage = _lineage(fam, datasets, tables, proposals, edges, unmatched)
    result = FamilyDiscovery(
        proposals, relations, {c: record[c] for c in sorted(record)}, status, no_relative,
        {"rows": len(index), "fingerprint": index.fingerprint, "reused": index.reused,
         "folder": str(index_dir) if index_dir else None},
        lineage,
    )
    if out is not None:
        result.out = write_result(result, Path(out), force=force)
    return result


def _with_choice(p: Proposal, choice: dict[str, Any]) -> Proposal:
    """The proposal with the rule that decided its direction and the runner-up candidate."""
    others = [c for c in choice["candidates"] if c["parent"] != choice["parent"]]  # the chosen one may have won a tie
    runner = {"parent": others[0]["parent"], "score": others[0]["items"]} if others else None
    also = {c["parent"]: c["items"] for c in others}
    return replace(p, rule=choice["rule"], runner_up=runner, also_matched=also or p.also_matched)


def _lineage(fam: FamilySpec, datasets: dict[str, DatasetSpec], tables: dict[str, pa.Table], proposals: list[Proposal],
             edges: list[pa.Table], unmatched: list[pa.Table]) -> Lineage:
    derivs = tuple(
        Derivation(p.child, p.parent, p.activity, LinkRule(by="text", child_block=None, parent_block=None)) for p in proposals
    )
    spec = FamilySpec(f"{fam.name}-discovered", None, dict(datasets), derivs, title=f"Derivations discovered in {fam.name}")
    items = pa.concat_tables(list(tables.values())) if tables else ITEMS_SCHEMA.empty_table()
    e = pa.concat_tables(edges) if edges else EDGES_SCHEMA.empty_table()
    u = pa.concat_tables(unmatched) if unmatched else UNMATCHED_SCHEMA.empty_table()
    summary = {
        "family": spec.name,
        "items": {n: t.num_rows for n, t in tables.items()},
        "edges": e.num_rows,
        "derivations": [p.to_dict() for p in proposals],
        "unmatched": u.num_rows,
    }
    return Lineage(family_info(spec), items, e, unmatched=u, summary=LinkSummary.from_dict(summary))
