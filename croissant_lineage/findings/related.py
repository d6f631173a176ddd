"""Relating a routed finding to the existing findings on the same content.

When a new finding is routed, every existing finding (loaded with ``--findings``) that
sits on an item carrying the same content, and says something about it, is listed at
rank 0 of the queue with what it should become. The rules:

*Same content.* The existing finding's item carries the routed content (it is one of
the items :func:`~croissant_lineage.findings.routing.route` marks ``inherited`` or
``added``), and the targets overlap: a ``key``, ``stem`` or ``item`` finding overlaps
another ``key``, ``stem`` or ``item`` finding; an ``option`` finding overlaps a finding
on the same option (followed through the option maps) or on the whole ``item``; a
``category`` finding overlaps only a ``category`` finding. Rejected findings are settled
and are not related.

*What each finding claims about the key* (key, stem and item findings): it **keeps the
key** (target ``key`` and its proposed answer is the published key), **proposes** an
answer (a ``wrong_key`` or ``no_correct_answer`` finding with a proposed answer), says
**no option matches** (``no_correct_answer`` without one), says **the key is wrong**
(``wrong_key`` without one), or only gives a **label** (any other kind).

*The relation*, reading the new finding against the existing one:

================================================  ==============  ==================
existing / new                                    relation        the existing one
================================================  ==============  ==================
same kind, same claim (same proposed option)      ``duplicates``  link them
one keeps the key, the other says it is wrong     ``contradicts`` reject
two different proposed answers, or an answer      ``contradicts`` amend
against "no option matches"
"the key is wrong" / new: an answer or no match   ``refines``     amend
label / new: any key claim but "keeps"            ``refines``     amend
label / new: a different label                    ``refines``     amend
existing says more about the key than the new     ``duplicates``  link them
one (the key is wrong, either way)
================================================  ==============  ==================

Any other pair (an existing key claim against a new label, a new finding that keeps the
key against a label) is not related: the new finding says nothing about it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from croissant_lineage.errors import InputError
from croissant_lineage.findings.model import KEY_KINDS, Finding
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.linking.normalize import normalize_option

__all__ = ["RELATIONS", "RelatedFinding", "related_findings", "relation_between"]

#: Relation -> what the existing finding should become.
RELATIONS = {
    "contradicts": "reject or amend the existing finding",
    "refines": "amend the existing finding",
    "duplicates": "the same finding: link them",
}


class _Carrier(Protocol):
    """What relating needs of a routing node: where the option and the proposed answer sit."""

    @property
    def index(self) -> int | None: ...

    @property
    def proposed(self) -> int | None: ...


@dataclass(frozen=True)
class RelatedFinding:
    """An existing finding that a routed finding contradicts, refines or duplicates.

    Attributes:
        finding: Id of the routed (new) finding.
        id: Id of the existing finding.
        item: The item the existing finding names.
        ref: The queue row it is shown on (its source annotation when that is an item of
            the family, else ``item``).
        source: The existing finding's source name.
        label: Its source label (its kind when it has none).
        kind: Its kind.
        status: Its status.
        relation: ``contradicts``, ``refines`` or ``duplicates``.
        action: ``reject``, ``amend`` or ``link``.
        note: One line: the action, what it says, what the new finding says.
    """

    finding: str
    id: str
    item: str
    ref: str
    source: str
    label: str
    kind: str
    status: str
    relation: str
    action: str
    note: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class _Claim:
    what: str  # keeps, answer, no_match, wrong, label
    index: int | None = None  # answer: the proposed option at the compared item
    text: str | None = None  # answer: the proposed text; label: the label

    def says(self) -> str:
        if self.what == "keeps":
            return "keeps the key"
        if self.what == "answer":
            at = f"{LETTERS[self.index]} " if self.index is not None and self.index < len(LETTERS) else ""
            return f"proposes {at}({self.text})" if at else f"proposes {self.text!r}"
        if self.what == "no_match":
            return "says no option matches"
        if self.what == "wrong":
            return "says the key is wrong"
        return f"labeled {self.text}"


_KEY_CLAIMS = ("keeps", "answer", "no_match", "wrong")


def _norm(text: str) -> str:
    try:
        return normalize_option(text)
    except InputError:
        return text.strip()


def _option_at(graph: LineageGraph, ref: str, text: str | None) -> int | None:
    if not text or ref not in graph:
        return None
    options = [_norm(o) for o in graph.item(ref).options]
    want = _norm(text)
    return options.index(want) if want in options else None


def _claim(graph: LineageGraph, f: Finding, at: str, traced: int | None = None) -> _Claim:
    """What ``f`` says about the key, its proposed answer placed among ``at``'s options
    (``traced``: that index already followed through the option maps)."""
    if f.target == "key" and f.proposed and f.item in graph:
        key = graph.item(f.item).key_text
        if key is not None and _norm(key) == _norm(f.proposed):
            return _Claim("keeps")
    if f.kind in KEY_KINDS and f.proposed:
        index = traced if traced is not None else _option_at(graph, at, f.proposed)
        return _Claim("answer", index, f.proposed)
    if f.kind == "no_correct_answer":
        return _Claim("no_match")
    if f.kind == "wrong_key":
        return _Claim("wrong")
    return _Claim("label", text=f.label or f.kind)


def _same_answer(a: _Claim, b: _Claim) -> bool:
    if a.index is not None and b.index is not None:
        return a.index == b.index
    return _norm(a.text or "") == _norm(b.text or "")


def _key_relation(old: _Claim, new: _Claim) -> tuple[str, str] | None:
    """(relation, action) between two key claims; None when they agree to the letter."""
    if old.what == new.what and (old.what != "answer" or _same_answer(old, new)):
        return None  # the same claim: duplicates if the kinds match (decided by the caller)
    if "keeps" in (old.what, new.what):
        return "contradicts", "reject"
    if old.what == "wrong":
        return "refines", "amend"
    if new.what == "wrong":
        return "duplicates", "link"
    return "contradicts", "amend"  # two answers, or an answer against "no option matches"


def _relation(old: _Claim, new: _Claim, same_kind: bool) -> tuple[str, str] | None:
    if old.what in _KEY_CLAIMS and new.what in _KEY_CLAIMS:
        found = _key_relation(old, new)
        if found is None:
            return ("duplicates", "link") if same_kind or old.what == "keeps" else ("refines", "amend")
        return found
    if old.what == "label" and new.what == "label":
        return ("duplicates", "link") if old.text == new.text or same_kind else ("refines", "amend")
    if old.what == "label" and new.what != "keeps":
        return "refines", "amend"
    return None


def _overlaps(new: Finding, old: Finding, node: _Carrier) -> bool:
    """Do the two findings question the same content at ``old``'s item?"""
    if {"category", "solution", "tests"} & {new.target, old.target}:
        return new.target == old.target
    if new.target == "option":
        return old.target == "item" or (old.target == "option" and old.option_index == node.index)
    return old.target in ("key", "stem", "item")


def relation_between(
    graph: LineageGraph, new: Finding, old: Finding, node: _Carrier
) -> tuple[str, str, str] | None:
    """How ``new`` relates to ``old`` (an existing finding on an item carrying ``new``'s content).

    Args:
        graph: The lineage graph.
        new: The routed finding.
        old: The existing finding.
        node: ``new``'s routing node at ``old.item`` (the questioned option and the
            proposed answer followed there).

    Returns:
        ``(relation, action, note)`` or None when they are not related (see the module rules).
    """
    if old.id == new.id or old.status == "rejected" or not _overlaps(new, old, node):
        return None
    new_claim = _claim(graph, new, old.item, node.proposed)
    old_claim = _claim(graph, old, old.item)
    if new.target not in ("key", "stem", "item") or old.target not in ("key", "stem", "item"):
        # option and category findings: compared by their labels only
        new_claim, old_claim = _Claim("label", text=new.kind), _Claim("label", text=old.kind)
    found = _relation(old_claim, new_claim, old.kind == new.kind)
    if found is None:
        return None
    relation, action = found
    verb = {"reject": "reject", "amend": "amend", "link": "same finding: link them"}[action]
    if action == "link":
        note = f"{verb} ({old_claim.says()}; the new finding {new_claim.says()})"
    else:
        note = f"{verb}: {old_claim.says()}, the new finding {new_claim.says()}"
    return relation, action, note


def related_findings(
    graph: LineageGraph,
    new: Finding,
    existing: Iterable[Finding],
    carriers: Mapping[str, _Carrier],
    shown: Iterable[str],
) -> list[RelatedFinding]:
    """The existing findings ``new`` contradicts, refines or duplicates, in input order.

    Args:
        graph: The lineage graph.
        new: The routed finding.
        existing: The other known findings.
        carriers: Item ref -> routing node, for every item carrying ``new``'s content.
        shown: The refs of the queue's rows (a related finding is shown on its source
            annotation when that is one of them, else on its item).
    """
    rows = set(shown)
    out: list[RelatedFinding] = []
    for old in existing:
        node = carriers.get(old.item)
        if node is None:
            continue
        found = relation_between(graph, new, old, node)
        if found is None:
            continue
        relation, action, note = found
        ref = old.source.item if old.source.item in rows else old.item
        out.append(
            RelatedFinding(
                finding=new.id,
                id=old.id,
                item=old.item,
                ref=str(ref),
                source=old.source.name,
                label=old.label or old.kind,
                kind=old.kind,
                status=old.status,
                relation=relation,
                action=action,
                note=note,
            )
        )
    return out
