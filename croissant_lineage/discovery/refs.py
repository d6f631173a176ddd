"""Parent-reference fields: a child field that names its parent item.

A derived dataset often says where each row came from: a field holding the parent's item id
(MMLU-ProX's ``question_id_src``), the parent's row number (``parent_row``) or the parent's
original question (``original_question``). :func:`parent_field` finds such a field between a
child and a candidate parent, from the child's records alone:

* **ids**: the field's values are the parent's item ids on at least :data:`MIN_MATCH` of the
  child's items (by value; the name need not say anything unless the parent's ids are
  numbers, which are row numbers by another name);
* **rows**: the field's values are 0-based row numbers of the parent on at least
  :data:`MIN_MATCH` of the child's items, its name says it refers to a source
  (:data:`NAME_HINT`: ``parent_row``, ``source_idx``) and it takes at least
  :data:`MIN_DISTINCT` of as many distinct values as items named: small integers alone (an
  answer index) name no row;
* **stems**: the field's text, normalised, is a parent item's stem on at least
  :data:`MIN_MATCH` of the child's items (by value).

The child's own id field (values equal to the child's item ids) and its own stem field are
never parent references. A row number (and a numeric id, where every dataset numbers its rows
alike) names a row of every dataset of the family: which dataset it names is read from the
content, :func:`stem_closeness` (how close the child's stems are to the stems of the rows it
names; a translation's rows, in another language, are far), never from dates. The pairs the field gives are the pair's edges in both discovery
modes (one dataset against a corpus, and a whole family), and the proposed link rule names
the field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from croissant_lineage.linking.normalize import normalize_stem

__all__ = [
    "KINDS", "MIN_DISTINCT", "MIN_MATCH", "NAME_HINT", "ChildField", "ParentField", "ParentLookup", "child_fields", "lookup",
    "parent_field", "stem_closeness",
]

#: A field refers to the parent when its values name a parent item on this share of the child's items.
MIN_MATCH = 0.5
#: A name that says the field refers to a source item (needed for row numbers).
NAME_HINT = re.compile(r"(parent|source|src|orig|ref|from|base|seed|template)", re.IGNORECASE)
#: A row-number field takes at least this share of distinct values (a parent's 5 variants: 0.2).
MIN_DISTINCT = 0.1
#: The kinds of reference, strongest first.
KINDS = ("id", "row", "stem")
#: Fewest child items a reference must name.
_MIN_ITEMS = 3


@dataclass(frozen=True)
class ParentField:
    """A child field naming parent items.

    Attributes:
        field: The child record's field.
        kind: ``id`` (the parent's item ids), ``row`` (0-based parent row numbers) or
            ``stem`` (the parent's stem text).
        named: The field's name says it refers to a source (:data:`NAME_HINT`).
        values: Child items with a value in the field.
        pairs: ``(child row, parent row, score)`` for every child item whose value names a
            parent item (score 100).
        closeness: The child's stems' closeness to the named rows' stems, per mille
            (:func:`stem_closeness`; -1: not measured).
    """

    field: str
    kind: str
    named: bool
    values: int
    pairs: tuple[tuple[int, int, float], ...]
    closeness: int = -1

    @property
    def matched(self) -> int:
        """Child items whose value names a parent item."""
        return len(self.pairs)

    def rank(self) -> tuple[int, int, int, str]:
        """Sort key, best first: most items named, named fields, stronger kinds, then the name."""
        return (-self.matched, -int(self.named), KINDS.index(self.kind), self.field)

    def evidence(self) -> dict[str, Any]:
        """The counts of the report (JSON-ready)."""
        return {"reference_field": self.field, "reference_kind": self.kind, "reference_named": self.named,
                "reference_values": self.values, "reference_matched": self.matched,
                **({"reference_stem_closeness": self.closeness} if self.closeness >= 0 else {})}

    def link(self) -> dict[str, Any]:
        """The link rule of the spec fragment, naming the field."""
        if self.kind == "id":
            return {"by": "id", "child_field": self.field}
        if self.kind == "row":
            return {"by": "index", "child_field": self.field}
        return {"by": "text", "child_block": None, "parent_block": None, "threshold": 85}


def _scalar(value: Any) -> str | None:
    if value is None or isinstance(value, bool | dict | list):
        return None
    text = str(value).strip()
    return text if text and text not in ("None", "nan") else None


@dataclass(frozen=True)
class ChildField:
    """A child field's values per row, and the same normalised as stems (read once)."""

    values: list[str | None]
    stems: list[str | None]


def child_fields(table: pa.Table) -> dict[str, ChildField]:
    """Per record field of ``table`` other than its own id and stem: the values, per row."""
    records = [json.loads(r or "{}") for r in table.column("record").to_pylist()]
    names = sorted({k for r in records for k in r})
    ids = [str(i) for i in table.column("item").to_pylist()]
    stems = [normalize_stem(s or "") for s in table.column("stem").to_pylist()]
    out: dict[str, ChildField] = {}
    n = len(records)
    for name in names:
        values = [_scalar(r.get(name)) for r in records]
        own_id = sum(1 for v, i in zip(values, ids, strict=True) if v is not None and (v == i or i.endswith("/" + v)))
        own_stem = sum(1 for v, s in zip(values, stems, strict=True) if v is not None and s and normalize_stem(v) == s)
        if n and (own_id >= MIN_MATCH * n or own_stem >= MIN_MATCH * n):
            continue
        out[name] = ChildField(values, [normalize_stem(v) if v is not None else None for v in values])
    return out


@dataclass(frozen=True)
class ParentLookup:
    """A candidate parent's ids, stems and row count, read once (:func:`lookup`)."""

    ids: dict[str, int]
    stems: dict[str, int]
    rows: int
    numeric_ids: bool


def lookup(parent: pa.Table) -> ParentLookup:
    """The lookups :func:`parent_field` needs of a candidate parent."""
    ids: dict[str, int] = {}
    for j, pid in enumerate(parent.column("item").to_pylist()):
        ids.setdefault(str(pid), j)
    stems: dict[str, int] = {}
    for j, s in enumerate(parent.column("stem").to_pylist()):
        if s:
            stems.setdefault(normalize_stem(s), j)
    numeric = bool(ids) and all(k.isdigit() for k in ids)
    return ParentLookup(ids, stems, parent.num_rows, numeric)


def _row(value: str, n: int) -> int | None:
    if not re.fullmatch(r"\d+(\.0)?", value):
        return None
    j = int(float(value))
    return j if j < n else None


def _candidate(name: str, field: ChildField, kind: str, lookup: dict[str, int] | int) -> ParentField | None:
    values = field.stems if kind == "stem" else field.values
    pairs = []
    for i, v in enumerate(values):
        if v is None:
            continue
        j = _row(v, lookup) if isinstance(lookup, int) else lookup.get(v)
        if j is not None:
            pairs.append((i, j, 100.0))
    n = len(values)
    if len(pairs) < max(_MIN_ITEMS, MIN_MATCH * n):
        return None
    if isinstance(lookup, int) and len({j for _, j, _ in pairs}) < max(_MIN_ITEMS, MIN_DISTINCT * len(pairs)):
        return None
    return ParentField(name, kind, bool(NAME_HINT.search(name)), sum(1 for v in field.values if v is not None), tuple(pairs))


def parent_field(fields: dict[str, ChildField], parent: ParentLookup) -> ParentField | None:
    """The child field that best names ``parent``'s items, or None.

    Args:
        fields: The child's fields (:func:`child_fields`).
        parent: The candidate parent's lookups (:func:`lookup`).

    Returns:
        The best :class:`ParentField` (most items named, then named fields, then ids before
        rows before stems, then by name), or None when no field refers to ``parent``.
    """
    if not fields or parent.rows == 0:
        return None
    found = []
    for name, values in fields.items():
        named = bool(NAME_HINT.search(name))
        for kind, table in (("id", parent.ids), ("row", parent.rows), ("stem", parent.stems)):
            if kind in ("id", "row") and not named and (kind == "row" or parent.numeric_ids):
                continue  # small integers (an answer index) name no row without a name that says so
            got = _candidate(name, values, kind, table)
            if got is not None:
                found.append(got)
    return min(found, key=ParentField.rank) if found else None


def _words(text: str | None) -> set[str]:
    return set(normalize_stem(text).split()) if text else set()


def stem_closeness(child: pa.Table, parent: pa.Table, pairs: tuple[tuple[int, int, float], ...]) -> int:
    """How close the child's stems are to the stems of the parent rows the reference names:
    the mean share of words in common (Jaccard) over the pairs, in per mille (1000: the same
    stems; a rewritten stem keeps some of its parent's words, a stem in another language
    almost none)."""
    if not pairs:
        return 0
    cs, ps = child.column("stem").to_pylist(), parent.column("stem").to_pylist()
    total = 0.0
    for i, j, _ in pairs:
        a, b = _words(cs[i]), _words(ps[j])
        total += len(a & b) / len(a | b) if a | b else 1.0
    return round(1000 * total / len(pairs))
