"""What an edge did to each questioned content of its item: stem, options, key, solution, tests.

Every edge gets one status per content (:data:`CONTENT_STATUSES`), read from the two
items, never from the derivation's activity name:

* ``copied``: both items have it and it is the same (stems: equal normalised forms;
  options: the same options in the same order, equal in their case-preserving
  normalised forms; key: ``key_inherited`` true; solution and tests:
  equal after white space is collapsed);
* ``edited``: both have it and it differs (options: reordered, added, dropped, re-cased
  or reworded; key: differs while the stem and options were copied, a
  re-annotation);
* ``recomputed`` (key only): the key differs from the parent's and the stem or the
  options changed too (values perturbed, the answer recomputed);
* ``translated``: the edge is a translation and the content differs (a translated
  option key is carried by the option map: ``key_inherited`` true; a text, set or tests
  key across languages is not compared: ``key_inherited`` null);
* ``added`` / ``dropped``: only the child / only the parent has it;
* ``absent``: neither has it.

A key status is null where both items have a key that cannot be compared (keys of
different kinds). ``key_inherited`` and ``key_status`` agree: true for ``copied`` and a
translated option key, false for ``edited`` and ``recomputed``, null otherwise.

Everything is computed over whole columns (Arrow compute and NumPy), a code per edge.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.linking.diff_columns import CHUNK_PAIRS
from croissant_lineage.linking.sides import Side
from croissant_lineage.linking.take import compare_rows

__all__ = ["CONTENTS", "CONTENT_STATUSES", "content_statuses", "status_column"]

#: The questioned contents of an item; the edges' columns are ``<content>_status``.
CONTENTS = ("stem", "options", "key", "solution", "tests")

#: What an edge did to one content (see the module).
CONTENT_STATUSES = ("copied", "edited", "recomputed", "translated", "added", "dropped", "absent")

_COPIED, _EDITED, _RECOMPUTED, _TRANSLATED, _ADDED, _DROPPED, _ABSENT = range(len(CONTENT_STATUSES))
_UNKNOWN = -1


def status_column(codes: np.ndarray) -> pa.Array:
    """Status codes (indices into :data:`CONTENT_STATUSES`, -1 for null) as a string column."""
    codes = np.asarray(codes, np.int8)
    indices = pa.array(codes, pa.int8(), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(indices, pa.array(CONTENT_STATUSES, pa.string())).cast(pa.string())


def _presence(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Per row: a value that is not null and, for texts, not blank."""
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        valid = pc.and_kleene(pc.is_valid(column), pc.greater(pc.utf8_length(pc.utf8_trim_whitespace(column)), 0))
        return np.asarray(pc.fill_null(valid, False).to_numpy(zero_copy_only=False), bool)
    if pa.types.is_list(column.type):
        valid = pc.and_kleene(pc.is_valid(column), pc.greater(pc.list_value_length(column), 0))
        return np.asarray(pc.fill_null(valid, False).to_numpy(zero_copy_only=False), bool)
    return np.asarray(pc.is_valid(column).to_numpy(zero_copy_only=False), bool)


def _texts(cp: np.ndarray, pp: np.ndarray, equal: np.ndarray, translated: bool) -> np.ndarray:
    """The status codes of a text content from the presences and the equality of the pairs."""
    both = np.where(equal, _COPIED, _TRANSLATED if translated else _EDITED)
    return np.where(cp & pp, both, np.where(cp, _ADDED, np.where(pp, _DROPPED, _ABSENT))).astype(np.int8)


def _spaced(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Texts with runs of white space collapsed and the ends trimmed."""
    return pc.utf8_trim_whitespace(pc.replace_substring_regex(column, r"\s+", " "))


def _text_status(child: Side, parent: Side, ci: np.ndarray, pi: np.ndarray, name: str, translated: bool) -> np.ndarray:
    """Status codes of the solution or tests of each pair."""
    n = len(ci)
    if name not in child.table.column_names or name not in parent.table.column_names:
        return np.full(n, _ABSENT, np.int8)
    cc, pcol = child.table.column(name), parent.table.column(name)
    if cc.null_count == len(cc) and pcol.null_count == len(pcol):  # (most families: no such content)
        return np.full(n, _ABSENT, np.int8)
    cp, pp = _presence(cc)[ci], _presence(pcol)[pi]
    equal = compare_rows(_spaced(cc), _spaced(pcol), ci, pi, pc.equal, chunk=CHUNK_PAIRS)
    return _texts(cp, pp, equal, translated)


def _joined(options: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Each item's option list as one text (a separator no option holds), to compare lists."""
    return pc.binary_join(options, "\x1f\x1e")


def _options_status(child: Side, parent: Side, ci: np.ndarray, pi: np.ndarray, translated: bool) -> np.ndarray:
    """Options: copied when the two lists are equal in their case-preserving normalised
    forms (:func:`~croissant_lineage.linking.normalize.normalize_option_cased`), in order."""
    cn, pn = child.n_options[ci], parent.n_options[pi]
    rows = np.flatnonzero((cn > 0) & (pn > 0) & (cn == pn))
    same = np.zeros(len(ci), bool)
    if len(rows):
        c, p = _joined(child.cased_options.array), _joined(parent.cased_options.array)
        same[rows] = compare_rows(c, p, ci[rows], pi[rows], pc.equal, chunk=CHUNK_PAIRS)
    return _texts(cn > 0, pn > 0, same, translated)


def _key_presence(side: Side, rows: np.ndarray) -> np.ndarray:
    """Per row: the item has a key of any kind."""
    table = side.table
    present = np.zeros(len(rows), bool)
    for name in ("key", "key_text", "key_value", "key_answers"):
        if name in table.column_names:
            present |= _presence(table.column(name))[rows]
    if "key_kind" in table.column_names and "solution" in table.column_names:
        tests = pc.fill_null(pc.equal(table.column("key_kind"), "tests"), False).to_numpy(zero_copy_only=False)
        present |= (np.asarray(tests, bool) & _presence(table.column("solution")))[rows]
    return present


def _number_keys(side: Side, rows: np.ndarray) -> np.ndarray:
    if "key_kind" not in side.table.column_names:
        return np.zeros(len(rows), bool)
    number = pc.fill_null(pc.equal(side.table.column("key_kind"), "number"), False)
    return np.asarray(number.to_numpy(zero_copy_only=False), bool)[rows]


def _key_status(
    child: Side, parent: Side, ci: np.ndarray, pi: np.ndarray, key_inherited: pa.Array | pa.ChunkedArray,
    changed: np.ndarray, translated: bool,
) -> np.ndarray:
    """Key status codes, from ``key_inherited`` and whether the stem or options changed."""
    cp, pp = _key_presence(child, ci), _key_presence(parent, pi)
    ki = pc.fill_null(key_inherited, False).to_numpy(zero_copy_only=False)
    known = np.asarray(pc.is_valid(key_inherited).to_numpy(zero_copy_only=False), bool)
    kept, lost = known & np.asarray(ki, bool), known & ~np.asarray(ki, bool)
    kept_code = _TRANSLATED if translated else _COPIED
    kept_codes = np.where(_number_keys(child, ci), _COPIED, kept_code) if translated else np.full(len(ci), kept_code)
    both = np.where(kept, kept_codes, np.where(lost, np.where(changed, _RECOMPUTED, _EDITED),
                                                  _TRANSLATED if translated else _UNKNOWN))
    return np.where(cp & pp, both, np.where(cp, _ADDED, np.where(pp, _DROPPED, _ABSENT))).astype(np.int8)


def content_statuses(
    child: Side,
    parent: Side,
    ci: np.ndarray,
    pi: np.ndarray,
    *,
    key_inherited: pa.Array | pa.ChunkedArray,
    translated: bool,
    stem_changed: np.ndarray | None = None,
) -> dict[str, pa.Array]:
    """The ``<content>_status`` columns of the pairs ``(ci[k], pi[k])``.

    Args:
        child, parent: The two sides.
        ci, pi: The pairs' rows.
        key_inherited: The pairs' ``key_inherited`` column.
        translated: The edge is a translation (texts in another language).
        stem_changed: Per pair, whether the normalised stems differ (computed when None).

    Returns:
        Column name (``stem_status``...) -> string column, in :data:`CONTENTS` order.
    """
    ci, pi = np.asarray(ci, np.int64), np.asarray(pi, np.int64)
    cs, ps = child.norm_stems.array, parent.norm_stems.array
    if stem_changed is None:
        stem_changed = compare_rows(cs, ps, ci, pi, pc.not_equal, chunk=CHUNK_PAIRS)
    stem = _texts(_presence(cs)[ci], _presence(ps)[pi], ~np.asarray(stem_changed, bool), translated)
    options = _options_status(child, parent, ci, pi, translated)
    changed = (stem != _COPIED) | ((options != _COPIED) & (options != _ABSENT))
    codes = {
        "stem": stem,
        "options": options,
        "key": _key_status(child, parent, ci, pi, key_inherited, changed, translated),
        "solution": _text_status(child, parent, ci, pi, "solution", translated),
        "tests": _text_status(child, parent, ci, pi, "tests", translated),
    }
    return {f"{c}_status": status_column(codes[c]) for c in CONTENTS}
