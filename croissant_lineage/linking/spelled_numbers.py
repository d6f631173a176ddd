"""Which texts :func:`text_to_num.alpha2digit` may change, told over a whole column.

``alpha2digit`` tokenises a text into runs of alphanumeric characters (with ``-`` and
``'``) and the separators between them, and writes digits only for the numbers it parses;
every other token is written back as it was. In English every number it parses holds at
least one word of the interpreter's vocabulary (text2num's ``lang/en``: the cardinals and
ordinals, ``o``, ``nought``, ``hundred`` ... ``billion``; ``and`` and ``point`` only
continue a number already started), as a whole token or as a ``-`` part of one, in any
case, with any trailing ``s`` (its lemmatiser strips them). A text with no such word is
given back unchanged: :func:`may_change` finds the texts that have one with one RE2 search
per column (Arrow), a superset: a word counts wherever no ASCII letter or digit touches
it (both are alphanumeric to text2num's tokeniser, so every word it reads is found; a
word next to another letter, ``éone``, is found too, and only costs the call).

A number below ``alpha2digit``'s threshold (3) that stands alone is not converted either
(``one apple``, ``the first``, ``two or 3``: only ``one two``, ``two hundred`` and the like
are): a text whose one vocabulary word is such a number (:data:`BELOW_THRESHOLD`) and that
has no other vocabulary word is given back unchanged too, so the column test asks for a
vocabulary word not in :data:`BELOW_THRESHOLD`, or two vocabulary words (a second RE2
search); two thirds of the English texts the vocabulary finds are passed over this way.

Languages without a vocabulary here are not told apart: every text may change.
"""

from __future__ import annotations

from functools import cache

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["BELOW_THRESHOLD", "VOCABULARY", "may_change"]

#: Per primary language subtag, every word text2num's interpreter reads as (part of) a
#: number (text2num-rs ``src/lang/en/mod.rs``, ``English::apply`` and ``basic_annotate``).
VOCABULARY: dict[str, tuple[str, ...]] = {
    "en": (
        "zero", "o", "nought", "one", "first", "oneth", "two", "second", "three", "third",
        "four", "fourth", "five", "fifth", "six", "sixth", "seven", "seventh", "eight", "eighth",
        "nine", "ninth", "ten", "tenth", "eleven", "eleventh", "twelve", "twelfth",
        "thirteen", "thirteenth", "fourteen", "fourteenth", "fifteen", "fifteenth",
        "sixteen", "sixteenth", "seventeen", "seventeenth", "eighteen", "eighteenth",
        "nineteen", "nineteenth", "twenty", "twentieth", "thirty", "thirtieth",
        "fourty", "forty", "fortieth", "fourtieth", "fifty", "fiftieth", "sixty", "sixteeth",
        "seventy", "seventieth", "eighty", "eightieth", "ninety", "ninetieth",
        "hundred", "hundredth", "thousand", "thousandth", "million", "millionth",
        "billion", "billionth",
    ),
}


#: Per language, the words of :data:`VOCABULARY` whose number is below ``alpha2digit``'s
#: threshold (3), which it leaves as written when no other number word joins them.
BELOW_THRESHOLD: dict[str, tuple[str, ...]] = {"en": ("zero", "o", "one", "first", "two", "second")}


def _alternatives(words: tuple[str, ...]) -> str:
    return "|".join(sorted(set(words), key=lambda w: (-len(w), w)))


@cache
def _patterns(language: str) -> tuple[str, str | None] | None:
    """RE2 patterns: a vocabulary word not below the threshold; two vocabulary words
    (None when the language has no words below the threshold)."""
    words = VOCABULARY.get(language)
    if words is None:
        return None
    small = set(BELOW_THRESHOLD.get(language, ()))
    # Only ASCII letters and digits count as inside a word: RE2 compiles the Unicode
    # classes (``\pL``, ``\pN``) in ~5 ms a call, paid once per subject group.
    big = rf"(?i)(?:^|[^a-z0-9])(?:{_alternatives(tuple(w for w in words if w not in small))})s*(?:[^a-z0-9]|$)"
    if not small:
        return big, None
    word = rf"(?:{_alternatives(words)})s*"
    # a word, the non-alphanumeric character after it, anything, one before the second word
    two = rf"(?i)(?:^|[^a-z0-9]){word}[^a-z0-9](?:[\s\S]*[^a-z0-9])?{word}(?:[^a-z0-9]|$)"
    return big, two


def may_change(texts: pa.Array, language: str) -> pa.Array | None:
    """Per text, whether ``alpha2digit(text, language)`` may differ from ``text``.

    Args:
        texts: The texts (``string``, no nulls).
        language: The primary language subtag given to ``alpha2digit`` (``en``).

    Returns:
        A ``bool`` array (false: the text is its own ``alpha2digit``), or None when the
        language has no vocabulary here (any text may change).
    """
    patterns = _patterns(language)
    if patterns is None:
        return None
    big, two = patterns
    found = pc.match_substring_regex(texts, big)
    return found if two is None else pc.or_(found, pc.match_substring_regex(texts, two))
