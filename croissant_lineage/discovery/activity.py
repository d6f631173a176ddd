"""The activity of a discovered derivation, read from its edges and its contents.

:func:`guess_activity` names what a derivation did from the linker's edges and the
per-content comparison of the pairs (:func:`~croissant_lineage.discovery.content.compare_contents`);
:func:`pair_activity` runs both on one pair of datasets, so that single-dataset and
family discovery give one answer for the same pair. The activity names are declared once
here (:data:`PERTURBATION`, :data:`TEMPLATED_VARIANTS`, :data:`FORMAT_CONVERSION`,
:data:`CODE_TRANSLATION` and the spec's own).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pyarrow as pa

from croissant_lineage.discovery.content import ContentComparison, compare_contents, row_pairs
from croissant_lineage.lineage.items import LETTERS, key_letter
from croissant_lineage.linking.normalize import normalize_stem

__all__ = [
    "CODE_TRANSLATION", "FORMAT_CONVERSION", "PERTURBATION", "PROGRAMMING_LANGUAGES", "TEMPLATED_VARIANTS", "TRANSLATION",
    "added_key_changes", "guess_activity", "pair_activity", "positional_ids", "renamed_fields", "translation_activity",
]

#: Activity names discovery proposes beyond those it reads from the edges alone (one place to rename them).
PERTURBATION = "perturbation"
TEMPLATED_VARIANTS = "templated_variants"
FORMAT_CONVERSION = "format_conversion"
TRANSLATION = "translation"
CODE_TRANSLATION = "code_translation"
#: Declared languages that are programming languages (a translation between two is a code translation).
PROGRAMMING_LANGUAGES = frozenset({
    "c", "c#", "c++", "cpp", "csharp", "go", "golang", "java", "javascript", "js", "julia", "kotlin", "lua", "perl",
    "php", "python", "r", "ruby", "rust", "scala", "shell", "bash", "swift", "typescript", "ts",
})

#: A key column has at least this many key-like values.
_MIN_VALUES = 3
#: Activity thresholds (shares of the pair's edges or of the parent's items).
_MOST = 0.5
_SOME = 0.01
_ALL = 0.95
#: Templated variants: at least this many child items per parent item reached, on average.
_VARIANTS = 2.0
_TRAILING_NUMBER = re.compile(r"(\d+)$")


def translation_activity(child_language: str | None, parent_language: str | None) -> str:
    """``code_translation`` when both declared languages are programming languages, else ``translation``."""
    langs = {str(x).lower() for x in (child_language, parent_language)}
    return CODE_TRANSLATION if None not in (child_language, parent_language) and langs <= PROGRAMMING_LANGUAGES else TRANSLATION


def positional_ids(table: pa.Table) -> bool:
    """True when the items' ids are their row numbers (``{_row}``, ``{_file}/{_row}``): on >= 95 %
    of the items the id's trailing number is the item's row in its file. Such ids name
    positions, not items: two tables sharing them share an order, not an identity."""
    if table.num_rows == 0 or "source_row" not in table.column_names:
        return False
    rows = table.column("source_row").to_pylist()
    hits = 0
    for item, row in zip(table.column("item").to_pylist(), rows, strict=True):
        m = _TRAILING_NUMBER.search(str(item))
        hits += m is not None and row is not None and int(m.group(1)) == row
    return hits >= _ALL * table.num_rows


def guess_activity(
    edges: pa.Table, child_items: int, parent_items: int, *, rekeyed: int = 0,
    content: ContentComparison | None = None, positional: bool = False, renamed: bool = False,
) -> tuple[str, dict[str, int]]:
    """The activity a pair's edges and contents point to, and the counts that support it.

    In order: ``snapshot`` (>= 95 % of edges join items of the same id, ids that are not row
    numbers (``positional``), and >= 95 % of the parent's items are reached: a subset with
    the same ids is a filter), :data:`TEMPLATED_VARIANTS` (at least two child items per
    parent item reached, stems edited on most edges: new options with them are no option
    expansion), ``option_expansion`` (options added on most edges, the parent's kept on
    most: options replaced are recomputed, not expanded), :data:`PERTURBATION` (stems whose numbers alone changed on >= 1 %
    of the edges, more than stems edited otherwise), ``re_annotation`` (keys changed, or
    re-keyed in an added column (``rekeyed``, :func:`added_key_changes`), or solutions edited
    or tests added or removed (``answers_edited``), on >= 1 % of edges), ``re_release`` (stems edited on
    >= 1 %), :data:`FORMAT_CONVERSION` for a subset
    too when every field added holds an item content (``renamed``: the same contents under
    new names, :func:`renamed_fields`), ``filter`` (< 95 % of the parent's items reached),
    :data:`FORMAT_CONVERSION` (record fields added or dropped on most items: the same items in
    another layout), else ``copy``.

    Args:
        edges: The pair's edges (EDGES_SCHEMA).
        child_items, parent_items: Item counts of the two datasets.
        rekeyed: Linked child items whose key, in a column the parent does not have,
            names another answer than the parent's key (:func:`added_key_changes`);
            counted as ``key_changed_added_column``.
        content: The per-content comparison of the edges' pairs (None: not compared).
        positional: The child's ids are row numbers (:func:`positional_ids`).
        renamed: Every field the child added holds an item content (:func:`renamed_fields`).

    Returns:
        ``(activity, counts)``.
    """
    n = edges.num_rows
    cols = {c: edges.column(c).to_pylist() for c in ("stem_changed", "options_added", "options_dropped", "key_inherited", "child_item", "parent_item", "ambiguous")}
    counts = {
        "edges": n,
        "exact_stem": sum(1 for v in cols["stem_changed"] if v is False),
        "stem_edited": sum(1 for v in cols["stem_changed"] if v is True),
        "options_added": sum(1 for v in cols["options_added"] if v),
        "options_dropped": sum(1 for v in cols["options_dropped"] if v),
        "key_changed": sum(1 for v in cols["key_inherited"] if v is False),
        "key_inherited": sum(1 for v in cols["key_inherited"] if v is True),
        "same_id": sum(1 for c, p in zip(cols["child_item"], cols["parent_item"], strict=True) if c == p),
        "ambiguous": sum(1 for v in cols["ambiguous"] if v),
        "parents_reached": len(set(cols["parent_item"])),
        "key_changed_added_column": rekeyed,
    }
    if positional:
        counts["ids_are_rows"] = 1
    recomputed = edited = 0
    fields_changed: list[str] = []
    if content is not None:
        recomputed, edited = content.count("stem", "recomputed"), content.count("stem", "edited")
        counts["stem_recomputed"] = recomputed
        counts["key_recomputed"] = content.count("key", "recomputed")
        # solutions edited, or tests added or removed (tests rewritten whole may be another harness: a format)
        counts["answers_edited"] = (content.count("solution", "edited") + content.count("tests", "expanded")
                                    + content.count("tests", "contracted"))
        fields_changed = content.fields_with("added") + content.fields_with("dropped")
        counts["fields_added_or_dropped"] = len(fields_changed)
        if fields_changed and renamed:
            counts["fields_renamed"] = 1
    return _activity(counts, n, parent_items, recomputed, edited, bool(fields_changed), positional,
                     renamed and bool(fields_changed)), counts


def _activity(counts: dict[str, int], n: int, parent_items: int, recomputed: int, edited: int,
              fields_changed: bool, positional: bool, renamed: bool = False) -> str:
    if n == 0:
        return "copy"
    reached = counts["parents_reached"]
    if counts["same_id"] >= _ALL * n and reached >= _ALL * parent_items and not positional:
        return "snapshot"
    if n >= _VARIANTS * reached and counts["stem_edited"] >= _MOST * n:
        return TEMPLATED_VARIANTS
    if counts["options_added"] >= _MOST * n and counts["options_dropped"] < _MOST * n:
        return "option_expansion"
    if recomputed >= max(_MIN_VALUES, _SOME * n) and recomputed > edited:
        return PERTURBATION
    if counts["key_changed"] + counts["key_changed_added_column"] + counts.get("answers_edited", 0) >= _SOME * n:
        return "re_annotation"
    if counts["stem_edited"] >= _SOME * n:
        return "re_release"
    if renamed:
        return FORMAT_CONVERSION
    if reached < _ALL * parent_items:
        return "filter"
    if fields_changed:
        return FORMAT_CONVERSION
    return "copy"


def pair_activity(edges: pa.Table, child: pa.Table, parent: pa.Table, *, reference: str | None = None,
                  ) -> tuple[str, dict[str, int], ContentComparison]:
    """The activity of one (child, parent) pair from its edges: the added key columns, the
    per-content comparison and :func:`guess_activity`; the one path both discovery modes take.
    ``reference``: the child's field naming its parent items (not a content)."""
    rekeyed, _ = added_key_changes(edges, child, parent)
    pairs = row_pairs(edges, child, parent)
    content = compare_contents(pairs, child, parent)
    added = [f.removeprefix("field:") for f in content.fields_with("added")]
    renamed = bool(added) and renamed_fields(child, [i for i, _ in pairs], [f for f in added if f != reference])
    activity, counts = guess_activity(edges, child.num_rows, parent.num_rows, rekeyed=rekeyed, content=content,
                                      positional=positional_ids(child), renamed=renamed)
    return activity, counts, content


def _number(value: Any) -> float | None:
    try:
        return float(str(value).replace(",", "").lstrip("$"))
    except ValueError:
        return None


def renamed_fields(table: pa.Table, rows: list[int], fields: list[str]) -> bool:
    """True when each of ``fields`` holds, on most of ``rows``, one of the item's contents
    (its stem, an option, its key (text or value), its solution or its tests): fields that
    renamed contents, not new annotations (a label, a category)."""
    if not rows:
        return False
    cols = {c: table.column(c).to_pylist() if c in table.column_names else [None] * table.num_rows
            for c in ("record", "stem", "options", "key", "key_text", "key_value", "key_answers", "solution", "tests")}
    cols["answers"] = cols.pop("key_answers")
    held = dict.fromkeys(fields, 0)
    for r in rows:
        record = json.loads(cols["record"][r] or "{}")
        texts = {normalize_stem(str(cols[c][r])) for c in ("stem", "key", "key_text", "solution", "tests") if cols[c][r] is not None}
        options = [str(o) for o in cols["options"][r] or []]
        texts |= {normalize_stem(o) for o in options} | ({normalize_stem("\n".join(options))} if options else set())
        answers = sorted(normalize_stem(str(a)) for a in cols["answers"][r] or [])
        for f in fields:
            v = record.get(f)
            if v is None:
                continue
            if isinstance(v, list):
                v = "\n".join(str(x) for x in v)
            number, value = _number(v), cols["key_value"][r]
            parts = sorted(normalize_stem(p) for p in re.split(r"\s*[|;]\s*", str(v)))
            same_number = number is not None and value is not None and abs(number - value) <= 1e-9 * max(1.0, abs(number))
            if normalize_stem(str(v)) in texts or (answers and parts == answers) or same_number:
                held[f] += 1
    return all(n >= _MOST * len(rows) for n in held.values())


def _key_text(value: Any, options: list[str] | None) -> str | None:
    """The option a key value names (a letter or a 0-based index), or None."""
    if value is None or isinstance(value, bool) or not options:
        return None
    letter = key_letter(value, "index", None) if str(value).strip().isdigit() else key_letter(value, "letter", None)
    if letter is None or LETTERS.index(letter) >= len(options):
        return None
    return normalize_stem(options[LETTERS.index(letter)])


def _column_keys(records: list[dict[str, Any]], col: str, options: list[list[str] | None]) -> list[tuple[int, str]] | None:
    """``(pair, option text)`` of each set value of ``col`` that reads as a key, or None when
    the column is not a key column (fewer than :data:`_MIN_VALUES` such values, or under half
    of its set values)."""
    values = [(n, r[col]) for n, r in enumerate(records) if r.get(col) not in (None, "", "None", "nan")]
    read = [(n, k) for n, v in values if (k := _key_text(v, options[n])) is not None]
    return read if len(read) >= _MIN_VALUES and len(read) >= _MOST * len(values) else None


def _parent_key_text(options: list[str] | None, key: str | None) -> str | None:
    if not options or key is None or key not in LETTERS or LETTERS.index(key) >= len(options):
        return None
    return normalize_stem(options[LETTERS.index(key)])


def added_key_changes(edges: pa.Table, child: pa.Table, parent: pa.Table) -> tuple[int, list[str]]:
    """Linked child items re-keyed in a column the parent does not have.

    A re-annotation often keeps the source's key and adds its verdict beside it (MMLU-Redux:
    ``correct_answer``). A child record field absent from the parent's records is a *key
    column* when, on the linked items, at least :data:`_MIN_VALUES` of its set values, and at
    least half of them, read as a key (a letter or a 0-based index naming one of the item's
    options). An item counts when a key column names an option whose text differs from the
    text of the parent item's key.

    Args:
        edges: The pair's edges (EDGES_SCHEMA).
        child, parent: Item tables of the two datasets (with their ``record`` JSON).

    Returns:
        ``(items re-keyed, the key columns found)``.
    """
    pairs = row_pairs(edges, child, parent)
    if not pairs:
        return 0, []
    precs, crecs = parent.column("record"), child.column("record")
    parent_fields: set[str] = set()
    for _, j in pairs[:200]:
        parent_fields.update(json.loads(precs[j].as_py() or "{}"))
    records = [json.loads(crecs[i].as_py() or "{}") for i, _ in pairs]
    copts, popts, pkeys = child.column("options").to_pylist(), parent.column("options").to_pylist(), parent.column("key").to_pylist()
    options = [copts[i] for i, _ in pairs]
    parent_keys = [_parent_key_text(popts[j], pkeys[j]) for _, j in pairs]
    changed: set[int] = set()
    columns = []
    for col in sorted({k for r in records for k in r} - parent_fields):
        read = _column_keys(records, col, options)
        if read is None:
            continue
        columns.append(col)
        changed.update(n for n, k in read if parent_keys[n] is not None and k != parent_keys[n])
    return len(changed), columns

