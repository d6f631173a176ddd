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

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage._io import read_json
from croissant_lineage._results import Result
from croissant_lineage.discovery.activity import added_key_changes, guess_activity
from croissant_lineage.discovery.index import StemIndex, load_or_build
from croissant_lineage.discovery.pairs import (
    MIN_ITEMS,
    MIN_SHARE,
    best_references,
    choose_parents,
    reference_proposal,
    reference_rule,
    stem_hits,
    text_proposal,
    translation_proposal,
)
from croissant_lineage.discovery.proposal import Proposal, fragment_rule, rule_note, write_result
from croissant_lineage.discovery.refs import ParentLookup
from croissant_lineage.discovery.roles import RoleGuess, guess_dataset
from croissant_lineage.discovery.translations import discover_translation
from croissant_lineage.errors import InputError
from croissant_lineage.family.spec import (
    DatasetSpec,
    Derivation,
    FamilySpec,
    LinkRule,
    as_spec,
)
from croissant_lineage.lineage.info import LinkSummary, family_info
from croissant_lineage.lineage.items import load_items
from croissant_lineage.lineage.model import Lineage, is_lineage_folder
from croissant_lineage.lineage.schema import EDGES_SCHEMA, ITEMS_SCHEMA, UNMATCHED_SCHEMA
from croissant_lineage.linking.alignment import Checker
from croissant_lineage.linking.normalize import normalize_stem

__all__ = [
    "MIN_ITEMS", "MIN_SHARE", "Discovery", "Proposal", "added_key_changes", "best_references", "discover", "guess_activity",
    "reference_proposal", "reference_rule",
]


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



# ---------------------------------------------------------------- one dataset


def _discover_by_reference(
    name: str, table: pa.Table, corpus: dict[str, pa.Table], lookups: dict[str, ParentLookup],
    tolerances: dict[str, float] | None = None,
) -> tuple[list[Proposal], list[pa.Table]]:
    refs = best_references(name, table, corpus, lookups)
    if not refs:
        return [], []
    parent, pf = refs[0]
    tol = tolerances or {}
    prop, edges = reference_proposal(name, parent, table, corpus[parent], pf, max(tol.get(name, 0.0), tol.get(parent, 0.0)))
    others = {o: r.matched for o, r in refs[1:]}
    runner = {"parent": refs[1][0], "score": refs[1][1].matched, "by": f"reference {refs[1][1].field}"} if len(refs) > 1 else None
    return [replace(prop, also_matched=others, runner_up=runner)], [edges]


def _discover_one(
    name: str, table: pa.Table, corpus: dict[str, pa.Table], index: StemIndex, threshold: float,
    tolerances: dict[str, float] | None = None,
) -> tuple[list[Proposal], list[pa.Table], list[pa.Table]]:
    tol = tolerances or {}
    stems = [normalize_stem(s) for s in table.column("stem").to_pylist()]
    hits = stem_hits(index, stems, threshold)
    start: dict[str, int] = {}
    for j, d in enumerate(index.datasets):
        start.setdefault(d, j)
    proposals, edge_parts, unmatched_parts = [], [], []
    for parent, kids, others in choose_parents(hits, table.num_rows, name):
        prows = [r - start[parent] for i in kids for r in hits.rows[parent][i]]
        prop, edges, unmatched = text_proposal(name, parent, table, corpus[parent], kids, prows, threshold,
                                               max(tol.get(name, 0.0), tol.get(parent, 0.0)))
        if prop is None:
            continue
        edge_parts.append(edges)
        unmatched_parts.append(unmatched)
        runner = next(({"parent": d, "score": c, "by": "stems"} for d, c in sorted(others.items(), key=lambda t: (-t[1], t[0]))), None)
        rule = (f"stems: {len(kids)} of {table.num_rows} items have a candidate in {parent}, the most of any corpus dataset"
                + (f" ({runner['parent']} {runner['score']})" if runner else ""))
        proposals.append(replace(prop, also_matched=others, rule=rule, runner_up=runner))
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
    proposal, edges = translation_proposal(name, best.parent, table, corpus[best.parent], best, languages)
    others = {m.parent: len(m.pairs) for m in tried if m is not best}
    runner = next(({"parent": d, "score": c, "by": "translation pairs"} for d, c in sorted(others.items(), key=lambda t: (-t[1], t[0]))), None)
    rule = f"translation: {len(best.pairs)} of {table.num_rows} items paired by {best.how} with {best.parent}, the most of any corpus dataset"
    return [replace(proposal, also_matched=others, rule=rule, runner_up=runner)], [edges]


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
    tolerances = {n: s.key_tolerance for n, s in corpus_specs.items()}
    for name, (ds, table) in unknown.items():
        tolerances[name] = ds.key_tolerance
        p, e = _discover_by_reference(name, table, corpus, lookups, tolerances)  # a field naming the parent decides
        u: list[pa.Table] = []
        if not p:
            p, e, u = _discover_one(name, table, corpus, index, threshold, tolerances)
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
        result.out = write_result(result, Path(out), force=force)
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
            **fragment_rule(p),
            "note": (
                f"discovered: {p.linked} of {p.child_items} child items linked ({100 * p.share:.1f} %), "
                f"{p.evidence['parents_reached']} of {p.parent_items} parent items reached; "
                + ", ".join(f"{k} {v}" for k, v in p.evidence.items() if k not in ("edges", "parents_reached"))
                + rule_note(p)
                + (f"; {p.rule}" if p.rule else "")
            ),
        }
        for p in result.proposals
    ]
    return {"datasets": datasets, "derivations": derivations}


