"""What an option diff is: its passes, the missing-value words, :class:`OptionDiff` and the
texts it compares (:class:`OptionTexts`).

The diff itself is :func:`~croissant_lineage.linking.diff_columns.diff_pairs` (many pairs
at once); :func:`~croissant_lineage.linking.options.diff_texts` is its one-pair form.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["DIFF_PASSES", "NA_STRINGS", "OptionDiff", "OptionTexts"]

#: The passes of :func:`~croissant_lineage.linking.options.diff_texts`, in the order they run: equal bytes, equal
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




@dataclass(frozen=True)
class OptionTexts:
    """The options of one item in the three forms :func:`~croissant_lineage.linking.options.diff_texts` compares.

    Attributes:
        raw: The options as stored.
        cased: Through :func:`~croissant_lineage.linking.normalize.normalize_option_cased`.
        folded: Through :func:`~croissant_lineage.linking.normalize.normalize_option`.
    """

    raw: Sequence[str]
    cased: Sequence[str]
    folded: Sequence[str]
