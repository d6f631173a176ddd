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
* **Non-ASCII rows**, once per distinct text, take the reference's steps with the costly
  ones proved away. ftfy's ``fix_encoding`` returns a text unchanged unless
  ``ftfy.badness.is_bad`` finds mojibake in it (its first step returns ASCII and
  not-bad text as it is, and a step that changes nothing ends its loop), and the reference
  asks ftfy only about texts holding a UTF-8 lead byte read as Latin-1: both tests run as
  one RE2 kernel each over the column (ftfy's own ``BADNESS_RE`` and the reference's
  ``_MOJIBAKE_LEAD``, translated by :mod:`~croissant_lineage.linking.regex_columns` with
  Python's classes spelled out as code points). Rows where ftfy could act go to the
  reference; on the others the repair is the identity, NFKC and ``casefold`` run in Python
  (``unicodedata``: Arrow's utf8proc may follow another Unicode version, and
  ``utf8_lower`` is not ``casefold``), the quote and dash table and the white space in
  Arrow (classes spelled out as code points), the damage patterns only on keys with a
  digit (``str.isdigit``, enumerated). The settling loop is not run step by step: a
  stem's first key is settled when it is in NFKC (proved in :func:`_stem_keys`), an
  option's folded key when one step gives it back (:func:`_option_keys`); other rows go
  to the reference.
* **Option rows that may be damaged** go to the reference too: the spreadsheet-damage
  patterns need look-around, which RE2 lacks. An ASCII option is sent there when it holds
  a substring every damage pattern needs to match (:data:`_MAY_BE_DAMAGED`: ``\\d.0``,
  ``\\d:0\\d``, ``\\d,\\d\\d\\d``, or the whole key shaped like ``2-Jan``); any other ASCII
  option with digits has no pattern that applies, so its key is the digit-free one.

Null and empty texts give ``""``, as the reference does.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterator
from functools import cache

import pyarrow as pa
import pyarrow.compute as pc
from ftfy.badness import BADNESS_RE

from croissant_lineage.linking import normalize as _ref
from croissant_lineage.linking.normalize import (
    normalize_option,
    normalize_option_cased,
    normalize_stem,
)
from croissant_lineage.linking.regex_columns import _category_ranges, class_pattern, re2_pattern

__all__ = ["normalize_option_columns", "normalize_options_column", "normalize_stems_column", "repair_may_change"]

#: A superset of where :mod:`~croissant_lineage.linking.normalize`'s damage patterns
#: (``_DATE_DAMAGE``, ``_FLOAT_FRACTION``, ``_FRACTION_FLOAT``, ``_CLOCK``, ``_THOUSANDS``)
#: can match an ASCII key: each needs one of these substrings.
_MAY_BE_DAMAGED = r"[0-9]\.0|[0-9]:0[0-9]|[0-9],[0-9]{3}|^[0-9]{1,2}-[A-Za-z]{3}$"

#: The ASCII characters Python's ``str.split()`` splits on (``str.isspace``), for RE2.
#: Runs of them that collapsing changes (two or more, or one that is not a space): a
#: single space is no match, so the replacement costs nothing in ordinary text.
_ASCII_SPACE_RUN = "[\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f ]{2,}|[\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f]"

#: Where collapsing and trimming that white space changes an ASCII text: a white space
#: character other than the space, two spaces in a row, or a space at either end.
_ASCII_SPACE_CHANGE = "[\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f]|  |\\A | \\z"


def _as_string_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One contiguous ``string`` array (nulls kept)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], pa.string())
    if values.type != pa.string():
        values = values.cast(pa.string())
    return values


def _ascii_presentation(values: pa.Array) -> pa.Array:
    """The reference's ASCII steps before case: backtick to quote, white space collapsed,
    trimmed (the white space replaced only in the rows where it changes something: Arrow's
    regex replacement costs per match, and every single space is one)."""
    out = pc.replace_substring(values, "`", "'")
    rows = pc.match_substring_regex(out, _ASCII_SPACE_CHANGE)
    return _where(out, rows, lambda: pc.ascii_trim(pc.replace_substring_regex(pc.filter(out, rows), _ASCII_SPACE_RUN, " "), " "))


class _Rules:
    """The reference's per-character tests as RE2 patterns (see the module docstring)."""

    def __init__(self) -> None:
        self.bad = re2_pattern(BADNESS_RE)  # ftfy.badness.is_bad
        self.lead = re2_pattern(_ref._MOJIBAKE_LEAD)  # the reference asks ftfy at all
        # ``_WS`` (``\\s+``): Python's white space, enumerated; a single " " is left alone
        spaces = _category_ranges(r"\s", _ref._WS.flags)
        others = class_pattern(r for lo, hi in spaces for r in _split(lo, hi, ord(" ")))
        #: Runs that collapsing changes (see :data:`_ASCII_SPACE_RUN`).
        self.space_run = f"{class_pattern(spaces)}{{2,}}|{others}"
        #: Rows the white space step changes: such a run, or a space at an end.
        self.space_change = f"{others}|  |\\A | \\z"
        #: Rows a damage pattern may change (each needs one of these; see :func:`_undamaged_keys`).
        self.damage = re2_pattern(re.compile(r"\d\.0|\d:0\d|\d,\d{3}|^\d{1,2}-"))
        groups: defaultdict[str, list[int]] = defaultdict(list)
        for point, out in _ref._TRANSLATE.items():
            groups[str(out)].append(point)
        if any(ord(c) in _ref._TRANSLATE for out in groups for c in out):
            raise ValueError("the table maps to a character it also maps: not one pass per output")
        #: Rows the table changes, and one (class of characters, replacement) per output of the table.
        self.translated = class_pattern((p, p) for p in _ref._TRANSLATE)
        self.translate = tuple((class_pattern((p, p) for p in points), out) for out, points in sorted(groups.items()))


def _split(lo: int, hi: int, point: int) -> list[tuple[int, int]]:
    """The range ``lo``-``hi`` without ``point``."""
    return [r for r in ((lo, min(hi, point - 1)), (max(lo, point + 1), hi)) if r[0] <= r[1]]


@cache
def _rules() -> _Rules | None:
    """The RE2 forms of the reference's tests, built once; None when one has no RE2 form
    (then every non-ASCII row goes to the reference)."""
    try:
        return _Rules()
    except ValueError:
        return None


def repair_may_change(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Per row, whether :func:`~croissant_lineage.linking.normalize.repair_text` may change
    the text: it holds a UTF-8 lead byte read as Latin-1 and ftfy's ``is_bad`` finds
    mojibake in it (null rows: false). Where this is false the repair is the identity.

    Args:
        values: Texts (``string``; nulls allowed).

    Returns:
        A ``bool`` array without nulls (every non-ASCII row when the tests have no RE2 form).
    """
    rules = _rules()
    masks: list[pa.Array] = []
    picked: list[pa.Array] = []  # the non-ASCII texts, in order: what the tests read
    for piece in _pieces(values):
        piece = pc.fill_null(piece if piece.type == pa.string() else piece.cast(pa.string()), "")
        mask = pc.invert(pc.string_is_ascii(piece))  # an ASCII text has no lead byte: cheap to tell
        masks.append(mask)
        if rules is not None and pc.any(mask).as_py():
            picked.append(pc.filter(piece, mask))
        del piece
    non_ascii = pa.concat_arrays(masks) if masks else pa.array([], pa.bool_())
    if rules is None:
        return non_ascii
    return _where(non_ascii, non_ascii, lambda: _mojibake(pa.concat_arrays(picked), rules))


#: Rows per piece in which :func:`repair_may_change` reads a column: its working copies
#: (nulls filled, the ASCII test) are of one piece at a time, not of the whole column (the
#: flattened options of millions of items are gigabytes of text).
REPAIR_PIECE_ROWS = 1 << 20


def _pieces(values: pa.Array | pa.ChunkedArray) -> Iterator[pa.Array]:
    """The arrays of ``values`` (a chunked column's chunks) cut into slices of at most
    :data:`REPAIR_PIECE_ROWS` rows (no copy)."""
    for chunk in values.chunks if isinstance(values, pa.ChunkedArray) else [values]:
        for start in range(0, len(chunk), REPAIR_PIECE_ROWS):
            yield chunk.slice(start, REPAIR_PIECE_ROWS)


#: Texts with a lead byte below which ftfy's ``is_bad`` runs as its own Python pattern:
#: RE2 compiles the translated pattern (24 kB) in ~4 ms a call, what Python's takes to
#: search ~100 stems (the MMLU link asks 82 times, half of them for fewer than 64 texts).
PYTHON_BAD_ROWS = 64


def _mojibake(values: pa.Array, rules: _Rules) -> pa.Array:
    """Per text (no nulls), whether it holds a lead byte and ftfy's ``is_bad`` matches."""
    lead = pc.match_substring_regex(values, rules.lead)
    return _where(lead, lead, lambda: _bad(pc.filter(values, lead), rules))


def _bad(values: pa.Array, rules: _Rules) -> pa.Array:
    """ftfy's ``is_bad`` of every text (no nulls): few texts by its own pattern, else RE2's."""
    if len(values) < PYTHON_BAD_ROWS:
        return pa.array([BADNESS_RE.search(t) is not None for t in values.to_pylist()], pa.bool_())
    return pc.match_substring_regex(values, rules.bad)


def _where(values: pa.Array, rows: pa.Array, replacement: Callable[[], pa.Array]) -> pa.Array:
    """``values`` with the rows of the mask ``rows`` replaced, in order, by ``replacement()``
    (called only when some row is set)."""
    if not pc.any(rows).as_py():
        return values
    return pc.replace_with_mask(values, rows, replacement())


def _presented(texts: pa.Array, rules: _Rules) -> pa.Array:
    """The reference's ``_presentation`` of every row whose repair is the identity (other
    rows get the same steps without the repair): NFKC (``unicodedata``), the quote and dash
    table, white space runs to one space, trimmed. Arrow replaces only in the rows that a
    match says the step changes."""
    out = pa.array([_nfkc(t) for t in texts.to_pylist()], pa.string())

    def translate(values: pa.Array) -> pa.Array:
        for chars, replacement in rules.translate:
            values = pc.replace_substring_regex(values, chars, replacement)
        return values

    rows = pc.match_substring_regex(out, rules.translated)
    out = _where(out, rows, lambda: translate(pc.filter(out, rows)))
    rows = pc.match_substring_regex(out, rules.space_change)
    return _where(out, rows, lambda: pc.utf8_trim(pc.replace_substring_regex(pc.filter(out, rows), rules.space_run, " "), " "))


def _nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``; ``is_normalized`` answers the common case
    (already in NFKC) several times faster than ``normalize``'s own check."""
    return text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)


def _casefolded(values: pa.Array) -> pa.Array:
    return pa.array([t.casefold() for t in values.to_pylist()], pa.string())


def _undamaged_keys(keys: pa.Array, rules: _Rules) -> pa.Array:
    """The reference's ``_undamaged`` of presented keys without trailing dots and spaces.

    Every damage pattern needs one of ``\\d.0`` (``_FLOAT_FRACTION``, ``_FRACTION_FLOAT``),
    ``\\d:0\\d`` (``_CLOCK``), ``\\d,\\d{3}`` (``_THOUSANDS``) or ``^\\d{1,2}-``
    (``_DATE_DAMAGE``), with Python's ``\\d``; on a key with none of them ``_undamaged`` returns
    ``key.rstrip(". ").strip()``, which is the key (it was trimmed of white space, which
    the presentation collapsed to single inner spaces, and of trailing dots and spaces).
    """
    rows = pc.match_substring_regex(keys, rules.damage)
    return _where(keys, rows, lambda: pa.array([_ref._undamaged(k) for k in pc.filter(keys, rows).to_pylist()], pa.string()))


def _cased_step(texts: pa.Array, rules: _Rules) -> pa.Array:
    """:func:`~croissant_lineage.linking.normalize.normalize_option_cased` of every row,
    exact where the repair is the identity (on ASCII text the reference's ASCII branch
    gives the same key as its presentation)."""
    return _undamaged_keys(pc.utf8_rtrim(_presented(texts, rules), ". "), rules)


def _folded_step(texts: pa.Array, rules: _Rules) -> pa.Array:
    """One step of the reference's option settling loop, ``normalize_option_cased(t).casefold()``."""
    return _casefolded(_cased_step(texts, rules))


def _exact(*arrays: pa.Array) -> list[pa.Array]:
    """Per array, per row, whether the steps above are exact there (the repair is the
    identity): one pass of the RE2 kernels over all the arrays (compiling ftfy's pattern
    costs a few milliseconds a call)."""
    exact = pc.invert(repair_may_change(pa.concat_arrays(list(arrays))))
    out, start = [], 0
    for a in arrays:
        out.append(exact.slice(start, len(a)))
        start += len(a)
    return out


def _with_reference(keys: pa.Array, done: pa.Array, texts: pa.Array, reference: Callable[[str], str]) -> pa.Array:
    """``keys`` where ``done``, else the reference's key of the text."""
    todo = pc.invert(done)
    return _where(keys, todo, lambda: pa.array([reference(t) for t in pc.filter(texts, todo).to_pylist()], pa.string()))


def _stem_keys(texts: pa.Array) -> pa.Array:
    """:func:`~croissant_lineage.linking.normalize.normalize_stem` of non-ASCII texts
    (distinct, non-empty).

    The reference's settling loop returns its first key ``k = step(text)`` when one step
    more gives ``k`` back, ``step`` being ``casefold(white(table(NFKC(repair(t)))))``. That
    second step is not computed here: it is the identity on ``k`` when the repair is (the
    RE2 test) and ``k`` is in NFKC (``unicodedata.is_normalized``), because ``k`` is the
    case folding of a text ``y`` with no character of the quote and dash table and only
    single inner spaces for white space, and for every code point ``c`` (checked over all
    of them: ``tests/linking/test_normalize_columns.py``) ``c.casefold()`` holds no
    character of the table, is ``" "`` for ``" "`` and else non-empty without white space,
    and folds to itself again; case folding is one code point at a time. So the table and
    the white space leave ``k`` alone, and folding it again gives ``k``. Rows where the
    first step is not exact, or the key is not in NFKC (case folding can leave NFKC:
    ``ǰ``), go to the reference.
    """
    rules = _rules()
    if rules is None:
        return pa.array([normalize_stem(t) for t in texts.to_pylist()], pa.string())
    folded = [t.casefold() for t in _presented(texts, rules).to_pylist()]
    first = pa.array(folded, pa.string())
    exact_text, exact_first = _exact(texts, first)
    in_nfkc = pa.array([unicodedata.is_normalized("NFKC", k) for k in folded], pa.bool_())
    return _with_reference(first, pc.and_(pc.and_(exact_text, exact_first), in_nfkc), texts, normalize_stem)


def _option_keys(texts: pa.Array) -> tuple[pa.Array, pa.Array]:
    """:func:`~croissant_lineage.linking.normalize.normalize_option_cased` and
    :func:`~croissant_lineage.linking.normalize.normalize_option` of texts (distinct,
    non-empty).

    The folded key starts as the cased one case-folded (``key``); the reference returns it
    as it is when it is ASCII, else runs its settling loop from it, whose first step
    (``normalize_option_cased(key).casefold()``) ends the loop with ``key`` when it gives
    ``key`` back. So one step is taken here, on the non-ASCII keys, exact where the repair
    is the identity on the key; the rows where it does not give the key back (or is not
    exact, or the text's own repair is not the identity) go to the reference.
    """
    rules = _rules()
    if rules is None:
        listed = texts.to_pylist()
        return (
            pa.array([normalize_option_cased(t) for t in listed], pa.string()),
            pa.array([normalize_option(t) for t in listed], pa.string()),
        )
    cased = _cased_step(texts, rules)
    folded = _casefolded(cased)
    exact_text, exact_folded = _exact(texts, folded)  # one pass of the RE2 kernels for both
    rows = pc.invert(pc.string_is_ascii(folded))
    settled = exact_text
    if pc.any(rows).as_py():
        start = pc.filter(folded, rows)
        gives_back = pc.replace_with_mask(rows, rows, pc.equal(_folded_step(start, rules), start))
        settled = pc.and_(settled, pc.and_(exact_folded, pc.or_(pc.invert(rows), gives_back)))
    cased = _with_reference(cased, exact_text, texts, normalize_option_cased)
    return cased, _with_reference(folded, settled, texts, normalize_option)


def _distinct(values: pa.Array, rows: pa.Array) -> tuple[pa.Array, pa.Array] | None:
    """The distinct texts of the rows of the mask ``rows`` and each row's index among them
    (None when no row is set)."""
    if not pc.any(rows).as_py():
        return None
    encoded = pc.dictionary_encode(pc.filter(values, rows))
    return encoded.dictionary, encoded.indices


def normalize_stems_column(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """:func:`~croissant_lineage.linking.normalize.normalize_stem` of every row.

    Args:
        values: Texts (``string`` or castable to it; nulls allowed).

    Returns:
        A ``string`` array of the same length without nulls (``""`` for null and empty).
    """
    values = _as_string_array(values)
    filled = pc.fill_null(values, "")
    slow_rows = pc.invert(pc.string_is_ascii(filled))
    fast = pc.ascii_lower(_ascii_presentation(filled))
    distinct = _distinct(filled, slow_rows)
    if distinct is None:
        return fast
    texts, index = distinct
    return pc.replace_with_mask(fast, slow_rows, pc.take(_stem_keys(texts), index))


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
    distinct = _distinct(filled, slow_rows)
    if distinct is None:
        return cased, folded
    texts, index = distinct
    slow_cased, slow_folded = _option_keys(texts)
    return (
        pc.replace_with_mask(cased, slow_rows, pc.take(slow_cased, index)),
        pc.replace_with_mask(folded, slow_rows, pc.take(slow_folded, index)),
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
