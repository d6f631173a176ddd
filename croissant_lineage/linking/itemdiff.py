"""How one item changed between two snapshots: the item diff.

:func:`compare_items` compares two versions of an item (rows of ``ITEMS_SCHEMA``: item,
subject, stem, options, key) and classifies every change with the codes of
:data:`CHANGE_KINDS`:

* ``key_changed``: the key now points at a different answer text;
  ``key_repointed``: only the letter moved (options reordered, same answer text);
* ``options_reordered``: the options that survive appear in another order;
* ``option_edited`` / ``option_whitespace``: an option's text changed (beyond
  white space / in white space only); ``option_added`` / ``option_removed``;
* ``stem_edited`` / ``stem_whitespace``: the question text changed (beyond white
  space / in white space only);
* ``item_replaced``: the id now holds a different question (stem similarity below
  :data:`REPLACED_BELOW`; no finer kinds are given then);
* ``item_added`` / ``item_removed``.

Snapshot history (:mod:`croissant_lineage.audits.history`) and carrying findings
forward (:mod:`croissant_lineage.findings.carry`) both read these changes, through
:mod:`croissant_lineage.linking.snapshotdiff`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from rapidfuzz import fuzz

from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.linking.normalize import normalize_option, normalize_stem
from croissant_lineage.linking.options import Alignment, align_options

__all__ = [
    "CHANGE_KINDS",
    "OPTION_FUZZY_THRESHOLD",
    "REPLACED_BELOW",
    "ItemChange",
    "compare_items",
    "key_text",
]

#: Change codes, in the order they are listed on a change.
CHANGE_KINDS = (
    "item_added",
    "item_removed",
    "item_replaced",
    "key_changed",
    "key_repointed",
    "options_reordered",
    "option_added",
    "option_removed",
    "option_edited",
    "option_whitespace",
    "stem_edited",
    "stem_whitespace",
)
_ORDER = {k: i for i, k in enumerate(CHANGE_KINDS)}

#: Below this stem similarity (0-100, RapidFuzz ratio of normalised stems) an id holds
#: a different question: ``item_replaced``.
REPLACED_BELOW = 50.0

#: Options left unpaired after exact and white-space matching pair up as edits at or
#: above this similarity (0-100); below, they are a removal plus an addition.
OPTION_FUZZY_THRESHOLD = 60.0


def _ws(text: str | None) -> str:
    return " ".join((text or "").split())


def key_text(key: str | None, options: Sequence[str]) -> str | None:
    """The option text a key letter points at (None without a key or such an option)."""
    if not key or key not in LETTERS:
        return None
    i = LETTERS.index(key)
    return options[i] if i < len(options) else None



@dataclass(frozen=True)
class ItemChange:
    """How one item differs between two snapshots.

    Attributes:
        old_item / new_item: The item id in each snapshot (None when absent there).
        kinds: Change codes (:data:`CHANGE_KINDS`), empty when the item is unchanged.
        old_key / new_key: Key letters.
        old_key_text / new_key_text: The option texts the keys point at.
        stem_score: Similarity of the normalised stems, 0-100 (None when one side is absent).
        option_map: Per new option, the index of the old option it continues, -1 when new.
        subject: The item's subject (new side, else old side).
    """

    old_item: str | None
    new_item: str | None
    kinds: tuple[str, ...]
    old_key: str | None = None
    new_key: str | None = None
    old_key_text: str | None = None
    new_key_text: str | None = None
    stem_score: float | None = None
    option_map: tuple[int, ...] = ()
    old_options: int = 0
    new_options: int = 0
    subject: str | None = None

    @property
    def changed(self) -> bool:
        """True when there is at least one change code."""
        return bool(self.kinds)

    @property
    def pattern(self) -> str:
        """The change codes joined with ``+`` (``"unchanged"`` when there are none)."""
        return "+".join(self.kinds) or "unchanged"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the fields of :data:`CHANGES_SCHEMA`."""
        return {
            "old_item": self.old_item,
            "new_item": self.new_item,
            "subject": self.subject,
            "kinds": list(self.kinds),
            "old_key": self.old_key,
            "new_key": self.new_key,
            "old_key_text": self.old_key_text,
            "new_key_text": self.new_key_text,
            "stem_score": self.stem_score,
            "option_map": list(self.option_map),
            "old_options": self.old_options,
            "new_options": self.new_options,
        }



def _one_sided(row: Mapping[str, Any], *, added: bool) -> ItemChange:
    """The change of an item present in one snapshot only."""
    opts = list(row.get("options") or [])
    key = row.get("key")
    return ItemChange(
        old_item=None if added else row["item"],
        new_item=row["item"] if added else None,
        kinds=("item_added",) if added else ("item_removed",),
        old_key=None if added else key,
        new_key=key if added else None,
        old_key_text=None if added else key_text(key, opts),
        new_key_text=key_text(key, opts) if added else None,
        old_options=0 if added else len(opts),
        new_options=len(opts) if added else 0,
        subject=row.get("subject"),
    )


def _stem_change(old: str, new: str) -> tuple[list[str], float]:
    """The stem's change codes and similarity (100 unless edited beyond white space)."""
    if old == new:
        return [], 100.0
    if _ws(old) == _ws(new):
        return ["stem_whitespace"], 100.0
    return ["stem_edited"], round(fuzz.ratio(normalize_stem(old), normalize_stem(new)), 2)


def _option_kinds(old: Sequence[str], new: Sequence[str], alignment: Alignment) -> list[str]:
    """Change codes of the options, from how the new ones align with the old ones."""
    if list(old) == list(new):
        return []
    mapping = alignment.option_map
    paired = [m for m in mapping if m >= 0]
    checks = (
        ("options_reordered", any(b < a for a, b in pairwise(paired))),
        ("option_added", any(m < 0 for m in mapping)),
        ("option_removed", len(paired) < len(old)),
        ("option_edited", bool(alignment.paired("fuzzy") | alignment.paired("in_place"))),
        ("option_whitespace", bool(alignment.paired("whitespace"))),
    )
    return [kind for kind, hit in checks if hit]


def _letter_index(key: str | None) -> int | None:
    return LETTERS.index(key) if key and key in LETTERS else None


def _key_kinds(old_key: str | None, new_key: str | None, mapping: Sequence[int]) -> list[str]:
    """``key_changed`` when the new key continues another (or a new) option, or only one
    side has a key; ``key_repointed`` when only its letter moved."""
    ok, nk = _letter_index(old_key), _letter_index(new_key)
    if ok is None or nk is None:
        return ["key_changed"] if (ok is None) != (nk is None) else []
    source = mapping[nk] if nk < len(mapping) else -1
    if source != ok:
        return ["key_changed"]  # the key now points at another (or a new) option
    return ["key_repointed"] if ok != nk else []


def compare_items(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> ItemChange:
    """Classify how one item changed between two snapshots.

    Options are paired by :func:`~croissant_lineage.linking.options.align_options`:
    exact text, then white-space-equal text, then RapidFuzz ratio of normalised options
    at or above :data:`OPTION_FUZZY_THRESHOLD`, then options rewritten in place.

    Args:
        old: The item's row in the older snapshot (keys of ``ITEMS_SCHEMA``: item, subject,
            stem, options, key), or None when it is absent there.
        new: Its row in the newer snapshot, or None.

    Returns:
        An :class:`ItemChange` (``kinds`` empty when nothing changed).

    Raises:
        ValueError: both rows are None.
    """
    if old is None:
        if new is None:
            raise ValueError("compare_items needs at least one of old and new")
        return _one_sided(new, added=True)
    if new is None:
        return _one_sided(old, added=False)
    old_opts = list(old.get("options") or [])
    new_opts = list(new.get("options") or [])
    stem_kinds, stem_score = _stem_change(old.get("stem") or "", new.get("stem") or "")
    alignment = align_options(
        new_opts, old_opts, whitespace=True, fuzzy_key=normalize_option,
        fuzzy_threshold=OPTION_FUZZY_THRESHOLD, in_place=True,
    )
    okey, nkey = old.get("key"), new.get("key")
    common = dict(
        old_item=old["item"],
        new_item=new["item"],
        old_key=okey,
        new_key=nkey,
        old_key_text=key_text(okey, old_opts),
        new_key_text=key_text(nkey, new_opts),
        stem_score=stem_score,
        option_map=alignment.option_map,
        old_options=len(old_opts),
        new_options=len(new_opts),
        subject=new.get("subject") or old.get("subject"),
    )
    if stem_score < REPLACED_BELOW:
        return ItemChange(kinds=("item_replaced",), **common)
    kinds = [*stem_kinds, *_option_kinds(old_opts, new_opts, alignment), *_key_kinds(okey, nkey, alignment.option_map)]
    kinds.sort(key=_ORDER.__getitem__)
    return ItemChange(kinds=tuple(kinds), **common)
