"""File-system helpers: the input guard, atomic writes, deterministic table bytes, safe reads.

One package, four modules: :mod:`.guard` (what a command reads and may not replace: the
input guard), :mod:`.atomic` (files and folders written whole and swapped in, each output
replaced only under the one rule of :func:`replaceable`), :mod:`.formats` (Parquet and CSV
bytes) and :mod:`.reads` (encodings, JSON, YAML, paths kept inside a folder). Every public
name is importable from here.
"""

from __future__ import annotations

from croissant_lineage._io.atomic import (
    _exchange as _exchange,
)
from croissant_lineage._io.atomic import (
    _swap_in as _swap_in,
)
from croissant_lineage._io.atomic import (
    _write_errors as _write_errors,
)
from croissant_lineage._io.atomic import (
    atomic_folder,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    atomic_writer,
    check_writable_folder,
    dumps_json,
)
from croissant_lineage._io.formats import (
    _PARQUET_OPTIONS as _PARQUET_OPTIONS,
)
from croissant_lineage._io.formats import (
    FORMULA_STARTS,
    atomic_write_parquet,
    atomic_write_parquet_groups,
    csv_bytes,
    parquet_bytes,
)
from croissant_lineage._io.guard import (
    MAX_FOLDER_CHECK,
    check_output,
    dataset_of,
    input_guard,
    note_dataset,
    note_input,
    probing_outputs,
    register_dataset_finder,
)
from croissant_lineage._io.lock import output_lock
from croissant_lineage._io.outputs import OUTPUT_MANIFEST, mark_written, replaceable, written_here
from croissant_lineage._io.reads import (
    _YAML_LOADER as _YAML_LOADER,
)
from croissant_lineage._io.reads import (
    MAX_DEPTH,
    MAX_DOCUMENT_BYTES,
    MAX_STRAY_BYTES,
    MAX_YAML_CHARS,
    MAX_YAML_EXPANSION,
    DuplicateKeyError,
    YAMLLimitError,
    check_document_size,
    load_yaml,
    loads_json,
    read_json,
    read_text,
    resolve_inside,
)
from croissant_lineage._io.reads import (
    _CSafeLoader as _CSafeLoader,
)

__all__ = [
    "FORMULA_STARTS",
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "MAX_FOLDER_CHECK",
    "MAX_STRAY_BYTES",
    "MAX_YAML_CHARS",
    "MAX_YAML_EXPANSION",
    "OUTPUT_MANIFEST",
    "DuplicateKeyError",
    "YAMLLimitError",
    "atomic_folder",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_parquet",
    "atomic_write_parquet_groups",
    "atomic_write_text",
    "atomic_writer",
    "check_document_size",
    "check_output",
    "check_writable_folder",
    "csv_bytes",
    "dataset_of",
    "dumps_json",
    "input_guard",
    "load_yaml",
    "loads_json",
    "mark_written",
    "note_dataset",
    "note_input",
    "output_lock",
    "parquet_bytes",
    "probing_outputs",
    "read_json",
    "read_text",
    "register_dataset_finder",
    "replaceable",
    "resolve_inside",
    "written_here",
]
