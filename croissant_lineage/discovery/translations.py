"""Discovering a translation's parent without a translation model.

A translated item shares no text with its source, so the stem index
(:mod:`croissant_lineage.discovery.index`) finds nothing. Three things survive translation
and need no model; :func:`discover_translation` tries them in this order, per corpus
dataset, and keeps the first that pairs at least :data:`MIN_SHARE` of the items
(:data:`TOKEN_MIN_SHARE` for tokens) and that the check below supports:

1. **ids**: the unknown's item ids are item ids of a corpus dataset (Global-MMLU keeps
   MMLU's ``subject/test/row``);
2. **positions**: the unknown's ids end in a number that, within the same subject (or in
   the whole dataset, for datasets without subjects), is the number a corpus item's id ends
   in (MMMLU's ``ID`` is the row within the subject of ``cais/mmlu``; HumanEval-X's ``CPP/7``
   is HumanEval's ``HumanEval/7``);
3. **tokens**: with no shared ids or subjects, an item is paired with the corpus item
   whose translation-surviving tokens (numbers, formulas, Latin-script names and
   acronyms: :func:`croissant_lineage.linking.evidence.extract_evidence`) agree best, when
   that item is the only one to reach :data:`TOKEN_SCORE` and the option counts agree.

Pairs of the first two kinds are then checked with the same tokens (the translation
check's :class:`~croissant_lineage.linking.alignment.Checker`): a pair *agrees* (the
tokens support it), *disagrees*, or has *no evidence* (no number, formula or name on
either side). A derivation is proposed only when at least :data:`AGREE_SHARE` of the pairs
with evidence agree and the option counts agree; with no evidence on any pair, only a join
on ids that are not row numbers is proposed. Ids that join but name different questions are
not a translation. The edges of id and position pairs whose parent ids end in a row number
go through the linker's row-shift check (:func:`translation_edges`), as ``link`` checks a
declared ``by: index`` rule: a subject whose rows are shifted is re-linked by the shift.

Out of reach without a multilingual model: an item with none of these tokens (most
humanities and law questions) paired by tokens alone, and telling a translation from a
re-written question in the same ids.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from croissant_lineage.family.spec import Derivation, LinkRule
from croissant_lineage.linking.alignment import (
    SHIFTED_METHOD,
    Checker,
    probe_mode,
    read_probe_evidence,
    shifted_item,
)
from croissant_lineage.linking.evidence import NumberReader, evidence_score, number_reader
from croissant_lineage.linking.linker import link_derivation, link_pairs

__all__ = ["AGREE_SHARE", "MIN_SHARE", "TOKEN_MIN_SHARE", "TOKEN_SCORE", "TranslationMatch", "discover_translation"]

#: A way of pairing is used when it pairs at least this share of the unknown's items.
MIN_SHARE = 0.5
#: Share of the pairs with evidence that must agree for a derivation to be proposed.
AGREE_SHARE = 0.8
#: Share of the pairs whose option counts may differ (a translation keeps its options).
OPTION_COUNT_SLACK = 0.05
#: Token pairing (only items with numbers, formulas or names can pair) needs this share.
TOKEN_MIN_SHARE = 0.1
#: Token pairing: the best corpus item's evidence score must reach this (0-100)...
TOKEN_SCORE = 80.0
#: ...and a token shared by more than this many corpus items is too common to propose candidates.
COMMON_TOKEN = 50

_TRAILING_NUMBER = re.compile(r"(\d+)$")


class TranslationMatch:
    """The pairs one way of pairing found between an unknown dataset and a corpus dataset.

    Attributes:
        parent: The corpus dataset.
        how: ``ids``, ``positions`` or ``tokens``.
        pairs: ``(child row, parent row, score)``; the score is the token evidence score
            for ``tokens`` and 100 for the others.
        counts: Pairs whose evidence agrees, disagrees, or is absent; option counts that differ.
    """

    def __init__(self, parent: str, how: str, pairs: list[tuple[int, int, float]]):
        self.parent = parent
        self.how = how
        self.pairs = pairs
        self.counts: dict[str, int] = {}
        self.row_numbers = False  # the child ids paired are bare row numbers

    @property
    def supported(self) -> bool:
        """The option counts agree (all but :data:`OPTION_COUNT_SLACK` of the pairs) and the
        evidence of most pairs that have any agrees; with no evidence on any pair, only a
        join on ids that are not row numbers is supported (nothing contradicts it, and such
        ids are not shared by chance)."""
        c = self.counts
        if c.get("option_count_differs", 0) > OPTION_COUNT_SLACK * len(self.pairs):
            return False
        agree, disagree = c.get("evidence_agrees", 0), c.get("evidence_disagrees", 0)
        if agree + disagree == 0:
            return self.how == "ids" and not self.row_numbers
        return agree >= AGREE_SHARE * (agree + disagree)


def _position_key(item: str, subject: str | None) -> tuple[str, int] | None:
    """The item's position: its subject (``""`` for a dataset without subjects) and its id's trailing number."""
    m = _TRAILING_NUMBER.search(item)
    return None if m is None else (subject or "", int(m.group(1)))


def _by_ids(child: pa.Table, parent: pa.Table) -> list[tuple[int, int, float]]:
    rows = {pid: j for j, pid in enumerate(parent.column("item").to_pylist())}
    return [(i, rows[c], 100.0) for i, c in enumerate(child.column("item").to_pylist()) if c in rows]


def _by_positions(child: pa.Table, parent: pa.Table) -> list[tuple[int, int, float]]:
    keys: dict[tuple[str, int], int] = {}
    for j, (pid, subj) in enumerate(zip(parent.column("item").to_pylist(), parent.column("subject").to_pylist(), strict=True)):
        k = _position_key(pid, subj)
        if k is not None:
            keys.setdefault(k, j)  # ids end in distinct numbers within a subject; the first wins otherwise
    out = []
    for i, (cid, subj) in enumerate(zip(child.column("item").to_pylist(), child.column("subject").to_pylist(), strict=True)):
        k = _position_key(cid, subj)
        if k is not None and k in keys:
            out.append((i, keys[k], 100.0))
    return out


def _by_tokens(checker: Checker, name: str, child: pa.Table, pname: str, parent: pa.Table) -> list[tuple[int, int, float]]:
    """Each child item to the one corpus item whose tokens agree best (see the module docstring)."""
    pitems = [checker.index[(pname, p)] for p in parent.column("item").to_pylist()]
    postings: dict[str, list[int]] = defaultdict(list)
    for j, it in enumerate(pitems):
        for t in it.evidence.tokens:
            postings[t].append(j)
    out = []
    for i, cid in enumerate(child.column("item").to_pylist()):
        item = checker.index[(name, cid)]
        names = item.evidence.latin_share < 0.5
        mine = item.evidence.comparable(names)
        cands = sorted({j for t in mine if len(postings.get(t, ())) <= COMMON_TOKEN for j in postings.get(t, ())})
        scored = []
        for j in cands:
            if item.options and pitems[j].options and item.options != pitems[j].options:
                continue
            s = evidence_score(mine, pitems[j].evidence.comparable(names))
            if s is not None and s >= TOKEN_SCORE:
                scored.append((s, j))
        scored.sort(reverse=True)
        if scored and (len(scored) == 1 or scored[1][0] < scored[0][0]):
            out.append((i, scored[0][1], scored[0][0]))
    return out


def _labelled(table: pa.Table, name: str) -> pa.Table:
    """``table`` with every row's ``dataset`` set to ``name`` (the checker's key)."""
    i = table.schema.get_field_index("dataset")
    return table.set_column(i, table.schema.field(i), pa.array([name] * table.num_rows, table.schema.field(i).type))


def _checker(parents: dict[str, Checker], name: str, child: pa.Table, pname: str, parent: pa.Table,
             readers: Mapping[str, NumberReader]) -> Checker:
    """The checker of a child and a corpus dataset; the corpus side built once and kept in ``parents``."""
    if pname not in parents:
        parents[pname] = Checker(_labelled(parent, pname), readers)
    return parents[pname].extended(_labelled(child, name), readers)


def _check(checker: Checker, name: str, child: pa.Table, match: TranslationMatch, parent: pa.Table,
           languages: Mapping[str, str | None]) -> None:
    """Count the pairs whose tokens agree, disagree or say nothing (sets ``match.counts``)."""
    counts = {"pairs": len(match.pairs), "evidence_agrees": 0, "evidence_disagrees": 0, "no_evidence": 0, "option_count_differs": 0}
    cids, pids = child.column("item").to_pylist(), parent.column("item").to_pylist()
    items = [checker.index[(name, cids[i])] for i, _, _ in match.pairs]
    clang, plang = languages.get(name), languages.get(match.parent)
    read_probe_evidence(items, clang, plang)
    for (_i, j, _), item in zip(match.pairs, items, strict=True):
        if item.options != checker.index[(match.parent, pids[j])].options:
            counts["option_count_differs"] += 1
        probe = checker.probe(item, match.parent, pids[j], probe_mode(item, clang, plang))
        supports = None if probe is None else probe.supports
        counts["no_evidence" if supports is None else "evidence_agrees" if supports else "evidence_disagrees"] += 1
    match.counts = counts


def discover_translation(
    name: str, child: pa.Table, corpus: Mapping[str, pa.Table], languages: Mapping[str, str | None] | None = None,
    parent_checkers: dict[str, Checker] | None = None, ways: tuple[str, ...] = ("ids", "positions", "tokens"),
) -> tuple[TranslationMatch | None, list[TranslationMatch]]:
    """The corpus dataset an unknown dataset translates, paired without a model.

    Args:
        name: The unknown dataset.
        child: Its items (ITEMS_SCHEMA).
        corpus: Corpus dataset -> items.
        languages: Dataset -> declared language (numbers are read in it); None: digits only.
        parent_checkers: Corpus dataset -> its items' checker, filled and reused across
            calls (a corpus dataset's evidence is read once for all the unknown datasets).
        ways: The ways of pairing tried, in this order (a subset of ``ids``,
            ``positions``, ``tokens``; the tokens are the costly one).

    Returns:
        ``(best, tried)``: the supported match pairing the most items (ties: the larger
        corpus dataset, then its name), or None; and every match that paired enough items,
        supported or not (for the report).
    """
    languages = dict(languages or {})
    readers: dict[str, NumberReader] = {d: number_reader(lang) for d, lang in languages.items() if lang}
    need = max(3, MIN_SHARE * child.num_rows)
    need_tokens = max(3, TOKEN_MIN_SHARE * child.num_rows)
    parent_checkers = {} if parent_checkers is None else parent_checkers
    cids = child.column("item").to_pylist()
    tried: list[TranslationMatch] = []
    for pname in sorted(corpus):
        parent = corpus[pname]
        if pname == name or parent.num_rows == 0:
            continue
        checker: Checker | None = None
        for how in ways:
            if how == "tokens":
                checker = checker or _checker(parent_checkers, name, child, pname, parent, readers)
                pairs = _by_tokens(checker, name, child, pname, parent)
            else:
                pairs = _by_ids(child, parent) if how == "ids" else _by_positions(child, parent)
            if len(pairs) < (need_tokens if how == "tokens" else need):
                continue
            match = TranslationMatch(pname, how, pairs)
            match.row_numbers = all(str(cids[i]).isdigit() for i, _, _ in pairs)
            checker = checker or _checker(parent_checkers, name, child, pname, parent, readers)
            _check(checker, name, child, match, parent, languages)
            tried.append(match)
            if match.supported:
                break
    supported = [m for m in tried if m.supported]
    supported.sort(key=lambda m: (-len(m.pairs), -corpus[m.parent].num_rows, m.parent))
    return (supported[0] if supported else None), tried


def _row_index_joins(parent: pa.Table, match: TranslationMatch) -> bool:
    """True when every parent item paired has an id ending in a row number (a row-index join,
    whose rows may be shifted)."""
    pids = parent.column("item").to_pylist()
    return match.how in ("ids", "positions") and bool(match.pairs) and all(
        shifted_item(str(pids[j]), 1) is not None for _, j, _ in match.pairs
    )


def translation_edges(
    name: str, child: pa.Table, parent: pa.Table, match: TranslationMatch, languages: Mapping[str, str | None] | None = None,
) -> tuple[pa.Table, dict[str, Any]]:
    """The edges (EDGES_SCHEMA) of a match, options paired by position (the linker's own
    rule for translations), and the counts for the proposal.

    Pairs by ids or positions whose parent ids end in a row number are row-index joins:
    they are linked under a ``by: index`` rule, so the linker's row-shift check
    (:func:`~croissant_lineage.linking.alignment.check_index_matches`) tests each subject
    for a shift and re-links the joins a shift explains (MMMLU's ``ID`` is shifted by 2-3
    rows against cais/mmlu in high_school_world_history), as ``link`` does with a declared
    ``by: index`` rule. Those re-linked are counted as ``relinked_by_shift``.

    Args:
        name: The child dataset.
        child, parent: Their item tables.
        match: The pairs.
        languages: Dataset -> declared language (numbers are read in it).
    """
    languages = languages or {}
    langs = {d: (lang,) if lang else () for d, lang in ((name, languages.get(name)), (match.parent, languages.get(match.parent)))}
    by = "index" if _row_index_joins(parent, match) else "id"
    deriv = Derivation(name, match.parent, "translation", LinkRule(by=by), child_languages=langs[name], parent_languages=langs[match.parent])
    if match.how == "ids":
        rows = [i for i, _, _ in match.pairs]
        edges, _, _ = link_derivation(deriv, child.take(rows), parent, translated=True)
    else:
        edges = link_pairs(deriv, child, parent, match.pairs, method=match.how, translated=True)
    relinked = sum(1 for m in edges.column("method").to_pylist() if m == SHIFTED_METHOD)
    counts: dict[str, Any] = {"edges": edges.num_rows, "paired_by": match.how, **match.counts, "relinked_by_shift": relinked}
    return edges, counts
