"""Which of two related datasets copied the other: the evidence of a text pair and its direction.

:func:`pair_counts` measures a pair of datasets related by their stems (coverage each way,
exact stems, options on the pairs of best candidates, shared ids); when each side holds the
other's items (*twins*: >= :data:`INSIDE` of both found in the other) it also compares their
contents (:func:`~croissant_lineage.discovery.content.compare_contents`). :func:`direction`
decides from the CONTENT, every rule that applies voting:

* *options*: one side has more options on >= 50 % of the pairs of best candidates, the other
  on <= 1 %: the side with more options is the child;
* *answers*: twins whose answers (key, solution or tests) differ, one side's holding the
  other's and more (sub-questions inserted, tests added) on at least :data:`MIN_ITEMS` pairs,
  the other way on <= 1 % of those: the side with the expanded answers is the child. In
  solutions and tests the words may be inserted anywhere (a worked solution with
  intermediate results inserted; :func:`~croissant_lineage.discovery.content.holds`);
* *values*: twins whose stems differ only in their numbers (values perturbed) on at least
  :data:`MIN_ITEMS` pairs, no fewer than the stems edited otherwise: the side whose values
  the family's other datasets hold on >= 50 % of those pairs, the other's on <= 1 %, is the
  parent (its values circulate; the perturbed ones appear nowhere else);
* *subset*: >= 95 % of one side's items found in the other, < 95 % the other way: the side
  inside is the child.

Votes that agree decide; votes that disagree leave the pair undecided. With no content vote,
*dates* decide when both sides are dated and the dates differ (the earlier is the parent);
equal dates, or a missing one, leave the pair **direction undecided**: reported with what was
measured, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa

from croissant_lineage.discovery.content import (
    ContentComparison,
    compare_contents,
    mask_numbers,
    stem_text,
)
from croissant_lineage.discovery.pairs import MIN_ITEMS, Hits

__all__ = ["INSIDE", "direction", "pair_counts"]

#: A side is inside the other when this share of its items has a candidate there.
INSIDE = 0.95
#: A rule's side holds at least this share of the pairs it counts...
_MOST = 0.5
#: ...and the other side at most this share.
_NEVER = 0.01
#: The contents that hold an item's answer.
_ANSWERS = ("key", "solution", "tests")
#: The free-form ones, whose insertions are read anywhere in the text.
_FREE = ("solution", "tests")


def option_counts(table: pa.Table) -> list[int]:
    """Options per item."""
    return [len(o) if o else 0 for o in table.column("options").to_pylist()]


def _twin_counts(x: str, y: str, pairs: list[tuple[int, int]], tables: dict[str, pa.Table],
                 elsewhere: Callable[[str, set[str]], bool]) -> dict[str, Any]:
    """The content evidence of twins ``x`` and ``y`` on their pairs of best candidates ``(x row, y row)``."""
    content = compare_contents(pairs, tables[x], tables[y], records=False)
    free = compare_contents(pairs, tables[x], tables[y], records=False, inserted=True)  # free-form answers
    expansions = ContentComparison(len(pairs), {c: {s: (free if c in _FREE else content).count(c, s)
                                                    for s in ("expanded", "contracted")} for c in _ANSWERS})
    counts: dict[str, Any] = {
        f"{x}_answers_expanded": sum(expansions.count(c, "expanded") for c in _ANSWERS),
        f"{y}_answers_expanded": sum(expansions.count(c, "contracted") for c in _ANSWERS),
        "answers_differ": sum(n for c in _ANSWERS for s, n in content.contents.get(c, {}).items()
                              if s not in ("copied", "expanded", "contracted")),
        "stems_recomputed": content.count("stem", "recomputed"),
        "stems_edited": content.count("stem", "edited"),
    }
    if counts["stems_recomputed"]:
        sx, sy = tables[x].column("stem").to_pylist(), tables[y].column("stem").to_pylist()
        found = {x: 0, y: 0}
        for i, j in pairs:
            tx, ty = stem_text(sx[i]), stem_text(sy[j])
            if tx and ty and tx != ty and mask_numbers(tx) == mask_numbers(ty):
                found[x] += elsewhere(tx, {x, y})
                found[y] += elsewhere(ty, {x, y})
        counts[f"{x}_values_elsewhere"], counts[f"{y}_values_elsewhere"] = found[x], found[y]
    return counts


def pair_counts(x: str, y: str, hits: dict[tuple[str, str], Hits], tables: dict[str, pa.Table],
                start: dict[str, int], opts: dict[str, list[int]],
                elsewhere: Callable[[str, set[str]], bool] | None = None) -> dict[str, Any]:
    """The evidence between ``x`` and ``y`` (``x < y``): coverage each way, exact stems,
    option counts on the pairs of best candidates, shared ids; for twins, ``twins`` and their
    content counts (answers expanded each way, stems recomputed and, when some are, each
    side's values found in the family's other datasets by ``elsewhere(stem, excluded)``)."""
    counts: dict[str, Any] = {}
    more = {x: 0, y: 0}
    compared = same_id = 0
    best: list[tuple[int, int]] = []
    for side, other in ((x, y), (y, x)):
        h = hits.get((side, other))
        rows = h.rows.get(other, {}) if h else {}
        counts[f"{side}_items"] = tables[side].num_rows
        counts[f"{side}_covered"] = len(rows)
        counts[f"{side}_exact"] = len(h.exact.get(other, set())) if h else 0
        if side != x:
            continue
        ids_x, ids_y = tables[x].column("item").to_pylist(), tables[y].column("item").to_pylist()
        for i, cands in sorted(rows.items()):
            j = cands[0] - start[y]
            best.append((i, j))
            same_id += ids_x[i] == ids_y[j]
            nx, ny = opts[x][i], opts[y][j]
            if nx and ny:
                compared += 1
                if nx != ny:
                    more[x if nx > ny else y] += 1
    counts.update({"pairs_compared": compared, f"{x}_more_options": more[x], f"{y}_more_options": more[y], "same_id": same_id})
    if all(counts[f"{s}_items"] and counts[f"{s}_covered"] >= INSIDE * counts[f"{s}_items"] for s in (x, y)):
        counts["twins"] = True
        counts.update(_twin_counts(x, y, best, tables, elsewhere or (lambda _s, _e: False)))
    return counts


def _content_votes(a: str, b: str, counts: dict[str, Any]) -> list[tuple[str, str]]:
    votes: list[tuple[str, str]] = []  # (parent, why)
    n = counts.get("pairs_compared", 0)
    for child, parent in ((a, b), (b, a)):
        if n and counts[f"{child}_more_options"] >= _MOST * n and counts[f"{parent}_more_options"] <= _NEVER * n:
            votes.append((parent, f"options: {child} has more options on {counts[f'{child}_more_options']} of {n} pairs, "
                                  f"{parent} on {counts[f'{parent}_more_options']}"))
    for child, parent in ((a, b), (b, a)):
        e, o = counts.get(f"{child}_answers_expanded", 0), counts.get(f"{parent}_answers_expanded", 0)
        if e >= MIN_ITEMS and o <= _NEVER * e:
            votes.append((parent, f"answers: {child}'s answers hold {parent}'s and more on {e} pairs, {parent}'s hold {child}'s on {o}"))
    r = counts.get("stems_recomputed", 0)
    if r >= MIN_ITEMS and r >= counts.get("stems_edited", 0):
        for orig, pert in ((a, b), (b, a)):
            eo, ep = counts.get(f"{orig}_values_elsewhere", 0), counts.get(f"{pert}_values_elsewhere", 0)
            if eo >= _MOST * r and ep <= _NEVER * r:
                votes.append((orig, f"values: on {r} pairs whose stems differ only in their numbers, {orig}'s are found in "
                                    f"other datasets on {eo}, {pert}'s on {ep} ({pert} perturbed them)"))
    share = {s: counts[f"{s}_covered"] / counts[f"{s}_items"] if counts[f"{s}_items"] else 0.0 for s in (a, b)}
    for child, parent in ((a, b), (b, a)):
        if share[child] >= INSIDE > share[parent]:
            votes.append((parent, f"subset: {100 * share[child]:.1f} % of {child} found in {parent}, "
                                  f"{100 * share[parent]:.1f} % of {parent} in {child}"))
    return votes


def direction(a: str, b: str, counts: dict[str, Any], dates: dict[str, str | None]) -> tuple[str | None, str]:
    """The parent of a text pair by the rules of the module docstring, and the votes.

    Args:
        a, b: The two datasets.
        counts: Their evidence (:func:`pair_counts`: ``{a}_items``, ``{a}_covered``,
            ``{a}_more_options``, ``pairs_compared``, the twins' content counts, and the
            same for ``b``).
        dates: Dataset -> date (ISO) or None.

    Returns:
        ``(parent, rule)``: the parent (None when undecided) and the votes in words.
    """
    votes = _content_votes(a, b, counts)
    da, db = dates.get(a), dates.get(b)
    twins = "twins: " if counts.get("twins") else ""
    parents = {p for p, _ in votes}
    if len(parents) == 1:
        return parents.pop(), twins + "; ".join(w for _, w in votes)
    if votes:
        return None, f"direction undecided: the rules disagree ({twins}" + "; ".join(w for _, w in votes) + ")"
    if da and db and da != db:
        first, second = (a, b) if da < db else (b, a)
        return first, f"{twins}dates: {first} {min(da, db)} before {second} {max(da, db)} (no content rule applies)"
    share = {s: counts[f"{s}_covered"] / counts[f"{s}_items"] if counts[f"{s}_items"] else 0.0 for s in (a, b)}
    n = counts.get("pairs_compared", 0)
    answers = f"answers differ on {counts.get('answers_differ', 0)} pairs; " if counts.get("twins") else ""
    return None, (f"direction undecided: no rule applies ({twins}{100 * share[a]:.1f} % of {a} found in {b}, "
                  f"{100 * share[b]:.1f} % of {b} in {a}; options differ on "
                  f"{counts.get(f'{a}_more_options', 0) + counts.get(f'{b}_more_options', 0)} of {n} pairs; {answers}"
                  f"dates {da or 'none'} / {db or 'none'})")
