"""Evidence that survives translation (numbers, formulas, Latin-script names), read in the
item's declared language, and the agreement score of two items' evidence.

What is read in every language (language-independent evidence): digits as written
(``1,000`` = ``1 000`` = ``1000``; a separator before exactly three digits groups, any
other is a decimal mark), formulas (LaTeX commands, letter-digit tokens such as ``H2O``),
and Latin-script names and acronyms. What is read only in the item's declared language:

* decimal and grouping separators from CLDR (:mod:`babel`): in ``fr`` ``1,500`` is 1.5;
* spelled-out numbers through :func:`text_to_num.alpha2digit` where it covers the
  language (``dos mil`` -> 2000, ``1,7 millones`` -> 1700000);
* the family spec's per-language rules (:class:`~croissant_lineage.family.spec.LanguageRules`:
  scale words such as ``万`` = 10^4 after a number), data, never tables in the code.

A language with no rules gets only the language-independent evidence, never another
language's words. A number token keeps every reading it has (``n:1700000~1.7``: the scaled
value and the digits as written; a locale reading and the language-independent one), and
a decade year also reads as its two last digits (``1960`` is also ``60``: "the 60s of the
20th century"); two tokens agree when any readings meet.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

import pyarrow as pa
from babel import Locale, UnknownLocaleError
from babel.numbers import get_decimal_symbol, get_group_symbol
from text_to_num import alpha2digit

from croissant_lineage.linking.regex_columns import search_column
from croissant_lineage.linking.spelled_numbers import may_change

__all__ = [
    "MIN_EVIDENCE_WEIGHT",
    "TEXT2NUM_LANGUAGES",
    "Evidence",
    "NumberReader",
    "evidence_score",
    "extract_evidence",
    "extract_evidence_many",
    "number_reader",
    "token_readings",
]


#: Least summed token weight on each side for evidence to count.
MIN_EVIDENCE_WEIGHT = 0.5


#: Languages whose spelled-out numbers :func:`text_to_num.alpha2digit` reads.
TEXT2NUM_LANGUAGES = ("da", "de", "en", "es", "fr", "it", "nl", "pt")


_NUMBER = re.compile(r"\d+(?:[,.\u00a0\u202f ]\d{3}(?!\d))*(?:[.,]\d+)?")


# A power of ten of at least 1,000 right after a number: what alpha2digit makes of a
# scale word ("1,7 millones" -> "1,7 1000000").
_POWER_AFTER = re.compile(r"[ \u00a0]?(10{3,})(?!\d)")


_DIGITS = re.compile(r"\d+")


_DECIMAL_PART = re.compile(r"[.,](\d+)$")


_GROUP_END = re.compile(r"[,.\u00a0\u202f ]\d{3}$")


_NON_DIGIT = re.compile(r"\D")


_LATEX = re.compile(r"\\[A-Za-z]+")


# Latin-script words are delimited by ASCII letters and digits only: in Chinese or
# Japanese text a copied acronym sits right next to other letters ("实质GDP").
#: (Each word pattern starts with its first letter's class and looks behind it from there,
#: ``[A-Z](?<![A-Za-z0-9][A-Z])``: the same matches as a look-behind before the class, found
#: twice as fast, since Python's engine skips to the characters of a leading class.)
_FORMULA = re.compile(r"[A-Za-z](?<![A-Za-z0-9][A-Za-z])[A-Za-z]*[0-9][A-Za-z0-9]*")


_CAPITALISED = re.compile(r"[A-Z](?<![A-Za-z0-9][A-Z])[A-Za-z]+(?![A-Za-z0-9])")


#: Letters looked at to tell the script of a text.
_SCRIPT_SAMPLE = 400


# Everything but a letter (``[^\W\d_]``), and everything but a Latin-script letter, in runs
# (what :func:`_latin_share` deletes to count the letters of each kind).
_NOT_LETTERS = re.compile(r"[\W\d_]+")
_NOT_LATIN_LETTERS = re.compile(r"[^A-Za-z\u00c0-\u024f\u1e00-\u1eff]+")


_SENTENCE_START = frozenset(".?!:;\"'“”‘’«»()[]「」『』（）【】《》〈〉")


# Roman numerals up to 39 (centuries, regnal and list numbers: "XIX век", "siglo XX",
# "Henry VIII"), read as numbers in every language.
# The look-ahead (two numeral letters) skips the empty and one-letter matches the rest
# of the pattern allows everywhere, which :func:`_roman_numbers` drops: the same numerals,
# without a match object per word boundary.
_ROMAN = re.compile(r"(?=[IVX]{2})(?<![A-Za-z0-9])(X{0,3})(IX|IV|V?I{0,3})(?![A-Za-z0-9])")


_ROMAN_HINT = re.compile("[IVX]{2}")


_ROMAN_UNITS = {"": 0, "I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9}


# A thousands suffix right after digits: "$3k", "15K" (a unit of every language).
_KILO = re.compile(r"[kK](?![A-Za-z])")


_SPACES = "\u00a0\u202f "


def _plain_number(text: str) -> str:
    """Digits as written, language-independent: ``1,000`` / ``1 000`` / ``1.000`` -> ``1000``;
    ``0,50`` / ``0.5`` -> ``0.5``; ``3.0`` -> ``3``."""
    if text.isdigit():
        return text.lstrip("0") or "0"
    m = _DECIMAL_PART.search(text)
    if m and not _GROUP_END.search(text):
        whole, frac = text[: m.start()], m.group(1).rstrip("0")
    else:
        whole, frac = text, ""
    digits = _NON_DIGIT.sub("", whole).lstrip("0") or "0"
    return f"{digits}.{frac}" if frac else digits


def _canonical(value: Decimal) -> str:
    out = format(value.normalize(), "f")
    return out.rstrip("0").rstrip(".") if "." in out else out


@dataclass(frozen=True)
class NumberReader:
    """How numbers are read in one language.

    Attributes:
        language: The language tag (None: no language, language-independent reading only).
        decimal / group: CLDR separators of the language's locale (None: unknown locale).
        spelled: Spelled-out numbers are read (:func:`text_to_num.alpha2digit` covers it).
        scales: Scale words after a number and their power of ten (the family spec's rules).
    """

    language: str | None = None
    decimal: str | None = None
    group: str | None = None
    spelled: bool = False
    scales: tuple[tuple[str, int], ...] = ()

    @property
    def bare(self) -> bool:
        """No rules for this language's number words: a number followed by a word may be
        scaled by it, so its significant digits are one of its readings."""
        return not self.spelled and not self.scales

    @property
    def scale_pattern(self) -> re.Pattern[str] | None:
        return _scale_pattern(self.scales)

    def prepare(self, text: str) -> str:
        """``text`` with spelled-out numbers in digits (where the language is covered)."""
        if not self.spelled or self.language is None:
            return text
        try:
            return alpha2digit(text, self.language.split("-")[0].lower())
        except (ValueError, TypeError):  # text2num refuses some inputs: keep the text as written
            return text

    def prepare_many(self, texts: list[str], column: pa.Array) -> list[str]:
        """:meth:`prepare` of every text (``column``: the same texts as an Arrow array),
        asked only of those :func:`.spelled_numbers.may_change` says it may change."""
        if not self.spelled or self.language is None:
            return texts
        may = may_change(column, self.language.split("-")[0].lower())
        if may is None:
            return [self.prepare(t) for t in texts]
        return [self.prepare(t) if m else t for t, m in zip(texts, may.to_pylist(), strict=True)]

    def readings(self, text: str) -> list[str]:
        """The values of one number as written: the locale's reading first (if it can read
        it), then the language-independent one."""
        return list(_readings(self, text))

    def _locale_reading(self, text: str) -> str | None:
        if self.decimal is None or self.group is None:
            return None
        group = _SPACES if self.group.strip() == "" else self.group
        s = text
        for g in group:
            s = s.replace(g, "")
        s = s.replace(self.decimal, ".")
        if not _DECIMAL.fullmatch(s):
            return None
        try:
            return _canonical(Decimal(s))
        except InvalidOperation:
            return None


_DECIMAL = re.compile(r"\d+(?:\.\d+)?")


def _readings(reader: NumberReader, text: str) -> tuple[str, ...]:
    """:meth:`NumberReader.readings`, once per reader and number as written (numbers repeat
    across items)."""
    return _readings_of(reader)(text)


@lru_cache(maxsize=64)
def _readings_of(reader: NumberReader) -> Callable[[str], tuple[str, ...]]:
    """:func:`_readings` of one reader, cached per number as written (the reader is hashed
    once, not once per number: its dataclass hash builds a tuple of its fields)."""

    @lru_cache(maxsize=1 << 16)
    def readings(text: str) -> tuple[str, ...]:
        plain = _plain_number(text)
        local = reader._locale_reading(text)
        return (local, plain) if local is not None and local != plain else (plain,)

    return readings


@lru_cache(maxsize=64)
def _scale_exponents(scales: tuple[tuple[str, int], ...]) -> dict[str, int]:
    """Scale word (lower-cased) -> its power of ten."""
    return {w.lower(): e for w, e in scales}


@lru_cache(maxsize=1 << 12)
def _written(number: str) -> re.Pattern[str]:
    """``number`` as written in digits, not inside a longer number: ``(?<!\\d)NUMBER(?!\\d)``
    spelled literal first, with the digit before it looked behind from its end (the same
    matches; Python's engine then searches for the literal instead of trying the
    look-behind at every position: ~20x faster on MMLU's texts)."""
    literal = re.escape(number)
    return re.compile(literal + r"(?<!\d" + literal + r")(?!\d)")


@lru_cache(maxsize=64)
def _scale_pattern(scales: tuple[tuple[str, int], ...]) -> re.Pattern[str] | None:
    if not scales:
        return None
    words = sorted((w for w, _ in scales), key=len, reverse=True)
    # A word of a spaced script must end there ("mil" is not "millas"); CJK scale
    # characters run into the next word ("170万光年").
    alts = [re.escape(w) + (r"(?![^\W\d_])" if ord(w[-1]) < 0x2E80 else "") for w in words]
    return re.compile(r"[ \u00a0]?(" + "|".join(alts) + r")", re.IGNORECASE)


@lru_cache(maxsize=256)
def number_reader(language: str | None, scales: tuple[tuple[str, int], ...] = ()) -> NumberReader:
    """The :class:`NumberReader` of a language tag (BCP 47, e.g. ``zh-CN``).

    Args:
        language: The dataset's declared language; None or an unknown tag reads digits only.
        scales: The language's scale words from the family spec (word, power of ten).

    Returns:
        A reader with the locale's CLDR separators (babel) when the locale is known, and
        spelled-out numbers when :data:`TEXT2NUM_LANGUAGES` has its primary subtag.
    """
    if not language:
        return NumberReader(scales=scales)
    decimal: str | None = None
    group: str | None = None
    try:
        locale = Locale.parse(language, sep="-")
        decimal, group = get_decimal_symbol(locale), get_group_symbol(locale)
    except (UnknownLocaleError, ValueError):
        pass  # an unknown locale: digits as written
    primary = language.split("-")[0].lower()
    return NumberReader(language, decimal, group, primary in TEXT2NUM_LANGUAGES, scales)


# A letter right after a number (one space at most): a unit, or a scale word ("170万").
_WORD_AFTER = re.compile(r"[ \u00a0]?[^\W\d_]")


def _mantissa(number: str) -> str:
    """The significant digits of a number: ``1.7``, ``170`` and ``1700000`` -> ``17``."""
    return number.replace(".", "").strip("0") or "0"


def _scaled(number: str, exponent: int) -> str:
    return _canonical(Decimal(number) * (Decimal(10) ** exponent))


def _year_aliases(value: str) -> tuple[str, ...]:
    """A decade year (1000-2090, ending in 0) also reads as its two last digits (``1960``:
    ``60``, as in "the 60s of the 20th century"); a century year as its century (``1900``,
    "the 1900s": ``20``, "siglo XX")."""
    if len(value) != 4 or not value.isdigit() or value[-1] != "0" or not "1000" <= value <= "2090":
        return ()
    year = int(value)
    return (str(year // 100 + 1),) if year % 100 == 0 else (str(year % 100),)


@lru_cache(maxsize=65536)
def token_readings(token: str) -> frozenset[str]:
    """Every reading of a token: ``n:1700000~1.7~*17`` -> ``{n:1700000, n:1.7, n:*17}``
    (``*``: significant digits, the reading of a scaled number and of a number followed by
    a word in a language without rules); a decade year adds its two last digits
    (``n:1960`` -> ``{n:1960, n:60}``)."""
    if not token.startswith(("n:", "s:")):
        return frozenset((token,))
    out: set[str] = set()
    for v in token[2:].split("~"):
        out.add("n:" + v)
        out.update("n:" + a for a in _year_aliases(v))
    return frozenset(out)


def _number_tokens(text: str, reader: NumberReader, original: str | None = None) -> set[str]:
    """``n:`` tokens of the numbers of ``text``; those that ``original`` (the text before
    spelled-out numbers were turned into digits) does not write in digits are ``s:``."""
    tokens: set[str] = set()
    scale_rx = reader.scale_pattern
    scales = _scale_exponents(reader.scales)
    spelled_read, bare = reader.spelled, reader.bare
    read = _readings_of(reader)
    skip_to = -1
    for m in _NUMBER.finditer(text):
        start, end = m.span()
        if start < skip_to:
            continue
        number = m.group()
        values = list(read(number))
        power = _POWER_AFTER.match(text, end) if spelled_read else None
        scale = scale_rx.match(text, end) if scale_rx is not None else None
        if power is not None:
            exponent, skip_to = len(power.group(1)) - 1, power.end()
        elif scale is not None:
            exponent = scales[scale.group(1).lower()]
        else:
            exponent = 0
        if not exponent and _KILO.match(text, end):
            exponent = 3
        rest = _DIGITS.match(text, scale.end()) if scale is not None and exponent else None
        if rest is not None and len(rest.group()) <= exponent:  # "1万3000" = 13,000
            values = [_canonical(Decimal(_scaled(values[0], exponent)) + Decimal(rest.group())), *values]
            skip_to = rest.end()
        elif exponent:
            values = [_scaled(values[0], exponent), *values, "*" + _mantissa(values[0])]
        elif (bare and _WORD_AFTER.match(text, end)) or values[0].endswith("000"):
            # a scale word this language has no rule for ("8万"), or a round number ("80,000")
            values = [*values, "*" + _mantissa(values[0])]
        spelled = original is not None and not _written(number).search(original)
        tokens.add(("s:" if spelled else "n:") + (values[0] if len(values) == 1 else "~".join(dict.fromkeys(values))))
    return tokens


@dataclass(frozen=True)
class Evidence:
    """Tokens of one item (stem and options) that survive translation.

    Attributes:
        tokens: Class-prefixed tokens: ``n:`` numbers (``1,000`` and ``1 000`` -> ``n:1000``,
            ``0,50`` -> ``n:0.5``, ``3.0`` -> ``n:3``; other readings after ``~``:
            ``1,7 millones`` in Spanish -> ``n:1700000~1.7``), ``s:`` numbers spelled out
            in words (``dos mil`` in Spanish -> ``s:2000``: compared only with a text
            whose language's spelled-out numbers are read too), ``f:`` formulas (LaTeX
            commands, letter-digit tokens), ``w:`` Latin-script acronyms and capitalised
            words not starting a sentence (lower-cased).
        latin_share: Share of the letters in Latin script among the text's first 400
            characters, 0-1 (1 when there are none).
    """

    tokens: frozenset[str]
    latin_share: float

    def comparable(self, names: bool) -> frozenset[str]:
        """The tokens to compare: all, or without the ``w:`` class when ``names`` is false."""
        return self.tokens if names else frozenset(t for t in self.tokens if not t.startswith("w:"))


def extract_evidence(
    stem: str | None, options: Iterable[str] | None = (), *, reader: NumberReader | None = None
) -> Evidence:
    """Extract the tokens that survive translation from an item's texts.

    Args:
        stem: The question text.
        options: The option texts.
        reader: How numbers are read in the item's language (:func:`number_reader`); None:
            digits as written only.

    Returns:
        An :class:`Evidence` (texts in NFKC, so full-width digits count as digits).
    """
    reader = reader or number_reader(None)
    text = _joined(stem, options)
    return _evidence(text, reader.prepare(text), reader, (True, True, True, True))


def extract_evidence_many(
    items: Sequence[tuple[str | None, Iterable[str] | None]], *, reader: NumberReader | None = None
) -> list[Evidence]:
    """:func:`extract_evidence` of many items read in one language, equal item for item.

    The patterns that most texts cannot match are first asked over the whole column (Arrow's
    RE2 kernels, :mod:`~croissant_lineage.linking.regex_columns`) with a test each match
    needs: a digit (Python's ``\\d``, after spelled-out numbers are read) for numbers,
    ``\\[A-Za-z]`` for LaTeX commands, a letter right before an ASCII digit for formulas,
    two of ``IVX`` for Roman numerals; each text runs only the patterns it can match.
    Spelled-out numbers are read only in the texts that hold a number word of the
    language (:meth:`NumberReader.prepare_many`).

    Args:
        items: ``(stem, options)`` per item.
        reader: As for :func:`extract_evidence`.

    Returns:
        One :class:`Evidence` per item, in order.
    """
    reader = reader or number_reader(None)
    texts = [_joined(stem, options) for stem, options in items]
    column = pa.array(texts, pa.string())
    prepared = reader.prepare_many(texts, column)
    gates = [
        search_column(column if prepared == texts else pa.array(prepared, pa.string()), _NEEDS_DIGIT),
        search_column(column, _LATEX),
        search_column(column, _NEEDS_FORMULA),
        search_column(column, _ROMAN_HINT),
    ]
    flags = zip(*(g.to_pylist() for g in gates), strict=True)
    return [_evidence(t, p, reader, f) for t, p, f in zip(texts, prepared, flags, strict=True)]


#: Tests every match of a pattern needs (see :func:`extract_evidence_many`): ``_NUMBER``
#: starts with ``\\d``; ``_FORMULA`` holds a letter right before a digit.
_NEEDS_DIGIT = re.compile(r"\d")
_NEEDS_FORMULA = re.compile(r"[A-Za-z][0-9]")


def _joined(stem: str | None, options: Iterable[str] | None) -> str:
    return unicodedata.normalize("NFKC", "\n".join([stem or "", *(options or ())]))


def _evidence(text: str, prepared: str, reader: NumberReader, may: tuple[bool | None, ...]) -> Evidence:
    """The evidence of an item's joined text (``prepared``: its spelled-out numbers read);
    ``may``: whether the numbers, LaTeX, formula and Roman-numeral patterns can match."""
    digits, latex, formula, roman_hint = may
    tokens = _number_tokens(prepared, reader, text if prepared != text else None) if digits else set()
    if latex:
        tokens.update("f:" + w for w in _LATEX.findall(text))
    if formula:
        tokens.update("f:" + w for w in _FORMULA.findall(text))
    roman = _roman_numbers(text) if roman_hint else {}
    tokens.update("n:" + str(v) for v in roman.values())
    tokens.update(t for t in _names(text) if t[2:] not in roman)
    return Evidence(frozenset(tokens), round(_latin_share(text[:_SCRIPT_SAMPLE]), 4))


def _latin_share(sample: str) -> float:
    """Share of ``sample``'s letters (``[^\\W\\d_]``) that are in Latin script (1 when it has
    none). Each count is what is left once the characters outside its class are deleted
    (one string, where ``findall`` builds a list of one-letter strings: half the time)."""
    if sample.isascii():
        return 1.0
    letters = len(_NOT_LETTERS.sub("", sample))
    return len(_NOT_LATIN_LETTERS.sub("", sample)) / letters if letters else 1.0


def _roman_numbers(text: str) -> dict[str, int]:
    """Roman numerals of two letters or more, up to 39 (``XIX`` -> 19)."""
    out: dict[str, int] = {}
    if _ROMAN_HINT.search(text) is None:
        return out
    for m in _ROMAN.finditer(text):
        word = m.group()
        if len(word) >= 2:
            out[word] = 10 * len(m.group(1)) + _ROMAN_UNITS[m.group(2)]
    return out


def _names(text: str) -> set[str]:
    """``w:`` tokens: acronyms, and capitalised words that do not start a sentence."""
    out: set[str] = set()
    for m in _CAPITALISED.finditer(text):
        w = m.group()
        if w.isupper() or (len(w) >= 3 and w[-1] == "s" and w[:-1].isupper()):
            out.add("w:" + (w if w.isupper() else w[:-1]))  # an acronym, its plural too ("IOs")
            continue
        if len(w) < 3:
            continue
        i = m.start() - 1
        while i >= 0 and text[i] in " \t":
            i -= 1
        if i >= 0 and text[i] not in _SENTENCE_START and text[i] != "\n":
            out.add("w:" + w.lower())
    return out


def evidence_score(
    child: frozenset[str], parent: frozenset[str], weight: Callable[[str], float] = lambda t: 1.0
) -> float | None:
    """Weighted agreement of two token sets, 0-100.

    Only token classes (the prefix before ``:``) present on both sides are compared. The
    score is the weight of the smaller side's tokens that agree with a token of the other
    side (any of their :func:`token_readings` meet) over the smaller side's total weight.

    Args:
        child / parent: Comparable tokens of each side (see :meth:`Evidence.comparable`).
        weight: Token -> weight (rarer tokens weigh more).

    Returns:
        The score rounded to 2 decimals, or None when either side's compared weight is
        below :data:`MIN_EVIDENCE_WEIGHT` (no comparable evidence).
    """
    classes = {t[:2] for t in child} & {t[:2] for t in parent}
    if not classes:
        return None
    c = [t for t in child if t[:2] in classes]
    p = [t for t in parent if t[:2] in classes]
    wc, wp = _total(weight, c), _total(weight, p)
    if min(wc, wp) < MIN_EVIDENCE_WEIGHT:
        return None
    small, other = (c, p) if wc <= wp else (p, c)
    other_readings = set().union(*(token_readings(t) for t in other))
    shared = _total(weight, [t for t in small if not token_readings(t).isdisjoint(other_readings)])
    return round(100.0 * shared / min(wc, wp), 2)


def _total(weight: Callable[[str], float], tokens: Iterable[str]) -> float:
    """The tokens' weights summed exactly rounded (:func:`math.fsum`): the same float in
    whatever order the tokens come. Token sets iterate in an order that depends on the
    process's string hash seed, and a float sum in set order could differ in its last bits
    from one process to the next, and with it a score at a rounding boundary."""
    return math.fsum(weight(t) for t in tokens)

