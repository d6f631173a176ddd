"""Matching child items to parent items: by id, and by stem (exact, then fuzzy).

* :func:`match_id` - a child field (default: the child's own id) names the parent
  item id.
* :func:`match_text` - the normalised stem is looked up among the parents of the same
  block (subject by default): an exact match first; where several parents share the
  stem, the exact copy wins (:func:`option_evidence`: stem and options byte-identical,
  then option score, then options equal as bytes, then as case-preserving normalised
  text) and the others are recorded as alternatives (``ambiguous`` when the evidence
  cannot separate them). The rest are
  scored with RapidFuzz (``ratio`` on normalised stems, one ``cdist`` per block) and
  matched only at or above the rule's ``threshold``; among near-equal stems (within
  :data:`NEAR` points of the best) option evidence decides. Below the threshold the
  child is left unmatched with its best candidate. With ``one_to_one`` (``re_release``,
  ``copy``) colliding choices are re-solved as an assignment
  (:mod:`croissant_lineage.linking.assign`).

Both return ``(matches, unmatched)``: the :class:`Match` of each matched child, and for
each other child its best parent candidate (or None) with that candidate's score.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from rapidfuzz import fuzz
from rapidfuzz.process import cdist

from croissant_lineage.family.spec import LinkRule
from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.linking.assign import assign_one_to_one, candidate_weight
from croissant_lineage.linking.options import diff_texts
from croissant_lineage.linking.sides import Side

__all__ = ["NEAR", "Match", "Unmatched", "match_id", "match_text", "option_evidence"]

#: Fuzzy candidates within this many points of the best stem score compete on options.
NEAR = 3.0

#: Child index -> (best parent candidate or None, its stem score 0-100).
Unmatched = dict[int, tuple[int | None, float]]

_NO_ROWS = np.zeros(0, np.int64)

#: Option evidence of a candidate (see :func:`option_evidence`); larger is better.
_Evidence = tuple[bool, float, int, int, int, int]


@dataclass(frozen=True)
class Match:
    """The chosen parent of one child item (indices into the parent table)."""

    child: int
    parent: int
    method: str
    score: float
    alternatives: tuple[int, ...] = ()
    ambiguous: bool = False


def match_id(child: Side, parent: Side, rule: LinkRule, selected: list[int], where: str) -> tuple[list[Match], Unmatched]:
    """Match selected children to the parent whose id a child field names (``by: id|index``).

    Returns:
        ``(matches, unmatched)``; an unmatched child has no candidate (score 0).
    """
    if rule.child_field:
        targets = child.eval(rule.child_field, where + "child_field ")
        keys: Any = pa.array([_id_text(targets[i]) for i in selected], pa.string())
        del targets
    else:
        keys = child.ids.array.take(pa.array(selected, pa.int64()))
    rows = _rows_of_ids(parent, keys)
    matches: list[Match] = []
    unmatched: Unmatched = {}
    for i, j in zip(selected, rows.tolist(), strict=True):
        if j < 0:
            unmatched[i] = (None, 0.0)
        else:
            matches.append(Match(i, j, rule.by, 100.0))
    return matches, unmatched


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


def _key_index(key: str | None) -> int | None:
    return LETTERS.index(key) if key and key in LETTERS else None


def option_evidence(child: Side, i: int, parent: Side, j: int) -> _Evidence:
    """How closely child ``i`` copies parent ``j``, as a tuple that sorts better last:
    ``(stem and options byte-identical, option score, options paired as equal bytes,
    ... as equal case-preserving forms or better, ... as equal forms of any kind,
    options paired at all)``."""
    craw, praw = child.raw_options[i], parent.raw_options[j]
    if craw is None or praw is None:
        return (child.raw_stems[i] == parent.raw_stems[j] and craw is None and praw is None, 0.0, 0, 0, 0, 0)
    if craw == praw:  # options copied as they were: the identity diff, without normalising them
        n = len(craw)
        return (child.raw_stems[i] == parent.raw_stems[j], 100.0, n, n, n, n)
    c, p = child.option_texts(i), parent.option_texts(j)
    assert c is not None and p is not None  # None only without options
    d = diff_texts(c, p, keys=(_key_index(child.keys[i]), _key_index(parent.keys[j])))
    same = tuple(c.raw) == tuple(p.raw) and child.raw_stems[i] == parent.raw_stems[j]
    n_bytes = d.paired("bytes")
    n_cased = n_bytes + d.paired("cased")
    return (same, d.score, n_bytes, n_cased, n_cased + d.paired("folded", "na"), d.copied)


def _best_by_options(child: Side, i: int, parent: Side, cands: Iterable[int]) -> list[tuple[_Evidence, int]]:
    """Candidates sorted best first by :func:`option_evidence` (then parent order)."""
    scored = [(option_evidence(child, i, parent, j), j) for j in cands]
    scored.sort(key=lambda t: (tuple(-x for x in t[0]), t[1]))
    return scored


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

    def _record(self, i: int, method: str, scored: Iterable[tuple[_Evidence, float, int]]) -> None:
        if self.one_to_one:
            self.cands.setdefault(i, []).extend(
                (candidate_weight(method == "exact", ev, s), j, method, s) for ev, s, j in scored
            )

    def exact(self, i: int, cands: list[int], block: Any) -> None:
        """Match child ``i`` among the parents ``cands`` that share its stem."""
        ranked = _best_by_options(self.child, i, self.parent, cands)
        (best_ev, best), rest = ranked[0], ranked[1:]
        tie = any(ev == best_ev for ev, _ in rest)
        m = Match(i, best, "exact", 100.0, tuple(j for _, j in rest), tie)
        self._record(i, "exact", ((ev, 100.0, j) for ev, j in ranked))
        if best_ev[1] == 0.0 and self.child.n_options[i] and self.parent.n_options[best]:
            # Same stem, none of the options: a generic stem; let fuzzy look further.
            self.fallback[i] = m
            self.pending[block].append(i)
        else:
            self.matches.append(m)

    def give_up(self, i: int, best: int | None, score: float) -> None:
        """No fuzzy match for child ``i``: its exact fallback, else unmatched."""
        if i in self.fallback:
            self.matches.append(self.fallback[i])
        else:
            self.unmatched[i] = (best, score)

    def fuzzy(self, kids: list[int], pool: list[int]) -> None:
        """Score one block's pending children against its parents (one ``cdist``)."""
        if not pool:
            for i in kids:
                self.give_up(i, None, 0.0)
            return
        scores = cdist(
            [self.child.norm_stems[i] for i in kids],
            [self.parent.norm_stems[j] for j in pool],
            scorer=fuzz.ratio,
            dtype=np.float32,
            workers=1,
        )
        for row, i in enumerate(kids):
            self._fuzzy_one(i, scores[row], pool)

    def _fuzzy_one(self, i: int, srow: np.ndarray, pool: list[int]) -> None:
        k = int(srow.argmax())
        top = float(srow[k])
        if top < self.rule.threshold:
            self.give_up(i, pool[k], round(top, 2))
            return
        near = [pool[c] for c in np.flatnonzero(srow >= top - NEAR)]
        ranked = _best_by_options(self.child, i, self.parent, near)
        order = sorted(
            ((ev, float(srow[pool.index(j)]), j) for ev, j in ranked),
            key=lambda t: (tuple(-x for x in t[0]), -t[1], t[2]),
        )
        best_ev, best_score, best = order[0]
        if self.one_to_one:  # every candidate at or above the threshold, for the assignment
            others = [pool[c] for c in np.flatnonzero(srow >= self.rule.threshold) if pool[c] not in near]
            more = [(ev, float(srow[pool.index(j)]), j) for ev, j in _best_by_options(self.child, i, self.parent, others)]
            self._record(i, "fuzzy", ((ev, round(s, 2), j) for ev, s, j in order + more))
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
        for cs in self.cands.values():
            cs.sort(key=lambda c: (-c[0], c[1]))
        new = assign_one_to_one(choices, {i: [(w, j) for w, j, _, _ in cs] for i, cs in self.cands.items()})
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


def _exact_block(run: _TextMatching, block: Any, kids: list[int], pool: list[int]) -> list[Match]:
    """Exact matches of one block's children (the rest pend for fuzzy): the matches found."""
    exact: dict[str, list[int]] = defaultdict(list)
    for j in pool:
        exact[run.parent.norm_stems[j]].append(j)
    start = len(run.matches)
    for i in kids:
        cands = exact.get(run.child.norm_stems[i])
        if cands:
            run.exact(i, cands, block)
        else:
            run.pending[block].append(i)
    found = run.matches[start:]
    del run.matches[start:]
    return found


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
    exact_found: list[Match] = []
    fuzzy_found: dict[Any, list[Match]] = {}
    # One block at a time, its rows' texts held as Python objects only while it is matched.
    for b, kid_rows in kids_of.items():
        pool_rows = pool_of.get(b, _NO_ROWS)
        with child.hold(kid_rows), parent.hold(pool_rows):
            exact_found.extend(_exact_block(run, b, kid_rows.tolist(), pool_rows.tolist()))
            if b in run.pending:
                start = len(run.matches)
                run.fuzzy(run.pending[b], pool_rows.tolist())
                fuzzy_found[b] = run.matches[start:]
                del run.matches[start:]
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
