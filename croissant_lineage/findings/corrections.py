"""Applying confirmed findings: a corrected copy of a dataset's keys.

:func:`apply_corrections` changes a key only for a finding that the maintainers
confirmed (``confirmed_fixed`` or ``confirmed_documented``), that questions the key,
and whose proposed answer is one of the item's options. Every change records the
finding it came from; every other finding is reported with the reason it was not
applied. Nothing is changed in place: the result is a new table, written to a new file
by :meth:`Corrections.write`.

With a lineage, a confirmed finding on an ancestor (e.g. an MMLU item) also corrects
the dataset's items that *certainly* inherited the questioned key (see
:mod:`croissant_lineage.findings.routing`); probable links are reported, not applied.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage._io import (
    atomic_write_bytes,
    atomic_write_text,
    csv_bytes,
    dumps_json,
    mark_written,
    parquet_bytes,
    replaceable,
)
from croissant_lineage._results import Result
from croissant_lineage.errors import InputError, OutputExistsError
from croissant_lineage.findings.model import CONFIRMED, Finding
from croissant_lineage.findings.routing import route
from croissant_lineage.lineage.graph import LineageGraph, LineageLike, as_graph, as_lineage
from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import KEYS_SCHEMA
from croissant_lineage.linking.normalize import normalize_option

__all__ = ["KEYS_SCHEMA", "NOT_APPLIED", "Change", "Corrections", "NotApplied", "apply_corrections"]

#: Reason code -> what it means.
NOT_APPLIED = {
    "not_confirmed": "status is not confirmed_fixed or confirmed_documented",
    "not_a_key_finding": "the finding does not question the key",
    "no_proposed_answer": "the finding proposes no answer",
    "not_in_dataset": "the finding's item is not in this dataset, and no lineage carries it here",
    "not_an_option": "the proposed answer is not among the item's options",
    "already_the_key": "the proposed answer is already the key",
    "probable_link_only": "the item inherits the key only through a fuzzy, ambiguous or unknown link",
    "conflict": "confirmed findings propose different keys for this item",
    "same_change": "another confirmed finding makes the same change",
}


@dataclass(frozen=True)
class Change:
    """One key changed: from ``original_key`` to ``key``, because of ``finding``.

    Attributes:
        via: The ancestor item the finding names, when it reached this item through
            the lineage (None when the finding names this item).
    """

    item: str
    original_key: str | None
    key: str
    proposed: str
    finding: str
    via: str | None = None


@dataclass(frozen=True)
class NotApplied:
    """A finding (for one item) that changed nothing, with the reason code (see
    :data:`NOT_APPLIED`) and a one-line detail."""

    finding: str
    item: str
    reason: str
    detail: str = ""


@dataclass
class Corrections(Result):
    """A corrected copy of one dataset's keys.

    Attributes:
        dataset: The dataset.
        keys: One row per item (:data:`KEYS_SCHEMA`), in the dataset's order.
        changes: The keys changed, in item order.
        not_applied: Findings that changed nothing, with reasons.
    """

    dataset: str
    keys: pa.Table
    changes: list[Change] = field(default_factory=list)
    not_applied: list[NotApplied] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Changes and reasons (not the key table)."""
        reasons: dict[str, int] = {}
        for n in self.not_applied:
            reasons[n.reason] = reasons.get(n.reason, 0) + 1
        return {
            "dataset": self.dataset,
            "items": self.keys.num_rows,
            "changed": len(self.changes),
            "changes": [asdict(c) for c in self.changes],
            "not_applied_by_reason": dict(sorted(reasons.items())),
            "not_applied": [asdict(n) for n in self.not_applied],
        }

    def write(
        self, path: str | Path, *, inputs: Sequence[str | Path] = (), force: bool = False,
        overwrite: bool | None = None,
    ) -> Path:
        """Write the corrected keys to a NEW file, atomically: ``.parquet``, ``.csv``,
        ``.jsonl`` or ``.json`` (the table plus changes and reasons).

        Args:
            path: Destination.
            inputs: Files this run read; the destination may never be one of them.
            force: Replace an existing destination (never an input).
            overwrite: The former name of ``force`` (deprecated).

        Returns:
            The path written.

        Raises:
            OutputExistsError: the destination is an input, or exists and ``force``
                is false.
            InputError: unknown file suffix.
        """
        if overwrite is not None:
            warnings.warn("overwrite= is now force=", DeprecationWarning, stacklevel=2)
            force = force or overwrite
        dest = Path(path)
        if any(dest.resolve() == Path(p).resolve() for p in inputs):
            raise OutputExistsError(
                "is an input of this run; corrections go to a new file", path=dest
            )
        replaceable(dest, force=force)  # an earlier output of apply (the folder's manifest) is replaced
        suffix = dest.suffix.lower()
        if suffix not in (".parquet", ".csv", ".jsonl", ".json"):
            raise InputError(f"unknown output format {suffix!r}", path=dest, hint="use .parquet, .csv, .jsonl or .json")
        if suffix == ".parquet":
            atomic_write_bytes(dest, parquet_bytes(self.keys))
        elif suffix == ".csv":
            atomic_write_bytes(dest, csv_bytes(self.keys))
        elif suffix == ".jsonl":
            atomic_write_text(
                dest,
                "".join(
                    dumps_json(r).replace("\n", " ").rstrip() + "\n" for r in self.keys.to_pylist()
                ),
            )
        else:
            atomic_write_text(dest, dumps_json({**self.to_dict(), "keys": self.keys.to_pylist()}))
        mark_written(dest)
        return dest


def _key_of(options: list[str], proposed: str) -> str | None:
    want = normalize_option(proposed)
    for i, o in enumerate(options):
        if normalize_option(o) == want:
            return LETTERS[i]
    return None


def _items(lineage: Lineage, dataset: str | None) -> tuple[str, pa.Table]:
    """The dataset's name and its rows of the lineage's items."""
    names = sorted(set(lineage.items.column("dataset").to_pylist()))
    if dataset is None:
        if len(names) != 1:
            raise InputError(
                f"the lineage holds {len(names)} datasets; say which one",
                hint=f"datasets: {', '.join(names[:12])}",
            )
        dataset = names[0]
    if dataset not in names:
        raise InputError(
            f"no items of dataset {dataset!r}", hint=f"datasets: {', '.join(names[:12])}"
        )
    return dataset, lineage.items_of(dataset)


def _proposal(f: Finding) -> str | NotApplied:
    """The answer ``f`` proposes for the key, or why it can change no key whatever the
    items are."""
    if f.status not in CONFIRMED:
        return NotApplied(f.id, f.item, "not_confirmed", f"status {f.status}")
    if f.target != "key":
        return NotApplied(f.id, f.item, "not_a_key_finding", f"target {f.target}")
    if not f.proposed:
        return NotApplied(f.id, f.item, "no_proposed_answer")
    return f.proposed


@dataclass
class _Run:
    """One dataset's corrections as they are worked out.

    Attributes:
        name: The dataset.
        by_item: Item id -> its row (``item``, ``options``, ``key``).
        graph: The lineage graph, when findings on ancestors may reach the dataset.
        proposals: Item id -> the changes proposed for it, in finding order.
        skipped: Findings (for one item) that change nothing, in the order found.
    """

    name: str
    by_item: dict[str, dict[str, Any]]
    graph: LineageGraph | None
    proposals: dict[str, list[Change]] = field(default_factory=dict)
    skipped: list[NotApplied] = field(default_factory=list)

    def targets(self, f: Finding) -> list[tuple[str, str | None]]:
        """The dataset's items ``f`` changes, each with the ancestor it came through (None
        when ``f`` names the item); items reached only through a probable link are skipped."""
        fds, _, fitem = f.item.partition(":")
        if fds == self.name and fitem in self.by_item:
            return [(fitem, None)]
        if self.graph is None or f.item not in self.graph:
            return []
        out: list[tuple[str, str | None]] = []
        for r in route(self.graph, f).rows:
            if r.dataset != self.name or r.status not in ("inherited", "added"):
                continue
            if r.certainty != "certain":
                self.skipped.append(NotApplied(f.id, r.ref, "probable_link_only", r.transformation))
            else:
                out.append((r.ref.partition(":")[2], f.item))
        return out

    def propose(self, f: Finding, proposed: str, item: str, via: str | None) -> None:
        """Propose the key change ``f`` makes to ``item``, or say why it makes none."""
        row = self.by_item[item]
        new = _key_of(list(row["options"] or []), proposed)
        ref = f"{self.name}:{item}"
        if new is None:
            self.skipped.append(NotApplied(f.id, ref, "not_an_option", proposed))
        elif new == row["key"]:
            self.skipped.append(NotApplied(f.id, ref, "already_the_key", new))
        else:
            change = Change(ref, row["key"], new, proposed, f.id, via)
            self.proposals.setdefault(item, []).append(change)

    def add(self, f: Finding) -> None:
        """Account for one finding."""
        proposed = _proposal(f)
        if isinstance(proposed, NotApplied):
            self.skipped.append(proposed)
            return
        targets = self.targets(f)
        if not targets and not any(n.finding == f.id for n in self.skipped):
            self.skipped.append(NotApplied(f.id, f.item, "not_in_dataset", f"dataset {self.name}"))
        for item, via in targets:
            self.propose(f, proposed, item, via)

    def changes(self) -> dict[str, Change]:
        """Item id -> its change: one per item; items whose findings disagree change not."""
        out: dict[str, Change] = {}
        for item, cands in self.proposals.items():
            if len({c.key for c in cands}) > 1:
                self.skipped += [
                    NotApplied(c.finding, c.item, "conflict", f"proposes {c.key}") for c in cands
                ]
            else:
                out[item] = cands[0]
                self.skipped += [
                    NotApplied(c.finding, c.item, "same_change", f"as {cands[0].finding}")
                    for c in cands[1:]
                ]
        return out


def _keys_table(name: str, rows: list[dict[str, Any]], changes: dict[str, Change]) -> pa.Table:
    """The corrected key table (:data:`KEYS_SCHEMA`), one row per item in ``rows``' order."""
    changed = [changes.get(r["item"]) for r in rows]
    return pa.table(
        {
            "dataset": [name] * len(rows),
            "item": [r["item"] for r in rows],
            "key": [r["key"] if c is None else c.key for r, c in zip(rows, changed, strict=True)],
            "original_key": [r["key"] for r in rows],
            "finding": [None if c is None else c.finding for c in changed],
        },
        schema=KEYS_SCHEMA,
    )


def apply_corrections(
    lineage: LineageLike,
    findings: Iterable[Finding],
    *,
    dataset: str | None = None,
) -> Corrections:
    """A corrected copy of a dataset's keys, from confirmed findings only.

    Args:
        lineage: The linked family (a ``Lineage``, its folder or a ``LineageGraph``):
            the dataset's items are its rows, and confirmed key findings on ancestors
            correct the items that certainly inherited the questioned key through its
            edges. A lineage of the dataset's items alone (no edges:
            :func:`croissant_lineage.workflows.load_datasets`) applies only the findings
            on those items.
        findings: The findings to consider; all of them are accounted for.
        dataset: Which dataset, when the lineage holds several.

    Returns:
        The corrected keys, the changes (each with its finding), and every finding
        that changed nothing with its reason (see :data:`NOT_APPLIED`).

    Raises:
        ArgumentError: ``lineage`` is no lineage (a dataset's spec, an item table...).
        InputError: the lineage holds no (or several, unnamed) datasets.
    """
    lin = as_lineage(lineage)
    name, table = _items(lin, dataset)
    rows = table.select(["item", "options", "key"]).to_pylist()
    graph = as_graph(lineage) if lin.edges.num_rows else None
    run = _Run(name, {r["item"]: r for r in rows}, graph)
    for f in findings:
        run.add(f)
    changes = run.changes()
    ordered = [changes[r["item"]] for r in rows if r["item"] in changes]
    return Corrections(
        dataset=name,
        keys=_keys_table(name, rows, changes),
        changes=ordered,
        not_applied=run.skipped,
    )
