"""The tables the library reads and writes, declared once.

Every Arrow schema of the package lives here, grouped by the stage that writes it:
the lineage folder (the output of ``croissant-lineage link``: items, edges,
duplicates, unmatched), findings (the findings table, the corrected keys), the audits
(snapshot changes; translation verification, groups and shifts) and the files written
beside an enriched descriptor (items, lineage; findings use :data:`FINDINGS_SCHEMA`).
The modules that build these tables import them from here (and re-export them under
the same names); ``schemas/*.schema.json`` documents them for other tools. An item is referred to as ``"{dataset}:{item}"`` (an *item ref*), e.g.
``mmlu-pro:3542`` or ``mmlu:college_chemistry/test/17``; the dataset name never
contains ``:``.
"""

from __future__ import annotations

from urllib.parse import quote

import pyarrow as pa

# The activity kinds are the family spec's vocabulary; the edges' ``activity`` column uses it.
from croissant_lineage.family.spec import ACTIVITIES, item_iri_prefix

__all__ = [
    "ACTIVITIES",
    "CHANGES_SCHEMA",
    "DUPLICATES_SCHEMA",
    "EDGES_SCHEMA",
    "FINDINGS_SCHEMA",
    "GROUPS_SCHEMA",
    "ITEMS_BASE_SCHEMA",
    "ITEMS_FILE_SCHEMA",
    "ITEMS_SCHEMA",
    "KEYS_SCHEMA",
    "LINEAGE_FILE_SCHEMA",
    "METHODS",
    "SHIFTS_SCHEMA",
    "TRANSLATION_COUNT_COLUMNS",
    "TRANSLATION_STATUSES",
    "UNMATCHED_SCHEMA",
    "VERIFICATION_SCHEMA",
    "conform",
    "item_iri",
    "item_iri_prefix",
    "join_ref",
    "split_ref",
]

#: How a child item was linked to its parent.
#: ``id``: a declared id column (e.g. ``question_id_src``, ``sample_id``);
#: ``index``: a row index within a subject; ``exact``: normalised stem (and options) equal;
#: ``fuzzy``: RapidFuzz score at or above the threshold; ``index+shift``: an index join
#: re-linked by a detected row shift (score: its evidence score; the declared parent is its
#: alternative); ``unverified``: an index join whose alignment is disproved and that no
#: shift explains (never followed as certain).
METHODS = ("id", "index", "exact", "fuzzy", "index+shift", "unverified")

ITEMS_SCHEMA = pa.schema([
    pa.field("dataset", pa.string(), nullable=False),
    pa.field("item", pa.string(), nullable=False),
    pa.field("subject", pa.string()),
    pa.field("stem", pa.string()),
    pa.field("options", pa.list_(pa.string())),
    pa.field("key", pa.string()),  # answer letter A, B, ... (None when the item has none)
    pa.field("source_file", pa.string()),  # data file, relative to the descriptor's base folder
    pa.field("source_row", pa.int64()),  # 0-based row within that file
    pa.field("record", pa.string()),  # the raw record as JSON (every field of the RecordSet)
    # Keys of any kind (lineage/keys.py); all null where the spec names no such key or role.
    pa.field("key_kind", pa.string()),  # the spec's key kind: option, text, number, set, tests (None: no key role)
    pa.field("key_text", pa.string()),  # text, number and set keys as written (after the spec's pattern)
    pa.field("key_value", pa.float64()),  # a number key's value ("1,000", "$18", "3/4", "1e3" read)
    pa.field("key_answers", pa.list_(pa.string())),  # a set key's acceptable answers
    pa.field("solution", pa.string()),  # a worked or reference solution (the key of a tests key)
    pa.field("tests", pa.string()),  # the tests that grade a solution (code items)
])

#: The columns of :data:`ITEMS_SCHEMA` that every items table has (an items table written
#: before the key columns existed has these alone; :func:`conform` adds the others).
ITEMS_BASE_SCHEMA = pa.schema(list(ITEMS_SCHEMA)[: ITEMS_SCHEMA.get_field_index("record") + 1])


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` in ``schema``: its nullable columns that ``table`` lacks added as nulls (an
    items table written before the key columns existed), the columns in schema order, cast."""
    missing = [f for f in schema if f.name not in table.column_names and f.nullable]
    for f in missing:
        table = table.append_column(f, pa.nulls(table.num_rows, f.type))
    if missing or table.column_names != schema.names:
        table = table.select([n for n in schema.names if n in table.column_names])
    return table.cast(schema)


EDGES_SCHEMA = pa.schema([
    pa.field("child_dataset", pa.string(), nullable=False),
    pa.field("child_item", pa.string(), nullable=False),
    pa.field("parent_dataset", pa.string(), nullable=False),
    pa.field("parent_item", pa.string(), nullable=False),
    pa.field("activity", pa.string(), nullable=False),  # one of ACTIVITIES
    pa.field("method", pa.string(), nullable=False),  # one of METHODS
    pa.field("score", pa.float64(), nullable=False),  # 0-100, stem similarity
    pa.field("options_score", pa.float64()),  # 0-100, share of parent options found in child
    pa.field("option_map", pa.list_(pa.int32())),  # per child option: parent option index, -1 if added
    pa.field("options_copied", pa.int32()),
    pa.field("options_added", pa.int32()),
    pa.field("options_dropped", pa.int32()),  # parent options absent from the child
    pa.field("key_inherited", pa.bool_()),  # child key text == parent key text (None: unknown)
    pa.field("stem_changed", pa.bool_()),  # normalised stems differ
    pa.field("ambiguous", pa.bool_()),  # several parents tied on the evidence
    pa.field("alternatives", pa.list_(pa.string())),  # the other tied parent items
    pa.field("text_repaired", pa.bool_()),  # ftfy repaired the encoding of either item's text (None: not compared)
    # What the edge did to each content (linking/content_status.py): copied, edited,
    # recomputed (key only), translated, added, dropped, absent (None: not comparable).
    pa.field("stem_status", pa.string()),
    pa.field("options_status", pa.string()),
    pa.field("key_status", pa.string()),
    pa.field("solution_status", pa.string()),
    pa.field("tests_status", pa.string()),
])

DUPLICATES_SCHEMA = pa.schema([
    pa.field("dataset", pa.string(), nullable=False),
    pa.field("item", pa.string(), nullable=False),
    pa.field("group", pa.string(), nullable=False),  # item id of the group's first member
    pa.field("parent_dataset", pa.string()),
    pa.field("parent_item", pa.string()),
    pa.field("size", pa.int32()),
])

UNMATCHED_SCHEMA = pa.schema([
    pa.field("child_dataset", pa.string(), nullable=False),
    pa.field("child_item", pa.string(), nullable=False),
    pa.field("parent_dataset", pa.string(), nullable=False),
    pa.field("best_parent_item", pa.string()),
    pa.field("best_score", pa.float64()),
    pa.field("reason", pa.string()),
])


# ---------------------------------------------------------------------------- findings

#: One row per finding (``croissant_lineage.findings.parquet``); written beside enriched
#: descriptors (``<stem>.findings.parquet``) and into a published dataset repository.
FINDINGS_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("item", pa.string(), nullable=False),  # item ref dataset:item
    pa.field("dataset", pa.string(), nullable=False),  # the item's dataset
    pa.field("item_iri", pa.string()),  # None when the dataset's IRI is not known
    pa.field("target", pa.string(), nullable=False),
    pa.field("option_index", pa.int32()),
    pa.field("kind", pa.string(), nullable=False),
    pa.field("proposed", pa.string()),
    pa.field("answers", pa.list_(pa.string())),
    pa.field("label", pa.string()),
    pa.field("related", pa.list_(pa.string())),
    pa.field("source_name", pa.string(), nullable=False),
    pa.field("source_url", pa.string()),
    pa.field("source_kind", pa.string()),
    pa.field("source_item", pa.string()),
    pa.field("evidence", pa.list_(pa.string())),
    pa.field("status", pa.string(), nullable=False),
    pa.field("status_date", pa.string()),
    pa.field("status_reason", pa.string()),
    pa.field("history", pa.string()),  # earlier statuses as a JSON list
    pa.field("position", pa.int64(), nullable=False),  # order in the findings given to the writer
])

#: Columns of the corrected key table (``croissant_lineage.findings.corrections``).
KEYS_SCHEMA = pa.schema(
    [
        pa.field("dataset", pa.string(), nullable=False),
        pa.field("item", pa.string(), nullable=False),
        pa.field("key", pa.string()),  # the corrected key letter (the original where unchanged)
        pa.field("original_key", pa.string()),
        pa.field("finding", pa.string()),  # the finding that changed it; null where unchanged
    ]
)

# ---------------------------------------------------------------------------- audits

#: Snapshot diff (``croissant_lineage.audits.history``): one row per item of either
#: snapshot (joined, added or removed).
CHANGES_SCHEMA = pa.schema([
    pa.field("old_item", pa.string()),  # None: item_added
    pa.field("new_item", pa.string()),  # None: item_removed
    pa.field("subject", pa.string()),
    pa.field("kinds", pa.list_(pa.string())),  # empty: unchanged
    pa.field("old_key", pa.string()),
    pa.field("new_key", pa.string()),
    pa.field("old_key_text", pa.string()),
    pa.field("new_key_text", pa.string()),
    pa.field("stem_score", pa.float64()),  # 0-100, normalised stem similarity
    pa.field("option_map", pa.list_(pa.int32())),  # per new option: old option index, -1 if added
    pa.field("old_options", pa.int32()),
    pa.field("new_options", pa.int32()),
])

#: Per-item statuses of a translation check (``croissant_lineage.audits.translations``,
#: which exports them as ``STATUSES``), best first.
TRANSLATION_STATUSES = (
    "verified",
    "consistent",
    "evidence_conflict",
    "options_differ",
    "key_differs",
    "misaligned",
    "no_key",
)

#: The count columns of :data:`GROUPS_SCHEMA`: joined items, one per status, key matches.
TRANSLATION_COUNT_COLUMNS = ("joined", *TRANSLATION_STATUSES, "key_match")

#: One row per verified translation join.
VERIFICATION_SCHEMA = pa.schema([
    pa.field("child_dataset", pa.string(), nullable=False),
    pa.field("child_item", pa.string(), nullable=False),
    pa.field("parent_dataset", pa.string(), nullable=False),
    pa.field("parent_item", pa.string(), nullable=False),
    pa.field("activity", pa.string()),
    pa.field("method", pa.string()),
    pa.field("language", pa.string()),
    pa.field("subject", pa.string()),
    pa.field("child_key", pa.string()),
    pa.field("parent_key", pa.string()),
    pa.field("key_match", pa.bool_()),  # None when a key is missing
    pa.field("child_options", pa.int32()),
    pa.field("parent_options", pa.int32()),
    pa.field("options_match", pa.bool_()),
    pa.field("evidence", pa.string()),  # "text" (same-language stem similarity), "tokens", None: none
    pa.field("evidence_tokens", pa.int32()),  # comparable tokens on the child side (tokens only)
    pa.field("evidence_score", pa.float64()),  # 0-100; None: no comparable evidence
    pa.field("status", pa.string(), nullable=False),  # one of TRANSLATION_STATUSES
    pa.field("best_shift", pa.int32()),  # 0 unless misaligned
    pa.field("realigned_parent", pa.string()),  # the parent item at best_shift
])

#: Translation counts per dataset, language and subject.
GROUPS_SCHEMA = pa.schema([
    pa.field("dataset", pa.string(), nullable=False),
    pa.field("parent_dataset", pa.string()),
    pa.field("activity", pa.string()),
    pa.field("language", pa.string()),
    pa.field("subject", pa.string()),
    *(pa.field(c, pa.int64()) for c in TRANSLATION_COUNT_COLUMNS),
    pa.field("shift", pa.int32()),  # detected index shift; None when aligned or undetermined
])

#: The row-index shift test of a translation, per dataset and subject.
SHIFTS_SCHEMA = pa.schema([
    pa.field("dataset", pa.string(), nullable=False),
    pa.field("parent_dataset", pa.string()),
    pa.field("subject", pa.string()),
    pa.field("items", pa.int64()),  # joined items whose parent id ends in a row index
    pa.field("comparable", pa.int64()),  # of those, items with evidence on the child side
    pa.field("tested", pa.bool_()),  # shifts tried (False: no shift could beat none clearly)
    pa.field("agree", pa.list_(pa.int64())),  # per shift of SHIFTS (empty if not tested): key and evidence agree
    pa.field("agree_at_zero", pa.int64()),
    pa.field("best_shift", pa.int32()),
    pa.field("agree_at_best", pa.int64()),
    pa.field("misaligned", pa.bool_()),
])

# ---------------------------------------------------------------------------- files beside a descriptor

#: ``<stem>.items.parquet`` beside an enriched descriptor (``croissant_lineage.enrich.files``).
ITEMS_FILE_SCHEMA = pa.schema([
    pa.field("ref", pa.string(), nullable=False),
    pa.field("dataset", pa.string(), nullable=False),
    pa.field("item", pa.string(), nullable=False),
    pa.field("iri", pa.string(), nullable=False),
    pa.field("subject", pa.string()),
    pa.field("stem", pa.string()),
    pa.field("options", pa.list_(pa.string())),
    pa.field("key", pa.string()),
    pa.field("key_kind", pa.string()),  # as in ITEMS_SCHEMA: the key's kind and a free-form key's reading
    pa.field("key_text", pa.string()),
    pa.field("key_value", pa.float64()),
    pa.field("key_answers", pa.list_(pa.string())),
    pa.field("source_file", pa.string()),
    pa.field("source_row", pa.int64()),
    pa.field("duplicate_group", pa.string()),
    pa.field("duplicate_parent_dataset", pa.string()),
    pa.field("duplicate_parent_item", pa.string()),
    pa.field("duplicate_size", pa.int32()),
])

#: ``<stem>.lineage.parquet`` beside an enriched descriptor: its datasets' edges.
LINEAGE_FILE_SCHEMA = pa.schema([
    pa.field("child", pa.string(), nullable=False),  # item ref dataset:item
    pa.field("child_iri", pa.string(), nullable=False),
    pa.field("parent", pa.string(), nullable=False),  # item ref dataset:item
    pa.field("parent_iri", pa.string(), nullable=False),
    pa.field("activity", pa.string(), nullable=False),
    pa.field("method", pa.string(), nullable=False),
    pa.field("score", pa.float64(), nullable=False),
    pa.field("options_score", pa.float64()),
    pa.field("option_map", pa.list_(pa.int32())),
    pa.field("options_copied", pa.int32()),
    pa.field("options_added", pa.int32()),
    pa.field("options_dropped", pa.int32()),
    pa.field("key_inherited", pa.bool_()),
    pa.field("stem_changed", pa.bool_()),
    pa.field("ambiguous", pa.bool_()),
    pa.field("alternatives", pa.list_(pa.string())),  # other tied parents, as item refs
    # what the edge did to each content, as in EDGES_SCHEMA
    pa.field("stem_status", pa.string()),
    pa.field("options_status", pa.string()),
    pa.field("key_status", pa.string()),
    pa.field("solution_status", pa.string()),
    pa.field("tests_status", pa.string()),
])


def join_ref(dataset: str, item: str) -> str:
    """``"{dataset}:{item}"``."""
    return f"{dataset}:{item}"


def split_ref(ref: str) -> tuple[str, str]:
    """Split an item ref at its first ``:`` into (dataset, item).

    Raises:
        ValueError: no ``:`` in ``ref``.
    """
    dataset, sep, item = ref.partition(":")
    if not sep or not dataset or not item:
        raise ValueError(f"item ref {ref!r} is not 'dataset:item' (e.g. mmlu-pro:3542)")
    return dataset, item


def item_iri(dataset_iri: str, item: str) -> str:
    """The IRI of an item: :func:`item_iri_prefix` of its dataset's IRI and the percent-encoded item id."""
    return f"{item_iri_prefix(dataset_iri)}{quote(item, safe='/:@-._~')}"
