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



def _align_options(old: Sequence[str], new: Sequence[str]) -> tuple[list[int], set[int], set[int]]:
    """Pair new options with the old ones they continue.

    Exact text first, then white-space-equal text, then RapidFuzz ratio of normalised
    options at or above :data:`OPTION_FUZZY_THRESHOLD` (best pair first), then options
    still unpaired at the same position on both sides (an in-place rewrite).

    Returns:
        ``(mapping, whitespace, edited)``: per new option the old index or -1, and the
        new indices paired by white space only / by a fuzzy edit.
    """
    mapping = [-1] * len(new)
    used: set[int] = set()
    whitespace: set[int] = set()
    edited: set[int] = set()
    for level, key in enumerate((lambda s: s, _ws)):
        free: dict[str, list[int]] = {}
        for j, o in enumerate(old):
            if j not in used:
                free.setdefault(key(o), []).append(j)
        for i, o in enumerate(new):
            if mapping[i] < 0 and free.get(key(o)):
                j = free[key(o)].pop(0)
                mapping[i] = j
                used.add(j)
                if level:
                    whitespace.add(i)
    left_new = [i for i, m in enumerate(mapping) if m < 0]
    left_old = [j for j in range(len(old)) if j not in used]
    if left_new and left_old:
        pairs = sorted(
            (
                (fuzz.ratio(normalize_option(new[i]), normalize_option(old[j])), i, j)
                for i in left_new
                for j in left_old
            ),
            key=lambda t: (-t[0], t[1], t[2]),
        )
        for score, i, j in pairs:
            if score < OPTION_FUZZY_THRESHOLD:
                break
            if mapping[i] >= 0 or j in used:
                continue
            mapping[i] = j
            used.add(j)
            edited.add(i)
    for i in range(len(new)):
        # An option rewritten in place (``10-20`` -> ``10 through 20``) is still that option.
        if mapping[i] < 0 and i < len(old) and i not in used:
            mapping[i] = i
            used.add(i)
            edited.add(i)
    return mapping, whitespace, edited



def compare_items(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> ItemChange:
    """Classify how one item changed between two snapshots.

    Args:
        old: The item's row in the older snapshot (keys of ``ITEMS_SCHEMA``: item, subject,
            stem, options, key), or None when it is absent there.
        new: Its row in the newer snapshot, or None.

    Returns:
        An :class:`ItemChange` (``kinds`` empty when nothing changed).

    Raises:
        ValueError: both rows are None.
    """
    if old is None and new is None:
        raise ValueError("compare_items needs at least one of old and new")
    if old is None or new is None:
        row = new if new is not None else old
        assert row is not None
        opts = list(row.get("options") or [])
        key = row.get("key")
        added = old is None
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
    old_opts = list(old.get("options") or [])
    new_opts = list(new.get("options") or [])
    old_stem, new_stem = old.get("stem") or "", new.get("stem") or ""
    kinds: list[str] = []
    stem_score = 100.0
    if old_stem != new_stem:
        if _ws(old_stem) == _ws(new_stem):
            kinds.append("stem_whitespace")
        else:
            stem_score = round(fuzz.ratio(normalize_stem(old_stem), normalize_stem(new_stem)), 2)
            kinds.append("stem_edited")
    mapping, whitespace, edited = _align_options(old_opts, new_opts)
    okey, nkey = old.get("key"), new.get("key")
    common = dict(
        old_item=old["item"],
        new_item=new["item"],
        old_key=okey,
        new_key=nkey,
        old_key_text=key_text(okey, old_opts),
        new_key_text=key_text(nkey, new_opts),
        stem_score=stem_score,
        option_map=tuple(mapping),
        old_options=len(old_opts),
        new_options=len(new_opts),
        subject=new.get("subject") or old.get("subject"),
    )
    if stem_score < REPLACED_BELOW:
        return ItemChange(kinds=("item_replaced",), **common)
    if old_opts != new_opts:
        paired = [m for m in mapping if m >= 0]
        if any(b < a for a, b in pairwise(paired)):
            kinds.append("options_reordered")
        if any(m < 0 for m in mapping):
            kinds.append("option_added")
        if len(paired) < len(old_opts):
            kinds.append("option_removed")
        if edited:
            kinds.append("option_edited")
        if whitespace:
            kinds.append("option_whitespace")
    ok = LETTERS.index(okey) if okey and okey in LETTERS else None
    nk = LETTERS.index(nkey) if nkey and nkey in LETTERS else None
    if ok is None or nk is None:
        if (ok is None) != (nk is None):
            kinds.append("key_changed")
    else:
        source = mapping[nk] if nk < len(mapping) else -1
        if source != ok:
            kinds.append("key_changed")  # the key now points at another (or a new) option
        elif ok != nk:
            kinds.append("key_repointed")
    kinds.sort(key=_ORDER.__getitem__)
    return ItemChange(kinds=tuple(kinds), **common)

