"""The edges of one derivation's matches, built column by column.

Every column of :data:`~croissant_lineage.lineage.schema.EDGES_SCHEMA` is taken from the
two sides' tables by the matches' row indices (Arrow ``take``) or computed over numpy
arrays; no per-edge Python object is built for the common cases:

* a **translation**: options pair by position, so the option diff depends only on the two
  option counts (:func:`~croissant_lineage.linking.diff_columns.positional_pairs`, whole
  arrays, proved equal to :func:`~croissant_lineage.linking.options.positional_diff`);
* **same-language pairs**: the option diffs of all pairs at once
  (:func:`~croissant_lineage.linking.diff_columns.diff_pairs`: the identity where the
  option lists are equal, integer joins and one RapidFuzz ``cpdist`` for the rest).

Only the pairs linked by id or index whose normalised stems differ get a RapidFuzz stem
score one by one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from rapidfuzz import fuzz

from croissant_lineage.family.spec import Derivation
from croissant_lineage.lineage.schema import EDGES_SCHEMA
from croissant_lineage.linking.content_status import content_statuses
from croissant_lineage.linking.diff_columns import (
    CHUNK_PAIRS,
    PairDiffs,
    diff_pairs,
    positional_pairs,
)
from croissant_lineage.linking.keys_inherited import free_key_inherited
from croissant_lineage.linking.match import IdMatches, Match
from croissant_lineage.linking.sides import Side
from croissant_lineage.linking.take import compare_rows

__all__ = ["edges_table"]


def _positional(ci_n: np.ndarray, pi_n: np.ndarray, ck: np.ndarray, pk: np.ndarray) -> tuple[PairDiffs, pa.Array]:
    """Translations: diffs by position (:func:`~croissant_lineage.linking.diff_columns.positional_pairs`
    of the option counts), and the key inherited where both keys are known (same index)."""
    known = (ck >= 0) & (pk >= 0)
    return positional_pairs(ci_n, pi_n), pa.array(ck == pk, pa.bool_(), mask=~known)


def _compared(
    child: Side, parent: Side, ci: np.ndarray, pi: np.ndarray, ck: np.ndarray, pk: np.ndarray
) -> tuple[PairDiffs, pa.Array]:
    """Same-language pairs: :func:`~croissant_lineage.linking.diff_columns.diff_pairs` of
    all of them (the identity where the options are equal), and the key inherited."""
    d = diff_pairs(child.option_columns(), parent.option_columns(), ci, pi, ck, pk)
    return d, pa.array(d.key_inherited(ck, pk), pa.bool_())


def _stem_columns(
    child: Side, parent: Side, ci: np.ndarray, pi: np.ndarray, methods: list[str], scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, the stem score (the match's for text links, else 100 or RapidFuzz's ratio
    of the normalised stems) and whether the normalised stems differ."""
    cs, ps = child.norm_stems, parent.norm_stems
    changed = compare_rows(cs.array, ps.array, ci, pi, pc.not_equal, chunk=CHUNK_PAIRS)
    by_text = np.fromiter((m in ("exact", "fuzzy") for m in methods), bool, len(methods))
    out = np.where(by_text, np.asarray(scores, dtype=np.float64), 100.0)
    ratio = np.flatnonzero(~by_text & changed)  # only these stems are built as Python strings
    for row, c, p in zip(ratio.tolist(), cs.take(ci[ratio]), ps.take(pi[ratio]), strict=True):
        out[row] = round(fuzz.ratio(c, p), 2)
    return out, np.asarray(changed, bool)  # (arrays: no Python object per edge)


def _alternatives(parent: Side, matches: Sequence[Match]) -> pa.Array:
    """The alternatives' parent item ids of each match, as a ``list<string>`` column."""
    lengths = np.fromiter((len(m.alternatives) for m in matches), np.int32, len(matches))
    offsets = np.concatenate(([0], np.cumsum(lengths, dtype=np.int32))).astype(np.int32)
    flat = [j for m in matches if m.alternatives for j in m.alternatives]
    values = parent.table.column("item").take(pa.array(flat, pa.int64())) if flat else pa.array([], pa.string())
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], pa.string())
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values)


def _no_alternatives(n: int) -> pa.Array:
    """``n`` empty ``list<string>`` values (what :func:`_alternatives` gives matches without alternatives)."""
    return pa.ListArray.from_arrays(pa.array(np.zeros(n + 1, np.int32)), pa.array([], pa.string()))


def _column(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks else pa.array([], values.type)
    return values


def edges_table(deriv: Derivation, child: Side, parent: Side, matches: Sequence[Match], *, translated: bool) -> pa.Table:
    """The edges (EDGES_SCHEMA) of the matches, in their order.

    Args:
        deriv: The derivation the edges belong to.
        child, parent: The two sides.
        matches: The chosen pairs.
        translated: Options pair by position and stems are not compared.

    Returns:
        One edge per match: the ids, method and stem score, the option diff, whether the
        key was inherited and the stem changed, the alternatives, whether ftfy repaired
        either item's text (None for translations, whose texts are not compared), and
        the status of each content (:mod:`~croissant_lineage.linking.content_status`).
    """
    n = len(matches)
    if isinstance(matches, IdMatches):  # one method, score 100, no alternatives: no object per match
        ci, pi = matches.child, matches.parent
        methods, scores = [matches.method] * n, np.full(n, 100.0)
        ambiguous, alternatives = pa.repeat(pa.scalar(False), n), _no_alternatives(n)
    else:
        ci = np.fromiter((m.child for m in matches), np.int64, n)
        pi = np.fromiter((m.parent for m in matches), np.int64, n)
        methods = [m.method for m in matches]
        scores = np.fromiter((m.score for m in matches), np.float64, n)
        ambiguous, alternatives = pa.array([m.ambiguous for m in matches], pa.bool_()), _alternatives(parent, matches)
    ck, pk = child.key_indices[ci], parent.key_indices[pi]
    if translated:
        opts, key_inherited = _positional(child.n_options[ci], parent.n_options[pi], ck, pk)
        stem_changed: np.ndarray | None = None
        repaired: pa.Array = pa.nulls(n, pa.bool_())
    else:
        opts, key_inherited = _compared(child, parent, ci, pi, ck, pk)
        scores, stem_changed = _stem_columns(child, parent, ci, pi, methods, scores)
        repaired = pa.array(child.repaired_rows[ci] | parent.repaired_rows[pi], pa.bool_())

    free = free_key_inherited(child.table, parent.table, ci, pi, tolerance=deriv.key_tolerance, translated=translated)
    if free is not None:  # keys of another kind than option letters: compared by kind
        key_inherited = pc.coalesce(key_inherited, free)
    statuses = content_statuses(
        child, parent, ci, pi, key_inherited=key_inherited, translated=translated,
        stem_changed=stem_changed,
        opts=None if translated else opts,
    )

    def const(value: str) -> pa.Array:
        return pa.repeat(pa.scalar(value, pa.string()), n)

    columns = {
        "child_dataset": const(deriv.child),
        "child_item": _column(child.table.column("item").take(ci)),
        "parent_dataset": const(deriv.parent),
        "parent_item": _column(parent.table.column("item").take(pi)),
        "activity": const(deriv.activity),
        "method": pa.array(methods, pa.string()),
        "score": pa.array(scores, pa.float64()),
        "options_score": pa.array(opts.score, pa.float64()),
        "option_map": opts.option_map_column(),
        "options_copied": pa.array(opts.copied, pa.int32()),
        "options_added": pa.array(opts.added, pa.int32()),
        "options_dropped": pa.array(opts.dropped, pa.int32()),
        "key_inherited": key_inherited,
        "stem_changed": pa.nulls(n, pa.bool_()) if stem_changed is None else pa.array(stem_changed, pa.bool_()),
        "ambiguous": ambiguous,
        "alternatives": alternatives,
        "text_repaired": repaired,
        **statuses,
    }
    return pa.Table.from_arrays([columns[f.name] for f in EDGES_SCHEMA], schema=EDGES_SCHEMA)
