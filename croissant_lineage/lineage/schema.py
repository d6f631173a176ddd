"""The tables the library reads and writes, declared once.

Every lineage folder (the output of ``croissant-lineage link``) holds Parquet files
with exactly these Arrow schemas; ``schemas/*.schema.json`` documents them for other
tools. An item is referred to as ``"{dataset}:{item}"`` (an *item ref*), e.g.
``mmlu-pro:3542`` or ``mmlu:college_chemistry/test/17``; the dataset name never
contains ``:``.
"""

from __future__ import annotations

from urllib.parse import quote

import pyarrow as pa

__all__ = [
    "ACTIVITIES",
    "DUPLICATES_SCHEMA",
    "EDGES_SCHEMA",
    "ITEMS_SCHEMA",
    "METHODS",
    "UNMATCHED_SCHEMA",
    "item_iri",
    "join_ref",
    "split_ref",
]

#: Activity kinds of a derivation (dataset level and item level).
ACTIVITIES = (
    "copy",
    "filter",
    "option_expansion",
    "re_release",
    "re_annotation",
    "translation",
    "snapshot",
)

#: How a child item was linked to its parent.
#: ``id``: a declared id column (e.g. ``question_id_src``, ``sample_id``);
#: ``index``: a row index within a subject; ``exact``: normalised stem (and options) equal;
#: ``fuzzy``: RapidFuzz score at or above the threshold.
METHODS = ("id", "index", "exact", "fuzzy")

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
])

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
    """The IRI of an item: its dataset's IRI, ``#``, and the percent-encoded item id."""
    return f"{dataset_iri.rstrip('#')}#{quote(item, safe='/:@-._~')}"
