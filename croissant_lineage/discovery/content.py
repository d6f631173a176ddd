"""Per-content comparison of matched item pairs: what a derivation did to each content.

Discovery reads a derivation's direction and activity from what happened to each content
of the items it joins. :func:`compare_contents` takes the pairs ``(child row, parent row)``
of two item tables and classifies, per content, every pair:

* ``copied``: equal after the linker's normalisation;
* ``recomputed``: different, but equal once every number is masked (values perturbed, a
  key recomputed from them);
* ``translated``: different, in a pair declared as a translation;
* ``edited``: otherwise different; of those, ``expanded`` when the child's text holds the
  parent's and more (sub-questions inserted into an answer), ``contracted`` the other way
  (with ``inserted``: the parent's words in order among the child's, :func:`holds`);
* ``added``: set in the child only; ``dropped``: set in the parent only.

The contents are the item roles (``stem``, ``options``, ``key``: the text of the option a
letter key names; a number key its value, a set key its answers sorted; else the key's text,
``solution``, ``tests``: a key written in another form is the same key) and every field of the raw
records, by name (``field:NAME``). This one function is where discovery compares contents;
the linker's edges carry their own per-edge flags (``stem_changed``, ``key_inherited``),
which discovery reads for the counts it reported before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.linking.normalize import normalize_stem

__all__ = ["STATUSES", "ContentComparison", "compare_contents", "holds", "mask_numbers", "row_pairs", "stem_text"]

#: The statuses a content of a pair can have (``expanded`` and ``contracted`` are kinds of ``edited``).
STATUSES = ("copied", "edited", "expanded", "contracted", "recomputed", "translated", "added", "dropped")
#: The item roles compared (besides the records' fields).
_ROLES = ("stem", "options", "key", "solution", "tests")
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*")
#: Records are read for at most this many pairs (the field statuses of a large pair are a sample).
_RECORD_SAMPLE = 2000


def mask_numbers(text: str) -> str:
    """``text`` with every number replaced by ``#``."""
    return _NUMBER.sub("#", text)


@dataclass(frozen=True)
class ContentComparison:
    """Per content, how many pairs have each status.

    Attributes:
        pairs: Pairs compared.
        contents: Content name -> status -> pairs (only the statuses seen).
        records_compared: Pairs whose records were compared (a sample of large pairs).
    """

    pairs: int
    contents: dict[str, dict[str, int]] = field(default_factory=dict)
    records_compared: int = 0

    def count(self, content: str, status: str) -> int:
        """Pairs where ``content`` has ``status``."""
        return self.contents.get(content, {}).get(status, 0)

    def fields_with(self, status: str, share: float = 0.5) -> list[str]:
        """Record fields (``field:`` contents) with ``status`` on at least ``share`` of the records compared."""
        n = self.records_compared
        return sorted(c for c, s in self.contents.items()
                      if c.startswith("field:") and n and s.get(status, 0) >= share * n)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        return {"pairs": self.pairs, "records_compared": self.records_compared,
                "contents": {c: dict(sorted(s.items())) for c, s in sorted(self.contents.items())}}


def stem_text(value: Any) -> str | None:
    """A content's text as compared: normalised like a stem (a list joined by lines); None when empty."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        value = "\n".join(str(v) for v in value)
    text = normalize_stem(str(value))
    return text or None


def holds(longer: str, shorter: str) -> bool:
    """``longer``'s words hold ``shorter``'s, in order, and more (words inserted anywhere)."""
    big, small = longer.split(), shorter.split()
    if len(big) <= len(small) or not small:
        return False
    it = iter(big)
    return all(w in it for w in small)


def _status(c: str | None, p: str | None, translated: bool, inserted: bool = False) -> str | None:
    if c is None and p is None:
        return None
    if p is None:
        return "added"
    if c is None:
        return "dropped"
    if c == p:
        return "copied"
    if translated:
        return "translated"
    if mask_numbers(c) == mask_numbers(p):
        return "recomputed"
    if p in c or (inserted and holds(c, p)):
        return "expanded"
    if c in p or (inserted and holds(p, c)):
        return "contracted"
    return "edited"


def _key(row: dict[str, Any]) -> str | None:
    """The key as compared: the option a letter key names; a number key's value; a set key's
    answers, sorted; else the key's own text."""
    key, options = row.get("key"), row.get("options") or []
    if isinstance(key, str) and key in LETTERS and LETTERS.index(key) < len(options):
        return stem_text(options[LETTERS.index(key)])
    kind = row.get("key_kind")
    if kind == "number" and row.get("key_value") is not None:
        return format(float(row["key_value"]), ".12g")
    if kind == "set" and row.get("key_answers"):
        return stem_text(sorted({normalize_stem(str(a)) for a in row["key_answers"]}))
    return stem_text(row.get("key_text") if row.get("key_text") is not None else key)


def _role_values(table: pa.Table, rows: Iterable[int]) -> list[dict[str, Any]]:
    cols = {c: table.column(c).to_pylist() if c in table.column_names else None
            for c in ("stem", "options", "key", "key_text", "key_kind", "key_value", "key_answers", "solution", "tests")}
    out = []
    for r in rows:
        row = {c: (v[r] if v is not None else None) for c, v in cols.items()}
        out.append({"stem": stem_text(row["stem"]), "options": stem_text(row["options"]), "key": _key(row),
                    "solution": stem_text(row["solution"]), "tests": stem_text(row["tests"])})
    return out


def _record(table: pa.Table, r: int) -> dict[str, Any]:
    raw = table.column("record")[r].as_py() if "record" in table.column_names else None
    try:
        doc = json.loads(raw or "{}")
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _add(contents: dict[str, dict[str, int]], content: str, status: str | None) -> None:
    if status is None:
        return
    counts = contents.setdefault(content, {})
    counts[status] = counts.get(status, 0) + 1
    if status in ("expanded", "contracted"):
        counts["edited"] = counts.get("edited", 0) + 1


def compare_contents(
    pairs: Sequence[tuple[int, int]], child: pa.Table, parent: pa.Table, *, translated: bool = False,
    records: bool = True, inserted: bool = False,
) -> ContentComparison:
    """Classify every content of every pair (see the module docstring).

    Args:
        pairs: ``(child row, parent row)`` of the matched items.
        child, parent: Their item tables (ITEMS_SCHEMA).
        translated: The child's texts are in another language (differing texts count as
            ``translated``, not ``edited``).
        records: Compare the records' fields too (a sample of :data:`_RECORD_SAMPLE` pairs).
        inserted: Read words inserted anywhere into a role's text as ``expanded`` (:func:`holds`),
            not only a text that holds the other whole.

    Returns:
        The :class:`ContentComparison`.
    """
    contents: dict[str, dict[str, int]] = {}
    cvals = _role_values(child, (i for i, _ in pairs))
    pvals = _role_values(parent, (j for _, j in pairs))
    for cv, pv in zip(cvals, pvals, strict=True):
        for role in _ROLES:
            _add(contents, role, _status(cv[role], pv[role], translated, inserted))
    step = max(1, len(pairs) // _RECORD_SAMPLE)
    sample = list(pairs)[::step] if records else []
    for i, j in sample:
        crec, prec = _record(child, i), _record(parent, j)
        for name in sorted(set(crec) | set(prec)):
            c = stem_text(crec.get(name)) if name in crec else None
            p = stem_text(prec.get(name)) if name in prec else None
            _add(contents, f"field:{name}", _status(c, p, translated))
    return ContentComparison(len(pairs), contents, len(sample))


def row_pairs(edges: pa.Table, child: pa.Table, parent: pa.Table) -> list[tuple[int, int]]:
    """The edges as ``(child row, parent row)``."""
    crow = {it: i for i, it in enumerate(child.column("item").to_pylist())}
    prow = {it: j for j, it in enumerate(parent.column("item").to_pylist())}
    cols = (edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist())
    return [(crow[c], prow[p]) for c, p in zip(*cols, strict=True) if c in crow and p in prow]
