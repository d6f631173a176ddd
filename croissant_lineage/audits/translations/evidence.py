"""Language-independent evidence of an item (numbers, formulas, Latin-script names) and
the agreement score of two items' evidence."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal

__all__ = ["MIN_EVIDENCE_WEIGHT", "Evidence", "evidence_score", "extract_evidence"]


#: Least summed token weight on each side for evidence to count.
MIN_EVIDENCE_WEIGHT = 0.5


_NUMBER = re.compile(r"\d+(?:[,.\u00a0\u202f ]\d{3}(?!\d))*(?:[.,]\d+)?")


# Scale words after a number, in the languages of the MMLU family ("1.7 million",
# "170万", "1,2 млн", "mil millones"); the number is multiplied out.
_SCALES = {
    "thousand": 3, "million": 6, "millions": 6, "billion": 9, "billions": 9, "trillion": 12,
    "mil millones": 9, "millones": 6, "millón": 6, "mil": 3, "milliard": 9, "milliards": 9,
    "mille": 3, "тыс": 3, "млн": 6, "млрд": 9, "миллион": 6, "миллиона": 6, "миллионов": 6,
    "миллиард": 9, "миллиарда": 9, "миллиардов": 9, "千": 3, "万": 4, "萬": 4, "亿": 8, "億": 8,
}


_SCALE = re.compile(
    r"\s?(" + "|".join(re.escape(w) for w in sorted(_SCALES, key=len, reverse=True)) + r")(?![A-Za-z])",
    re.IGNORECASE,
)


_DECIMAL_PART = re.compile(r"[.,](\d+)$")


_GROUP_END = re.compile(r"[,.\u00a0\u202f ]\d{3}$")


_NON_DIGIT = re.compile(r"\D")


_LATEX = re.compile(r"\\[A-Za-z]+")


# Latin-script words are delimited by ASCII letters and digits only: in Chinese or
# Japanese text a copied acronym sits right next to other letters ("实质GDP").
_FORMULA = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]+[0-9][A-Za-z0-9]*")


_CAPITALISED = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z]+(?![A-Za-z0-9])")


#: Letters looked at to tell the script of a text.
_SCRIPT_SAMPLE = 400


_LETTER = re.compile(r"[^\W\d_]")


_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f\u1e00-\u1eff]")


_SENTENCE_START = frozenset(".?!:;\"'“”‘’«»()[]")


def _canonical_number(text: str) -> str:
    """``1,000`` / ``1 000`` / ``1.000`` -> ``1000``; ``0,50`` / ``0.5`` -> ``0.5``; ``3.0`` -> ``3``."""
    if text.isdigit():
        return text.lstrip("0") or "0"
    m = _DECIMAL_PART.search(text)
    if m and not _GROUP_END.search(text):
        whole, frac = text[: m.start()], m.group(1).rstrip("0")
    else:
        whole, frac = text, ""
    digits = _NON_DIGIT.sub("", whole).lstrip("0") or "0"
    return f"{digits}.{frac}" if frac else digits


def _scaled(number: str, exponent: int) -> str:
    value = (Decimal(number) * (Decimal(10) ** exponent)).normalize()
    return format(value, "f")


@dataclass(frozen=True)
class Evidence:
    """Language-independent tokens of one item (stem and options).

    Attributes:
        tokens: Class-prefixed tokens: ``n:`` numbers (``1,000`` and ``1 000`` -> ``n:1000``,
            ``0,50`` -> ``n:0.5``, ``3.0`` -> ``n:3``, ``1.7 million`` and ``170万`` ->
            ``n:1700000``),
            ``f:`` formulas (LaTeX commands, letter-digit tokens), ``w:`` Latin-script
            acronyms and capitalised words not starting a sentence (lower-cased).
        latin_share: Share of the letters in Latin script among the text's first 400
            characters, 0-1 (1 when there are none).
    """

    tokens: frozenset[str]
    latin_share: float

    def comparable(self, names: bool) -> frozenset[str]:
        """The tokens to compare: all, or without the ``w:`` class when ``names`` is false."""
        return self.tokens if names else frozenset(t for t in self.tokens if not t.startswith("w:"))


def extract_evidence(stem: str | None, options: Iterable[str] | None = ()) -> Evidence:
    """Extract the tokens that survive translation from an item's texts.

    Args:
        stem: The question text.
        options: The option texts.

    Returns:
        An :class:`Evidence` (texts in NFKC, so full-width digits count as digits).
    """
    text = unicodedata.normalize("NFKC", "\n".join([stem or "", *(options or ())]))
    tokens: set[str] = set()
    for m in _NUMBER.finditer(text):
        number = _canonical_number(m.group())
        scale = _SCALE.match(text, m.end())
        if scale:
            number = _scaled(number, _SCALES[scale.group(1).lower()])
        tokens.add("n:" + number)
    tokens.update("f:" + w for w in _LATEX.findall(text))
    tokens.update("f:" + w for w in _FORMULA.findall(text))
    for m in _CAPITALISED.finditer(text):
        w = m.group()
        if w.isupper():
            tokens.add("w:" + w)
            continue
        if len(w) < 3:
            continue
        i = m.start() - 1
        while i >= 0 and text[i] in " \t":
            i -= 1
        if i >= 0 and text[i] not in _SENTENCE_START and text[i] != "\n":
            tokens.add("w:" + w.lower())
    sample = text[:_SCRIPT_SAMPLE]
    if sample.isascii():
        share = 1.0
    else:
        letters = len(_LETTER.findall(sample))
        share = len(_LATIN_LETTER.findall(sample)) / letters if letters else 1.0
    return Evidence(frozenset(tokens), round(share, 4))


def evidence_score(
    child: frozenset[str], parent: frozenset[str], weight: Callable[[str], float] = lambda t: 1.0
) -> float | None:
    """Weighted agreement of two token sets, 0-100.

    Only token classes (the prefix before ``:``) present on both sides are compared. The
    score is the weight of the shared tokens over the smaller side's total weight.

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
    wc = sum(weight(t) for t in c)
    wp = sum(weight(t) for t in p)
    if min(wc, wp) < MIN_EVIDENCE_WEIGHT:
        return None
    shared = sum(weight(t) for t in set(c) & set(p))
    return round(100.0 * shared / min(wc, wp), 2)
