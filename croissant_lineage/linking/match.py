"""Matching child items to parent items: by id, and by stem (exact, then fuzzy).

* :func:`id_matches` - a child field (default: the child's own id) names the parent
  item id.
* :func:`match_text` - the normalised stem is looked up among the parents of the same
  block (subject by default): an exact match first; where several parents share the
  stem, the exact copy wins (:func:`option_evidence`: stem and options byte-identical,
  then option score, then options equal as bytes, then as case-preserving normalised
  text) and the others are recorded as alternatives (``ambiguous`` when the evidence
  cannot separate them). The rest are
  scored with RapidFuzz (``ratio`` on normalised stems, one ``cdist`` per block:
  :func:`stem_ratios`; a block of many pairs, such as a family without a blocking
  field, through a word-pair index: :mod:`croissant_lineage.linking.block_index`) and
  matched only at or above the rule's ``threshold``; among near-equal stems (within
  :data:`NEAR` points of the best) option evidence decides. Below the threshold the
  child is left unmatched with its best candidate. With ``one_to_one`` (``re_release``,
  ``copy``) colliding choices are re-solved as an assignment
  (:mod:`croissant_lineage.linking.assign`).

Both return ``(matches, unmatched)``: the :class:`Match` of each matched child, and for
each other child its best parent candidate (or None) with that candidate's score.

The exact matches of all blocks are one join of the two sides' (block, stem) codes, and
candidates are ranked by :func:`evidence_columns` (the option evidence of all pairs at
once; :func:`option_evidence` is its one-pair form).
The fuzzy candidates of consecutive blocks share one :func:`evidence_columns` call
(:data:`FUZZY_PAIRS` pairs at a time): its fixed costs, paid once per block, made the
fuzzy step's cost per item grow with the number of blocks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cdist

from croissant_lineage.family.spec import LinkRule
from croissant_lineage.linking import block_index
from croissant_lineage.linking.assign import (
    assign_one_to_one,
    candidate_weight,
    children_in_collision,
)
from croissant_lineage.linking.codes import equal_codes
from croissant_lineage.linking.diff_columns import CHUNK_PAIRS, diff_pairs
from croissant_lineage.linking.sides import Side
from croissant_lineage.linking.take import compare_rows, take_rows

__all__ = [
    "NEAR", "IdMatches", "Match", "Unmatched", "evidence_columns", "id_matches", "match_text", "option_evidence",
    "stem_ratios",
]

#: Fuzzy candidates within this many points of the best stem score compete on options.
NEAR = 3.0

#: Child index -> (best parent candidate or None, its stem score 0-100).
Unmatched = dict[int, tuple[int | None, float]]

_NO_ROWS = np.zeros(0, np.int64)

#: Option evidence of a candidate (see :func:`option_evidence`); larger is better.
_Evidence = tuple[bool, float, int, int, int, int]


@dataclass(frozen=True, slots=True)
class Match:
    """The chosen parent of one child item (indices into the parent table)."""

    child: int
    parent: int
    method: str
    score: float
    alternatives: tuple[int, ...] = ()
    ambiguous: bool = False


class IdMatches(Sequence[Match]):
    """The matches of a ``by: id`` / ``by: index`` rule as two columns (child rows, their
    parents' rows): each is ``Match(child, parent, method, 100.0)``,
    built only when asked for by index or iteration (the edges and counts of an id link
    read the columns: one Python object per item cost more than the rest of the link of it).

    Attributes:
        child, parent: ``int64`` row arrays, equal lengths.
        method: The rule's ``by`` (every match's method).
    """

    __slots__ = ("child", "method", "parent")

    def __init__(self, child: np.ndarray, parent: np.ndarray, method: str):
        self.child = np.asarray(child, np.int64)
        self.parent = np.asarray(parent, np.int64)
        self.method = method

    def __len__(self) -> int:
        return len(self.child)

    @overload
    def __getitem__(self, k: int) -> Match: ...

    @overload
    def __getitem__(self, k: slice) -> list[Match]: ...

    def __getitem__(self, k: int | slice) -> Match | list[Match]:
        if isinstance(k, slice):
            return [Match(i, j, self.method, 100.0) for i, j in zip(self.child[k].tolist(), self.parent[k].tolist(), strict=True)]
        return Match(int(self.child[k]), int(self.parent[k]), self.method, 100.0)

    def __iter__(self) -> Iterator[Match]:
        return iter(self[:])

    def by_child(self) -> IdMatches:
        """The same matches in child order (``list.sort(key=lambda m: m.child)``)."""
        if np.all(self.child[1:] > self.child[:-1]):
            return self
        order = np.argsort(self.child, kind="stable")
        return IdMatches(self.child[order], self.parent[order], self.method)


def id_matches(child: Side, parent: Side, rule: LinkRule, selected: list[int], where: str) -> tuple[IdMatches, Unmatched]:
    """Match selected children to the parent whose id a child field names (``by: id|index``).

    Returns:
        ``(matches, unmatched)``: the matches as columns (:class:`IdMatches`, in the order
        of ``selected``; iterating gives :class:`Match` es); an unmatched child has no
        candidate (score 0).
    """
    if rule.child_field:
        targets = child.eval(rule.child_field, where + "child_field ")
        keys: Any = pa.array([_id_text(targets[i]) for i in selected], pa.string())
        del targets
    else:
        keys = child.ids.array.take(pa.array(selected, pa.int64()))
    rows = _rows_of_ids(parent, keys)
    kids = np.asarray(selected, np.int64)
    found = rows >= 0
    unmatched: Unmatched = {i: (None, 0.0) for i in kids[~found].tolist()}
    return IdMatches(kids[found], rows[found], rule.by), unmatched


def _id_text(t: Any) -> str | None:
    """A child field's value as the parent id it names (``3.0`` names ``"3"``)."""
    return None if t is None else (str(int(t)) if isinstance(t, float) and t.is_integer() else str(t))


def _rows_of_ids(parent: Side, keys: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Per key, the row of the parent item with that id (-1: none; a null key names none;
    of repeated ids, the last row)."""
    ids = parent.ids.array
    reverse = pc.count_distinct(ids).as_py() < len(ids)  # repeated ids (not from load_items): the last wins
    if reverse:
        ids = ids.take(pa.array(np.arange(len(ids) - 1, -1, -1, dtype=np.int64)))
    found = pc.index_in(keys, value_set=ids, skip_nulls=True)
    rows = np.asarray(pc.fill_null(found, -1).to_numpy(zero_copy_only=False), dtype=np.int64)
    return np.where(rows < 0, -1, len(ids) - 1 - rows) if reverse else rows


def option_evidence(child: Side, i: int, parent: Side, j: int) -> _Evidence:
    """How closely child ``i`` copies parent ``j``, as a tuple that sorts better last:
    ``(stem and options byte-identical, option score, options paired as equal bytes,
    ... as equal case-preserving forms or better, ... as equal forms of any kind,
    options paired at all)``: :func:`evidence_columns` of one pair."""
    row = evidence_columns(child, np.array([i], np.int64), parent, np.array([j], np.int64))[0].tolist()
    return (bool(row[0]), float(row[1]), int(row[2]), int(row[3]), int(row[4]), int(row[5]))


def evidence_columns(child: Side, ci: np.ndarray, parent: Side, pi: np.ndarray) -> np.ndarray:
    """The option evidence (:func:`option_evidence`'s tuple) of every pair ``(ci[k], pi[k])``
    at once, one row per pair (``float64``, the tuple's six fields in order; the option diffs by
    :func:`~croissant_lineage.linking.diff_columns.diff_pairs`)."""
    ci, pi = np.asarray(ci, np.int64), np.asarray(pi, np.int64)
    out = np.zeros((len(ci), 6))
    if not len(ci):
        return out
    stems_equal = _stems_equal(child, ci, parent, pi)
    c_null, p_null = child.options_missing[ci], parent.options_missing[pi]
    d = diff_pairs(child.option_columns(), parent.option_columns(), ci, pi, child.key_indices[ci], parent.key_indices[pi])
    n_bytes = d.paired("bytes")
    n_cased = n_bytes + d.paired("cased")
    out[:, 0] = d.identical & stems_equal
    out[:, 1] = d.score
    out[:, 2] = n_bytes
    out[:, 3] = n_cased
    out[:, 4] = n_cased + d.paired("folded", "na")
    out[:, 5] = d.copied
    missing = c_null | p_null  # no options on a side: only the stems and the missing lists count
    out[missing] = 0.0
    out[missing, 0] = stems_equal[missing] & c_null[missing] & p_null[missing]
    return out


def _stems_equal(child: Side, ci: np.ndarray, parent: Side, pi: np.ndarray) -> np.ndarray:
    """Per pair, whether the two stems as stored are equal (both null counts as equal),
    :data:`~croissant_lineage.linking.diff_columns.CHUNK_PAIRS` pairs at a time: the
    stems taken for a comparison are freed before the option diffs."""
    return compare_rows(
        child.table.column("stem"), parent.table.column("stem"), ci, pi, _equal_or_both_null, chunk=CHUNK_PAIRS
    )


def _equal_or_both_null(left: pa.Array, right: pa.Array) -> pa.Array:
    return pc.or_(pc.fill_null(pc.equal(left, right), False), pc.and_(pc.is_null(left), pc.is_null(right)))


#: Pairs from which a block's ``cdist`` runs on every core (RapidFuzz's threads, without
#: the GIL; each pair's score is the same): below, starting the threads costs more than it saves.
THREADED_PAIRS = 20_000


def stem_ratios(queries: list[str], choices: list[str]) -> np.ndarray:
    """RapidFuzz ``ratio`` of every query with every choice, as ``cdist(queries, choices,
    scorer=fuzz.ratio, dtype=np.float32)`` gives it, computed faster.

    The ratio is ``100 * (1 - (n - 2 * lcs) / n)`` where ``n`` is the two lengths' sum and
    ``lcs`` the longest common subsequence. A prefix (or suffix) common to every text adds
    its length to every pair's ``lcs``, so it is cut once for all before one ``cdist`` of
    ``LCSseq.similarity`` (integers), the side with fewer 64-character words per text
    being the queries; the ratio is then computed in the same float operations as
    RapidFuzz (``float64``, then ``float32``), so the scores are equal to the bit
    (``tests/linking/test_match_columnar.py``).
    """
    if not (queries and choices):
        return np.zeros((len(queries), len(choices)), np.float32)
    prefix, suffix = block_index.common_cut(queries + choices)
    q = [t[prefix : len(t) - suffix] for t in queries]
    c = [t[prefix : len(t) - suffix] for t in choices]
    q_len = np.array([len(t) for t in queries], np.float64)
    c_len = np.array([len(t) for t in choices], np.float64)
    # cdist's work: each query's 64-character words times the choices' characters.
    swap = sum(len(t) // 64 + 1 for t in c) * sum(map(len, q)) < sum(len(t) // 64 + 1 for t in q) * sum(map(len, c))
    workers = -1 if len(q) * len(c) >= THREADED_PAIRS else 1
    lcs = cdist(c, q, scorer=LCSseq.similarity, dtype=np.int64, workers=workers).T if swap else cdist(
        q, c, scorer=LCSseq.similarity, dtype=np.int64, workers=workers
    )
    total = q_len[:, None] + c_len[None, :]
    distance = total - 2 * (lcs + (prefix + suffix))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(total > 0, (1.0 - distance / total) * 100, 100.0)
    return ratio.astype(np.float32)


def _ranked(evidence: np.ndarray, parents: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """The order of candidate rows grouped by ``owner`` (ascending), best first within a
    group by evidence (each field larger first), then parent row."""
    return np.lexsort((parents, *(-evidence[:, f] for f in range(5, -1, -1)), owner))


def _weights(exact: bool, evidence: np.ndarray, stem_score: np.ndarray | float) -> np.ndarray:
    """:func:`~croissant_lineage.linking.assign.candidate_weight` of many candidates (the
    same float operations in the same order)."""
    same, score, n_bytes, n_cased, n_equal, copied = (evidence[:, f] for f in range(6))
    return (
        1e10 * exact + 1e9 * (same != 0) + 1e6 * score + 1e4 * np.minimum(n_bytes, 99)
        + 1e3 * np.minimum(n_cased, 9) + 1e2 * np.minimum(n_equal, 9) + 10 * np.minimum(copied, 9)
        + np.asarray(stem_score, np.float64) / 10
    )


def _block_groups(side: Side, expr: Any, where: str, rows: Iterable[int] | None = None) -> dict[Any, np.ndarray]:
    """The rows (all, or ``rows``) grouped by their block key, each group in row order."""
    if expr is None:
        keys: list[Any] = [None] * len(side)
    else:
        keys = [None if v is None else str(v) for v in side.eval(expr, where)]
    index: dict[Any, int] = {}
    picked = np.arange(len(side), dtype=np.int64) if rows is None else np.fromiter(rows, np.int64)
    codes = np.fromiter((index.setdefault(keys[i], len(index)) for i in picked.tolist()), np.int64, len(picked))
    del keys
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return dict(zip(index, np.split(picked[order], bounds) if len(picked) else [], strict=False))


#: Fuzzy candidate pairs whose option evidence is computed at once (blocks are grouped up to about this many).
FUZZY_PAIRS = 1 << 14


@dataclass
class _FuzzyBlock:
    """One block's pending children scored against its parents (:meth:`_TextMatching.fuzzy`).

    Attributes:
        kids: The children; pool: the parents' rows (empty: no parent in the block).
        best, best_score: Per child, its best parent column and that stem score.
        cols, col_scores: Per child, the columns whose option evidence ranks them (those
            within :data:`NEAR` of the best, then the others at or above the threshold
            when one child per parent) and their stem scores; none below the threshold.
        n_near: Per child, how many of ``cols`` are near the best.
    """

    kids: list[int]
    pool: np.ndarray
    best: list[int]
    best_score: list[float]
    cols: list[np.ndarray]
    col_scores: list[list[float]]
    n_near: list[int]

    @property
    def pairs(self) -> int:
        """The candidate pairs whose evidence is asked."""
        return sum(len(c) for c in self.cols)


def _block_stem_keys(
    child: Side, kid_rows: np.ndarray, kid_block: np.ndarray, parent: Side, pool_rows: np.ndarray, pool_block: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One integer per (block, normalised stem) of the children's and the parents' rows,
    equal where both are (the exact join's keys). The stems are numbered by
    :func:`.codes.equal_codes` (no copy of them): a whole side's column when the rows are
    a quarter of it or more, else a copy of just those rows' stems."""
    whole = [4 * len(rows) >= len(side) for side, rows in ((child, kid_rows), (parent, pool_rows))]
    columns = [
        side.norm_stems.array if w else take_rows(side.norm_stems.array, rows)
        for side, rows, w in ((child, kid_rows, whole[0]), (parent, pool_rows, whole[1]))
    ]
    width = max(sum(len(c) for c in columns), 1)  # more than any code
    kid_codes, pool_codes = equal_codes(*columns)
    del columns
    kid_codes = kid_codes[kid_rows] if whole[0] else kid_codes
    pool_codes = pool_codes[pool_rows] if whole[1] else pool_codes
    return kid_block * width + kid_codes, pool_block * width + pool_codes


@dataclass
class _TextMatching:
    """The state of one :func:`match_text` run: results so far, children left for fuzzy."""

    child: Side
    parent: Side
    rule: LinkRule
    matches: list[Match]
    unmatched: Unmatched
    #: Block -> children with no exact match (or only a generic one), for fuzzy.
    pending: dict[Any, list[int]]
    #: Child -> its exact match on a generic stem (none of the options copied), kept
    #: unless fuzzy finds a parent whose options it does copy.
    fallback: dict[int, Match]
    #: One child per parent (``re_release``, ``copy``): record every candidate.
    one_to_one: bool = False
    #: Child -> its candidates ``(weight, parent, method, stem score)`` (one_to_one only).
    cands: dict[int, list[tuple[float, int, str, float]]] = field(default_factory=dict)

    def exact(self, kids_of: dict[Any, np.ndarray], pool_of: dict[Any, np.ndarray]) -> list[Match]:
        """Exact matches of every block's children at once: a join of the two sides'
        (block, normalised stem) codes, the candidates of each child ranked by their option
        evidence (:func:`evidence_columns`). Children without a candidate, or whose best
        candidate copies none of their options (a generic stem), pend for fuzzy.

        Returns:
            The exact matches found, in the order of ``kids_of``'s rows.
        """
        blocks = list(kids_of)
        kid_rows = np.concatenate([kids_of[b] for b in blocks]) if blocks else _NO_ROWS
        kid_block = np.repeat(np.arange(len(blocks)), [len(kids_of[b]) for b in blocks])
        pools = [pool_of.get(b, _NO_ROWS) for b in blocks]
        pool_rows = np.concatenate(pools) if blocks else _NO_ROWS
        pool_block = np.repeat(np.arange(len(blocks)), [len(p) for p in pools])
        kid_key, pool_key = _block_stem_keys(self.child, kid_rows, kid_block, self.parent, pool_rows, pool_block)
        by_key = np.argsort(pool_key, kind="stable")  # equal keys keep the parents' row order
        lo = np.searchsorted(pool_key[by_key], kid_key, "left")
        counts = np.searchsorted(pool_key[by_key], kid_key, "right") - lo
        starts = np.cumsum(counts) - counts
        owner = np.repeat(np.arange(len(kid_rows)), counts)
        cand = pool_rows[by_key[np.repeat(lo, counts) + np.arange(len(owner)) - np.repeat(starts, counts)]]
        evidence = evidence_columns(self.child, kid_rows[owner], self.parent, cand)
        order = _ranked(evidence, cand, owner)
        evidence, cand = evidence[order], cand[order]
        best_of = np.repeat(starts, counts)  # each candidate row's child's best row
        tie = np.bincount(
            owner, (np.arange(len(owner)) != best_of) & (evidence == evidence[best_of]).all(axis=1), len(kid_rows)
        ) > 0
        has = counts > 0
        best = np.full(len(kid_rows), -1, np.int64)
        best[has] = cand[starts[has]]
        generic = np.zeros(len(kid_rows), bool)
        generic[has] = (evidence[starts[has], 1] == 0.0) & (self.child.n_options[kid_rows[has]] > 0) & (
            self.parent.n_options[best[has]] > 0
        )
        if self.one_to_one:
            self._record_exact(kid_rows, owner, cand, _weights(True, evidence, 100.0))
        return self._exact_matches(blocks, kid_rows, kid_block, counts, starts, cand, tie, generic)

    def _exact_matches(
        self, blocks: list[Any], kid_rows: np.ndarray, kid_block: np.ndarray, counts: np.ndarray,
        starts: np.ndarray, cand: np.ndarray, tie: np.ndarray, generic: np.ndarray,
    ) -> list[Match]:
        found: list[Match] = []
        cands = cand.tolist()
        for i, b, n, start, t, g in zip(
            kid_rows.tolist(), kid_block.tolist(), counts.tolist(), starts.tolist(), tie.tolist(), generic.tolist(),
            strict=True,
        ):
            if not n:
                self.pending[blocks[b]].append(i)
                continue
            m = Match(i, cands[start], "exact", 100.0, tuple(cands[start + 1 : start + n]), t)
            if g:  # same stem, none of the options: a generic stem; let fuzzy look further
                self.fallback[i] = m
                self.pending[blocks[b]].append(i)
            else:
                found.append(m)
        return found

    def _record_exact(self, kid_rows: np.ndarray, owner: np.ndarray, cand: np.ndarray, weights: np.ndarray) -> None:
        kids = kid_rows.tolist()
        for k, j, w in zip(owner.tolist(), cand.tolist(), weights.tolist(), strict=True):
            self.cands.setdefault(kids[k], []).append((w, j, "exact", 100.0))

    def give_up(self, i: int, best: int | None, score: float) -> None:
        """No fuzzy match for child ``i``: its exact fallback, else unmatched."""
        if i in self.fallback:
            self.matches.append(self.fallback[i])
        else:
            self.unmatched[i] = (best, score)

    def fuzzy(self, blocks: list[tuple[list[int], np.ndarray]]) -> list[list[Match]]:
        """Fuzzy matches of each block's pending children (``(children, parent rows)``
        per block), in block order: per block one ``cdist`` of its stems
        (:meth:`_score_block`); the near-best candidates' option evidence of many blocks
        at once (one :func:`evidence_columns` per :data:`FUZZY_PAIRS` candidates: its fixed
        costs, paid per block, grew with the block count); then each child's choice
        (:meth:`_decide`), block by block.

        Returns:
            Per block, the matches it added (fallbacks of children left without a fuzzy match included).
        """
        found: list[list[Match]] = []
        group: list[_FuzzyBlock] = []
        pairs = 0
        for kids, pool in blocks:
            group.append(self._score_block(kids, pool))
            pairs += group[-1].pairs
            if pairs >= FUZZY_PAIRS:
                found.extend(self._decide(group))
                group, pairs = [], 0
        found.extend(self._decide(group))
        return found

    def _score_block(self, kids: list[int], pool: np.ndarray) -> _FuzzyBlock:
        """One block's pending children scored against its parents: one ``cdist``, or for a
        block of at least :data:`~croissant_lineage.linking.block_index.INDEX_PAIRS` pairs
        the pairs that decide (:func:`~croissant_lineage.linking.block_index.indexed_scores`)."""
        if not len(pool):
            return _FuzzyBlock(kids, pool, [], [], [], [], [])
        queries, choices = self.child.norm_stems.take(kids), self.parent.norm_stems.take(pool)
        if len(kids) * len(pool) >= block_index.INDEX_PAIRS:
            rows = block_index.indexed_scores(
                queries, choices, threshold=self.rule.threshold, near=NEAR, one_to_one=self.one_to_one, ratios=stem_ratios
            )
        else:
            rows = [(None, srow) for srow in stem_ratios(queries, choices)]
        block = _FuzzyBlock(kids, pool, [], [], [], [], [])
        for scored, srow in rows:  # scored: the columns of srow's scores (None: every column)
            k, near, others = self._near(srow)
            local = np.concatenate((near, others))
            block.best.append(k if scored is None else int(scored[k]))
            block.best_score.append(float(srow[k]))
            block.cols.append(local if scored is None else scored[local])
            block.col_scores.append(srow[local].tolist())
            block.n_near.append(len(near))
        return block

    def _decide(self, group: list[_FuzzyBlock]) -> list[list[Match]]:
        """The matches of a group of scored blocks, block by block, their candidates'
        option evidence computed at once."""
        ci = [np.repeat(np.asarray(b.kids, np.int64), [len(c) for c in b.cols]) for b in group if b.cols]
        pi = [b.pool[c] for b in group for c in b.cols]
        evidence = evidence_columns(
            self.child, np.concatenate(ci) if ci else _NO_ROWS, self.parent, np.concatenate(pi) if pi else _NO_ROWS
        )
        found: list[list[Match]] = []
        at = 0
        for b in group:
            start = len(self.matches)
            at = self._decide_block(b, evidence, at)
            found.append(self.matches[start:])
            del self.matches[start:]
        return found

    def _decide_block(self, b: _FuzzyBlock, evidence: np.ndarray, at: int) -> int:
        """Each child's fuzzy match (or give-up) in one scored block; its candidates'
        evidence starts at row ``at`` of ``evidence``. Returns the row after them."""
        if not len(b.pool):
            for i in b.kids:
                self.give_up(i, None, 0.0)
            return at
        pool = b.pool.tolist()
        for row, i in enumerate(b.kids):
            if not b.n_near[row]:
                self.give_up(i, pool[b.best[row]], round(b.best_score[row], 2))
                continue
            cols = b.cols[row]
            evs = [tuple(e) for e in evidence[at : at + len(cols)].tolist()]
            at += len(cols)
            scored = [(e, s, pool[c]) for e, s, c in zip(evs, b.col_scores[row], cols.tolist(), strict=True)]
            self._fuzzy_one(i, scored, b.n_near[row])
        return at

    def _near(self, srow: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        """The best column of one child's scores, the columns within :data:`NEAR` of it
        (none below the threshold), and (``one_to_one``) the other columns at or above the threshold."""
        k = int(srow.argmax())
        top = float(srow[k])
        if top < self.rule.threshold:
            return k, _NO_ROWS, _NO_ROWS
        near = np.flatnonzero(srow >= top - NEAR)
        if not self.one_to_one:
            return k, near, _NO_ROWS
        above = np.flatnonzero(srow >= self.rule.threshold)
        return k, near, above[~np.isin(above, near)]

    def _fuzzy_one(self, i: int, scored: list[tuple[_Evidence, float, int]], n_near: int) -> None:
        """Child ``i``'s fuzzy match among its near candidates ``scored[:n_near]`` (``(evidence,
        stem score, parent)``; the rest: other candidates at or above the threshold)."""
        order = sorted(scored[:n_near], key=lambda t: (tuple(-x for x in t[0]), -t[1], t[2]))
        best_ev, best_score, best = order[0]
        if self.one_to_one:  # every candidate at or above the threshold, for the assignment
            more = sorted(scored[n_near:], key=lambda t: (tuple(-x for x in t[0]), t[2]))
            self.cands.setdefault(i, []).extend(
                (candidate_weight(False, ev, round(s, 2)), j, "fuzzy", round(s, 2)) for ev, s, j in order + more
            )
        if i in self.fallback and best_ev[1] == 0.0:
            self.matches.append(self.fallback[i])
            return
        tie = any(ev == best_ev and s == best_score for ev, s, _ in order[1:])
        alts = tuple(j for _, _, j in order[1:])
        self.matches.append(Match(i, best, "fuzzy", round(best_score, 2), alts, tie))

    def settle(self) -> None:
        """One child per parent: re-assign the children whose choices collide
        (:func:`~croissant_lineage.linking.assign.assign_one_to_one`); a child left
        without a parent is unmatched with its best candidate."""
        choices = {m.child: m.parent for m in self.matches}
        involved = children_in_collision(choices, self.cands)
        for i in involved:
            self.cands[i].sort(key=lambda c: (-c[0], c[1]))
        new = assign_one_to_one(choices, {i: [(w, j) for w, j, _, _ in self.cands[i]] for i in involved})
        if not new:
            return
        by_child = {m.child: m for m in self.matches}
        kept = [m for m in self.matches if m.child not in new]
        for i, j in sorted(new.items()):
            cs = self.cands[i]
            old = by_child.get(i)
            if j is None:
                self.unmatched[i] = (cs[0][1], cs[0][3])
            elif old is not None and old.parent == j:
                kept.append(old)
            else:
                _, _, method, score = next(c for c in cs if c[1] == j)
                alts = tuple(dict.fromkeys(c[1] for c in cs if c[1] != j))
                kept.append(Match(i, j, method, score, alts, False))
                self.unmatched.pop(i, None)
        self.matches = kept


def match_text(
    child: Side, parent: Side, rule: LinkRule, selected: list[int], where: str = "", *, one_to_one: bool = False
) -> tuple[list[Match], Unmatched]:
    """Match selected children to parents by stem (see the module docstring).

    ``one_to_one``: a parent takes at most one child (``re_release`` and ``copy``
    derivations); where children's choices collide, a maximum-weight assignment decides
    (:mod:`croissant_lineage.linking.assign`) and the parents a child did not get stay
    in its ``alternatives``.

    Returns:
        ``(matches, unmatched)`` where ``unmatched`` maps a child index to its best
        parent candidate (or None: no parent in its block) and that candidate's score.
    """
    kids_of = _block_groups(child, rule.child_block, where + "child_block ", selected)
    pool_of = _block_groups(parent, rule.parent_block, where + "parent_block ")
    run = _TextMatching(child, parent, rule, [], {}, defaultdict(list), {}, one_to_one)
    exact_found = run.exact(kids_of, pool_of)
    pending = [b for b in kids_of if b in run.pending]
    fuzzy_found = dict(zip(pending, run.fuzzy([(run.pending[b], pool_of.get(b, _NO_ROWS)) for b in pending]), strict=True))
    # Matches in the order of a whole-side pass: exact ones in ``selected`` order, then
    # fuzzy ones block by block, blocks ordered by their text (ties: first pending child).
    position = np.empty(len(child), np.int64)
    position[np.asarray(selected, dtype=np.int64)] = np.arange(len(selected))
    exact_found.sort(key=lambda m: position[m.child])
    blocks = sorted(fuzzy_found, key=lambda b: (str(b), position[run.pending[b][0]]))
    run.matches = exact_found + [m for b in blocks for m in fuzzy_found[b]]
    if one_to_one:
        run.settle()
    return run.matches, run.unmatched
