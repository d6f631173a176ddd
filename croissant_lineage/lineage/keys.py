"""Keys of any kind read into typed columns: text, number, set, tests (and option kinds counted).

A dataset's key role has a kind (:data:`~croissant_lineage.family.spec.KEY_KINDS`).
Option keys (a letter or an index) are read by :mod:`croissant_lineage.lineage.items` into
the ``key`` column as before; the other kinds are read here into the item table's
``key_text`` (the key as written, after the spec's ``pattern``), ``key_value`` (a number
key's value), ``key_answers`` (a set key's answers), ``solution`` and ``tests``.

Numbers are read from the forms benchmarks write them in (:func:`parse_number`):
``"1,000"``, ``"$18"``, ``"18.0"``, ``"-3/4"``, ``"1e3"``, ``"50%"`` (50), ``"12."``.

A key the spec names but that cannot be read for an item (the field is null or blank,
the pattern does not match, a number key is not a number, a tests key lacks its tests)
is *unread*: :func:`keys_unread` counts them per dataset from the item table, and
``link`` reports the count (``CL-W002``) and ``validate`` a lineage's (``CLV308``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["KEYS_UNREAD", "KEY_COLUMNS", "equal_numbers", "keys_unread", "parse_number", "read_keys"]

#: The link summary's warning code for keys the spec names that could not be read.
KEYS_UNREAD = "CL-W002"

#: The item table's columns this module fills, with their types.
KEY_COLUMNS = {
    "key_kind": pa.string(),
    "key_text": pa.string(),
    "key_value": pa.float64(),
    "key_answers": pa.list_(pa.string()),
    "solution": pa.string(),
    "tests": pa.string(),
}

_CURRENCY = "$€£¥₹"
_SIGNS = ("+", "-")
_THOUSANDS = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?")
_PLAIN = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_FRACTION = re.compile(r"([0-9]+)\s*/\s*([0-9]+)")


def parse_number(text: Any) -> float | None:
    """The value of a number as benchmarks write it, or None when ``text`` is not one.

    Accepted: a sign, a currency symbol (``$ € £ ¥ ₹``) before or after, thousands
    commas (``1,000``; only in groups of three), a decimal point, an exponent (``1e3``),
    a fraction of integers (``3/4``), a trailing ``%`` (the number before it) or ``.``.
    Spaces around the parts are ignored. Infinities and NaN are not numbers here.
    """
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        value = float(text)
        return value if math.isfinite(value) else None
    s = str(text).strip().replace("\u2212", "-")
    sign = 1.0
    if s[:1] in _SIGNS:
        sign, s = (-1.0 if s[0] == "-" else 1.0), s[1:].strip()
    bare = s.strip(_CURRENCY).strip()
    if bare != s and bare[:1] in _SIGNS:  # "$-18": a sign after the currency (a bare "$": no sign)
        sign, bare = sign * (-1.0 if bare[0] == "-" else 1.0), bare[1:].strip()
    s = bare
    s = s.rstrip("%").rstrip(".").strip() if len(s) > 1 else s
    if _THOUSANDS.fullmatch(s):
        s = s.replace(",", "")
    if _PLAIN.fullmatch(s):
        value = float(s)
    elif m := _FRACTION.fullmatch(s):
        if int(m.group(2)) == 0:
            return None
        value = float(Fraction(int(m.group(1)), int(m.group(2))))
    else:
        return None
    return sign * value if math.isfinite(value) else None


def equal_numbers(a: float, b: float, tolerance: float = 0.0) -> bool:
    """Are two number keys equal: within ``tolerance``, or equal to 1e-9 of their size."""
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=tolerance)


def _extract(text: str | None, pattern: re.Pattern[str] | None) -> str | None:
    """The key in ``text``: the pattern's group ``key``, else group 1, else its whole match."""
    if text is None:
        return None
    if pattern is not None:
        m = pattern.search(text)
        if m is None:
            return None
        if "key" in pattern.groupindex:
            text = m.group("key")
        else:
            text = m.group(1) if pattern.groups else m.group(0)
        if text is None:
            return None
    text = text.strip()
    return text or None


def _answers(value: Any, separator: str | None, as_text: Callable[[Any], str | None]) -> list[str] | None:
    """A set key's answers: a list's values, or a text cut at ``separator``; blanks dropped."""
    if value is None:
        return None
    parts = [as_text(v) for v in value] if isinstance(value, (list, tuple)) else (
        (as_text(value) or "").split(separator) if separator else [as_text(value)]
    )
    kept = [p.strip() for p in parts if p is not None and p.strip()]
    return kept or None


def read_keys(
    kind: str | None,
    *,
    n: int,
    raw_keys: list[Any] | None,
    solutions: list[Any] | None,
    tests: list[Any] | None,
    pattern: str | None,
    separator: str | None,
    as_text: Callable[[Any], str | None],
) -> dict[str, pa.Array]:
    """The :data:`KEY_COLUMNS` of ``n`` items.

    Args:
        kind: The dataset's key kind (None: no key role; ``option``: read elsewhere, only
            ``key_kind`` is filled here).
        raw_keys: The key role's values (None without a key role).
        solutions, tests: The ``solution`` and ``tests`` roles' values (None without them).
        pattern: The key's extraction regex.
        separator: A set key's separator.
        as_text: How a value becomes text (the item loader's).
    """
    rx = re.compile(pattern) if pattern else None
    null_text = pa.nulls(n, pa.string())
    cols: dict[str, pa.Array] = {
        "key_kind": pa.repeat(pa.scalar(kind, pa.string()), n) if kind else null_text,
        "key_text": null_text,
        "key_value": pa.nulls(n, pa.float64()),
        "key_answers": pa.nulls(n, pa.list_(pa.string())),
        "solution": pa.array([as_text(v) for v in solutions], pa.string()) if solutions is not None else null_text,
        "tests": pa.array([as_text(v) for v in tests], pa.string()) if tests is not None else null_text,
    }
    if kind is None or kind == "option" or raw_keys is None:
        return cols
    if kind == "tests":  # the key is the reference solution
        cols["solution"] = pa.array([_blank_none(as_text(v)) for v in raw_keys], pa.string())
        return cols
    if kind == "set":
        answers = [_answers(v, separator, as_text) for v in raw_keys]
        if rx is not None:
            answers = [None if a is None else [x for x in (_extract(t, rx) for t in a) if x] or None for a in answers]
        cols["key_answers"] = pa.array(answers, pa.list_(pa.string()))
        cols["key_text"] = pa.array([None if a is None else " | ".join(a) for a in answers], pa.string())
        return cols
    texts = [_extract(as_text(v), rx) for v in raw_keys]
    cols["key_text"] = pa.array(texts, pa.string())
    if kind == "number":
        cols["key_value"] = pa.array([parse_number(t) for t in texts], pa.float64())
    return cols


def _blank_none(text: str | None) -> str | None:
    return text if text is not None and text.strip() else None


#: Per key kind, the columns that hold a read key (all of them must be set).
_KEY_READ_FROM = {
    "option": ("key",), "text": ("key_text",), "number": ("key_value",), "set": ("key_answers",),
    "tests": ("solution", "tests"),
}


def keys_unread(items: pa.Table) -> dict[str, int]:
    """Per dataset, how many items have a key the spec names but that could not be read.

    Unread: an ``option`` key with no letter; a ``text`` key with no text; a ``number``
    key with no value; a ``set`` key with no answer; a ``tests`` key without its solution
    or its tests. A kind whose columns the table lacks is not judged (an enriched items file
    carries no solution or tests). Datasets with none are left out; sorted by name.
    """
    if "key_kind" not in items.column_names or items.num_rows == 0:
        return {}
    kind = items.column("key_kind")
    unread = pa.repeat(pa.scalar(False), items.num_rows)
    for name, columns in _KEY_READ_FROM.items():
        if not set(columns) <= set(items.column_names):  # (an enriched items file holds no solution or tests)
            continue
        ok = pc.is_valid(items.column(columns[0]))
        for c in columns[1:]:
            ok = pc.and_(ok, pc.is_valid(items.column(c)))
        unread = pc.or_(unread, pc.and_(pc.equal(kind, name), pc.invert(ok)))
    unread = pc.fill_null(unread, False)
    counts = pc.value_counts(items.column("dataset").filter(unread)).to_pylist()
    return {c["values"]: int(c["counts"]) for c in sorted(counts, key=lambda c: c["values"])}
