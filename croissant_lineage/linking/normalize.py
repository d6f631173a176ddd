"""Normalising stems and options so that copies compare equal.

Two kinds of differences are erased before texts are compared:

* encoding damage: UTF-8 text decoded as Windows-1252 or Latin-1 (``5â€²`` for
  ``5′``), repaired by ``ftfy`` (:func:`repair_text`) before anything else; and the
  ``Õ`` for ``’`` in the 2020 MMLU files (Mac Roman 0xD5 read as Latin-1: one valid
  Latin-1 letter, which ftfy rightly leaves alone);
* presentation: Unicode compatibility forms (NFKC), case, runs of white space
  (including NEL and non-breaking spaces), curly quotes and dashes;
* spreadsheet damage to options, seen between MMLU releases and in MMLU-Pro's copies:
  ``1.0/2`` for ``1/2``, ``1:04`` for ``1:4``, ``$1,000`` for ``$1000``, and
  ``2-Jan`` for ``1/2`` (a fraction read as a date).

Options have a case-preserving key (:func:`normalize_option_cased`) besides the
case-folded one (:func:`normalize_option`), so that option pairing can try case-exact
forms before folding case ("Bb" is not "bb" in a genetics question).

Normalisation never changes what is stored; it only builds comparison keys.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

import ftfy

__all__ = ["normalize_option", "normalize_option_cased", "normalize_stem", "repair_text", "was_repaired"]

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
_DATE_DAMAGE = re.compile(r"^(\d{1,2})-(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)$", re.IGNORECASE)
_FLOAT_FRACTION = re.compile(r"(?<![\d.])(\d+)\.0(?=\s*/\s*\d)")
_FRACTION_FLOAT = re.compile(r"(?<=/)(\d+)\.0(?![\d.])")
_CLOCK = re.compile(r"(?<![\d:])(\d{1,2}):0(\d)(?![\d:])")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_ASCII_DIGIT = re.compile(r"[0-9]")
#: UTF-8 lead bytes (0xC2-0xF4) read as Windows-1252 / Latin-1 characters: text without
#: any of them holds no mojibake of that kind, and ftfy is not asked (it costs ~50 us a text).
_MOJIBAKE_LEAD = re.compile("[\u00c2-\u00f4]")


def _has_digit(key: str) -> bool:
    """``any(c.isdigit() for c in key)``, at C speed for ASCII text."""
    if key.isascii():
        return _ASCII_DIGIT.search(key) is not None
    return any(c.isdigit() for c in key)


def _repair_text(text: str) -> str:
    """``text`` with UTF-8-read-as-Windows-1252/Latin-1 mojibake undone by ``ftfy``.

    Only the encoding is repaired (``ftfy.fix_encoding``): quotes, widths and ligatures
    are left to the normalisers. ASCII text and text without a UTF-8 lead byte read as
    Latin-1 are returned as they are.
    """
    if text.isascii() or _MOJIBAKE_LEAD.search(text) is None:
        return text
    return ftfy.fix_encoding(text)


repair_text = lru_cache(maxsize=1 << 16)(_repair_text)


def was_repaired(text: str | None) -> bool:
    """Whether :func:`repair_text` changes ``text``."""
    if not text:
        return False
    return repair_text(text) != text


def _presentation(text: str) -> str:
    """Non-ASCII text repaired, in NFKC, quotes and dashes unified, white space collapsed."""
    text = unicodedata.normalize("NFKC", repair_text(text)).translate(_TRANSLATE)
    return _WS.sub(" ", text).strip()


def _normalize_stem(text: str | None) -> str:
    """Comparison key of a question stem (or any text).

    Returns:
        The text with its encoding repaired (:func:`repair_text`), in NFKC, casefolded,
        with quotes, dashes and white space unified and trimmed; ``""`` for None.
    """
    if not text:
        return ""
    if text.isascii():
        # The same steps for ASCII text, at C speed: NFKC changes nothing, the only
        # ASCII character translated is the backtick, casefold is lower, and
        # split/join collapses the same white space as the regex (str.isspace).
        return " ".join(text.replace("`", "'").lower().split())
    return _settled(lambda t: _presentation(t).casefold(), text)


normalize_stem = lru_cache(maxsize=1 << 18)(_normalize_stem)


def _settled(step: Callable[[str], str], text: str) -> str:
    """``step`` applied until the key stops changing (at most 4 times).

    Case folding or NFKC can turn repaired text back into something that reads as
    mojibake (``"\x80À"`` folds to ``"\x80à"``, which ftfy then repairs), so one pass is
    not always a fixed point; the key must be, or a key of a key would differ.
    """
    key = step(text)
    for _ in range(3):  # a settled key costs one ``step`` more (only non-ASCII text gets here)
        again = step(key)
        if again == key:
            break
        key = again
    return key


def _normalize_option_cased(text: str | None) -> str:
    """Comparison key of an answer option that keeps case: :func:`normalize_stem`
    without case folding, plus undoing the spreadsheet damage listed in the module
    docstring."""
    if not text:
        return ""
    key = " ".join(text.replace("`", "'").split()) if text.isascii() else _presentation(text)
    return _undamaged(key.rstrip(". "))  # rstrip before the patterns, so that a second pass adds nothing


def _undamaged(key: str) -> str:
    """An option key (presented, trailing dots and spaces stripped) with the spreadsheet
    damage undone (the key itself when it has no digit)."""
    if not _has_digit(key):
        return key
    m = _DATE_DAMAGE.match(key)
    if m:
        return f"{_MONTHS[m.group(2).lower()]}/{int(m.group(1))}"
    key = _FLOAT_FRACTION.sub(r"\1", key)
    key = _FRACTION_FLOAT.sub(r"\1", key)
    key = _CLOCK.sub(r"\1:\2", key)
    key = _THOUSANDS.sub("", key)
    return key.rstrip(". ").strip()


normalize_option_cased = lru_cache(maxsize=1 << 18)(_normalize_option_cased)


def _normalize_option(text: str | None) -> str:
    """Comparison key of an answer option: :func:`normalize_option_cased`, case-folded."""
    if not text:
        return ""
    key = normalize_option_cased(text).casefold()
    if key.isascii():  # no repair on ASCII: one pass is already the fixed point
        return key
    return _settled(lambda t: normalize_option_cased(t).casefold(), key)


normalize_option = lru_cache(maxsize=1 << 18)(_normalize_option)
