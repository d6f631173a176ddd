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
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from croissant_lineage.linking.normalize import normalize_option, normalize_option_cased

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

#: The passes of :func:`diff_texts`, in the order they run: equal bytes, equal
#: case-preserving normalised forms, equal case-folded forms, the string "nan" (or an
#: empty option) for a parent option that pandas reads as missing (a copy made through
#: pandas, which writes NaN back as "nan" or as an empty cell), fuzzy.
DIFF_PASSES = ("bytes", "cased", "folded", "na", "fuzzy")

#: Case-folded option texts that pandas' CSV reader turns into NaN by default (written
#: back as "nan"). The strings themselves are text to this library: no reader here
#: makes them missing.
NA_STRINGS = frozenset({"nan", "none", "na", "n/a", "#n/a", "null", "<na>", "-nan", "#na"})


@dataclass(frozen=True)
class OptionDiff:
    """The option-level evidence of one derivation edge.

    Attributes:
        option_map: Per child option, the index of the parent option it copies, or -1
            when the option was added.
        copied: Child options that copy a parent option.
        added: Child options with no parent option.
        dropped: Parent options absent from the child.
        score: Share of the parent's options found in the child, 0-100 (100 when the
            parent has none).
    """

    option_map: tuple[int, ...]
    copied: int
    added: int
    dropped: int
    score: float
    #: Per child option, the pass of :data:`DIFF_PASSES` that paired it (None when
    #: unpaired); empty when the diff did not record passes.
    paired_by: tuple[str | None, ...] = ()

    def paired(self, *how: str) -> int:
        """How many child options the passes ``how`` paired."""
        return sum(1 for p in self.paired_by if p in how)

    def key_inherited(self, child_key: int | None, parent_key: int | None) -> bool | None:
        """Whether the child's key option copies the parent's key option.

        Returns:
            True when it does; False when the child's key copies another parent option,
            or is a new option while the parent's key survives as a distractor; None
            when a key is unknown or both key options were edited beyond recognition.
        """
        if child_key is None or parent_key is None or not 0 <= child_key < len(self.option_map):
            return None
        source = self.option_map[child_key]
        if source == parent_key:
            return True
        if source >= 0 or parent_key in self.option_map:
            return False  # the key now points at another parent option, or a new one
        return None  # both key texts unpaired: the key option was edited in place


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


@dataclass(frozen=True)
class OptionTexts:
    """The options of one item in the three forms :func:`diff_texts` compares.

    Attributes:
        raw: The options as stored.
        cased: Through :func:`~croissant_lineage.linking.normalize.normalize_option_cased`.
        folded: Through :func:`~croissant_lineage.linking.normalize.normalize_option`.
    """

    raw: Sequence[str]
    cased: Sequence[str]
    folded: Sequence[str]


def _na_child(text: str) -> str:
    return "\x00na" if text in ("nan", "") else text


def _na_parent(text: str) -> str:
    return "\x00na" if text in NA_STRINGS else text


def diff_texts(
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


def positional_diff(child: Sequence[str], parent: Sequence[str]) -> OptionDiff:
    """Option diff of a translation: option i renders parent option i.

    Text cannot be compared across languages, so options are paired by position; a
    child with more options than its parent has the extra ones marked added.
    """
    mapping = tuple(i if i < len(parent) else -1 for i in range(len(child)))
    copied = min(len(child), len(parent))
    score = 100.0 * copied / len(parent) if parent else 100.0
    return OptionDiff(mapping, copied, len(child) - copied, len(parent) - copied, round(score, 2))
