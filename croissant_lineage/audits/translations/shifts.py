"""Row-index shifts: the subjects whose row-index join is shifted, and the source item a
contradicted join should have pointed at."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from croissant_lineage.audits.translations.probe import Checker, Join, Probe
from croissant_lineage.audits.translations.report import SHIFTS, SHIFTS_SCHEMA

__all__ = ["STRONG_SCORE", "detect_shift", "realign", "shift_test"]


#: A per-item realignment outside a misaligned subject needs this much evidence.
STRONG_SCORE = 80.0


def detect_shift(agree: Sequence[int], items: int) -> tuple[int, bool]:
    """Pick the row shift that best aligns a subject, and whether it clearly beats none.

    Args:
        agree: Per shift of :data:`SHIFTS`, the items whose key and evidence agree.
        items: Items tested.

    Returns:
        ``(best_shift, misaligned)``: the best shift (ties go to the smallest shift in
        absolute value, 0 first), and True when it is not 0, at least 2 items agree there,
        and it beats no shift by at least max(2, a quarter of the items).
    """
    order = sorted(range(len(SHIFTS)), key=lambda i: (-agree[i], abs(SHIFTS[i]), SHIFTS[i]))
    best = SHIFTS[order[0]]
    at_best, at_zero = agree[order[0]], agree[SHIFTS.index(0)]
    clearly = at_best >= 2 and at_best - at_zero >= max(2, math.ceil(items / 4))
    return best, best != 0 and clearly


_ROW_INDEX = re.compile(r"^(.*?)(\d+)$")


def _shifted(item: str, shift: int) -> str | None:
    if shift == 0:
        return item
    m = _ROW_INDEX.match(item)
    if not m:
        return None
    row = int(m.group(2)) + shift
    return f"{m.group(1)}{row}" if row >= 0 else None


def realign(probes: Sequence[Probe | None], zero: Probe, subject_shift: int | None) -> tuple[int, str | None]:
    """The shift and source item a contradicted join should have pointed at, if any.

    In a misaligned subject: the shifted source with the same key and the best supporting
    evidence, else the subject's shift when the key agrees there. Elsewhere only a join
    whose key differs, with no supporting evidence, moves, and only to a source with the
    same key and evidence of at least :data:`STRONG_SCORE` (tokens) or
    :data:`TEXT_SUPPORT_SCORE` (text).
    """
    if subject_shift is None and (zero.key_match is not False or zero.supports is True):
        return 0, None
    cands = [
        (p.score or 0.0, -abs(s), s, p.parent_item)
        for s, p in zip(SHIFTS, probes, strict=True)
        if s != 0 and p is not None and p.agrees
        and (subject_shift is not None or (p.score or 0.0) >= STRONG_SCORE)
    ]
    if cands:
        _score, _near, shift, parent = max(cands)
        return shift, parent
    if subject_shift is not None:
        p = probes[SHIFTS.index(subject_shift)]
        if p is not None and p.key_match is True:
            return subject_shift, p.parent_item
    return 0, None


def shift_test(joins: Sequence[Join], checker: Checker) -> tuple[pa.Table, dict[tuple[str, str | None], int]]:
    """Per dataset and subject: items agreeing per shift, and the misaligned subjects.

    Shifts are tried only where one could beat no shift clearly: when the items with
    evidence on the child side (the most that can agree at any shift) exceed those
    agreeing unshifted by the margin :func:`detect_shift` asks for. Joins in other
    subjects get their shifted probes only when their key differs (for realignment).
    """
    groups: dict[tuple[str, str, str | None], list[Join]] = defaultdict(list)
    for j in joins:
        if _ROW_INDEX.match(j.row["parent_item"]) is not None:
            groups[j.group].append(j)
    rows: dict[str, list[Any]] = {f.name: [] for f in SHIFTS_SCHEMA}
    shifted: dict[tuple[str, str | None], int] = {}
    for key in sorted(groups, key=lambda k: (k[0], k[1], str(k[2]))):
        members = groups[key]
        n = len(members)
        at_zero = sum(j.zero.agrees for j in members)
        comparable = sum(1 for j in members if j.mode == "text" or j.ntok > 0)
        tested = comparable - at_zero >= max(2, math.ceil(n / 4))
        agree: list[int] = []
        best, misaligned = 0, False
        if tested:
            for j in members:
                _probe_shifts(j, checker)
            agree = [sum(1 for j in members if (p := j.probes[i]) is not None and p.agrees) for i in range(len(SHIFTS))]
            best, misaligned = detect_shift(agree, n)
        if misaligned:
            shifted[(key[0], key[2])] = best
        for k, v in (
            ("dataset", key[0]), ("parent_dataset", key[1]), ("subject", key[2]), ("items", n),
            ("comparable", comparable), ("tested", tested), ("agree", agree), ("agree_at_zero", at_zero),
            ("best_shift", best), ("agree_at_best", agree[SHIFTS.index(best)] if agree else at_zero),
            ("misaligned", misaligned),
        ):
            rows[k].append(v)
    for j in joins:
        if j.zero.key_match is False:
            _probe_shifts(j, checker)
    return pa.table(rows, schema=SHIFTS_SCHEMA), shifted


def _probe_shifts(j: Join, checker: Checker) -> None:
    for i, s in enumerate(SHIFTS):
        if s != 0 and j.probes[i] is None:
            j.probes[i] = checker.probe(j.child, j.row["parent_dataset"], _shifted(j.row["parent_item"], s), j.mode)
