"""The family report: the figures a maintainer asks first, each with its definition.

:func:`family_report` reads a lineage and a set of findings and answers:

* how many parent items carry a wrong-key or no-correct-answer finding;
* how many of those keys survive unchanged in each descendant dataset;
* in how many of those the proposed answer is already among the descendant's options
  (for both kinds: a no-correct-answer finding that names the right answer proposes it too);
* how many descendant items are graded against a key flagged wrong;
* how many parents have identical copies.

Every :class:`Metric` carries its definition, so a number never travels without it.

Whether a descendant's key is the parent's is read from each edge's evidence
(``key_status``: copied, edited, recomputed, translated...; ``key_inherited`` on a lineage
written before the statuses), never from the activity's name. One rule is about a dataset's
role instead, and is read from the family spec's derivations: an **annotation dataset** (a
child derived by ``re_annotation``, such as MMLU-Redux: an audit's labels on its parent's
items) and everything below it are left out of the descendant figures, because nobody is
graded against an annotation's copy of a key: counting its copies as "graded on a flagged
key" would count the audit that flagged it. Its key evidence cannot tell this (an
annotation copies its parent's key).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from croissant_lineage._results import Result
from croissant_lineage.family.spec import ANNOTATION_ACTIVITIES
from croissant_lineage.findings.model import KEY_KINDS, Finding
from croissant_lineage.lineage.graph import Edge, LineageGraph, LineageLike, Relative, as_graph
from croissant_lineage.lineage.paths import follow_option
from croissant_lineage.linking.normalize import normalize_option

__all__ = ["FamilyReport", "Metric", "family_report"]

DEFINITIONS = {
    "flagged_parents": (
        "Items with at least one child item in the lineage that carry a finding of kind wrong_key "
        "or no_correct_answer whose status is not rejected; by the parent's dataset and by kind."
    ),
    "flagged_keys_surviving": (
        "Flagged parents with at least one descendant item in the dataset whose key text is "
        "inherited unchanged along every edge from the parent (key_status copied, or a translated "
        "key the option map carries, on each edge; on a lineage without statuses, key_inherited "
        "true; annotation datasets excluded); by descendant dataset. The total counts parents with "
        "such a descendant in any dataset."
    ),
    "proposed_answer_among_options": (
        "Of the flagged parents counted in flagged_keys_surviving, those with a finding (wrong_key, or "
        "no_correct_answer that names the right answer) whose proposed answer is among the options "
        "of that surviving descendant (traced through option_map, else matched by normalised text) "
        "and is not its key (a proposal equal to the key proposes no change): the fix is a key "
        "change there; by descendant dataset, and by the kind of the finding that proposes it. The "
        "total counts parents with such a descendant in any dataset."
    ),
    "flagged_keys_changed": (
        "Flagged parents with at least one descendant item in the dataset whose key text differs "
        "from the parent's (key_status edited or recomputed on some edge of the path; on a lineage "
        "without statuses, key_inherited false; annotation datasets excluded); by descendant "
        "dataset. The total counts parents with such a descendant in any dataset."
    ),
    "flagged_keys_changed_to_proposed": (
        "Of the flagged parents counted in flagged_keys_changed, those where the changed key's text "
        "is the answer a finding proposes (wrong_key or no_correct_answer; normalised): the "
        "descendant already applied the fix."
    ),
    "descendants_graded_on_flagged_keys": (
        "Descendant items (annotation datasets excluded) whose key text is inherited unchanged from "
        "a flagged parent, i.e. items graded against a key flagged wrong; by dataset."
    ),
    "parents_with_identical_copies": (
        "Parent items with two or more child items in one dataset that are identical to each other "
        "(one duplicate group: same stem, same options as a multiset); by child dataset. The total "
        "counts parents with identical copies in any dataset."
    ),
}


@dataclass(frozen=True)
class Metric:
    """One family-level figure.

    Attributes:
        name: Stable name (see :data:`DEFINITIONS`).
        value: The total.
        definition: What is counted, exactly.
        by_dataset: The figure per dataset (see the definition for which dataset).
        by_kind: Per finding kind, where the figure is about findings.
    """

    name: str
    value: int
    definition: str
    by_dataset: dict[str, int] = field(default_factory=dict)
    by_kind: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FamilyReport(Result):
    """The family-level figures and the findings they were computed from.

    Attributes:
        family: The family's name.
        figures: In the order of :data:`DEFINITIONS`.
        findings: Findings considered, by status and by kind.
    """

    family: str
    figures: list[Metric]
    findings: dict[str, dict[str, int]] = field(default_factory=dict)

    def figure(self, name: str) -> Metric:
        """The figure called ``name``.

        Raises:
            KeyError: no such figure.
        """
        for f in self.figures:
            if f.name == name:
                return f
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (what ``croissant-lineage report --json`` prints)."""
        return {
            "family": self.family,
            "findings": {k: dict(v) for k, v in self.findings.items()},
            "figures": [f.to_dict() for f in self.figures],
        }

    def to_pandas(self) -> pd.DataFrame:
        """One row per figure and dataset (``dataset`` None: the total)."""
        rows = []
        for f in self.figures:
            rows.append(
                {"figure": f.name, "dataset": None, "value": f.value, "definition": f.definition}
            )
            rows += [
                {"figure": f.name, "dataset": d, "value": v, "definition": f.definition}
                for d, v in f.by_dataset.items()
            ]
        return pd.DataFrame(rows, columns=["figure", "dataset", "value", "definition"])


def _proposed_present(
    graph: LineageGraph, parent: str, ref: str, path: tuple[Edge, ...], proposed: str
) -> bool:
    want = normalize_option(proposed)
    parent_opts = [normalize_option(o) for o in graph.item(parent).options]
    if want in parent_opts:
        traced = follow_option(path, parent_opts.index(want))
        if traced is not None:
            return True
    return want in {normalize_option(o) for o in graph.item(ref).options}


def _sorted(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items()))


def _flagged(graph: LineageGraph, findings: list[Finding]) -> dict[str, list[Finding]]:
    """Parent item -> its key findings that are not rejected (items with children only)."""
    flagged: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if (
            f.kind in KEY_KINDS
            and f.status != "rejected"
            and f.item in graph
            and graph.children(f.item)
        ):
            flagged[f.item].append(f)
    return flagged


def _sets() -> defaultdict[str, set[str]]:
    return defaultdict(set)


def annotation_datasets(graph: LineageGraph) -> frozenset[str]:
    """The datasets the family spec derives by re-annotation (:data:`ANNOTATION_ACTIVITIES`):
    an audit's annotations of their parent's items, not a release anyone is graded on."""
    return frozenset(d.child for d in graph.lineage.family.derivations if d.activity in ANNOTATION_ACTIVITIES)


def key_kept(edge: Edge) -> bool | None:
    """What ``edge`` did to the key, by its evidence: True kept (``copied``, or ``translated``
    where the option map carries it), False changed (``edited`` or ``recomputed``), None
    neither known nor there (a translation not compared; ``added``, ``dropped``, ``absent``).
    A lineage written before the statuses answers by ``key_inherited``."""
    status = edge.key_status
    if status == "copied":
        return True
    if status in ("edited", "recomputed"):
        return False
    if status == "translated":
        return True if edge.key_inherited else None
    if status in ("added", "dropped", "absent"):
        return None
    return edge.key_inherited


@dataclass(frozen=True)
class _Proposal:
    """An answer a key finding proposes, and the finding's kind."""

    kind: str
    text: str


@dataclass
class _Tally:
    """What the figures count, gathered over the flagged parents (dataset -> parents, or
    dataset -> count; kind -> parents for the figures about proposed answers)."""

    parents_by_ds: Counter[str] = field(default_factory=Counter)
    parents_by_kind: Counter[str] = field(default_factory=Counter)
    surviving: dict[str, set[str]] = field(default_factory=_sets)
    present: dict[str, set[str]] = field(default_factory=_sets)
    present_kinds: dict[str, set[str]] = field(default_factory=_sets)
    graded: Counter[str] = field(default_factory=Counter)
    changed: dict[str, set[str]] = field(default_factory=_sets)
    to_proposed: dict[str, set[str]] = field(default_factory=_sets)
    to_proposed_kinds: dict[str, set[str]] = field(default_factory=_sets)
    copies: dict[str, set[str]] = field(default_factory=_sets)
    annotations: frozenset[str] = frozenset()

    def add_parent(self, graph: LineageGraph, parent: str, fs: list[Finding]) -> None:
        """Count one flagged parent and each of its descendants."""
        self.parents_by_ds[parent.partition(":")[0]] += 1
        for kind in sorted({f.kind for f in fs}):
            self.parents_by_kind[kind] += 1
        # Both key kinds propose an answer: a no-correct-answer finding may name the right
        # one (not among the parent's options, perhaps among a descendant's added ones).
        proposals = [_Proposal(f.kind, f.proposed) for f in fs if f.proposed]
        for rel in graph.descendants(parent):
            self.add_descendant(graph, parent, rel, proposals)

    def add_descendant(
        self, graph: LineageGraph, parent: str, rel: Relative, proposals: list[_Proposal]
    ) -> None:
        """Count one descendant of a flagged parent (annotation datasets and what derives
        from them are not counted: see the module's docstring)."""
        if any(e.child.partition(":")[0] in self.annotations for e in rel.path):
            return
        ds = rel.ref.partition(":")[0]
        kept = [key_kept(e) for e in rel.path]
        if False in kept:
            self.changed[ds].add(parent)
            key_text = graph.item(rel.ref).key_text
            hits = [p for p in proposals if key_text and normalize_option(key_text) == normalize_option(p.text)]
            if hits:
                self.to_proposed[ds].add(parent)
            for p in hits:
                self.to_proposed_kinds[p.kind].add(parent)
            return
        if not all(k is True for k in kept):
            return
        self.graded[ds] += 1
        self.surviving[ds].add(parent)
        key = normalize_option(graph.item(parent).key_text or "")  # inherited unchanged on this path
        hits = [
            p for p in proposals
            if normalize_option(p.text) != key and _proposed_present(graph, parent, rel.ref, rel.path, p.text)
        ]
        if hits:
            self.present[ds].add(parent)
        for p in hits:
            self.present_kinds[p.kind].add(parent)

    def add_copies(self, graph: LineageGraph) -> None:
        """Count the parents with two or more identical children in one dataset."""
        for ref in _parents(graph):
            by_ds: dict[str, set[str]] = defaultdict(set)
            for e in graph.children(ref):
                by_ds[e.child.partition(":")[0]].add(e.child)
            for ds, children in by_ds.items():
                if any(set(graph.duplicates(c)) & children for c in children):
                    self.copies[ds].add(ref)


def _set_figure(
    name: str, sets: dict[str, set[str]], kinds: dict[str, set[str]] | None = None
) -> Metric:
    """A figure counting parents: in any dataset (the total), per dataset and, when
    ``kinds`` is given, per finding kind."""
    total = len(set().union(*sets.values())) if sets else 0
    by_kind = {k: len(s) for k, s in sorted((kinds or {}).items())}
    return Metric(name, total, DEFINITIONS[name], {d: len(s) for d, s in sorted(sets.items())}, by_kind)


def _figures(flagged: dict[str, list[Finding]], t: _Tally) -> list[Metric]:
    """The figures of :data:`DEFINITIONS`, in its order."""
    return [
        Metric(
            "flagged_parents",
            len(flagged),
            DEFINITIONS["flagged_parents"],
            _sorted(t.parents_by_ds),
            _sorted(t.parents_by_kind),
        ),
        _set_figure("flagged_keys_surviving", t.surviving),
        _set_figure("proposed_answer_among_options", t.present, t.present_kinds),
        _set_figure("flagged_keys_changed", t.changed),
        _set_figure("flagged_keys_changed_to_proposed", t.to_proposed, t.to_proposed_kinds),
        Metric(
            "descendants_graded_on_flagged_keys",
            sum(t.graded.values()),
            DEFINITIONS["descendants_graded_on_flagged_keys"],
            _sorted(t.graded),
        ),
        _set_figure("parents_with_identical_copies", t.copies),
    ]


def family_report(
    lineage_or_graph: LineageLike, findings: Iterable[Finding]
) -> FamilyReport:
    """Family-level figures from a lineage and findings, each with its definition.

    Args:
        lineage_or_graph: The linked family.
        findings: Findings on its items (e.g. the MMLU-Redux import). Findings on items
            not in the lineage are counted in ``findings`` but in no figure.

    Returns:
        A :class:`FamilyReport` with the figures of :data:`DEFINITIONS`.
    """
    graph = as_graph(lineage_or_graph, "lineage_or_graph")
    all_findings = list(findings)
    flagged = _flagged(graph, all_findings)
    tally = _Tally(annotations=annotation_datasets(graph))
    for parent, fs in sorted(flagged.items()):
        tally.add_parent(graph, parent, fs)
    tally.add_copies(graph)
    summary = {
        "status": _sorted(Counter(f.status for f in all_findings)),
        "kind": _sorted(Counter(f.kind for f in all_findings)),
    }
    name = graph.lineage.family.name
    return FamilyReport(family=name, figures=_figures(flagged, tally), findings=summary)


def _parents(graph: LineageGraph) -> list[str]:
    """Every item with at least one child, sorted."""
    edges = graph.lineage.edges
    ds = edges.column("parent_dataset").to_pylist()
    it = edges.column("parent_item").to_pylist()
    return sorted({f"{d}:{i}" for d, i in zip(ds, it, strict=True)})
