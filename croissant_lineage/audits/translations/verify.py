"""Verifying the translation, copy and filter joins of a linked family."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from croissant_lineage.audits.translations.probe import Checker, Join, Probe
from croissant_lineage.audits.translations.report import (
    GROUPS_SCHEMA,
    SHIFTS,
    VERIFICATION_SCHEMA,
    TranslationReport,
)
from croissant_lineage.audits.translations.shifts import realign, shift_test
from croissant_lineage.family.spec import TRANSLATION_ACTIVITIES, LanguageRules, rules_for
from croissant_lineage.lineage.graph import LineageLike, as_lineage
from croissant_lineage.lineage.schema import TRANSLATION_COUNT_COLUMNS
from croissant_lineage.linking.alignment import SHIFTED_METHOD, UNVERIFIED_METHOD, probe_mode
from croissant_lineage.linking.evidence import NumberReader, number_reader

__all__ = ["JOIN_METHODS", "TRANSLATION_ACTIVITIES", "verify_joins", "verify_translations"]



#: Link methods that trust a convention (and so need verifying): ``id``, ``index``, and
#: the index joins that linking re-linked by a shift or demoted (verified as declared).
JOIN_METHODS = ("id", "index", SHIFTED_METHOD, UNVERIFIED_METHOD)


def _language(languages: Mapping[str, Sequence[str]], dataset: str) -> str | None:
    langs = languages.get(dataset) or ()
    return langs[0] if langs else None


def _status(zero: Probe, options_match: bool, realigned: str | None) -> str:
    if realigned is not None:
        return "misaligned"
    if zero.key_match is None:
        return "no_key"
    if not zero.key_match:
        return "key_differs"
    if not options_match:
        return "options_differ"
    if zero.supports is None:
        return "consistent"
    return "verified" if zero.supports else "evidence_conflict"


def _readers(
    languages: Mapping[str, Sequence[str]], rules: Mapping[str, LanguageRules], names: Sequence[str]
) -> dict[str, NumberReader]:
    out = {}
    for name in names:
        lang = _language(languages, name)
        found = rules_for(dict(rules), lang)
        out[name] = number_reader(lang, found.scale_words if found else ())
    return out


def _declared(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The joins as declared: an edge that linking re-linked by a shift is verified
    against its declared parent (its first alternative)."""
    out = []
    for r in rows:
        alts = r.pop("alternatives", None) or []
        if r["method"] == SHIFTED_METHOD and alts:
            r = {**r, "parent_item": alts[0]}
        out.append(r)
    return out


def verify_joins(
    edges: pa.Table,
    items: pa.Table,
    *,
    languages: Mapping[str, Sequence[str]] | None = None,
    language_rules: Mapping[str, LanguageRules] | None = None,
) -> TranslationReport:
    """Verify the translation/copy/filter joins of an edges table.

    Evidence per join: for a same-language copy (both languages known and equal) the
    similarity of the normalised stems (RapidFuzz ratio; supports at
    :data:`TEXT_SUPPORT_SCORE`); otherwise the token score of :func:`evidence_score`
    (supports at :data:`SUPPORT_SCORE`), with Latin-script names compared only when
    the translation is mostly in another script.

    Args:
        edges: Lineage edges (``EDGES_SCHEMA``); only those with an activity in
            :data:`TRANSLATION_ACTIVITIES` and a method in :data:`JOIN_METHODS` are used.
        items: Items of every dataset the edges name (``ITEMS_SCHEMA``); all items of
            each parent dataset are used for the shift test and token weights.
        languages: Dataset -> language codes (first one used); unknown languages count
            as different from every other. Numbers are read in each dataset's language
            (:func:`~croissant_lineage.linking.evidence.number_reader`).
        language_rules: Language tag -> the family spec's rules for it (scale words).

    Returns:
        A :class:`TranslationReport`; joins whose child or parent item is not in
        ``items`` are left out.
    """
    languages = languages or {}
    mask = pa.compute.and_(
        pa.compute.is_in(edges.column("activity"), pa.array(TRANSLATION_ACTIVITIES)),
        pa.compute.is_in(edges.column("method"), pa.array(JOIN_METHODS)),
    )
    sel = _declared(edges.filter(mask).select(
        ["child_dataset", "child_item", "parent_dataset", "parent_item", "activity", "method", "alternatives"]
    ).to_pylist())
    needed = sorted({r["child_dataset"] for r in sel} | {r["parent_dataset"] for r in sel})
    rows = items.filter(pa.compute.is_in(items.column("dataset"), pa.array(needed, pa.string())))
    checker = Checker(rows, _readers(languages, language_rules or {}, needed))

    joins: list[Join] = []
    for r in sel:
        child = checker.index.get((r["child_dataset"], r["child_item"]))
        parent = checker.index.get((r["parent_dataset"], r["parent_item"]))
        if child is None or parent is None:
            continue
        clang, plang = _language(languages, r["child_dataset"]), _language(languages, r["parent_dataset"])
        mode = probe_mode(child, clang, plang)
        probes: list[Probe | None] = [None] * len(SHIFTS)
        probes[SHIFTS.index(0)] = checker.probe(child, r["parent_dataset"], r["parent_item"], mode)
        ntok = 0 if mode == "text" else len(child.evidence.comparable(mode == "names"))
        joins.append(Join(r, child, parent, clang, child.subject or parent.subject, mode, ntok, probes))
    shifts, subject_shift = shift_test(joins, checker)

    out: dict[str, list[Any]] = {f.name: [] for f in VERIFICATION_SCHEMA}
    for j in joins:
        r, zero = j.row, j.zero
        best_shift, realigned = 0, None
        if zero.key_match is False or zero.supports is False:
            best_shift, realigned = realign(j.probes, zero, subject_shift.get((r["child_dataset"], j.subject)))
        options_match = j.child.options == j.parent.options
        evidence = None if zero.score is None else ("text" if j.mode == "text" else "tokens")
        for k, v in (
            ("child_dataset", r["child_dataset"]), ("child_item", r["child_item"]),
            ("parent_dataset", r["parent_dataset"]), ("parent_item", r["parent_item"]),
            ("activity", r["activity"]), ("method", r["method"]), ("language", j.language),
            ("subject", j.subject), ("child_key", j.child.key), ("parent_key", j.parent.key),
            ("key_match", zero.key_match), ("child_options", j.child.options),
            ("parent_options", j.parent.options), ("options_match", options_match),
            ("evidence", evidence), ("evidence_tokens", j.ntok), ("evidence_score", zero.score),
            ("status", _status(zero, options_match, realigned)),
            ("best_shift", best_shift), ("realigned_parent", realigned),
        ):
            out[k].append(v)
    table = pa.table(out, schema=VERIFICATION_SCHEMA)
    groups = _count(table, subject_shift, by_subject=True)
    totals = _count(table, subject_shift, by_subject=False)
    return TranslationReport(items=table, groups=groups, totals=totals, shifts=shifts)


def _count(table: pa.Table, subject_shift: Mapping[tuple[str, str | None], int], *, by_subject: bool) -> pa.Table:
    counts: dict[tuple[Any, ...], Counter[str]] = {}
    cols = ("child_dataset", "parent_dataset", "activity", "language", "subject", "status", "key_match")
    for ds, pds, act, lang, subj, status, km in zip(*(table.column(c).to_pylist() for c in cols), strict=True):
        key = (ds, pds, act, lang, subj if by_subject else None)
        tally = counts.setdefault(key, Counter())
        tally["joined"] += 1
        tally[status] += 1
        tally["key_match"] += km is True
    rows: dict[str, list[Any]] = {f.name: [] for f in GROUPS_SCHEMA}
    for key in sorted(counts, key=lambda k: tuple(str(x) for x in k)):
        ds, pds, act, lang, subj = key
        for name, v in zip(("dataset", "parent_dataset", "activity", "language", "subject"), key, strict=True):
            rows[name].append(v)
        for c in TRANSLATION_COUNT_COLUMNS:
            rows[c].append(counts[key][c])
        rows["shift"].append(subject_shift.get((ds, subj)) if by_subject else None)
    return pa.table(rows, schema=GROUPS_SCHEMA)


def verify_translations(lineage: LineageLike) -> TranslationReport:
    """Verify every translation, copy and filter join of a linked family.

    Args:
        lineage: The linked family, or its lineage folder (its ``items``, ``edges``,
            ``family.datasets[*].languages`` and ``family.language_rules`` are used).

    Returns:
        A :class:`TranslationReport` (see :func:`verify_joins`).
    """
    lineage = as_lineage(lineage)
    languages = {d.name: list(d.languages) for d in lineage.family.datasets}
    rules = lineage.family.rules
    return verify_joins(lineage.edges, lineage.items, languages=languages, language_rules=rules)
