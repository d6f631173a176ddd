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

from croissant_lineage._io import read_json, read_text
from croissant_lineage.errors import InputError
from croissant_lineage.family.spec import FamilySpec, load_family
from croissant_lineage.findings.importers._common import ImportResult, Unattached
from croissant_lineage.findings.importers._registry import Importer, ImporterArgument
from croissant_lineage.findings.model import Finding, Source
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


def import_mmlu_pro_errata(
    folder: str | Path | None = None,
    *,
    items: pa.Table | None = None,
    family: FamilySpec | str = "mmlu",
    dataset: str = "mmlu-pro",
    data_dir: str | Path = Path("../shared/data"),
    status: str = "submitted",
    status_date: str | None = None,
    source: Source = ERRATA_SOURCE,
    lineage: Lineage | None = None,
) -> ImportResult:
    """MMLU-Pro errata lists (``problem_ids.json`` + ``hf_discussion_post.md``) as findings.

    Args:
        folder: The errata folder; ``{data_dir}/mmlu_pro_errata`` when None.
        items: The dataset's item table (to check ids and read options); when None,
            the items of ``lineage``, else loaded from ``family.dataset(dataset)``.
        family: The family spec or its name.
        dataset: The dataset the ids belong to.
        data_dir: Where the data files are.
        status: Status of every finding (``submitted``: posted to the maintainers).
        status_date: Date of that status, if known.
        source: Who published the lists.
        lineage: The linked family, whose items table serves when ``items`` is None.

    Returns:
        One finding per listed id (and list kind), ids per list in ``counts``, and the
        ids that are not items of the dataset in ``unattached``.

    Raises:
        InputError: ``problem_ids.json`` is missing or is not an object of lists.
    """
    root = Path(folder) if folder is not None else Path(data_dir) / "mmlu_pro_errata"
    lists_path = root / "problem_ids.json"
    doc = read_json(lists_path)
    if not isinstance(doc, dict) or not all(isinstance(v, list) for v in doc.values()):
        raise InputError("expected an object of lists of question ids", path=lists_path)
    post_path = root / "hf_discussion_post.md"
    sections = _sections(read_text(post_path)[0]) if post_path.exists() else {}
    if items is None and lineage is not None:
        items = lineage.items
    if items is None:
        spec = load_family(family) if isinstance(family, str) else family
        items = load_items(spec.dataset(dataset), data_dir=data_dir)
    options = {
        r["item"]: list(r["options"] or [])
        for r in items.select(["dataset", "item", "options"]).to_pylist()
        if r["dataset"] == dataset
    }
    result = ImportResult(source=source.name)
    found: dict[str, Finding] = {}
    counts: Counter[str] = Counter()
    repeats = 0

    def add(finding: Finding) -> None:
        nonlocal repeats
        if finding.id in found:
            repeats += 1
            old = found[finding.id]
            extra = [e for e in finding.evidence if e not in old.evidence]
            found[finding.id] = replace(old, evidence=[*old.evidence, *extra])
        else:
            found[finding.id] = finding

    for name, entries in doc.items():
        kind = LIST_KINDS.get(name, "other")
        section = sections.get(name)
        query = _QUERY.search(section) if section else None
        base_evidence = [f"listed in {name!r} ({lists_path.name})"]
        if query:
            base_evidence.append(f"list query: {query.group(1)}")
        for entry in entries:
            counts[name] += 1
            pair = [str(x) for x in entry] if isinstance(entry, list) else [str(entry)]
            missing = [x for x in pair if x not in options]
            if missing:
                for x in missing:
                    result.unattached.append(
                        Unattached(
                            join_ref(dataset, x), f"listed in {name!r} but not an item of {dataset}"
                        )
                    )
                continue
            ref = join_ref(dataset, pair[-1])
            common: dict[str, Any] = {
                "item": ref,
                "kind": kind,
                "label": name,
                "source": source,
                "status": status,
                "status_date": status_date,
            }
            if kind == "duplicate":
                others = [join_ref(dataset, x) for x in pair[:-1]]
                add(
                    Finding(
                        target="item",
                        related=others,
                        evidence=[*base_evidence, f"duplicate of {', '.join(others)}"],
                        **common,
                    )
                )
            elif name == "answer_format_wrong":
                fix = _option_fix(ref, options[pair[-1]], section)
                target = "item" if fix.index is None else "option"
                add(
                    Finding(
                        target=target,
                        option_index=fix.index,
                        proposed=fix.text,
                        evidence=[*base_evidence, *fix.evidence],
                        **common,
                    )
                )
            else:
                target = "category" if name in CATEGORY_LISTS else "item"
                add(Finding(target=target, evidence=base_evidence, **common))
    result.findings = list(found.values())
    result.counts = dict(sorted(counts.items()))
    result.kinds = dict(sorted(Counter(f.kind for f in result.findings).items()))
    if repeats:
        result.notes.append(
            f"{repeats} listed ids repeat an earlier entry (merged into one finding)"
        )
    unknown = sorted(set(doc) - set(LIST_KINDS))
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
    examples=("croissant-lineage findings import errata --lineage lineage/ --out errata.json",),
)
