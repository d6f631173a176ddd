"""MMLU-Redux annotations as findings on the MMLU items they annotate.

MMLU-Redux re-annotated 5,700 MMLU test questions (57 subjects x 100) with an
``error_type`` label, a ``correct_answer`` and a ``potential_reason``. Its raw files are
messy (27 spellings of 7 labels; ``correct_answer`` mixes letters, 0-based indices,
several answers and free text). This module reads the rows through the family
(:func:`croissant_lineage.lineage.items.load_items`), normalises the labels, resolves
``correct_answer`` to option texts where it is a letter or an index, and attaches each
finding to the MMLU item the row annotates, found through the lineage edge
``mmlu-redux:X -> mmlu:Y``. The Redux row is kept as the finding's source item.

A published annotation is not a maintainer's confirmation: every finding is
``proposed``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage.family.spec import FamilySpec, as_spec
from croissant_lineage.findings.importers._common import (
    ImportResult,
    Unattached,
    as_graph,
    attach,
)
from croissant_lineage.findings.importers._registry import Importer, ImporterArgument
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.lineage.graph import LineageLike
from croissant_lineage.lineage.items import LETTERS, load_items
from croissant_lineage.lineage.schema import join_ref
from croissant_lineage.linking.normalize import normalize_option

__all__ = [
    "IMPORTER",
    "LABEL_KINDS",
    "REDUX_LABELS",
    "AnswerResolution",
    "import_redux",
    "normalize_label",
    "resolve_answer",
]

#: The seven labels MMLU-Redux uses once spellings are normalised.
REDUX_LABELS = (
    "ok",
    "wrong_groundtruth",
    "no_correct_answer",
    "multiple_correct_answers",
    "bad_question_clarity",
    "bad_options_clarity",
    "expert",
)

#: Label -> (finding kind, target). ``ok`` makes no finding; ``expert`` ("needs an
#: expert to decide") becomes ``other`` on the whole item.
LABEL_KINDS: dict[str, tuple[str, str]] = {
    "wrong_groundtruth": ("wrong_key", "key"),
    "no_correct_answer": ("no_correct_answer", "key"),
    "multiple_correct_answers": ("multiple_correct_answers", "key"),
    "bad_question_clarity": ("bad_question_clarity", "stem"),
    "bad_options_clarity": ("bad_options_clarity", "item"),
    "expert": ("other", "item"),
}

_SOURCE_NAMES = {"mmlu-redux": "MMLU-Redux", "mmlu-redux-2.0": "MMLU-Redux 2.0"}
_SEPARATORS = re.compile(r"\s*(?:,|;|\band\b|\bor\b|\s)\s*", re.IGNORECASE)


def normalize_label(raw: Any) -> str:
    """``"Wrong Groundtruth"``, ``"wrong_groundtruth "``, ``"OK"`` -> ``wrong_groundtruth``, ``ok``.

    Returns:
        Lower case, trimmed, runs of spaces/hyphens/underscores as one ``_``; ``""``
        for a missing label.
    """
    if raw is None:
        return ""
    return re.sub(r"[\s_-]+", "_", str(raw).strip().lower()).strip("_")


@dataclass(frozen=True)
class AnswerResolution:
    """``correct_answer`` read against the row's options.

    Attributes:
        form: ``empty``, ``letter``, ``index``, ``several`` (letters or indices),
            ``option_text`` (equals an option) or ``text`` (anything else, kept as is).
        answers: The option texts it names (none for ``empty``/``text``).
        text: The raw value, trimmed, line ends unified (None when empty).
    """

    form: str
    answers: tuple[str, ...] = ()
    text: str | None = None


def _clean(value: Any) -> str:
    if value is None:
        return ""
    return str(value).replace("\r\n", "\n").replace("\r", "\n").strip()


def _token_index(token: str, n: int, *, letters: bool) -> int | None:
    if letters:
        return LETTERS.index(token) if len(token) == 1 and token in LETTERS[:n] else None
    return int(token) if token.isdigit() and int(token) < n else None


def resolve_answer(raw: Any, options: list[str] | None, label: str) -> AnswerResolution:
    """Resolve a ``correct_answer`` to option texts where it is a letter or an index.

    Letters ``A``-``D`` and 0-based indices (MMLU-Redux's convention, the same as its
    ``answer`` column) name options; so do lists of them (``B,C``, ``0 1 3``,
    ``2 and 3``, ``(0, 1)``). For ``no_correct_answer`` rows digits are *values*
    (``6``, ``30``), never indices. Anything else is free text.

    Args:
        raw: The ``correct_answer`` cell.
        options: The row's options.
        label: The row's normalised label.

    Returns:
        The resolution (see :class:`AnswerResolution`).
    """
    if raw is None or not str(raw).strip():
        return AnswerResolution("empty")
    text = _clean(raw)
    opts = list(options or [])
    if label != "no_correct_answer":
        tokens = [t for t in _SEPARATORS.split(text.strip("()[] ")) if t]
        for letters in (True, False):
            picked = [_token_index(t, len(opts), letters=letters) for t in tokens]
            if tokens and all(i is not None for i in picked):
                idx = [i for i in picked if i is not None]
                form = ("letter" if letters else "index") if len(idx) == 1 else "several"
                return AnswerResolution(form, tuple(opts[i] for i in idx), text)
    by_text = {normalize_option(o): o for o in opts}
    if normalize_option(text) in by_text:
        return AnswerResolution("option_text", (by_text[normalize_option(text)],), text)
    return AnswerResolution("text", (), text)


def _proposed(kind: str, res: AnswerResolution) -> str | None:
    if kind not in ("wrong_key", "no_correct_answer"):
        return None
    if len(res.answers) == 1:
        return res.answers[0]
    return res.text if res.form == "text" else None


@dataclass
class _Row:
    ref: str
    label: str
    raw_label: str
    record: dict[str, Any]
    options: list[str]
    key: str | None
    evidence: list[str] = field(default_factory=list)


def _evidence(
    row: _Row, res: AnswerResolution, source_file: str | None, source_row: int | None
) -> list[str]:
    rec = row.record
    lines = [f"{row.ref}: {source_file} row {source_row}", f"error_type: {row.raw_label}"]
    if res.text is not None:
        how = {
            "letter": "a letter",
            "index": "a 0-based index",
            "several": "several options",
            "option_text": "an option's text",
            "text": "free text",
        }[res.form]
        lines.append(f"correct_answer ({how}): {res.text}")
    for name in ("potential_reason", "source"):
        value = rec.get(name)
        text = _clean(value)
        if text:
            label = "annotator source" if name == "source" else name
            lines.append(f"{label}: {text}")
    key_text = (
        row.options[LETTERS.index(row.key)]
        if row.key and LETTERS.index(row.key) < len(row.options)
        else None
    )
    if row.label == "wrong_groundtruth" and key_text is not None and res.answers == (key_text,):
        lines.append("correct_answer names the published key itself: no change proposed")
    return lines


def import_redux(
    items: pa.Table | None = None,
    *,
    family: FamilySpec | str | None = "mmlu",
    dataset: str = "mmlu-redux",
    data_dir: str | Path | None = None,
    lineage: LineageLike | None = None,
    parent_dataset: str = "mmlu",
) -> ImportResult:
    """MMLU-Redux annotations (raw files or the 2.0 excerpt) as findings.

    Args:
        items: The annotation rows as an item table (``schema.ITEMS_SCHEMA``, raw fields
            in ``record``); loaded from ``family.dataset(dataset)`` when None.
        family: The family spec (or its name) naming the dataset and its IRI (None:
            ``mmlu``, the family MMLU-Redux annotates).
        dataset: ``mmlu-redux`` (raw files) or ``mmlu-redux-2.0`` (the excerpt).
        data_dir: The data folder, for loading ``items`` (required then for a family
            whose files are relative to one, as the shipped ``mmlu`` family's are).
        lineage: A ``Lineage`` or ``LineageGraph``. With it, each finding attaches to the
            parent item the row annotates (``parent_dataset``); without it, or when a row
            has no parent edge, to the Redux row itself (listed in ``unattached``).
        parent_dataset: The dataset the annotations are about.

    Returns:
        The findings (one per row whose label is not ``ok``, status ``proposed``), rows
        per normalised label, findings per kind, and the unattached rows.

    Raises:
        InputError: ``items`` is None, and ``data_dir`` is None while the dataset's
            files are relative to a data folder.
        SpecError, InputError, DataError: the dataset cannot be loaded.
    """
    family = "mmlu" if family is None else family
    ds = as_spec(family).dataset(dataset)
    table = load_items(ds, data_dir=data_dir) if items is None else items
    graph = as_graph(lineage) if lineage is not None else None
    source_name = _SOURCE_NAMES.get(dataset, dataset)
    result = ImportResult(source=source_name)
    labels: Counter[str] = Counter()
    spellings: Counter[str] = Counter()
    for r in table.to_pylist():
        if r["dataset"] != dataset:
            continue
        record = json.loads(r["record"]) if r["record"] else {}
        raw_label = record.get("error_type")
        label = normalize_label(raw_label) or "(missing)"
        labels[label] += 1
        spellings[str(raw_label)] += 1
        if label in ("ok", "(missing)"):
            continue
        kind, target = LABEL_KINDS.get(label, ("other", "item"))
        row = _Row(
            join_ref(dataset, r["item"]),
            label,
            str(raw_label),
            record,
            list(r["options"] or []),
            r["key"],
        )
        res = resolve_answer(record.get("correct_answer"), row.options, label)
        evidence = _evidence(row, res, r["source_file"], r["source_row"])
        if label not in LABEL_KINDS:
            evidence.append(f"label {label!r} is not one of MMLU-Redux's labels")
        item = row.ref
        unattached = None
        if graph is None:
            unattached = "no lineage given"
        else:
            att = attach(graph, row.ref, parent_dataset)
            if att.parent is None:
                unattached = att.reason
            else:
                item = att.parent
                evidence.extend(att.evidence)
        finding = Finding(
            item=item,
            target=target,
            kind=kind,
            proposed=_proposed(kind, res),
            answers=list(res.answers),
            label=label,
            source=Source(name=source_name, url=ds.iri, kind="dataset", item=row.ref),
            evidence=evidence,
            status="proposed",
            status_date=ds.date,
        )
        result.findings.append(finding)
        if unattached:
            result.unattached.append(Unattached(row.ref, unattached, finding.id))
    result.counts = dict(sorted(labels.items()))
    result.kinds = dict(sorted(Counter(f.kind for f in result.findings).items()))
    result.notes.append(f"{len(spellings)} spellings of {len(labels)} labels")
    return result


#: The ``redux`` source of the importer registry (``croissant-lineage findings import redux``).
IMPORTER = Importer(
    name="redux",
    help="MMLU-Redux annotations, attached to the MMLU items they annotate",
    function=import_redux,
    arguments=(
        ImporterArgument(
            "dataset", "mmlu-redux (raw files) or mmlu-redux-2.0", default="mmlu-redux"
        ),
    ),
    description="Normalise MMLU-Redux's error_type labels, resolve correct_answer to option "
    "texts, and attach each non-ok row to its MMLU item through the lineage (status: proposed).",
    examples=(
        "croissant-lineage findings import redux --lineage lineage/ --data-dir ../shared/data "
        "--out redux.json",
        "croissant-lineage findings import redux --dataset mmlu-redux-2.0 --lineage lineage/ "
        "--data-dir ../shared/data --out r2.json",
    ),
)
