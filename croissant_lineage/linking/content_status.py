"""What an edge did to each questioned content of its item: stem, options, key, solution, tests.

Every edge gets one status per content (:data:`CONTENT_STATUSES`), read from the two
items, never from the derivation's activity name:

* ``copied``: both items have it and it is the same (stems: equal normalised forms;
  options: the same options in the same order, each paired with the parent's by equal
  bytes or equal case-preserving normalised forms; key: ``key_inherited`` true; solution and tests:
  equal after white space is collapsed);
* ``edited``: both have it and it differs (options: reordered, added, dropped, re-cased
  or reworded; key: differs while the stem was copied, a re-annotation or a key
  corrected beside new options);
* ``recomputed`` (key only): the key differs from the parent's and the stem was edited
  too (values perturbed, the answer recomputed; a key that differs beside a translated,
  added or dropped stem is ``edited``);
* ``translated``: the edge is a translation and the content differs (stems and options
  of a translation are not compared, as linking does not compare them; a translated
  option key is carried by the option map, and a text key that is one of its item's
  options by its option's place: ``key_inherited`` true; any other text, set or tests
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

from croissant_lineage.linking.diff_columns import CHUNK_PAIRS, PairDiffs
from croissant_lineage.linking.keys_inherited import spaced
from croissant_lineage.linking.optiondiff import DIFF_PASSES
from croissant_lineage.linking.sides import Side
from croissant_lineage.linking.take import compare_rows

__all__ = ["CONTENTS", "CONTENT_STATUSES", "content_statuses", "status_column"]

#: The questioned contents of an item; the edges' columns are ``<content>_status``.
CONTENTS = ("stem", "options", "key", "solution", "tests")

#: What an edge did to one content (see the module).
CONTENT_STATUSES = ("copied", "edited", "recomputed", "translated", "added", "dropped", "absent")

_COPIED, _EDITED, _RECOMPUTED, _TRANSLATED, _ADDED, _DROPPED, _ABSENT = range(len(CONTENT_STATUSES))
_UNKNOWN = -1

#: The option diff's passes that keep an option copied (the others re-case or reword it).
_COPY_PASSES = [DIFF_PASSES.index("bytes"), DIFF_PASSES.index("cased")]


def status_column(codes: np.ndarray) -> pa.Array:
    """Status codes (indices into :data:`CONTENT_STATUSES`, -1 for null) as a string column."""
    codes = np.asarray(codes, np.int8)
    indices = pa.array(codes, pa.int8(), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(indices, pa.array(CONTENT_STATUSES, pa.string())).cast(pa.string())


def _presence(column: pa.Array | pa.ChunkedArray, *, trim: bool = False) -> np.ndarray:
    """Per row: a value that is not null and, for texts, not empty (``trim``: not blank)."""
    if column.null_count == len(column):
        return np.zeros(len(column), bool)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        texts = pc.utf8_trim_whitespace(column) if trim else column
        valid = pc.and_kleene(pc.is_valid(column), pc.greater(pc.utf8_length(texts), 0))
        return np.asarray(pc.fill_null(valid, False).to_numpy(zero_copy_only=False), bool)
    if pa.types.is_list(column.type):
        valid = pc.and_kleene(pc.is_valid(column), pc.greater(pc.list_value_length(column), 0))
        return np.asarray(pc.fill_null(valid, False).to_numpy(zero_copy_only=False), bool)
    return np.asarray(pc.is_valid(column).to_numpy(zero_copy_only=False), bool)


def _texts(cp: np.ndarray, pp: np.ndarray, equal: np.ndarray, translated: bool) -> np.ndarray:
    """The status codes of a text content from the presences and the equality of the pairs."""
    both = np.where(equal, _COPIED, _TRANSLATED if translated else _EDITED)
    return np.where(cp & pp, both, np.where(cp, _ADDED, np.where(pp, _DROPPED, _ABSENT))).astype(np.int8)


def _text_status(child: Side, parent: Side, ci: np.ndarray, pi: np.ndarray, name: str, translated: bool) -> np.ndarray:
    """Status codes of the solution or tests of each pair."""
    n = len(ci)
    if name not in child.table.column_names or name not in parent.table.column_names:
        return np.full(n, _ABSENT, np.int8)
    cc, pcol = child.table.column(name), parent.table.column(name)
    if cc.null_count == len(cc) and pcol.null_count == len(pcol):  # (most families: no such content)
        return np.full(n, _ABSENT, np.int8)
    cp, pp = _presence(cc, trim=True)[ci], _presence(pcol, trim=True)[pi]
    equal = compare_rows(spaced(cc), spaced(pcol), ci, pi, pc.equal, chunk=CHUNK_PAIRS)
    return _texts(cp, pp, equal, translated)


def _options_status(cn: np.ndarray, pn: np.ndarray, opts: PairDiffs | None, translated: bool) -> np.ndarray:
    """Options: copied when the stored lists are equal, or every child option is paired
    with the parent's option at its place by equal bytes or equal case-preserving
    normalised forms (the option diff's first two passes) and none is added or dropped;
    a translation's are not compared (translated where both items have options)."""
    same = np.zeros(len(cn), bool)
    if opts is not None and not translated:
        counts = np.diff(opts.offsets)
        owner = np.repeat(np.arange(len(counts)), counts)
        pos = np.arange(len(opts.option_map), dtype=np.int64) - np.repeat(opts.offsets[:-1], counts)
        off = (opts.option_map != pos) | ~np.isin(opts.paired_by, _COPY_PASSES)
        moved = np.bincount(owner[off], minlength=len(counts)) if len(owner) else np.zeros(len(counts), np.int64)
        same = np.asarray(opts.identical, bool) | ((moved == 0) & (np.asarray(opts.dropped) == 0) & (cn == pn))
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
    opts: PairDiffs | None = None,
) -> dict[str, pa.Array]:
    """The ``<content>_status`` columns of the pairs ``(ci[k], pi[k])``.

    Args:
        child, parent: The two sides.
        ci, pi: The pairs' rows.
        key_inherited: The pairs' ``key_inherited`` column.
        translated: The edge is a translation (texts in another language).
        stem_changed: Per pair, whether the normalised stems differ (None: not compared,
            a translation's stems are translated where both items have one).
        opts: The pairs' option diffs (None: options not compared).

    Returns:
        Column name (``stem_status``...) -> string column, in :data:`CONTENTS` order.
    """
    ci, pi = np.asarray(ci, np.int64), np.asarray(pi, np.int64)
    cs, ps = child.norm_stems.array, parent.norm_stems.array
    equal = np.zeros(len(ci), bool) if stem_changed is None else ~np.asarray(stem_changed, bool)
    stem = _texts(_presence(cs)[ci], _presence(ps)[pi], equal, translated)
    options = _options_status(child.n_options[ci], parent.n_options[pi], opts, translated)
    # the values the key is computed from are the stem's: changed where the stem was edited
    # (a translated stem says the same; a key changed beside it was edited, not recomputed)
    changed = stem == _EDITED
    codes = {
        "stem": stem,
        "options": options,
        "key": _key_status(child, parent, ci, pi, key_inherited, changed, translated),
        "solution": _text_status(child, parent, ci, pi, "solution", translated),
        "tests": _text_status(child, parent, ci, pi, "tests", translated),
    }
    return {f"{c}_status": status_column(codes[c]) for c in CONTENTS}
