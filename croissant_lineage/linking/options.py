"""Which child option came from which parent option.

:func:`diff_options` pairs each option of a derived item with the option of its
parent it was copied from, tolerating the formatting damage that
:func:`croissant_lineage.linking.normalize.normalize_option` erases and, failing that, small
edits (RapidFuzz ratio at or above ``fuzzy_threshold``). Options left unpaired in the
child were added at that step; options left unpaired in the parent were dropped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from croissant_lineage.linking.normalize import normalize_option

__all__ = ["OptionDiff", "diff_normalized", "diff_options", "positional_diff"]


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

    Exact matches on the normalised option are taken first (each parent option is used
    once, in order); the rest are paired greedily by RapidFuzz ratio, best pair first,
    when the ratio is at least ``fuzzy_threshold``.

    Returns:
        An :class:`OptionDiff`.
    """
    return diff_normalized([normalize_option(o) for o in child], [normalize_option(o) for o in parent], fuzzy_threshold=fuzzy_threshold)


def diff_normalized(
    cnorm: Sequence[str], pnorm: Sequence[str], *, fuzzy_threshold: float = 90.0
) -> OptionDiff:
    """:func:`diff_options` on options already passed through ``normalize_option``."""
    if tuple(cnorm) == tuple(pnorm):  # the common case: options copied as they were
        return OptionDiff(tuple(range(len(cnorm))), len(cnorm), 0, 0, 100.0)
    child, parent = cnorm, pnorm
    mapping = [-1] * len(child)
    free: dict[str, list[int]] = defaultdict(list)
    for j, key in enumerate(pnorm):
        free[key].append(j)
    for i, key in enumerate(cnorm):
        if free.get(key):
            mapping[i] = free[key].pop(0)
    used = {j for j in mapping if j >= 0}
    left_c = [i for i, m in enumerate(mapping) if m < 0]
    left_p = [j for j in range(len(parent)) if j not in used]
    if left_c and left_p:
        pairs = sorted(
            ((fuzz.ratio(cnorm[i], pnorm[j]), i, j) for i in left_c for j in left_p),
            key=lambda t: (-t[0], t[1], t[2]),
        )
        taken_c: set[int] = set()
        taken_p: set[int] = set()
        for score, i, j in pairs:
            if score < fuzzy_threshold:
                break
            if i in taken_c or j in taken_p:
                continue
            mapping[i] = j
            taken_c.add(i)
            taken_p.add(j)
    copied = sum(1 for m in mapping if m >= 0)
    dropped = len(parent) - copied
    score = 100.0 * copied / len(parent) if parent else 100.0
    return OptionDiff(tuple(mapping), copied, len(child) - copied, dropped, round(score, 2))


def positional_diff(child: Sequence[str], parent: Sequence[str]) -> OptionDiff:
    """Option diff of a translation: option i renders parent option i.

    Text cannot be compared across languages, so options are paired by position; a
    child with more options than its parent has the extra ones marked added.
    """
    mapping = tuple(i if i < len(parent) else -1 for i in range(len(child)))
    copied = min(len(child), len(parent))
    score = 100.0 * copied / len(parent) if parent else 100.0
    return OptionDiff(mapping, copied, len(child) - copied, len(parent) - copied, round(score, 2))
