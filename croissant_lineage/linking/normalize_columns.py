"""The normalisers of :mod:`croissant_lineage.linking.normalize` over whole Arrow columns.

:mod:`~croissant_lineage.linking.normalize` stays the one statement of the rules (plain
Python, one text at a time); this module computes the same keys column by column and is
proved equal to it (Hypothesis, and every stem and option of the MMLU family:
``tests/linking/test_normalize_columns.py``).

Arrow compute does the rows it can do exactly, the reference does the rest, and the two
are spliced back in row order (``replace_with_mask``):

* **ASCII rows** (``string_is_ascii``) run in Arrow kernels. On ASCII text NFKC changes
  nothing, ftfy is never asked, the only character translated is the backtick, and
  ``casefold`` is ``lower`` (``ascii_lower``). White space is what Python's
  ``str.split()`` splits on, which for ASCII is space, ``\\t\\n\\v\\f\\r`` *and* the
  separators ``\\x1c``-``\\x1f`` (RE2's ``\\s`` misses those four, so the class is
  spelled out).
* **Non-ASCII rows** go to the reference: Arrow's NFKC (utf8proc) may follow another
  Unicode version than Python's ``unicodedata``, ``utf8_lower`` is not ``casefold``
  (``ß``), and the mojibake repair is ftfy's.
* **Option rows that may be damaged** go to the reference too: the spreadsheet-damage
  patterns need look-around, which RE2 lacks. An ASCII option is sent there when it holds
  a substring every damage pattern needs to match (:data:`_MAY_BE_DAMAGED`: ``\\d.0``,
  ``\\d:0\\d``, ``\\d,\\d\\d\\d``, or the whole key shaped like ``2-Jan``); any other ASCII
  option with digits has no pattern that applies, so its key is the digit-free one.

Null and empty texts give ``""``, as the reference does.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.linking.normalize import (
    normalize_option,
    normalize_option_cased,
    normalize_stem,
)

__all__ = ["normalize_option_columns", "normalize_options_column", "normalize_stems_column"]

#: A superset of where :mod:`~croissant_lineage.linking.normalize`'s damage patterns
#: (``_DATE_DAMAGE``, ``_FLOAT_FRACTION``, ``_FRACTION_FLOAT``, ``_CLOCK``, ``_THOUSANDS``)
#: can match an ASCII key: each needs one of these substrings.
_MAY_BE_DAMAGED = r"[0-9]\.0|[0-9]:0[0-9]|[0-9],[0-9]{3}|^[0-9]{1,2}-[A-Za-z]{3}$"

#: The ASCII characters Python's ``str.split()`` splits on (``str.isspace``), for RE2.
_ASCII_SPACE_RUN = "[\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f ]+"


def _as_string_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One contiguous ``string`` array (nulls kept)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], pa.string())
    if values.type != pa.string():
        values = values.cast(pa.string())
    return values


def _ascii_presentation(values: pa.Array) -> pa.Array:
    """The reference's ASCII steps before case: backtick to quote, white space collapsed, trimmed."""
    out = pc.replace_substring(values, "`", "'")
    out = pc.replace_substring_regex(out, _ASCII_SPACE_RUN, " ")
    return pc.ascii_trim(out, " ")


def _splice(fast: pa.Array, slow_rows: pa.Array, values: pa.Array, reference: Callable[[str], str]) -> pa.Array:
    """``fast`` with the rows of the boolean mask ``slow_rows`` replaced, in order, by the
    reference applied to those rows of ``values``."""
    if not pc.any(slow_rows).as_py():
        return fast
    slow = [reference(t) for t in pc.filter(values, slow_rows).to_pylist()]
    return pc.replace_with_mask(fast, slow_rows, pa.array(slow, pa.string()))


def normalize_stems_column(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """:func:`~croissant_lineage.linking.normalize.normalize_stem` of every row.

    Args:
        values: Texts (``string`` or castable to it; nulls allowed).

    Returns:
        A ``string`` array of the same length without nulls (``""`` for null and empty).
    """
    values = _as_string_array(values)
    filled = pc.fill_null(values, "")
    ascii_rows = pc.string_is_ascii(filled)
    fast = pc.ascii_lower(_ascii_presentation(filled))
    return _splice(fast, pc.invert(ascii_rows), filled, normalize_stem)


def normalize_option_columns(values: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    """:func:`~croissant_lineage.linking.normalize.normalize_option_cased` and
    :func:`~croissant_lineage.linking.normalize.normalize_option` of every row.

    Args:
        values: Option texts (``string`` or castable to it; nulls allowed).

    Returns:
        ``(cased, folded)``: two ``string`` arrays of the same length without nulls.
    """
    values = _as_string_array(values)
    filled = pc.fill_null(values, "")
    cased = pc.ascii_rtrim(_ascii_presentation(filled), ". ")
    slow_rows = pc.or_(pc.invert(pc.string_is_ascii(filled)), pc.match_substring_regex(cased, _MAY_BE_DAMAGED))
    folded = pc.ascii_lower(cased)
    return (
        _splice(cased, slow_rows, filled, normalize_option_cased),
        _splice(folded, slow_rows, filled, normalize_option),
    )


def normalize_options_column(
    options: pa.Array | pa.ChunkedArray,
) -> tuple[pa.Array, pa.Array]:
    """:func:`normalize_option_columns` of every option of a ``list<string>`` column.

    Args:
        options: One list of option texts per item (null lists allowed).

    Returns:
        ``(cased, folded)``: ``list<string>`` arrays with the lists' shape (a null list stays null).
    """
    if isinstance(options, pa.ChunkedArray):
        options = options.combine_chunks() if options.num_chunks else pa.array([], pa.list_(pa.string()))
    if options.type != pa.list_(pa.string()):
        options = options.cast(pa.list_(pa.string()))
    flat = options.values[options.offsets[0].as_py() : options.offsets[-1].as_py()] if len(options) else options.values[:0]
    offsets = pc.subtract(options.offsets, options.offsets[0]) if len(options) else options.offsets
    cased, folded = normalize_option_columns(flat)
    mask = options.is_null() if options.null_count else None
    return (
        pa.ListArray.from_arrays(offsets, cased, mask=mask),
        pa.ListArray.from_arrays(offsets, folded, mask=mask),
    )
