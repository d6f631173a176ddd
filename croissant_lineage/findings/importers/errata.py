"""A published MMLU-Pro errata list as findings on MMLU-Pro items.

The community review of MMLU-Pro's health category (``mmlu_pro_errata/``) groups
``question_id``\\ s into lists in ``problem_ids.json`` and explains them in
``hf_discussion_post.md``, a post to the maintainers' Hugging Face discussions. Each
listed id becomes a finding on ``mmlu-pro:{id}``:

=================================  ===========================================================
list                               finding
=================================  ===========================================================
``duplicates`` (pairs ``[a, b]``)  ``duplicate`` on ``b``, related to ``a``
``answer_format_wrong``            ``bad_options_clarity`` on the option the post's fix changes,
                                   with the corrected text as ``proposed``
``fact_or_stat_that_could_change`` ``stale_fact`` on the item
``unrelated``,                     ``other`` on the item's category (the category MMLU-Pro
``tangentially_related``           filed it under), the list name as label
any other list                     ``other`` on the item, the list name as label and evidence
=================================  ===========================================================

Ids that are not items of the dataset (``8``) are reported as unattached, not imported.
Posting to the maintainers is a submission, not a confirmation: status ``submitted``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage._io import note_input, read_json, read_text
from croissant_lineage.errors import InputError
from croissant_lineage.family.spec import FamilySpec, as_spec
from croissant_lineage.findings.importers._common import (
    ImportResult,
    Unattached,
)
from croissant_lineage.findings.importers._registry import Importer, ImporterArgument
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.lineage.graph import LineageLike, as_lineage
from croissant_lineage.lineage.items import LETTERS, load_items
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import join_ref
from croissant_lineage.linking.normalize import normalize_option

__all__ = [
    "CATEGORY_LISTS",
    "ERRATA_SOURCE",
    "IMPORTER",
    "LIST_KINDS",
    "QuotedOptions",
    "import_mmlu_pro_errata",
    "proposed_options",
]

#: Who published the errata.
ERRATA_SOURCE = Source(
    name="MMLU-Pro health review (mkieffer1107/mmlu_pro_health_upload)",
    url="https://github.com/mkieffer1107/mmlu_pro_health_upload",
    kind="community_review",
)

#: List name -> finding kind.
LIST_KINDS = {
    "duplicates": "duplicate",
    "answer_format_wrong": "bad_options_clarity",
    "fact_or_stat_that_could_change": "stale_fact",
    "unrelated": "other",
    "tangentially_related": "other",
    "weird_questions": "other",
}

#: Lists about the category the item is filed under, not its content.
CATEGORY_LISTS = ("unrelated", "tangentially_related")

_OPTION = re.compile(r'"([A-Z])"\s*:\s*"((?:[^"\\]|\\.)*)"')
_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)
_QUERY = re.compile(r"View SQL query \[here\]\((\S+?)\)")


def _sections(post: str) -> dict[str, str]:
    """``### name:`` heading -> the text under it (up to the next heading)."""
    out: dict[str, str] = {}
    parts = re.split(r"^###\s+([A-Za-z_]+):?\s*$", post, flags=re.MULTILINE)
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        out[name] = body
    return out


@dataclass(frozen=True)
class QuotedOptions:
    """The options a post quotes as they are and as they should be (letter -> text)."""

    current: dict[str, str]
    proposed: dict[str, str]


def proposed_options(section: str) -> QuotedOptions | None:
    """Read the option blocks a post's section quotes (the first, and the one after
    "Update to", i.e. the last).

    Returns:
        The quoted options, or None when the section does not hold two option blocks.
    """
    blocks = [
        {m.group(1): m.group(2) for m in _OPTION.finditer(b)} for b in _FENCE.findall(section)
    ]
    blocks = [b for b in blocks if b]
    if len(blocks) < 2:
        return None
    return QuotedOptions(blocks[0], blocks[-1])


@dataclass(frozen=True)
class _OptionFix:
    index: int | None
    text: str | None
    evidence: list[str]


def _option_fix(ref: str, options: list[str], section: str | None) -> _OptionFix:
    """Which option the post's fix changes, its corrected text, and evidence lines."""
    if section is None:
        return _OptionFix(None, None, ["the post has no section for this list: no proposed fix"])
    quoted = proposed_options(section)
    if quoted is None:
        return _OptionFix(None, None, ["the post quotes no corrected options: no proposed fix"])
    lines: list[str] = []
    current = [normalize_option(o) for o in options]
    if [normalize_option(v) for v in quoted.current.values()] == current:
        lines.append(f"the options the post quotes are those of {ref}")
    else:
        lines.append(f"the options the post quotes differ from those of {ref}")
    new = list(quoted.proposed.values())
    changed = [
        i for i, text in enumerate(new) if i >= len(options) or normalize_option(text) != current[i]
    ]
    removed = [LETTERS[i] for i in range(len(new), len(options))]
    if len(changed) != 1:
        lines.append("the post's fix changes several options: see the post")
        return _OptionFix(None, None, lines)
    i = changed[0]
    lines.append(f"proposed fix: option {LETTERS[i]} becomes {new[i]!r}")
    if removed:
        lines.append(f"proposed fix: option(s) {', '.join(removed)} removed")
    return _OptionFix(i, new[i], lines)


@dataclass(frozen=True)
class _Lists:
    """The errata folder read: its lists, the post's sections, and the lists file."""

    lists: dict[str, list[Any]]
    sections: dict[str, str]
    path: Path


def _read_lists(folder: str | Path | None, data_dir: str | Path | None) -> _Lists:
    if folder is not None:
        root = Path(folder)
    elif data_dir is not None:
        root = Path(data_dir) / "mmlu_pro_errata"
    else:
        raise InputError(
            "no errata folder given",
            hint="pass folder, or data_dir (its mmlu_pro_errata folder is read); on the "
            "command line: --folder DIR or --data-dir DIR",
        )
    note_input(root)  # the whole source folder is the import's input, the files it reads and the rest
    lists_path = root / "problem_ids.json"
    doc = read_json(lists_path)
    if not isinstance(doc, dict) or not all(isinstance(v, list) for v in doc.values()):
        raise InputError("expected an object of lists of question ids", path=lists_path)
    post_path = root / "hf_discussion_post.md"
    sections = _sections(read_text(post_path)[0]) if post_path.exists() else {}
    return _Lists(doc, sections, lists_path)


def _item_options(
    items: pa.Table | None,
    lineage: Lineage | None,
    family: FamilySpec | str,
    dataset: str,
    data_dir: str | Path | None,
) -> dict[str, list[str]]:
    """Item id -> options, for the items of ``dataset``."""
    if items is None and lineage is not None:
        items = lineage.items
    if items is None:
        items = load_items(as_spec(family).dataset(dataset), data_dir=data_dir)
    return {
        r["item"]: list(r["options"] or [])
        for r in items.select(["dataset", "item", "options"]).to_pylist()
        if r["dataset"] == dataset
    }


class _Found:
    """Findings by id, in first-seen order; a repeated id merges its evidence."""

    def __init__(self) -> None:
        self.by_id: dict[str, Finding] = {}
        self.repeats = 0

    def add(self, finding: Finding) -> None:
        if finding.id in self.by_id:
            self.repeats += 1
            old = self.by_id[finding.id]
            extra = [e for e in finding.evidence if e not in old.evidence]
            self.by_id[finding.id] = replace(old, evidence=[*old.evidence, *extra])
        else:
            self.by_id[finding.id] = finding


@dataclass(frozen=True)
class _ListContext:
    """What every finding of one list shares."""

    name: str
    section: str | None
    evidence: list[str]
    dataset: str
    common: dict[str, Any]


def _list_context(name: str, lists: _Lists, dataset: str, common: dict[str, Any]) -> _ListContext:
    section = lists.sections.get(name)
    query = _QUERY.search(section) if section else None
    evidence = [f"listed in {name!r} ({lists.path.name})"]
    if query:
        evidence.append(f"list query: {query.group(1)}")
    kind = LIST_KINDS.get(name, "other")
    return _ListContext(name, section, evidence, dataset, {**common, "kind": kind, "label": name})


def _entry_finding(ctx: _ListContext, pair: list[str], options: list[str]) -> Finding:
    """The finding for one listed entry (an id, or a pair of duplicates) of a list."""
    ref = join_ref(ctx.dataset, pair[-1])
    common = {"item": ref, **ctx.common}
    if common["kind"] == "duplicate":
        others = [join_ref(ctx.dataset, x) for x in pair[:-1]]
        evidence = [*ctx.evidence, f"duplicate of {', '.join(others)}"]
        return Finding(target="item", related=others, evidence=evidence, **common)
    if ctx.name == "answer_format_wrong":
        fix = _option_fix(ref, options, ctx.section)
        return Finding(
            target="item" if fix.index is None else "option",
            option_index=fix.index,
            proposed=fix.text,
            evidence=[*ctx.evidence, *fix.evidence],
            **common,
        )
    target = "category" if ctx.name in CATEGORY_LISTS else "item"
    return Finding(target=target, evidence=ctx.evidence, **common)


def import_mmlu_pro_errata(
    folder: str | Path | None = None,
    *,
    items: pa.Table | None = None,
    family: FamilySpec | str | None = "mmlu",
    dataset: str = "mmlu-pro",
    data_dir: str | Path | None = None,
    status: str = "submitted",
    status_date: str | None = None,
    source: Source = ERRATA_SOURCE,
    lineage: LineageLike | None = None,
) -> ImportResult:
    """MMLU-Pro errata lists (``problem_ids.json`` + ``hf_discussion_post.md``) as findings.

    Args:
        folder: The errata folder; ``{data_dir}/mmlu_pro_errata`` when None.
        items: The dataset's item table (to check ids and read options); when None,
            the items of ``lineage``, else loaded from ``family.dataset(dataset)``.
        family: The family spec or its name (None: ``mmlu``, the family MMLU-Pro belongs to).
        dataset: The dataset the ids belong to.
        data_dir: The data folder: where the errata folder is when ``folder`` is None,
            and what the dataset's files are relative to when its items are loaded.
        status: Status of every finding (``submitted``: posted to the maintainers).
        status_date: Date of that status, if known.
        source: Who published the lists.
        lineage: The linked family, whose items table serves when ``items`` is None.

    Returns:
        One finding per listed id (and list kind), ids per list in ``counts``, and the
        ids that are not items of the dataset in ``unattached``.

    Raises:
        InputError: ``problem_ids.json`` is missing or is not an object of lists; or
            neither ``folder`` nor ``data_dir`` is given; or the items must be loaded,
            their files are relative to a data folder and ``data_dir`` is None.
    """
    linked = None if lineage is None else as_lineage(lineage)
    lists = _read_lists(folder, data_dir)
    options = _item_options(items, linked, "mmlu" if family is None else family, dataset, data_dir)
    result = ImportResult(source=source.name)
    found = _Found()
    counts: Counter[str] = Counter()
    common = {"source": source, "status": status, "status_date": status_date}
    for name, entries in lists.lists.items():
        ctx = _list_context(name, lists, dataset, common)
        for entry in entries:
            counts[name] += 1
            pair = [str(x) for x in entry] if isinstance(entry, list) else [str(entry)]
            missing = [x for x in pair if x not in options]
            reason = f"listed in {name!r} but not an item of {dataset}"
            result.unattached += [Unattached(join_ref(dataset, x), reason) for x in missing]
            if not missing:
                found.add(_entry_finding(ctx, pair, options[pair[-1]]))
    result.findings = list(found.by_id.values())
    result.counts = dict(sorted(counts.items()))
    result.kinds = dict(sorted(Counter(f.kind for f in result.findings).items()))
    if found.repeats:
        result.notes.append(
            f"{found.repeats} listed ids repeat an earlier entry (merged into one finding)"
        )
    unknown = sorted(set(lists.lists) - set(LIST_KINDS))
    if unknown:
        result.notes.append(f"lists imported as kind 'other': {', '.join(unknown)}")
    return result


#: The ``errata`` source of the importer registry (``croissant-lineage findings import errata``).
IMPORTER = Importer(
    name="errata",
    help="MMLU-Pro errata lists (problem_ids.json + hf_discussion_post.md)",
    function=import_mmlu_pro_errata,
    arguments=(
        ImporterArgument("folder", "errata folder (default: DATA_DIR/mmlu_pro_errata)", type=Path),
    ),
    description="Each listed MMLU-Pro question_id becomes a finding (status: submitted); ids "
    "that are not test items are reported as unattached.",
    examples=(
        "croissant-lineage findings import errata --lineage lineage/ --data-dir ../shared/data "
        "--out errata.json",
    ),
)
