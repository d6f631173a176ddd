"""The pipeline's units of work, without Beam: a dataset's rows keyed into blocks, one
block linked, and the parts merged into the :class:`~croissant_lineage.lineage.model.Lineage`
the local linker returns.

A *block* is the set of child and parent rows of one derivation that can only link
among themselves, so that linking each block apart and merging the parts gives the
local linker's result row for row:

* ``by: text`` rules: the rule's blocking key (``child_block`` / ``parent_block``,
  subject by default), exactly as :func:`~croissant_lineage.linking.match.match_text`
  groups candidates; exact and fuzzy matching, option evidence and the one-child-per-parent
  assignment never look past it (a parent of another block is never a candidate);
* ``by: id`` rules naming no ``child_field``: a hash of the item id (a child's parent is
  the parent item with the child's own id, which lands in the same bucket);
* other rules (``by: index``, whose row-shift check reads a whole subject of the parent
  side, and ``by: id`` with a ``child_field``): the whole derivation is one block.

Rows keep their table order inside a block; each part carries the child rows' positions
in the whole dataset, so the merge puts edges and unmatched children back in the order
the local linker writes them.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.errors import LineageError, SpecError
from croissant_lineage.family.spec import Derivation, FamilySpec
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import EDGES_SCHEMA, UNMATCHED_SCHEMA
from croissant_lineage.linking.duplicates import DuplicateGroup
from croissant_lineage.linking.linker import assemble_lineage, link_derivation
from croissant_lineage.linking.sides import Side

__all__ = [
    "ID_BUCKETS",
    "BlockPart",
    "ErrorRecord",
    "block_rows",
    "first_error",
    "link_block",
    "merge_lineage",
    "merge_stats",
    "spec_error",
    "stem_buckets",
]

#: Buckets of item ids for ``by: id`` rules (a child and its parent share a bucket).
ID_BUCKETS = 64

#: Buckets of normalised stems for finding a dataset's duplicate groups (equal stems share one).
STEM_BUCKETS = 32

#: Column added to a block's child table: each row's position in the whole dataset.
ROW = "__row"


def _where(deriv: Derivation) -> str:
    return f"derivation {deriv.child} <- {deriv.parent}: "


def _block_values(side: Side, expr: Any, where: str) -> list[str]:
    """The blocking key of each row as a string (``""``: no key; ``"=v"``: key ``v``)."""
    if expr is None:
        return [""] * len(side)
    return ["" if v is None else f"={v}" for v in side.eval(expr, where)]


def _id_buckets(ids: Sequence[str | None]) -> list[str]:
    return [f"#{zlib.crc32((i or '').encode('utf-8')) % ID_BUCKETS:03d}" for i in ids]


def block_rows(deriv: Derivation, side: Side, role: str) -> dict[str, list[int]]:
    """The rows of one side of a derivation, grouped by block, in table order.

    Args:
        deriv: The derivation (its link rule decides the blocks).
        side: The child or parent dataset's side.
        role: ``"child"`` or ``"parent"``.

    Returns:
        Block key -> row positions, blocks in first-row order.

    Raises:
        SpecError: a rule expression names a field the records lack (as the local
            linker raises it, without the spec's path).
    """
    rule = deriv.link
    if rule is None:
        raise SpecError(f"derivation {deriv.child} <- {deriv.parent} has no item link rule")
    where = _where(deriv)
    if rule.by == "text":
        if role == "child" and rule.select:  # the local linker checks the select field first
            side.eval(rule.select["field"], where + "select ")
        expr = rule.child_block if role == "child" else rule.parent_block
        keys = _block_values(side, expr, where + f"{role}_block ")
    elif rule.by == "id" and rule.child_field is None:
        keys = _id_buckets(side.ids)
    else:
        keys = ["*"] * len(side)
    out: dict[str, list[int]] = {}
    for row, key in enumerate(keys):
        out.setdefault(key, []).append(row)
    return out


def stem_buckets(norm_stems: Sequence[str]) -> dict[int, list[int]]:
    """Rows with a normalised stem, by stem bucket, in table order: a duplicate group
    (:func:`~croissant_lineage.linking.duplicates.side_duplicates`: items whose normalised
    stems, and options, are equal) never crosses a bucket, so each bucket's groups can be
    found apart."""
    out: dict[int, list[int]] = {}
    for row, stem in enumerate(norm_stems):
        if stem:
            out.setdefault(zlib.crc32(stem.encode("utf-8")) % STEM_BUCKETS, []).append(row)
    return out


@dataclass(frozen=True)
class BlockPart:
    """What linking one block gives: edges and unmatched children with their rows.

    Attributes:
        edges: EDGES_SCHEMA plus :data:`ROW` (the child's row in its dataset).
        unmatched: UNMATCHED_SCHEMA plus :data:`ROW`.
        stats: The block's counts (the local linker's per-derivation stats of the block).
    """

    edges: pa.Table
    unmatched: pa.Table
    stats: dict[str, Any]


def _with_rows(table: pa.Table, rows: Sequence[int], sub_ids: Sequence[str]) -> pa.Table:
    """``table`` (whose ``child_item`` column names children of the block) with the
    dataset row of each of its children (item ids are unique within a dataset:
    :func:`~croissant_lineage.lineage.items.load_items` refuses repeated ids)."""
    position = {i: k for k, i in enumerate(sub_ids)}
    out = [rows[position[i]] for i in table.column("child_item").to_pylist()]
    return table.append_column(ROW, pa.array(out, pa.int64()))


def link_block(
    spec: FamilySpec, k: int, child: pa.Table, child_rows: Sequence[int], parent: pa.Table
) -> BlockPart:
    """Link one block of derivation ``k`` with the local linker's own function.

    Args:
        spec: The family spec.
        k: The derivation's position in ``spec.item_derivations()``.
        child: The block's child rows (an items table, in dataset order).
        child_rows: Their positions in the child dataset.
        parent: The block's parent rows (possibly empty).

    Returns:
        The block's :class:`BlockPart`.

    Raises:
        SpecError: a rule names a field the records lack, with the spec's path (as the
            local linker reports it).
    """
    deriv = spec.item_derivations()[k]
    try:
        edges, unmatched, stats = link_derivation(deriv, child, parent)
    except SpecError as exc:  # as linking.linker._link_derivations reports it
        raise spec_error(spec, exc) from None
    sub_ids = child.column("item").to_pylist()
    return BlockPart(_with_rows(edges, child_rows, sub_ids), _with_rows(unmatched, child_rows, sub_ids), stats)


def merge_stats(deriv: Derivation, parts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One derivation's stats from those of its blocks (counts add up; methods too).

    Returns:
        The dict the local linker writes for the derivation, keys in its order.
    """
    total: dict[str, Any] = {"child": deriv.child, "parent": deriv.parent, "activity": deriv.activity}
    methods: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    order: list[str] = []
    for s in parts:
        for key, value in s.items():
            if key in total:
                continue
            if key not in order:
                order.append(key)
            if key == "by_method":
                methods.update(value)
            else:
                counts[key] += value
    for key in order or _STAT_KEYS:
        total[key] = dict(sorted(methods.items())) if key == "by_method" else counts[key]
    return total


#: The stats keys after child/parent/activity, in the local linker's order (a
#: derivation with no child rows has no block to take them from).
_STAT_KEYS = (
    "children", "selected", "linked", "by_method", "unmatched", "ambiguous",
    "with_alternatives", "key_inherited", "key_changed", "options_added",
)


def _ordered(parts: Sequence[pa.Table], schema: pa.Schema) -> pa.Table:
    """The parts of one derivation as one table, in child row order, without :data:`ROW`."""
    if not parts:
        return schema.empty_table()
    table = pa.concat_tables(parts)
    table = table.take(pc.sort_indices(table, [(ROW, "ascending")]))
    return table.drop_columns([ROW]).cast(schema)


@dataclass(frozen=True)
class ErrorRecord:
    """A :class:`~croissant_lineage.errors.LineageError` raised in a worker, as data
    (an exception's ``args`` do not rebuild it), with the order the local linker would
    have met it in.

    Attributes:
        order: ``(0, dataset position)`` for loading, ``(1, derivation, block)`` for linking.
        kind: The error class.
        message, path, hint: Its fields.
    """

    order: tuple[Any, ...]
    kind: type[LineageError]
    message: str
    path: str | None
    hint: str | None

    @classmethod
    def of(cls, order: tuple[Any, ...], exc: LineageError) -> ErrorRecord:
        """The record of ``exc`` met at ``order``."""
        return cls(order, type(exc), exc.message, exc.path, exc.hint)

    def error(self) -> LineageError:
        """The error, rebuilt."""
        return self.kind(self.message, path=self.path, hint=self.hint)


def first_error(errors: Iterable[ErrorRecord]) -> LineageError | None:
    """The error the local linker would have raised first, if any."""
    ordered = sorted(errors, key=lambda e: e.order)
    return ordered[0].error() if ordered else None


def spec_error(spec: FamilySpec, exc: LineageError) -> LineageError:
    """A link rule's error as the local linker reports it: a :class:`SpecError` with no
    path gets the spec's."""
    if not isinstance(exc, SpecError) or exc.path is not None:
        return exc
    return SpecError(exc.message, path=spec.path, hint=exc.hint)


def merge_lineage(
    spec: FamilySpec,
    items: Sequence[pa.Table],
    parts: dict[int, list[BlockPart]],
    found: Sequence[DuplicateGroup],
) -> Lineage:
    """The family's :class:`Lineage` from the pipeline's parts, as the local linker builds it.

    Args:
        spec: The family spec.
        items: Each dataset's items table, in spec order (datasets with items).
        parts: Derivation position -> the parts of its blocks (any order).
        found: Every dataset's duplicate groups.

    Returns:
        The lineage: items, edges in derivation then child order, duplicates, unmatched
        and the summary.
    """
    derivations = spec.item_derivations()
    edge_parts, unmatched_parts, stats = [], [], []
    for k, deriv in enumerate(derivations):
        mine = parts.get(k, [])
        edge_parts.append(_ordered([p.edges for p in mine], EDGES_SCHEMA))
        unmatched_parts.append(_ordered([p.unmatched for p in mine], UNMATCHED_SCHEMA))
        stats.append(merge_stats(deriv, [p.stats for p in mine]))
    return assemble_lineage(spec, list(items), edge_parts, unmatched_parts, stats, list(found))
