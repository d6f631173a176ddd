"""The option diff: which child option copies which parent option, for many (child,
parent) pairs at once.

:func:`diff_pairs` is the package's one option diff (the linker runs it over whole
columns of pairs; :func:`~croissant_lineage.linking.options.diff_texts` is its one-pair
form). The rules, one pair at a time in plain Python, are kept in the tests as the oracle
it is proved equal to (``tests/oracles/options.py``; Hypothesis, and every candidate pair
and edge of the MMLU family: ``tests/linking/test_diff_columns.py``).

The options of all pairs are flattened into one row per option (Arrow ``take`` and
``list_flatten``), and each text form (as stored, case-preserving normalised, case-folded,
the missing-value form of the ``na`` pass) becomes an integer code shared by the two sides
(``dictionary_encode`` of both at once), so that the equal passes are joins of integers:

* pairs whose stored option lists are equal get the identity diff (as ``diff_texts``'s
  first test does);
* in each equal pass the key options pair first when both are free and their codes are
  equal; then, per pair and code, the r-th free child option takes the r-th free parent
  option (``diff_texts`` pops the first free parent option of that text for each child
  option in order: the same pairing), found by sorting on (pair, code, rank);
* the fuzzy pass scores the free child x free parent options of the pairs that have both
  (RapidFuzz ``cpdist``, the case-folded forms, one call for all pairs) and pairs them
  greedily, best first, in one loop over the scores at or above the threshold.

Null option lists count as empty lists. Pairs are diffed :data:`CHUNK_PAIRS` at a time so
that memory follows a chunk, not the derivation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from rapidfuzz import fuzz
from rapidfuzz.process import cpdist

from croissant_lineage.linking.optiondiff import DIFF_PASSES, NA_STRINGS, OptionDiff
from croissant_lineage.linking.take import take_rows

__all__ = ["CHUNK_PAIRS", "FormsOf", "OptionColumns", "PairDiffs", "diff_pairs", "positional_pairs"]

#: Pairs diffed at a time. At 65,536 a chunk's options and their forms (a million-item
#: family: ~130 MB of Arrow scratch) set the link's peak; at 16,384 the CPU is the same
#: (1M synthetic link: 47.7 / 48.4 s against 50.6 / 47.4 s) and the peak ~110 MB lower.
CHUNK_PAIRS = 1 << 14

_NA = "\x00na"  # the form diff_texts gives a missing-value word in its ``na`` pass
_NA_CHILD = pa.array(["nan", ""], pa.string())
_NA_PARENT = pa.array(sorted(NA_STRINGS), pa.string())
_FUZZY = DIFF_PASSES.index("fuzzy")


#: Rows (an ``int64`` array) -> their options case-preserving normalised and case-folded
#: (two ``list<string>`` arrays, one list per row).
FormsOf = Callable[[pa.Array], tuple[pa.Array | pa.ChunkedArray, pa.Array | pa.ChunkedArray]]


@dataclass(frozen=True)
class OptionColumns:
    """One side's options: as stored, and the normalised forms ``diff_texts`` also
    compares, asked for only the rows whose lists differ from their pair's.

    Attributes:
        raw: The options as stored (``list<string>``, one list per item; null lists allowed).
        forms_of: Rows -> their options through ``normalize_option_cased`` and
            ``normalize_option`` (see :data:`FormsOf`).
    """

    raw: pa.Array | pa.ChunkedArray
    forms_of: FormsOf

    @classmethod
    def of_forms(
        cls, raw: pa.Array | pa.ChunkedArray, cased: pa.Array | pa.ChunkedArray, folded: pa.Array | pa.ChunkedArray
    ) -> OptionColumns:
        """Columns whose normalised forms are computed already (``cased`` and ``folded``, the shape of ``raw``)."""
        return cls(raw, lambda rows: (take_rows(cased, rows), take_rows(folded, rows)))


@dataclass(frozen=True)
class PairDiffs:
    """The option diffs of many pairs, as flat arrays (pair ``k``'s child options are
    ``offsets[k]:offsets[k + 1]`` of the per-option arrays).

    Attributes:
        offsets: ``int64``, one more than there are pairs.
        option_map: Per child option, the parent option it copies, or -1 (``int32``).
        paired_by: Per child option, the index in :data:`~croissant_lineage.linking.options.DIFF_PASSES`
            of the pass that paired it, or -1 (``int8``).
        copied, added, dropped: Per pair (``int32``), as in :class:`~croissant_lineage.linking.options.OptionDiff`.
        score: Per pair, share of the parent's options found in the child, 0-100 (``float64``).
        identical: Per pair, whether the two stored option lists are equal (the identity diff).
    """

    offsets: np.ndarray
    option_map: np.ndarray
    paired_by: np.ndarray
    copied: np.ndarray
    added: np.ndarray
    dropped: np.ndarray
    score: np.ndarray
    identical: np.ndarray

    def __len__(self) -> int:
        return len(self.copied)

    def paired(self, *how: str) -> np.ndarray:
        """Per pair, how many child options the passes ``how`` paired (``int64``)."""
        hit = np.isin(self.paired_by, [DIFF_PASSES.index(h) for h in how])
        return _per_pair(hit.astype(np.int64), self.offsets)

    def key_inherited(self, child_keys: np.ndarray, parent_keys: np.ndarray) -> list[bool | None]:
        """Per pair, :meth:`OptionDiff.key_inherited` of its key indices (-1: unknown)."""
        n = len(self)
        counts = np.diff(self.offsets)
        ck, pk = np.asarray(child_keys, np.int64), np.asarray(parent_keys, np.int64)
        known = (ck >= 0) & (pk >= 0) & (ck < counts)
        source = np.full(n, -1, np.int64)
        rows = np.flatnonzero(known)
        source[rows] = self.option_map[self.offsets[rows] + ck[rows]]
        owner = np.repeat(np.arange(n), counts)
        mentioned = _per_pair((self.option_map == pk[owner]).astype(np.int64), self.offsets) > 0
        inherited = np.where(source == pk, 1, np.where((source >= 0) | mentioned, 0, -1))
        flags = np.where(known, inherited, -1)
        return [None if f < 0 else bool(f) for f in flags.tolist()]

    def diff(self, k: int) -> OptionDiff:
        """Pair ``k``'s diff as an :class:`OptionDiff` (what ``diff_texts`` returns)."""
        a, b = int(self.offsets[k]), int(self.offsets[k + 1])
        return OptionDiff(
            tuple(self.option_map[a:b].tolist()), int(self.copied[k]), int(self.added[k]), int(self.dropped[k]),
            float(self.score[k]), tuple(None if p < 0 else DIFF_PASSES[p] for p in self.paired_by[a:b].tolist()),
        )

    def option_map_column(self) -> pa.Array:
        """The option maps as a ``list<int32>`` column, one list per pair."""
        return pa.ListArray.from_arrays(pa.array(self.offsets.astype(np.int32)), pa.array(self.option_map, pa.int32()))


def _per_pair(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sums of ``values`` over each pair's slice."""
    totals = np.concatenate(([0], np.cumsum(values, dtype=np.int64)))
    return totals[offsets[1:]] - totals[offsets[:-1]]


def _contiguous(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks else pa.array([], values.type)
    return values


class _Flat:
    """One side's options of some pairs, one row per option (the case forms taken on demand)."""

    def __init__(self, columns: OptionColumns, rows: np.ndarray):
        self.columns = columns
        self.index = pa.array(rows, pa.int64())
        raw = take_rows(columns.raw, self.index)
        self.lengths = pc.fill_null(pc.list_value_length(raw), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        self.offsets = np.concatenate(([0], np.cumsum(self.lengths)))
        self.raw = _contiguous(pc.list_flatten(raw))
        self.pair = np.repeat(np.arange(len(rows), dtype=np.int64), self.lengths)
        self.pos = np.arange(len(self.pair), dtype=np.int64) - self.offsets[self.pair]
        self._forms: dict[str, pa.Array] = {}

    def form(self, name: str) -> pa.Array:
        """The flat options through ``cased`` or ``folded`` normalisation."""
        if not self._forms:
            cased, folded = self.columns.forms_of(self.index)
            self._forms = {"cased": _contiguous(pc.list_flatten(cased)), "folded": _contiguous(pc.list_flatten(folded))}
        return self._forms[name]


def _equal_lists(c: _Flat, p: _Flat) -> np.ndarray:
    """Per pair, whether the two stored option lists are equal (a null list is empty;
    null options equal each other only)."""
    same = c.lengths == p.lengths
    rows = np.flatnonzero(same[c.pair])
    if not len(rows):
        return same
    index = pa.array(rows)
    fc = c.raw.take(index)
    fp = p.raw.take(pa.array(p.offsets[c.pair[rows]] + c.pos[rows]))
    differ = pc.or_(pc.fill_null(pc.not_equal(fc, fp), False), pc.xor(pc.is_null(fc), pc.is_null(fp)))
    mismatch = np.zeros(len(c.pair), np.int64)
    mismatch[rows] = differ.to_numpy(zero_copy_only=False)
    return same & (_per_pair(mismatch, c.offsets) == 0)


def _codes(child: pa.Array, parent: pa.Array, fc: np.ndarray, fp: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Integer codes of the texts of the rows ``fc`` (child) and ``fp`` (parent), equal
    codes for equal texts (null a text of its own); other rows get -1 and -2."""
    both = pa.concat_arrays([child.take(pa.array(fc, pa.int64())), parent.take(pa.array(fp, pa.int64()))])
    encoded = pc.dictionary_encode(both.cast(pa.string()), null_encoding="encode")
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    code_c, code_p = np.full(len(child), -1, np.int64), np.full(len(parent), -2, np.int64)
    code_c[fc], code_p[fp] = codes[: len(fc)], codes[len(fc) :]
    return code_c, code_p, len(encoded.dictionary)


def _ranked(pair: np.ndarray, code: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """Group keys (pair, code) and each row's rank within its group, rows in their order."""
    group = pair * n_codes + code
    order = np.argsort(group, kind="stable")
    sorted_group = group[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_group[1:] != sorted_group[:-1])))
    sizes = np.diff(np.concatenate((starts, [len(order)])))
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order)) - np.repeat(starts, sizes)
    return group, rank


def _na_form(folded: pa.Array, words: pa.Array) -> pa.Array:
    return pc.if_else(pc.is_in(folded, value_set=words), pa.scalar(_NA), folded)


class _State:
    """The pairing of the pairs whose option lists differ, while the passes run."""

    def __init__(self, c: _Flat, p: _Flat, ck: np.ndarray, pk: np.ndarray):
        self.c, self.p = c, p
        self.mapping = np.full(len(c.pair), -1, np.int64)
        self.by = np.full(len(c.pair), -1, np.int8)
        self.used = np.zeros(len(p.pair), bool)
        # Key options (flat rows) of the pairs where both are in range.
        ok = (ck >= 0) & (pk >= 0) & (ck < c.lengths) & (pk < p.lengths)
        rows = np.flatnonzero(ok)
        self.key_c = c.offsets[rows] + ck[rows]
        self.key_p = p.offsets[rows] + pk[rows]

    def pair(self, cf: np.ndarray, pf: np.ndarray, how: int) -> None:
        self.mapping[cf] = self.p.pos[pf]
        self.by[cf] = how
        self.used[pf] = True

    def free(self) -> tuple[np.ndarray, np.ndarray]:
        """Flat rows of the unpaired child options and of the unused parent options, of
        the pairs that have both (only they can pair more)."""
        fc, fp = np.flatnonzero(self.mapping < 0), np.flatnonzero(~self.used)
        n = len(self.c.lengths)
        both = (np.bincount(self.c.pair[fc], minlength=n) > 0) & (np.bincount(self.p.pair[fp], minlength=n) > 0)
        return fc[both[self.c.pair[fc]]], fp[both[self.p.pair[fp]]]

    def equal_passes(self) -> None:
        """The four equal passes, each on the options the earlier ones left (only those are encoded)."""
        c, p = self.c, self.p
        layers = (
            lambda: (c.raw, p.raw), lambda: (c.form("cased"), p.form("cased")),
            lambda: (c.form("folded"), p.form("folded")),
            lambda: (_na_form(c.form("folded"), _NA_CHILD), _na_form(p.form("folded"), _NA_PARENT)),
        )
        for how, texts in enumerate(layers):
            fc, fp = self.free()
            if not (len(fc) and len(fp)):
                return  # nothing left to pair on one side: the later passes pair nothing
            self.equal_pass(*_codes(*texts(), fc, fp), how)

    def equal_pass(self, code_c: np.ndarray, code_p: np.ndarray, n_codes: int, how: int) -> None:
        """One equal pass: the key options first, then the r-th free child option of a
        text takes the r-th free parent option of that text, per pair."""
        kc, kp = self.key_c, self.key_p
        first = (self.mapping[kc] < 0) & ~self.used[kp] & (code_c[kc] == code_p[kp])
        self.pair(kc[first], kp[first], how)
        fc, fp = self.free()
        if not (len(fc) and len(fp)):
            return
        gc, rc = _ranked(self.c.pair[fc], code_c[fc], n_codes)
        gp, rp = _ranked(self.p.pair[fp], code_p[fp], n_codes)
        dense = np.unique(np.concatenate((gc, gp)), return_inverse=True)[1].reshape(-1)  # no overflow below
        width = int(max(rc.max(), rp.max())) + 1
        key_c, key_p = dense[: len(gc)] * width + rc, dense[len(gc) :] * width + rp
        order = np.argsort(key_p, kind="stable")
        at = np.searchsorted(key_p[order], key_c)
        found = at < len(order)
        found[found] = key_p[order[at[found]]] == key_c[found]
        self.pair(fc[found], fp[order[at[found]]], how)

    def fuzzy_pass(self, threshold: float) -> None:
        """The options left on both sides of a pair, by RapidFuzz ratio of the case-folded
        forms at or above ``threshold``, best pair first (ties: child, then parent option)."""
        c, p = self.c, self.p
        fc, fp = self.free()
        if not len(fc):
            return
        free_p = np.bincount(p.pair[fp], minlength=len(c.lengths))
        start_p = np.concatenate(([0], np.cumsum(free_p)))[:-1]
        reps = free_p[c.pair[fc]]
        cand_c = np.repeat(fc, reps)
        step = np.arange(len(cand_c)) - np.repeat(np.cumsum(reps) - reps, reps)
        cand_p = fp[np.repeat(start_p[c.pair[fc]], reps) + step]
        texts_c = c.form("folded").take(pa.array(cand_c)).to_pylist()
        texts_p = p.form("folded").take(pa.array(cand_p)).to_pylist()
        scores = cpdist(texts_c, texts_p, scorer=fuzz.ratio, dtype=np.float64, workers=1)
        keep = np.flatnonzero(scores >= threshold)
        order = keep[np.lexsort((p.pos[cand_p[keep]], c.pos[cand_c[keep]], -scores[keep], c.pair[cand_c[keep]]))]
        for cf, pf in zip(cand_c[order].tolist(), cand_p[order].tolist(), strict=True):
            if self.mapping[cf] < 0 and not self.used[pf]:
                self.mapping[cf] = p.pos[pf]
                self.by[cf] = _FUZZY
                self.used[pf] = True


def _diff_chunk(
    child: OptionColumns, parent: OptionColumns, ci: np.ndarray, pi: np.ndarray,
    ck: np.ndarray, pk: np.ndarray, threshold: float,
) -> PairDiffs:
    c, p = _Flat(child, ci), _Flat(parent, pi)
    mapping = c.pos.copy()  # pairs with equal lists: the identity, every option by its bytes
    by = np.zeros(len(c.pair), np.int8)
    identical = _equal_lists(c, p)
    rest = np.flatnonzero(~identical)
    if len(rest):
        state = _State(_Flat(child, ci[rest]), _Flat(parent, pi[rest]), ck[rest], pk[rest])
        state.equal_passes()
        state.fuzzy_pass(threshold)
        flat = c.offsets[rest][state.c.pair] + state.c.pos  # the rest's options among all pairs'
        mapping[flat], by[flat] = state.mapping, state.by
    copied = _per_pair((mapping >= 0).astype(np.int64), c.offsets)
    return PairDiffs(
        c.offsets, mapping.astype(np.int32), by, copied.astype(np.int32),
        (c.lengths - copied).astype(np.int32), (p.lengths - copied).astype(np.int32), _scores(copied, p.lengths),
        identical,
    )


def _scores(copied: np.ndarray, n_parent: np.ndarray) -> np.ndarray:
    """``round(100 * copied / n_parent, 2)`` as diff_texts computes it (100 when the parent has none)."""
    out = np.full(len(copied), 100.0)
    rows = np.flatnonzero(n_parent > 0)
    if len(rows):
        # one Python division per distinct (copied, n_parent), found as one integer key each
        # (a 1-D unique: ``np.unique(axis=1)`` sorts the pairs as records, ten times slower)
        a, b = copied[rows].astype(np.int64), n_parent[rows].astype(np.int64)
        width = int(b.max()) + 1
        keys, inverse = np.unique(a * width + b, return_inverse=True)
        values = np.array([round(100.0 * (k // width) / (k % width), 2) for k in keys.tolist()])
        out[rows] = values[inverse.reshape(-1)]
    return out


def diff_pairs(
    child: OptionColumns,
    parent: OptionColumns,
    ci: Sequence[int] | np.ndarray,
    pi: Sequence[int] | np.ndarray,
    child_keys: Sequence[int] | np.ndarray,
    parent_keys: Sequence[int] | np.ndarray,
    *,
    fuzzy_threshold: float = 90.0,
) -> PairDiffs:
    """``diff_texts`` of child item ``ci[k]`` and parent item ``pi[k]``, for every ``k``.

    Args:
        child, parent: The two sides' options.
        ci, pi: Row pairs (equal lengths).
        child_keys, parent_keys: Per pair, the key option index of each item (-1: none),
            as ``diff_texts``'s ``keys``.
        fuzzy_threshold: As ``diff_texts``'s.

    Returns:
        The diffs, in pair order (:class:`PairDiffs`).
    """
    ci, pi = np.asarray(ci, np.int64), np.asarray(pi, np.int64)
    ck, pk = np.asarray(child_keys, np.int64), np.asarray(parent_keys, np.int64)
    parts = [
        _diff_chunk(child, parent, ci[s : s + CHUNK_PAIRS], pi[s : s + CHUNK_PAIRS],
                    ck[s : s + CHUNK_PAIRS], pk[s : s + CHUNK_PAIRS], fuzzy_threshold)
        for s in range(0, len(ci), CHUNK_PAIRS)
    ]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        empty = np.zeros(0, np.int32)
        return PairDiffs(np.zeros(1, np.int64), empty, np.zeros(0, np.int8), empty, empty, empty, np.zeros(0), np.zeros(0, bool))
    ends = np.cumsum([part.offsets[-1] for part in parts])
    offsets = np.concatenate([[0]] + [part.offsets[1:] + base for part, base in zip(parts, np.concatenate(([0], ends[:-1])), strict=True)])
    return PairDiffs(
        offsets.astype(np.int64),
        *(np.concatenate([getattr(part, f) for part in parts]) for f in ("option_map", "paired_by", "copied", "added", "dropped", "score", "identical")),
    )


def positional_pairs(n_child: Sequence[int] | np.ndarray, n_parent: Sequence[int] | np.ndarray) -> PairDiffs:
    """:func:`~croissant_lineage.linking.options.positional_diff` of pairs whose items have
    ``n_child[k]`` and ``n_parent[k]`` options (a translation's diff depends only on the
    counts), as whole arrays: child option ``i`` copies parent option ``i`` when the parent
    has one, else it is added (``paired_by`` -1: the positional diff records no passes).

    Returns:
        The diffs, in pair order (:class:`PairDiffs`; ``identical`` all false).
    """
    cn, pn = np.asarray(n_child, np.int64), np.asarray(n_parent, np.int64)
    offsets = np.concatenate(([0], np.cumsum(cn)))
    pos = np.arange(offsets[-1], dtype=np.int64) - np.repeat(offsets[:-1], cn)
    option_map = np.where(pos < np.repeat(pn, cn), pos, -1).astype(np.int32)
    copied = np.minimum(cn, pn)
    return PairDiffs(
        offsets, option_map, np.full(len(option_map), -1, np.int8), copied.astype(np.int32),
        (cn - copied).astype(np.int32), (pn - copied).astype(np.int32), _scores(copied, pn), np.zeros(len(cn), bool),
    )
