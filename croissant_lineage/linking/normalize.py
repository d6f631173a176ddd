"""Normalising stems and options so that copies compare equal.

Two kinds of differences are erased before texts are compared:

* presentation: Unicode compatibility forms (NFKC), case, runs of white space
  (including NEL and non-breaking spaces), curly quotes and dashes, the ``Õ`` mojibake
  for ``’`` in the 2020 MMLU files;
* spreadsheet damage to options, seen between MMLU releases and in MMLU-Pro's copies:
  ``1.0/2`` for ``1/2``, ``1:04`` for ``1:4``, ``$1,000`` for ``$1000``, and
  ``2-Jan`` for ``1/2`` (a fraction read as a date).

Normalisation never changes what is stored; it only builds comparison keys.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["normalize_option", "normalize_stem"]

_WS = re.compile(r"\s+")
_TRANSLATE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2033": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00d5": "'",  # Mac Roman 0xD5 (’) read as Latin-1 in the 2020 MMLU files
    "\u0085": " ", "\u00a0": " ", "\u200b": "",
})
_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_DATE_DAMAGE = re.compile(r"^(\d{1,2})-(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)$")
_FLOAT_FRACTION = re.compile(r"(?<![\d.])(\d+)\.0(?=\s*/\s*\d)")
_FRACTION_FLOAT = re.compile(r"(?<=/)(\d+)\.0(?![\d.])")
_CLOCK = re.compile(r"(?<![\d:])(\d{1,2}):0(\d)(?![\d:])")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_ASCII_DIGIT = re.compile(r"[0-9]")


def _has_digit(key: str) -> bool:
    """``any(c.isdigit() for c in key)``, at C speed for ASCII text."""
    if key.isascii():
        return _ASCII_DIGIT.search(key) is not None
    return any(c.isdigit() for c in key)


@lru_cache(maxsize=1 << 18)
def normalize_stem(text: str | None) -> str:
    """Comparison key of a question stem (or any text).

    Returns:
        The text in NFKC, casefolded, with quotes, dashes and white space unified and
        trimmed; ``""`` for None.
    """
    if not text:
        return ""
    if text.isascii():
        # The same steps for ASCII text, at C speed: NFKC changes nothing, the only
        # ASCII character translated is the backtick, casefold is lower, and
        # split/join collapses the same white space as the regex (str.isspace).
        return " ".join(text.replace("`", "'").lower().split())
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE).casefold()
    return _WS.sub(" ", text).strip()


@lru_cache(maxsize=1 << 18)
def normalize_option(text: str | None) -> str:
    """Comparison key of an answer option: :func:`normalize_stem` plus undoing the
    spreadsheet damage listed in the module docstring."""
    key = normalize_stem(text).rstrip(". ")  # before the patterns, so that a second pass adds nothing
    if not _has_digit(key):
        return key
    m = _DATE_DAMAGE.match(key)
    if m:
        return f"{_MONTHS[m.group(2)]}/{int(m.group(1))}"
    key = _FLOAT_FRACTION.sub(r"\1", key)
    key = _FRACTION_FLOAT.sub(r"\1", key)
    key = _CLOCK.sub(r"\1:\2", key)
    key = _THOUSANDS.sub("", key)
    return key.rstrip(". ").strip()
