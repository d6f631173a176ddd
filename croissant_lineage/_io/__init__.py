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
from croissant_lineage._io.guard import check_output, input_guard, note_input, probing_outputs
from croissant_lineage._io.reads import (
    _YAML_LOADER as _YAML_LOADER,
)
from croissant_lineage._io.reads import (
    MAX_DEPTH,
    MAX_STRAY_BYTES,
    MAX_YAML_CHARS,
    MAX_YAML_EXPANSION,
    YAMLLimitError,
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
    "MAX_STRAY_BYTES",
    "MAX_YAML_CHARS",
    "MAX_YAML_EXPANSION",
    "YAMLLimitError",
    "atomic_folder",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_parquet",
    "atomic_write_parquet_groups",
    "atomic_write_text",
    "atomic_writer",
    "check_output",
    "check_writable_folder",
    "csv_bytes",
    "dumps_json",
    "input_guard",
    "load_yaml",
    "loads_json",
    "note_input",
    "parquet_bytes",
    "probing_outputs",
    "read_json",
    "read_text",
    "resolve_inside",
]
