"""Whether a child kept its parent's key, for keys that are not option letters.

Option keys are compared through the option map (:mod:`croissant_lineage.linking.options`);
the other kinds of :mod:`croissant_lineage.lineage.keys` are compared here, per edge, where
both items have a key of the same kind:

* ``text``: equal normalised texts (:func:`~croissant_lineage.linking.normalize.normalize_option`);
* ``number``: equal values under the derivation's tolerance (``key_tolerance``; as
  :func:`~croissant_lineage.lineage.keys.equal_numbers`);
* ``set``: equal sets of normalised answers;
* ``tests``: equal reference solutions once white space is collapsed.

Across a translation numbers compare, and a text key that is one of its item's options
is carried by its option's place (a translation pairs options by position: kept where the
two keys sit at the same place among as many options); the others stay unknown (None): a
text, a set or a solution in another language is not the same text.

Numbers, texts and solutions are compared over whole columns (NumPy and Arrow compute); set
keys, whose answers are compared as sets, one pair at a time.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.linking.normalize import normalize_option
from croissant_lineage.linking.normalize_columns import normalize_option_columns
from croissant_lineage.linking.take import take_rows

__all__ = ["free_key_inherited", "spaced"]

_COLUMNS = ("key_kind", "key_text", "key_value", "key_answers", "solution")

#: The relative tolerance of :func:`~croissant_lineage.lineage.keys.equal_numbers`.
_REL_TOL = 1e-9


def _np(values: pa.Array, fill: object) -> np.ndarray:
    return np.asarray(pc.fill_null(values, fill).to_numpy(zero_copy_only=False))


def spaced(texts: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Texts with runs of white space (Unicode's) as one space, the ends trimmed: ``" ".join(t.split())``."""
    return pc.binary_join(pc.utf8_split_whitespace(pc.utf8_trim_whitespace(texts)), " ")


def _numbers(c: pa.Array, p: pa.Array, tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """Equal within ``tolerance`` or to 1e-9 of their size, and both known."""
    known = _np(pc.and_(pc.is_valid(c), pc.is_valid(p)), False).astype(bool)
    a, b = _np(c, 0.0).astype(np.float64), _np(p, 0.0).astype(np.float64)
    bound = np.maximum(_REL_TOL * np.maximum(np.abs(a), np.abs(b)), tolerance)
    return np.abs(a - b) <= bound, known


def _texts(c: pa.Array, p: pa.Array, *, folded: bool) -> tuple[np.ndarray, np.ndarray]:
    """Equal texts (``folded``: normalised as options are; else white space collapsed)."""
    known = _np(pc.and_(pc.is_valid(c), pc.is_valid(p)), False).astype(bool)
    if folded:
        c, p = normalize_option_columns(c)[1], normalize_option_columns(p)[1]
    else:
        c, p = spaced(c), spaced(p)
    return _np(pc.equal(c, p), False).astype(bool), known


def _sets(c: pa.Array, p: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Equal sets of normalised answers (one pair at a time: the set keys only)."""
    cl, pl = c.to_pylist(), p.to_pylist()
    known = np.array([x is not None and y is not None for x, y in zip(cl, pl, strict=True)], bool)
    same = np.array([
        x is not None and y is not None and {normalize_option(str(v)) for v in x} == {normalize_option(str(v)) for v in y}
        for x, y in zip(cl, pl, strict=True)
    ], bool)
    return same, known


def _option_places(texts: pa.Array, options: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the place of the key text among the item's options (-1: not one of them),
    and the number of options (one row at a time: the text keys of translations only)."""
    places, counts = [], []
    for text, opts in zip(texts.to_pylist(), options.to_pylist(), strict=True):
        normal = [normalize_option(str(o)) for o in opts or ()]
        want = None if text is None else normalize_option(str(text))
        places.append(normal.index(want) if want is not None and want in normal else -1)
        counts.append(len(normal))
    return np.array(places, np.int64), np.array(counts, np.int64)


def _translated_texts(child: pa.Table, parent: pa.Table, ci: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Text keys across a translation, by their options' places (unknown where either key
    is not one of its item's options, or the option counts differ)."""
    if "options" not in child.column_names or "options" not in parent.column_names:
        return np.zeros(len(ci), bool), np.zeros(len(ci), bool)
    cp, cn = _option_places(take_rows(child.column("key_text"), ci), take_rows(child.column("options"), ci))
    pp, pn = _option_places(take_rows(parent.column("key_text"), pi), take_rows(parent.column("options"), pi))
    known = (cp >= 0) & (pp >= 0) & (cn == pn)
    return known & (cp == pp), known


def free_key_inherited(
    child: pa.Table, parent: pa.Table, ci: np.ndarray, pi: np.ndarray, *, tolerance: float, translated: bool
) -> pa.Array | None:
    """Per pair ``(ci[k], pi[k])``: did the child keep the parent's key (null: unknown, or
    an option key)? None when neither side has a key of another kind than ``option``."""
    if not set(_COLUMNS) <= set(child.column_names) or not set(_COLUMNS) <= set(parent.column_names):
        return None
    ci, pi = np.asarray(ci, np.int64), np.asarray(pi, np.int64)
    ck, pk = take_rows(child.column("key_kind"), ci), take_rows(parent.column("key_kind"), pi)
    if not (set(pc.unique(ck).to_pylist()) | set(pc.unique(pk).to_pylist())) - {None, "option"}:
        return None
    kind = np.where(_np(pc.equal(ck, pk), False).astype(bool), _np(ck, ""), "").astype(object)
    same, known = np.zeros(len(ci), bool), np.zeros(len(ci), bool)
    comparers = {"number": ("key_value", lambda c, p: _numbers(c, p, tolerance))}
    if not translated:
        comparers |= {
            "text": ("key_text", lambda c, p: _texts(c, p, folded=True)),
            "tests": ("solution", lambda c, p: _texts(c, p, folded=False)),
            "set": ("key_answers", _sets),
        }
    for name, (column, compare) in comparers.items():
        rows = np.flatnonzero(kind == name)
        if len(rows):
            eq, ok = compare(take_rows(child.column(column), ci[rows]), take_rows(parent.column(column), pi[rows]))
            same[rows], known[rows] = eq, ok
    rows = np.flatnonzero(kind == "text") if translated else np.zeros(0, np.int64)
    if len(rows):
        same[rows], known[rows] = _translated_texts(child, parent, ci[rows], pi[rows])
    return pa.array(same, pa.bool_(), mask=~known)
