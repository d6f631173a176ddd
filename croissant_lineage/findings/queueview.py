"""The re-review queue as a maintainer reads it: versions folded, translations grouped.

The queue's ``rows`` keep one row per relative (per finding routed). Its text and HTML
views show :func:`queue_lines` instead:

* the versions of one item (snapshots, re-releases) are one line with their story (see
  :mod:`croissant_lineage.findings.versions`);
* per-language rows (items of a dataset derived by ``translation``) and documented-only
  rows are grouped per dataset family, one line per group with its count, when they
  share a finding, a rank, a status and a certainty. A dataset's family is the
  documented dataset whose name it extends (``global-mmlu-es`` and ``global-mmlu``:
  ``global-mmlu``), else its own name;
* variants of one parent (several children of one parent item in one dataset, such as
  instances generated from a template) are one line per dataset with their count, when
  they share a finding, a rank, a status and a certainty: read from the edges, whatever
  the derivation's activity is called;
* rank-0 rows (findings to amend) and the finding's own item are never folded or grouped.

``expand`` gives one line per row, as the rows are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from croissant_lineage.findings.versions import RowLike as _Row
from croissant_lineage.findings.versions import VersionFold
from croissant_lineage.lineage.graph import LineageGraph

__all__ = ["QueueLine", "group_keys", "queue_lines", "variant_parent"]


@dataclass(frozen=True)
class QueueLine:
    """One line of a queue's view.

    Attributes:
        kind: ``row`` (one relative), ``versions`` (an item's versions folded) or
            ``group`` (per-language or documented rows of one dataset family).
        rank, status, certainty, relation, letter, transformation, finding: As the
            row's (a group's: its first row's; ``letter`` None when they differ).
        ref: The row's ref; a group's dataset family.
        refs: Every row the line stands for (one for ``row``).
        datasets: The datasets of ``refs``, sorted, without repeats.
        note: The row's note; with the version story, or the group's count first.
    """

    kind: str
    rank: int
    ref: str
    refs: tuple[str, ...]
    datasets: tuple[str, ...]
    status: str
    certainty: str
    relation: str
    letter: str | None
    transformation: str
    finding: str | None
    note: str

    @property
    def count(self) -> int:
        """How many rows the line stands for."""
        return len(self.refs)

    @property
    def label(self) -> str:
        """The item column: the ref, with ``(+2 versions)`` or the group's ``(4 rows)``."""
        if self.kind == "versions":
            more = self.count - 1
            return f"{self.ref} (+{more} version{'s' if more != 1 else ''})"
        if self.kind == "group":
            return f"{self.ref} ({self.count} rows)"
        return self.ref

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _family_of(name: str, documented: Sequence[str]) -> str:
    fits = [d for d in documented if name == d or name.startswith(d + "-")]
    return max(fits, key=len) if fits else name


def variant_parent(graph: LineageGraph, ref: str, counts: dict[tuple[str, str], int] | None = None) -> str | None:
    """The parent item of which ``ref`` is one of several children in its dataset (a
    variant), or None. ``counts`` caches (parent, dataset) -> children between calls."""
    counts = {} if counts is None else counts
    dataset = ref.partition(":")[0]
    for e in graph.parents(ref):
        at = (e.parent, dataset)
        if at not in counts:
            counts[at] = sum(1 for c in graph.children(e.parent) if c.child.partition(":")[0] == dataset)
        if counts[at] > 1:
            return e.parent
    return None


def group_keys(graph: LineageGraph, rows: Sequence[_Row]) -> dict[tuple[str | None, str], str]:
    """(finding, ref) -> dataset family, or the variants' parent, for the rows the view
    may group (see the module)."""
    derivations = graph.lineage.family.derivations
    documented = [d.child for d in derivations if d.coverage == "documented"]
    translated = {d.child for d in derivations if d.activity == "translation"}
    keys: dict[tuple[str | None, str], str] = {}
    counts: dict[tuple[str, str], int] = {}
    for r in rows:
        if r.rank == 0 or r.relation == "finding_item":
            continue
        if r.relation == "documented" or r.dataset in translated:
            keys[(r.finding, r.ref)] = _family_of(r.dataset, documented)
        elif r.relation in ("descendant", "collateral") and (parent := variant_parent(graph, r.ref, counts)):
            keys[(r.finding, r.ref)] = f"{r.dataset} variants of {parent}"
    return keys


def _line(r: _Row, kind: str = "row", refs: tuple[str, ...] = (), note: str | None = None) -> QueueLine:
    refs = refs or (r.ref,)
    return QueueLine(
        kind=kind,
        rank=r.rank,
        ref=r.ref,
        refs=refs,
        datasets=tuple(sorted({x.partition(":")[0] for x in refs})),
        status=r.status,
        certainty=r.certainty,
        relation=r.relation,
        letter=r.letter,
        transformation=r.transformation,
        finding=r.finding,
        note=r.note if note is None else note,
    )


def _group_line(family: str, members: list[_Row]) -> QueueLine:
    first = members[0]
    refs = tuple(m.ref for m in members)
    line = _line(first, "group", refs)
    letters = {m.letter for m in members}
    notes = {m.note for m in members}
    what = (f"{len(members)} variants of {family.rpartition(' variants of ')[2]}" if " variants of " in family
            else f"{len(members)} rows in {', '.join(line.datasets)}")
    note = f"{what}; {first.note}" if len(notes) == 1 else f"{what}; first: {first.note}"
    return QueueLine(
        **{**line.to_dict(), "ref": family, "refs": refs, "relation": first.relation,
           "letter": first.letter if len(letters) == 1 else None, "note": note}
    )


def queue_lines(
    rows: Sequence[_Row],
    folds: Sequence[VersionFold] = (),
    groups: Mapping[tuple[str | None, str], str] | None = None,
    *,
    expand: bool = False,
) -> list[QueueLine]:
    """The lines of a queue's view, in row order.

    Args:
        rows: The queue's rows.
        folds: Its version folds (:func:`~croissant_lineage.findings.versions.fold_versions`).
        groups: (finding, ref) -> dataset family (:func:`group_keys`).
        expand: One line per row: nothing folded or grouped.
    """
    if expand:
        return [_line(r) for r in rows]
    heads = {(f.finding, f.head): f for f in folds}
    hidden = {(f.finding, v) for f in folds for v in f.folded}
    members: dict[tuple[Any, ...], list[_Row]] = {}
    for r in rows:
        family = (groups or {}).get((r.finding, r.ref))
        if family is not None and (r.finding, r.ref) not in heads and (r.finding, r.ref) not in hidden:
            members.setdefault((r.finding, r.rank, r.status, r.certainty, family), []).append(r)
    grouped = {(r.finding, r.ref): key for key, rs in members.items() if len(rs) > 1 for r in rs}
    lines: list[QueueLine] = []
    done: set[tuple[Any, ...]] = set()
    for r in rows:
        at = (r.finding, r.ref)
        if at in hidden:
            continue
        if at in grouped:
            key = grouped[at]
            if key not in done:
                done.add(key)
                lines.append(_group_line(key[-1], members[key]))
            continue
        fold = heads.get(at)
        if fold is None:
            lines.append(_line(r))
        else:
            story = f"{len(fold.versions)} versions ({', '.join(fold.labels)}): {fold.note}"
            lines.append(_line(r, "versions", fold.versions, f"{r.note}; {story}"))
    return lines
