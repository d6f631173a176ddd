"""Per-child stem matching: the plain statement of :func:`croissant_lineage.linking.match.match_text`.

Kept as the oracle: one dict of stems per block, the candidates of each child ranked
by :func:`~tests.oracles.evidence.option_evidence_reference` one pair at a time (which
calls :func:`~tests.oracles.options.diff_texts_reference`), each block's texts held as
Python objects while it is matched. ``tests/linking/test_match_columnar.py`` proves the
columnar ``match_text`` equal to it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.process import cdist

from croissant_lineage.family.spec import LinkRule
from croissant_lineage.linking.assign import assign_one_to_one, candidate_weight
from croissant_lineage.linking.match import NEAR, Match, Unmatched, _block_groups
from croissant_lineage.linking.sides import Side
from tests.oracles.evidence import option_evidence_reference as option_evidence

_NO_ROWS = np.zeros(0, np.int64)

_Evidence = tuple[bool, float, int, int, int, int]


def _best_by_options(child: Side, i: int, parent: Side, cands: Iterable[int]) -> list[tuple[_Evidence, int]]:
    """Candidates sorted best first by :func:`option_evidence` (then parent order)."""
    scored = [(option_evidence(child, i, parent, j), j) for j in cands]
    scored.sort(key=lambda t: (tuple(-x for x in t[0]), t[1]))
    return scored



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


def reference_match_text(
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
