"""The fuzzy candidates of a large block through a word-pair index, with the scores that decide.

A block with no blocking field (a family without subjects) scores every child stem against
every parent stem: the cost grows with the product of the two sides. For a block of at least
:data:`INDEX_PAIRS` pairs, :func:`indexed_scores` scores only the pairs that decide each
child's match and returns, per child, the parent columns it scored and their RapidFuzz
``ratio`` (the float :func:`~croissant_lineage.linking.match.stem_ratios` gives that pair):

1. **Index.** The stems, cut of the prefix and suffix common to the whole block (a shared
   template), are split into consecutive word pairs (a one-word stem: its word), each
   numbered by its occurrence in the stem, so that two stems' shared tokens are their
   pair multisets' intersection. Tokens in more than :func:`max_postings` parents
   (boilerplate) are left out.
2. **Seeds.** Each child's :data:`TOP_K` parents sharing the most tokens are scored exactly
   (``rapidfuzz.process.cpdist`` of LCS lengths); ``s`` is the best seed score.
3. **The rest that can matter.** Every parent the full product's choice depends on scores at
   least ``L = s - NEAR`` (``s`` at the threshold or above; one child per parent: at most the
   threshold), else ``threshold - NEAR``. Besides the seeds, the parents sharing at least
   :data:`SHARE` of the child's most shared tokens (all sharing parents when no seed reaches
   the threshold) whose length lets them reach ``L`` (``ratio <= 200 min(a, b) / (a + b)``)
   are scored.
4. **Full rows.** A child sharing no token with any parent (a short stem, a stem of
   boilerplate, an edit in every other word), or with more than a quarter of the parents
   left to score, is scored against every parent (``ratios``, one ``cdist``).

Wherever a parent at the threshold is among the scored ones, the child's best parent, the
parents within ``NEAR`` of it and (one child per parent) those at the threshold are the full
product's, with the same scores, so its match and alternatives are too
(``tests/linking/test_block_index.py`` compares both on generated families and on
near-duplicate, short and templated stems). A child with no parent at the threshold among
the scored ones is unmatched with the best of those (the full product may name another
candidate, below the threshold). A child that shares no token with any parent still costs a
full row (``benchmarks/bench_unblocked.py`` measures the rest).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cpdist

__all__ = ["INDEX_PAIRS", "SHARE", "TOP_K", "ScoredRow", "common_cut", "indexed_scores", "max_postings"]

#: Blocks of at least this many child x parent pairs are scored through the index.
INDEX_PAIRS = 4_000_000
#: Parents per child scored before the level is known (those sharing the most tokens).
TOP_K = 4
#: Bits of a word's number in a pair's token (two words and an occurrence fit an int64).
_WORD_BITS = 28
#: Occurrences of a word pair in one text told apart (more count as the last).
_OCCURRENCES = 64
#: Full rows scored at a time (one ``ratios`` call each).
_FULL_ROWS = 1024
#: Besides the seeds, a child's parents sharing at least this share of its most shared tokens are scored.
SHARE = 0.5
#: A score's float error is far below this: bounds are compared with ``L - _SLACK``.
_SLACK = 1e-3

#: One child's scores: (parent columns, ascending, or None for all of them; their scores).
ScoredRow = tuple["np.ndarray | None", np.ndarray]


def max_postings(n_parents: int) -> int:
    """Tokens in more parents than this are not indexed (their pairs cost more than they tell)."""
    return max(32, int(n_parents ** 0.5))


def common_cut(texts: list[str]) -> tuple[int, int]:
    """The lengths of the prefix and the suffix common to every text (not overlapping; those
    of the least and the greatest text, and of the reversed texts)."""
    low, high = min(texts), max(texts)
    prefix = next((n for n, (a, b) in enumerate(zip(low, high, strict=False)) if a != b), min(len(low), len(high)))
    rev = [t[::-1] for t in texts]
    low, high = min(rev), max(rev)
    suffix = next((n for n, (a, b) in enumerate(zip(low, high, strict=False)) if a != b), min(len(low), len(high)))
    return prefix, min(suffix, min(len(t) for t in texts) - prefix)


def _tokens(texts: list[str], vocabulary: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Every text's tokens as ``(text index, token)`` arrays: its word pairs (a text of one
    word: that word), each numbered by its occurrence in the text (the k-th "of the" is its
    own token), so that two texts' shared tokens are their pair multisets' intersection."""
    ids: list[int] = []
    counts: list[int] = []
    lookup = vocabulary.setdefault
    for t in texts:
        words = [lookup(w, len(vocabulary)) for w in t.split()]
        n = len(ids)
        if len(words) == 1:
            ids.append(words[0])
            ids.append(-1)
        else:
            ids.extend(words)
            ids.append(-2)  # a separator: no pair spans two texts
        counts.append(len(ids) - n)
    w = np.asarray(ids, np.int64)
    owner = np.repeat(np.arange(len(texts), dtype=np.int64), counts)
    pair = ((w[:-1] + 2) << _WORD_BITS) | (w[1:] + 2)  # word ids below 2**_WORD_BITS - 2 (a block's vocabulary)
    ok = (w[:-1] >= 0) & (w[1:] != -2)
    owner, h = owner[:-1][ok], pair[ok]
    order = np.lexsort((h, owner))
    owner, h = owner[order], h[order]
    new = np.ones(len(h), bool)
    new[1:] = (h[1:] != h[:-1]) | (owner[1:] != owner[:-1])
    first = np.flatnonzero(new)
    occurrence = np.arange(len(h)) - np.repeat(first, np.diff(np.append(first, len(h))))
    return owner, h * _OCCURRENCES + np.minimum(occurrence, _OCCURRENCES - 1)


def _shared_pairs(
    q_owner: np.ndarray, q_tok: np.ndarray, c_owner: np.ndarray, c_tok: np.ndarray, n_q: int, n_c: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(query, choice, shared)`` of every pair sharing a token in at most :func:`max_postings`
    choices, and each choice's template: a sum of its frequent tokens' hashes (0: none), equal
    for choices whose frequent tokens are the same (stems of one template, other values)."""
    order = np.argsort(c_tok, kind="stable")
    c_tok, c_owner = c_tok[order], c_owner[order]
    uniq, first, df = np.unique(c_tok, return_index=True, return_counts=True)
    frequent = df > max_postings(n_c)
    with np.errstate(over="ignore"):
        mixed = (c_tok.view(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(1)
    template = np.zeros(n_c, np.uint64)
    is_freq = np.repeat(frequent, df)
    np.add.at(template, c_owner[is_freq], mixed[is_freq])
    at = np.searchsorted(uniq, q_tok)
    hit = at < len(uniq)
    hit[hit] = uniq[at[hit]] == q_tok[hit]
    keep = hit.copy()
    keep[hit] = ~frequent[at[hit]]
    lo, n = first[at[keep]], df[at[keep]]
    qs = np.repeat(q_owner[keep], n)
    cs = c_owner[np.repeat(lo, n) + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)]
    keys, shared = np.unique(qs * n_c + cs, return_counts=True)
    return keys // n_c, keys % n_c, shared, template


def _same_template(
    sq: np.ndarray, sc: np.ndarray, scores: np.ndarray, template: np.ndarray, floor: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(query, choice)`` pairs of each query and every choice of its best seed's template
    (a seed scoring at least ``floor``, with frequent tokens)."""
    if not len(sq):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.lexsort((sc, -scores, sq))
    sq, sc, scores = sq[order], sc[order], scores[order]
    first = np.ones(len(sq), bool)
    first[1:] = sq[1:] != sq[:-1]
    q, best = sq[first], sc[first]
    keep = (scores[first] >= floor) & (template[best] != 0)
    q, best = q[keep], best[keep]
    by_template = np.argsort(template, kind="stable")
    sorted_t = template[by_template]
    lo = np.searchsorted(sorted_t, template[best], "left")
    n = np.searchsorted(sorted_t, template[best], "right") - lo
    cols = by_template[np.repeat(lo, n) + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)]
    return np.repeat(q, n), cols.astype(np.int64)


def _exact(queries: list[str], choices: list[str], qi: np.ndarray, ci: np.ndarray, q_len: np.ndarray, c_len: np.ndarray) -> np.ndarray:
    """The ``stem_ratios`` score of each pair ``(qi[k], ci[k])`` (the same float operations)."""
    if not len(qi):
        return np.zeros(0, np.float32)
    lcs = cpdist([queries[i] for i in qi.tolist()], [choices[j] for j in ci.tolist()], scorer=LCSseq.similarity,
                 dtype=np.int64, workers=-1 if len(qi) >= 20_000 else 1)
    total = q_len[qi] + c_len[ci]
    distance = total - 2 * lcs
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(total > 0, (1.0 - distance / total) * 100, 100.0)
    return ratio.astype(np.float32)


def indexed_scores(
    queries: list[str], choices: list[str], *, threshold: float, near: float, one_to_one: bool,
    ratios: Callable[[list[str], list[str]], np.ndarray],
) -> list[ScoredRow]:
    """Per query, the choice columns whose scores decide its match, and those scores (see
    the module docstring); ``ratios`` scores full rows (``stem_ratios``)."""
    n_q, n_c = len(queries), len(choices)
    if not (n_q and n_c):
        return [(None, np.zeros(n_c, np.float32)) for _ in range(n_q)]
    prefix, suffix = common_cut(queries + choices)
    vocabulary: dict[str, int] = {}
    q_owner, q_tok = _tokens([t[prefix : len(t) - suffix] for t in queries], vocabulary)
    c_owner, c_tok = _tokens([t[prefix : len(t) - suffix] for t in choices], vocabulary)
    del vocabulary
    pq_, pc_, shared, template = _shared_pairs(q_owner, q_tok, c_owner, c_tok, n_q, n_c)
    q_len = np.fromiter(map(len, queries), np.float64, n_q)
    c_len = np.fromiter(map(len, choices), np.float64, n_c)
    # seeds: each query's TOP_K pairs by shared tokens (ties: lower column)
    order = np.lexsort((pc_, -shared, pq_))
    pq_, pc_, shared = pq_[order], pc_[order], shared[order]
    starts = np.searchsorted(pq_, np.arange(n_q))
    seed = np.arange(len(pq_)) - starts[pq_] < TOP_K
    seed_scores = _exact(queries, choices, pq_[seed], pc_[seed], q_len, c_len)
    best = np.full(n_q, -1.0)
    np.maximum.at(best, pq_[seed], seed_scores.astype(np.float64))
    level = np.where(best >= threshold, best - near, threshold - near)
    if one_to_one:
        level = np.minimum(level, threshold)
    # other pairs sharing at least SHARE of the query's most shared tokens whose lengths let them reach the level
    most = np.zeros(n_q, np.int64)
    np.maximum.at(most, pq_, shared)
    length_bound = 200.0 * np.minimum(q_len[pq_], c_len[pc_]) / np.maximum(q_len[pq_] + c_len[pc_], 1.0)
    wanted = (shared >= SHARE * most[pq_]) | (best < threshold)[pq_]  # no seed at the threshold: every sharing parent
    more = ~seed & wanted & (length_bound >= level[pq_] - _SLACK)
    # the parents of the best seed's template (they differ from it in rare tokens only: near-duplicates)
    tq, tc = _same_template(pq_[seed], pc_[seed], seed_scores, template, threshold - near)
    pair_key = pq_ * n_c + pc_
    by_key = np.argsort(pair_key, kind="stable")
    at = np.searchsorted(pair_key[by_key], tq * n_c + tc)
    found = at < len(pair_key)
    found[found] = pair_key[by_key[at[found]]] == (tq * n_c + tc)[found]
    same = ~found & (200.0 * np.minimum(q_len[tq], c_len[tc]) / np.maximum(q_len[tq] + c_len[tc], 1.0) >= level[tq] - _SLACK)
    tq, tc = tq[same], tc[same]
    # a query left with many pairs to score gets its full row (one cdist is cheaper than pairs)
    wide = np.bincount(pq_[more], minlength=n_q) + np.bincount(tq, minlength=n_q) > n_c // 4
    more &= ~wide[pq_]
    tq, tc = tq[~wide[tq]], tc[~wide[tq]]
    cand_q = np.concatenate((pq_[seed], pq_[more], tq))
    cand_c = np.concatenate((pc_[seed], pc_[more], tc))
    cand_s = np.concatenate((seed_scores, _exact(queries, choices, pq_[more], pc_[more], q_len, c_len),
                             _exact(queries, choices, tq, tc, q_len, c_len)))
    return _rows(queries, choices, cand_q, cand_c, cand_s, wide, ratios)


def _rows(
    queries: list[str], choices: list[str], cq: np.ndarray, cc: np.ndarray, cs: np.ndarray, wide: np.ndarray,
    ratios: Callable[[list[str], list[str]], np.ndarray],
) -> list[ScoredRow]:
    """Per query its scored columns (ascending) and scores; a full row where it shares no token
    with any choice, or where ``wide`` (too many pairs to score one by one)."""
    order = np.lexsort((cc, cq))
    cq, cc, cs = cq[order], cc[order], cs[order]
    bounds = np.searchsorted(cq, np.arange(len(queries) + 1))
    rows: list[ScoredRow] = []
    full: list[int] = []
    for i in range(len(queries)):
        a, b = bounds[i], bounds[i + 1]
        if wide[i] or b == a:
            full.append(i)
            rows.append((None, np.zeros(0, np.float32)))
        else:
            rows.append((cc[a:b], cs[a:b]))
    for lo in range(0, len(full), _FULL_ROWS):
        part = full[lo : lo + _FULL_ROWS]
        scores = ratios([queries[i] for i in part], choices)
        for k, i in enumerate(part):
            rows[i] = (None, scores[k])
    return rows
