"""Row-index shifts: the subjects whose row-index join is shifted, and the source item a
contradicted join should have pointed at."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from croissant_lineage.audits.translations.probe import Checker, Join
from croissant_lineage.audits.translations.report import SHIFTS_SCHEMA
from croissant_lineage.linking.alignment import (
    SHIFTS,
    STRONG_SCORE,
    detect_shift,
    needs_shift_test,
    realign,
    shifted_item,
)

__all__ = ["STRONG_SCORE", "detect_shift", "realign", "shift_test"]


def shift_test(joins: Sequence[Join], checker: Checker) -> tuple[pa.Table, dict[tuple[str, str | None], int]]:
    """Per dataset and subject: items agreeing per shift, and the misaligned subjects.

    Shifts are tried only where one could beat no shift clearly: when the items with
    evidence on the child side (the most that can agree at any shift) exceed those
    agreeing unshifted by the margin :func:`detect_shift` asks for. Joins in other
    subjects get their shifted probes only when their key differs (for realignment).
    """
    groups: dict[tuple[str, str, str | None], list[Join]] = defaultdict(list)
    for j in joins:
        if shifted_item(j.row["parent_item"], 1) is not None:
            groups[j.group].append(j)
    rows: dict[str, list[Any]] = {f.name: [] for f in SHIFTS_SCHEMA}
    shifted: dict[tuple[str, str | None], int] = {}
    for key in sorted(groups, key=lambda k: (k[0], k[1], str(k[2]))):
        members = groups[key]
        n = len(members)
        at_zero = sum(j.zero.agrees for j in members)
        comparable = sum(1 for j in members if j.mode == "text" or j.ntok > 0)
        tested = needs_shift_test(n, comparable, at_zero)
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
            j.probes[i] = checker.probe(j.child, j.row["parent_dataset"], shifted_item(j.row["parent_item"], s), j.mode)
