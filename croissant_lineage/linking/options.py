"""Which child option came from which parent option.

:func:`diff_options` (:func:`diff_texts` on prepared texts) pairs each option of a
derived item with the option of its parent it was copied from, strictest evidence
first: equal bytes, equal case-preserving normalised text, equal case-folded text,
pandas' ``nan`` for a missing-value word, and, failing those, small edits (RapidFuzz
ratio at or above ``fuzzy_threshold``). Options left unpaired in the
child were added at that step; options left unpaired in the parent were dropped.

:func:`align_options` is the one aligner underneath, with the passes snapshot history
also needs (white-space-equal text, a similarity on normalised options, options
rewritten in place); it says which pass paired each option.

:func:`diff_texts` is the one-pair form of the option diff
(:func:`~croissant_lineage.linking.diff_columns.diff_pairs`, which the linker runs over
whole columns of pairs): one implementation, whatever the number of pairs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pyarrow as pa
from rapidfuzz import fuzz

from croissant_lineage.linking.diff_columns import OptionColumns, diff_pairs
from croissant_lineage.linking.normalize import normalize_option, normalize_option_cased
from croissant_lineage.linking.optiondiff import DIFF_PASSES, NA_STRINGS, OptionDiff, OptionTexts

__all__ = [
    "ALIGN_PASSES",
    "DIFF_PASSES",
    "NA_STRINGS",
    "Alignment",
    "OptionDiff",
    "OptionTexts",
    "align_options",
    "diff_options",
    "diff_texts",
    "positional_diff",
]

#: The passes of :func:`align_options`, in the order they run.
ALIGN_PASSES = ("exact", "whitespace", "fuzzy", "in_place")

def diff_options(
    child: Sequence[str], parent: Sequence[str], *, fuzzy_threshold: float = 90.0
) -> OptionDiff:
    """Pair child options with the parent options they were copied from.

    Equal options are paired first, strictest form first (bytes, case-preserving
    normalised, case-folded; each parent option used once, in order: see
    :func:`diff_texts`); the rest are paired greedily by RapidFuzz ratio, best pair
    first, when the ratio is at least ``fuzzy_threshold``.

    Returns:
        An :class:`OptionDiff`.
    """
    return diff_texts(_texts(child), _texts(parent), fuzzy_threshold=fuzzy_threshold)


def _texts(options: Sequence[str]) -> OptionTexts:
    return OptionTexts(
        list(options), [normalize_option_cased(o) for o in options], [normalize_option(o) for o in options]
    )


def _collapse_ws(text: str | None) -> str:
    return " ".join((text or "").split())


@dataclass(frozen=True)
class Alignment:
    """Which parent option each child option continues, and how they were paired.

    Attributes:
        option_map: Per child option, the index of the parent option it continues, or -1.
        paired_by: Per child option, the pass of :data:`ALIGN_PASSES` that paired it
            (None when unpaired).
    """

    option_map: tuple[int, ...]
    paired_by: tuple[str | None, ...]

    def paired(self, how: str) -> set[int]:
        """The child options paired by pass ``how``."""
        return {i for i, p in enumerate(self.paired_by) if p == how}


def _pair_equal(
    child: Sequence[str], parent: Sequence[str], key: Callable[[str], str] | None,
    mapping: list[int], used: set[int], keys: tuple[int | None, int | None] = (None, None),
) -> list[int]:
    """Pair still-unpaired child options with the first free parent option of equal ``key``
    (the text itself when None); returns the child indices paired.

    ``keys`` (child key index, parent key index): when both key options are free and
    equal, they pair with each other first. Equal texts cannot tell their sources apart,
    so among them the pairing that keeps the key is taken (a parent with the key text
    twice, say): each parent option is still used once.
    """
    keys_p = parent if key is None else [key(o) for o in parent]
    keys_c = child if key is None else [key(o) for o in child]
    paired = []
    ck, pk = keys
    if (
        ck is not None and pk is not None and 0 <= ck < len(keys_c) and 0 <= pk < len(keys_p)
        and mapping[ck] < 0 and pk not in used and keys_c[ck] == keys_p[pk]
    ):
        mapping[ck] = pk
        used.add(pk)
        paired.append(ck)
    free: dict[str, list[int]] = defaultdict(list)
    for j, k in enumerate(keys_p):
        if j not in used:
            free[k].append(j)
    for i, k in enumerate(keys_c):
        if mapping[i] < 0 and free.get(k):
            mapping[i] = j = free[k].pop(0)
            used.add(j)
            paired.append(i)
    return paired


def _pair_similar(
    child: Sequence[str], parent: Sequence[str], key: Callable[[str], str] | None, threshold: float,
    mapping: list[int], used: set[int],
) -> list[int]:
    """Pair the options left on both sides by RapidFuzz ratio of ``key`` (best pair first,
    ties by child then parent index) at or above ``threshold``; returns the child indices paired."""
    left_c = [i for i, m in enumerate(mapping) if m < 0]
    left_p = [j for j in range(len(parent)) if j not in used]
    if not (left_c and left_p):
        return []
    kc = child if key is None else {i: key(child[i]) for i in left_c}
    kp = parent if key is None else {j: key(parent[j]) for j in left_p}
    pairs = sorted(((fuzz.ratio(kc[i], kp[j]), i, j) for i in left_c for j in left_p), key=lambda t: (-t[0], t[1], t[2]))
    paired = []
    for score, i, j in pairs:
        if score < threshold:
            break
        if mapping[i] >= 0 or j in used:
            continue
        mapping[i] = j
        used.add(j)
        paired.append(i)
    return paired


def _pair_in_place(n_parent: int, mapping: list[int], used: set[int]) -> list[int]:
    """Pair each still-unpaired child option with the free parent option at its position
    (an option rewritten in place); returns the child indices paired."""
    paired = []
    for i in range(len(mapping)):
        if mapping[i] < 0 and i < n_parent and i not in used:
            mapping[i] = i
            used.add(i)
            paired.append(i)
    return paired


def align_options(
    child: Sequence[str],
    parent: Sequence[str],
    *,
    whitespace: bool = False,
    fuzzy_key: Callable[[str], str] | None = None,
    fuzzy_threshold: float = 90.0,
    in_place: bool = False,
) -> Alignment:
    """Pair child options with the parent options they continue, pass by pass.

    Passes (:data:`ALIGN_PASSES`), each on the options the earlier ones left unpaired:
    ``exact`` equal text (each parent option used once, first free one first);
    ``whitespace`` (when asked) equal text once runs of white space are collapsed;
    ``fuzzy`` RapidFuzz ratio of ``fuzzy_key`` of each text (the text itself when None)
    at or above ``fuzzy_threshold``, best pair first; ``in_place`` (when asked) a child
    option still unpaired takes the parent option at its own position if that one is free.

    Returns:
        The :class:`Alignment`.
    """
    mapping = [-1] * len(child)
    used: set[int] = set()
    paired_by: list[str | None] = [None] * len(child)

    def mark(how: str, paired: list[int]) -> None:
        for i in paired:
            paired_by[i] = how

    mark("exact", _pair_equal(child, parent, None, mapping, used))
    if whitespace:
        mark("whitespace", _pair_equal(child, parent, _collapse_ws, mapping, used))
    mark("fuzzy", _pair_similar(child, parent, fuzzy_key, fuzzy_threshold, mapping, used))
    if in_place:
        mark("in_place", _pair_in_place(len(parent), mapping, used))
    return Alignment(tuple(mapping), tuple(paired_by))


_LIST = pa.list_(pa.string())


def _one_row(texts: OptionTexts) -> OptionColumns:
    """One item's options and their forms as the one-row columns ``diff_pairs`` reads."""
    return OptionColumns.of_forms(
        pa.array([list(texts.raw)], _LIST), pa.array([list(texts.cased)], _LIST), pa.array([list(texts.folded)], _LIST)
    )


def diff_texts(
    child: OptionTexts,
    parent: OptionTexts,
    *,
    keys: tuple[int | None, int | None] = (None, None),
    fuzzy_threshold: float = 90.0,
) -> OptionDiff:
    """Pair child options with the parent options they copy, strictest evidence first:
    :func:`~croissant_lineage.linking.diff_columns.diff_pairs` of one pair.

    Passes (:data:`DIFF_PASSES`), each on the options the earlier ones left unpaired,
    each parent option used once: equal bytes; equal case-preserving normalised forms;
    equal case-folded forms; a child "nan" or empty option for a parent option pandas
    reads as missing;
    RapidFuzz ratio of the case-folded forms at or above ``fuzzy_threshold``, best pair
    first. In the equal passes the key options pair with each other first when equal
    (``keys``: child and parent key indices).

    Returns:
        An :class:`OptionDiff` that records which pass paired each child option.
    """
    ck, pk = (-1 if k is None or k < 0 else k for k in keys)
    d = diff_pairs(_one_row(child), _one_row(parent), [0], [0], [ck], [pk], fuzzy_threshold=fuzzy_threshold)
    return d.diff(0)


def positional_diff(child: Sequence[str], parent: Sequence[str]) -> OptionDiff:
    """Option diff of a translation: option i renders parent option i.

    Text cannot be compared across languages, so options are paired by position; a
    child with more options than its parent has the extra ones marked added.
    """
    mapping = tuple(i if i < len(parent) else -1 for i in range(len(child)))
    copied = min(len(child), len(parent))
    score = 100.0 * copied / len(parent) if parent else 100.0
    return OptionDiff(mapping, copied, len(child) - copied, len(parent) - copied, round(score, 2))
