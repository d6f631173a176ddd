"""Python regular expressions run over whole Arrow columns, with Python's answers.

Arrow's regex kernels use RE2, whose syntax and classes differ from Python's ``re``: ``\\s`` and
``\\w`` are ASCII-only in RE2 and Unicode in Python, ``.`` and ``$`` differ at line ends,
and RE2 has no look-around. :func:`re2_pattern` translates a compiled Python pattern built
from the constructs RE2 shares (literals, classes, alternation, groups, greedy repeats,
``.``, ``\\A``/``^`` and ``\\Z``) into an RE2 pattern that matches the same substrings of any
valid Unicode text:

* every class is spelled out as code-point ranges, and Python's own categories (``\\s``,
  ``\\w``, ``\\d`` under the pattern's flags) are enumerated by running Python's regex
  engine over every code point, so no Unicode table of RE2 (another Unicode version) is
  consulted;
* surrogates (never in valid UTF-8, so never in an Arrow string) are left out of classes;
* anything else (look-around, back references, ``$``, ``IGNORECASE``, ``MULTILINE``,
  ``LOCALE``, lazy repeats) raises :class:`ValueError`, and callers fall back to Python.

:func:`search_column` is ``[pattern.search(t) is not None for t in values]`` over a column;
:func:`char_class_ranges` enumerates a predicate over code points (for ``str`` methods
with no regex spelling, such as ``str.isdigit``). Tested against Python's ``re`` with
Hypothesis and on every stem and option of the MMLU family
(``tests/linking/test_regex_columns.py``).
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# Python's own pattern parser: ``re._parser`` since 3.11, ``sre_parse`` before
_p = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
_c = importlib.import_module("re._constants" if sys.version_info >= (3, 11) else "sre_constants")

__all__ = ["char_class_ranges", "class_pattern", "re2_pattern", "search_column"]

_SURROGATES = (0xD800, 0xDFFF)
_MAX = 0x10FFFF

#: Flags whose meaning the translation keeps (the rest raise).
_UNSUPPORTED_FLAGS = re.IGNORECASE | re.LOCALE | re.MULTILINE


@cache
def _all_code_points() -> tuple[np.ndarray, str]:
    """Every code point but the surrogates, as an array and as one string (same order)."""
    points = np.concatenate([np.arange(0, _SURROGATES[0]), np.arange(_SURROGATES[1] + 1, _MAX + 1)]).astype("<u4")
    return points, points.tobytes().decode("utf-32-le")


def _runs(flags: np.ndarray) -> tuple[tuple[int, int], ...]:
    """Inclusive code-point ranges where ``flags`` (one per code point of
    :func:`_all_code_points`) is true."""
    points, _ = _all_code_points()
    padded = np.concatenate(([False], flags, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    out: list[tuple[int, int]] = []
    for start, end in zip(edges[::2].tolist(), (edges[1::2] - 1).tolist(), strict=True):
        out.extend(_without_surrogates(int(points[start]), int(points[end])))
    return tuple(out)


@lru_cache(maxsize=16)
def _category_ranges(escape: str, flags: int) -> tuple[tuple[int, int], ...]:
    """Code points Python's ``re`` matches with a category escape (``\\s``) under ``flags``."""
    _, text = _all_code_points()
    flags_arr = np.zeros(len(text), dtype=bool)
    for m in re.finditer(escape + "+", text, flags):
        flags_arr[m.start() : m.end()] = True
    return _runs(flags_arr)


@lru_cache(maxsize=16)
def char_class_ranges(predicate: Callable[[str], bool]) -> tuple[tuple[int, int], ...]:
    """Inclusive code-point ranges of the characters for which ``predicate`` holds
    (surrogates left out).

    Args:
        predicate: A test of one character, e.g. ``str.isdigit``.

    Returns:
        Sorted, disjoint ``(first, last)`` ranges.
    """
    _, text = _all_code_points()
    return _runs(np.fromiter(map(predicate, text), dtype=bool, count=len(text)))


def _without_surrogates(lo: int, hi: int) -> list[tuple[int, int]]:
    out = []
    if lo < _SURROGATES[0]:
        out.append((lo, min(hi, _SURROGATES[0] - 1)))
    if hi > _SURROGATES[1]:
        out.append((max(lo, _SURROGATES[1] + 1), hi))
    return out


def _merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _point(cp: int) -> str:
    return chr(cp) if chr(cp).isascii() and chr(cp).isalnum() else f"\\x{{{cp:x}}}"


def class_pattern(ranges: Iterable[tuple[int, int]], negate: bool = False) -> str:
    """An RE2 character class of code-point ranges (``[^...]`` when ``negate``)."""
    merged = _merge(r for lo, hi in ranges for r in _without_surrogates(lo, hi))
    if not merged:  # matches nothing / anything
        return "[\\x{0}-\\x{10ffff}]" if negate else "[^\\x{0}-\\x{10ffff}]"
    body = "".join(_point(lo) if lo == hi else f"{_point(lo)}-{_point(hi)}" for lo, hi in merged)
    return f"[{'^' if negate else ''}{body}]"


_CATEGORY_ESCAPES = {
    _c.CATEGORY_SPACE: r"\s", _c.CATEGORY_NOT_SPACE: r"\S",
    _c.CATEGORY_WORD: r"\w", _c.CATEGORY_NOT_WORD: r"\W",
    _c.CATEGORY_DIGIT: r"\d", _c.CATEGORY_NOT_DIGIT: r"\D",
}


def _class(items: list[tuple[Any, Any]], flags: int) -> str:
    negate = False
    ranges: list[tuple[int, int]] = []
    for op, av in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            ranges.append((int(av), int(av)))
        elif op is _c.RANGE:
            lo, hi = av
            ranges.append((lo, hi))
        elif op is _c.CATEGORY and av in _CATEGORY_ESCAPES:
            ranges.extend(_category_ranges(_CATEGORY_ESCAPES[av], flags))
        else:
            raise ValueError(f"no RE2 form for the class item {op}")
    return class_pattern(ranges, negate)


def _node(op: Any, av: Any, flags: int) -> str:
    """One node of a parsed Python pattern as RE2 (raises ValueError when RE2 cannot say it)."""
    if op is _c.LITERAL:
        cp = int(av)
        return class_pattern([(cp, cp)]) if _SURROGATES[0] <= cp <= _SURROGATES[1] else _point(cp)
    if op is _c.NOT_LITERAL:
        return class_pattern([(int(av), int(av))], negate=True)
    if op is _c.IN:
        return _class(av, flags)
    if op is _c.ANY:
        return class_pattern([] if flags & re.DOTALL else [(10, 10)], negate=True)
    if op is _c.AT and av in (_c.AT_BEGINNING, _c.AT_BEGINNING_STRING):
        return "\\A"
    if op is _c.AT and av is _c.AT_END_STRING:  # ``\Z`` (``$`` also matches before a final newline)
        return "\\z"
    if op is _c.BRANCH:
        return "(?:" + "|".join(_sequence(b, flags) for b in av[1]) + ")"
    if op is _c.SUBPATTERN:
        _group, add, remove, sub = av
        if add or remove:
            raise ValueError("no RE2 form for inline flags")
        return "(?:" + _sequence(sub, flags) + ")"
    if op is _c.MAX_REPEAT:
        lo, hi, sub = av
        if lo > 1000 or (hi is not _c.MAXREPEAT and hi > 1000):
            raise ValueError("RE2 repeats at most 1000 times")
        upper = "" if hi is _c.MAXREPEAT else str(hi)
        return "(?:" + _sequence(sub, flags) + "){" + f"{lo},{upper}" + "}"
    raise ValueError(f"no RE2 form for {op}")


def _sequence(seq: Iterable[tuple[Any, Any]], flags: int) -> str:
    return "".join(_node(op, av, flags) for op, av in seq)


@lru_cache(maxsize=64)
def _translated(pattern: str, flags: int) -> str:
    if flags & _UNSUPPORTED_FLAGS:
        raise ValueError("no RE2 form for IGNORECASE, LOCALE or MULTILINE")
    return _sequence(_p.parse(pattern, flags), flags)


def re2_pattern(pattern: re.Pattern[str]) -> str:
    """An RE2 pattern matching the same substrings of valid Unicode text as ``pattern``.

    Args:
        pattern: A compiled ``str`` pattern made of literals, classes, Python's
            categories, alternation, groups, greedy repeats, ``.``, ``\\A``/``^`` and ``\\Z``.

    Returns:
        The RE2 pattern (classes spelled out as code points; no capture groups).

    Raises:
        ValueError: The pattern uses something RE2 cannot say the same way.
    """
    if not isinstance(pattern.pattern, str):
        raise ValueError("only str patterns")
    return _translated(pattern.pattern, pattern.flags)


def search_column(values: pa.Array | pa.ChunkedArray, pattern: re.Pattern[str]) -> pa.Array:
    """``pattern.search(t) is not None`` for every row, by Arrow's RE2 kernel (null rows: null).

    Raises:
        ValueError: :func:`re2_pattern` cannot translate ``pattern``.
    """
    return pc.match_substring_regex(values, re2_pattern(pattern))
