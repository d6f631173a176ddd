"""The option diff one pair at a time, in plain Python: the statement of the rules that
:func:`croissant_lineage.linking.diff_columns.diff_pairs` (the package's one option diff,
of which :func:`croissant_lineage.linking.options.diff_texts` is the one-pair form)
is proved equal to (``tests/linking/test_diff_columns.py``, and every candidate pair and
edge of the MMLU family in ``tests/linking/test_match_columnar_real.py``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from rapidfuzz import fuzz

from croissant_lineage.linking.optiondiff import NA_STRINGS, OptionDiff, OptionTexts

__all__ = ["diff_texts_reference"]


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


def _na_child(text: str) -> str:
    return "\x00na" if text in ("nan", "") else text


def _na_parent(text: str) -> str:
    return "\x00na" if text in NA_STRINGS else text


def diff_texts_reference(
    child: OptionTexts,
    parent: OptionTexts,
    *,
    keys: tuple[int | None, int | None] = (None, None),
    fuzzy_threshold: float = 90.0,
) -> OptionDiff:
    """Pair child options with the parent options they copy, strictest evidence first.

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
    n = len(child.raw)
    if tuple(child.raw) == tuple(parent.raw):  # the common case: options copied as they were
        return OptionDiff(tuple(range(n)), n, 0, 0, 100.0, ("bytes",) * n)
    mapping = [-1] * n
    used: set[int] = set()
    paired_by: list[str | None] = [None] * n
    layers = (
        ("bytes", child.raw, parent.raw), ("cased", child.cased, parent.cased),
        ("folded", child.folded, parent.folded),
        ("na", [_na_child(o) for o in child.folded], [_na_parent(o) for o in parent.folded]),
    )
    for how, c, p in layers:
        for i in _pair_equal(c, p, None, mapping, used, keys):
            paired_by[i] = how
    for i in _pair_similar(child.folded, parent.folded, None, fuzzy_threshold, mapping, used):
        paired_by[i] = "fuzzy"
    copied = sum(1 for m in mapping if m >= 0)
    score = 100.0 * copied / len(parent.raw) if parent.raw else 100.0
    return OptionDiff(tuple(mapping), copied, n - copied, len(parent.raw) - copied, round(score, 2), tuple(paired_by))
