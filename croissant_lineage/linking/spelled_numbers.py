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

Languages without a vocabulary here are not told apart: every text may change.
"""

from __future__ import annotations

from functools import cache

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["VOCABULARY", "may_change"]

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


@cache
def _pattern(language: str) -> str | None:
    words = VOCABULARY.get(language)
    if words is None:
        return None
    alternatives = "|".join(sorted(set(words), key=lambda w: (-len(w), w)))
    # Only ASCII letters and digits count as inside a word: RE2 compiles the Unicode
    # classes (``\pL``, ``\pN``) in ~5 ms a call, paid once per subject group.
    return rf"(?i)(?:^|[^a-z0-9])(?:{alternatives})s*(?:[^a-z0-9]|$)"


def may_change(texts: pa.Array, language: str) -> pa.Array | None:
    """Per text, whether ``alpha2digit(text, language)`` may differ from ``text``.

    Args:
        texts: The texts (``string``, no nulls).
        language: The primary language subtag given to ``alpha2digit`` (``en``).

    Returns:
        A ``bool`` array (false: the text is its own ``alpha2digit``), or None when the
        language has no vocabulary here (any text may change).
    """
    pattern = _pattern(language)
    return None if pattern is None else pc.match_substring_regex(texts, pattern)
