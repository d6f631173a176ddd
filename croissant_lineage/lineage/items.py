"""Loading a dataset's items into one columnar table.

:func:`load_items` reads a dataset's RecordSet through its Croissant descriptor (see
:mod:`croissant_lineage.croissant.records`) and maps the fields named by the family spec's roles
onto the item table of :data:`croissant_lineage.lineage.schema.ITEMS_SCHEMA`: dataset, item id,
subject, stem, options, key (as a letter), the file and row it came from, the raw
record as JSON (built column by column: :mod:`croissant_lineage.lineage.records_json`), and
keys of the other kinds, solutions and tests (:mod:`croissant_lineage.lineage.keys`).
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.croissant.descriptor import Descriptor, read_descriptor
from croissant_lineage.croissant.hf_datasets import read_hub_dataset
from croissant_lineage.croissant.hub import descriptor_for
from croissant_lineage.croissant.hub_files import local_copy
from croissant_lineage.croissant.records import FILE_COLUMN, ROW_COLUMN, read_record_set
from croissant_lineage.errors import DataError, InputError, SpecError
from croissant_lineage.family.spec import DatasetSpec
from croissant_lineage.lineage import roles_columnar
from croissant_lineage.lineage.keys import read_keys
from croissant_lineage.lineage.packed_records import CHUNK_ROWS, PackedRecords
from croissant_lineage.lineage.records_json import filter_where, records_json
from croissant_lineage.lineage.schema import ITEMS_SCHEMA
from croissant_lineage.lineage.shape import LETTERS, key_problem, options_problem

__all__ = ["DATA_DIR_HINT", "LETTERS", "evaluate", "index_problem", "key_letter", "load_items", "load_items_packed"]

#: What to do when a data folder is needed and none was given (names the CLI flag).
DATA_DIR_HINT = "pass data_dir (on the command line: --data-dir DIR)"

_TEMPLATE = re.compile(r"\{([^{}]+)\}")

#: Evaluate roles over whole columns (:mod:`.roles_columnar`) where it can. False runs the
#: plain-Python reference alone (the tests compare the two).
COLUMNAR = True


def _as_text(value: Any) -> str | None:
    if type(value) is str:  # the common case, first
        return value
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _parse_list(value: Any, how: str) -> list[Any] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return value
    text = str(value)
    try:
        parsed = ast.literal_eval(text) if how == "python_list" else json.loads(text)
    except (ValueError, SyntaxError, json.JSONDecodeError):
        return None
    return list(parsed) if isinstance(parsed, (list, tuple)) else None


def evaluate(expr: Any, columns: Mapping[str, list[Any]], n: int, where: str = "") -> list[Any]:
    """Evaluate a role expression (see :mod:`croissant_lineage.family.spec`) over columns.

    Args:
        expr: Field name, template, ``{"field", "regex"|"parse"}`` object, or list of fields.
        columns: Column name -> values (all the same length ``n``).
        n: Row count.
        where: Context for error messages.

    Returns:
        One value per row (a list per row for list expressions).

    Raises:
        SpecError: the expression names a field that is not there.
    """

    def col(name: str) -> list[Any]:
        if name not in columns:
            raise SpecError(
                f"{where}names field {name!r}, which the RecordSet does not have",
                hint=f"fields are: {', '.join(sorted(c for c in columns if not c.startswith('_')))}",
            )
        return columns[name]

    if isinstance(expr, list):
        cols = [col(c) for c in expr]
        return [[_as_text(c[i]) for c in cols] for i in range(n)]
    if isinstance(expr, dict):
        values = col(expr["field"])
        if "parse" in expr:
            return [_parse_list(v, expr["parse"]) for v in values]
        if "regex" in expr:
            rx = re.compile(expr["regex"])
            template = expr.get("replace")
            out: list[Any] = []
            for v in values:
                m = rx.search(_as_text(v) or "") if v is not None else None
                if m is None:
                    out.append(None)
                elif template is not None:
                    out.append(m.expand(template))
                else:
                    out.append(m.group(1) if m.groups() else m.group(0))
            return out
        return values
    if isinstance(expr, str) and _TEMPLATE.search(expr):
        named = {name: col(name) for name in _TEMPLATE.findall(expr)}

        def render(i: int) -> str:
            return _TEMPLATE.sub(lambda m: _as_text(named[m.group(1)][i]) or "", str(expr))

        return [render(i) for i in range(n)]
    return col(str(expr))


def _trim_padding(values: list[str | None], raw_key: Any, key_format: str) -> list[str]:
    """Options without their null padding (MMLU-ProX's ``option_9`` and the like).

    Trailing nulls are padding and dropped, except up to the option the key points at:
    a null *there* is an option whose text was lost (Global-MMLU's subset stores the
    option "None" as null), kept as ``""`` so the key still names it. Nulls between
    options are kept as ``""`` too, so letters never shift.
    """
    if None not in values:  # the common case: nothing to trim
        return cast("list[str]", values)
    end = max((i + 1 for i, v in enumerate(values) if v is not None), default=0)
    if key_format in ("letter", "index") and raw_key is not None:
        letter = key_letter(raw_key, key_format, None)
        if letter is not None:
            end = max(end, min(len(values), LETTERS.index(letter) + 1))
    return [v or "" for v in values[:end]]


def key_letter(value: Any, key_format: str, options: list[str] | None) -> str | None:
    """Normalise a key to a letter: ``"B"``, ``1`` (index) or an option's text -> ``"B"``.

    Returns None when the key is missing or cannot be read as that format (the item
    loader refuses an ``index`` key that is not an option index: :func:`index_problem`).
    """
    letter = _key_letter(value, key_format, options)
    return None if letter is None or letter.startswith(_BAD_INDEX) else letter


#: What :func:`_key_letter` gives for an ``index`` key that is not an option index,
#: followed by the key's text: never a letter, so no reader takes it for one.
_BAD_INDEX = "?"


def _key_letter(value: Any, key_format: str, options: list[str] | None) -> str | None:
    """:func:`key_letter`, but an ``index`` key that is present and not an integer from 0
    to 25 (``-1``, ``1.5``, ``2**62``, ``"two"``) gives ``"?"`` and its text, which
    :func:`index_problem` refuses, instead of None (a key silently dropped)."""
    if value is None:
        return None
    if key_format == "index":
        idx = _index_of(value)
        if idx is None:
            text = str(value).strip()
            return _BAD_INDEX + text[:40] if text else None
        return LETTERS[idx]
    if key_format == "text":
        if options and str(value) in options:
            return LETTERS[options.index(str(value))]
        return None
    text = str(value).strip().upper()
    return text if len(text) == 1 and text in LETTERS else None


def _index_of(value: Any) -> int | None:
    """An option index from 0 to 25 (an integer, an integral float, or the text of an
    integer), or None when ``value`` is none of those."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        idx = int(value) if value.is_integer() else None
    elif isinstance(value, int):
        idx = value
    else:
        text = str(value).strip()
        idx = int(text) if _INTEGER.fullmatch(text) else None
    return idx if idx is not None and 0 <= idx < len(LETTERS) else None


_INTEGER = re.compile(r"[+-]?[0-9]{1,20}")


def index_problem(key: str | None) -> str | None:
    """Why a key read under ``key_format: index`` is refused (not an integer from 0 to
    25), or None when it is a letter or missing."""
    if key is None or not key.startswith(_BAD_INDEX):
        return None
    return f"index key {key[1:]!r} is not an option index (an integer from 0 to {len(LETTERS) - 1})"


def load_items(
    spec: DatasetSpec,
    *,
    data_dir: str | Path | None = None,
    allow_outside: bool = False,
    records: pa.Table | None = None,
) -> pa.Table:
    """Load one dataset's items into a table with :data:`ITEMS_SCHEMA`.

    Args:
        spec: The dataset's entry in the family spec. A Hub dataset id given as its
            descriptor is fetched (descriptor and the files it includes) through
            ``huggingface_hub`` (or, with ``"loader": "datasets"``, read with
            ``datasets.load_dataset``, which honours ``HF_HUB_OFFLINE`` and its cache):
            the only case in which loading touches the network.
        data_dir: Folder the descriptor's relative file URLs resolve against when the
            spec says ``files_relative_to_data_dir`` (the shipped MMLU family does;
            then it is required).
        allow_outside: Allow file URLs that leave that folder.
        records: The dataset's records already read (a table as
            :func:`~croissant_lineage.croissant.records.read_record_set` returns it, e.g.
            one shard of its files, as the Beam pipeline reads them); None reads them.

    Returns:
        The item table, in file order.

    Raises:
        SpecError: a role names a missing field, or the dataset has no descriptor.
        DataError: duplicate item ids, or data that does not match the descriptor.
        InputError, DescriptorError: unreadable descriptor or data files, or no
            ``data_dir`` for files relative to one.
    """
    return _items_table(spec, records if records is not None else _read_records(spec, data_dir, allow_outside))


def load_items_packed(
    spec: DatasetSpec, *, data_dir: str | Path | None = None, allow_outside: bool = False
) -> tuple[pa.Table, PackedRecords]:
    """:func:`load_items` with the raw records held apart, compressed (what the linker
    keeps until the lineage is written: a third of their bytes).

    Returns:
        The item table with its ``record`` column all null, and that column's values.
    """
    table, packed = _item_columns(spec, _read_records(spec, data_dir, allow_outside), packed=True)
    assert packed is not None
    return table, packed


def _read_records(spec: DatasetSpec, data_dir: str | Path | None, allow_outside: bool) -> pa.Table:
    """The dataset's RecordSet as a table (see :func:`load_items`)."""
    if spec.hub_id is not None and spec.loader == "datasets":
        return read_hub_dataset(spec.hub_id, spec.record_set)
    return read_record_set(_descriptor(spec, data_dir), spec.record_set, allow_outside=allow_outside)


def _packed_records(table: pa.Table) -> PackedRecords:
    """:func:`records_json` of ``table``, built and compressed a part at a time."""
    return PackedRecords(records_json(table.slice(s, CHUNK_ROWS)) for s in range(0, table.num_rows, CHUNK_ROWS))


def _items_table(spec: DatasetSpec, table: pa.Table) -> pa.Table:
    """The item table of a RecordSet's table (with its ``_file`` and ``_row`` columns)."""
    return _item_columns(spec, table)[0]


def _item_columns(spec: DatasetSpec, table: pa.Table, *, packed: bool = False) -> tuple[pa.Table, PackedRecords | None]:
    """The item table of a RecordSet's table (with its ``_file`` and ``_row`` columns); with
    ``packed``, its ``record`` column all null and the records apart, compressed."""
    if spec.where:
        table = filter_where(table, spec.where, _as_text)
    columns = _Columns(table)
    n = table.num_rows
    ids = _text_role(spec, "id", table, columns)
    stems = _text_role(spec, "stem", table, columns)
    subjects = _text_role(spec, "subject", table, columns) if "subject" in spec.roles else pa.nulls(n, pa.string())
    option_spec = spec if spec.key_kind in (None, "option") else replace(spec, roles={k: v for k, v in spec.roles.items() if k != "key"})
    options, keys = _columnar_options_and_keys(option_spec, table, columns)
    key_columns = _key_columns(spec, columns, n)
    if roles_columnar.ids_problem(ids):
        _check_ids(spec, ids.to_pylist())
    records = _packed_records(table) if packed else None
    return pa.table(
        {
            "dataset": [spec.name] * n,
            "item": ids,
            "subject": subjects,
            "stem": stems,
            "options": options,
            "key": keys,
            "source_file": table.column(FILE_COLUMN).combine_chunks(),
            "source_row": table.column(ROW_COLUMN).combine_chunks(),
            "record": pa.nulls(n, pa.string()) if packed else records_json(table),
            **key_columns,
        },
        schema=ITEMS_SCHEMA,
    ), records


def _key_columns(spec: DatasetSpec, columns: Mapping[str, list[Any]], n: int) -> dict[str, pa.Array]:
    """The typed key columns (:mod:`.keys`): kind, text, value, answers, solution, tests."""
    def role(name: str) -> list[Any] | None:
        return _role(spec, name, columns, n) if name in spec.roles else None

    free = spec.key_kind not in (None, "option")
    return read_keys(
        spec.key_kind,
        n=n,
        raw_keys=role("key") if free else None,
        solutions=role("solution"),
        tests=role("tests"),
        pattern=spec.key_pattern,
        separator=spec.key_separator,
        as_text=_as_text,
    )


def _descriptor(spec: DatasetSpec, data_dir: str | Path | None) -> Descriptor:
    """The dataset's descriptor: fetched from the Hub, or read from the spec's path."""
    if spec.hub_id is not None:
        desc = read_descriptor(descriptor_for(spec.hub_id))
        desc.base_dir = local_copy(desc, spec.hub_id)
        return desc
    if spec.descriptor is None:
        raise SpecError(f"dataset {spec.name!r} has no descriptor (documented coverage only)")
    if spec.files_relative_to_data_dir and data_dir is None:
        raise InputError(
            f"the files of dataset {spec.name!r} are relative to a data folder, and none was given",
            hint=DATA_DIR_HINT,
        )
    base = Path(data_dir) if (spec.files_relative_to_data_dir and data_dir is not None) else None
    return read_descriptor(spec.descriptor, base_dir=base)


class _Columns(Mapping[str, list[Any]]):
    """A table's columns as Python lists, each converted on first use (the roles read a
    few of a RecordSet's columns; the records' JSON is built from the table itself)."""

    def __init__(self, table: pa.Table):
        self._table = table
        self._lists: dict[str, list[Any]] = {}

    def __getitem__(self, name: str) -> list[Any]:
        values = self._lists.get(name)
        if values is None:
            if name not in self._table.column_names:
                raise KeyError(name)
            values = self._lists[name] = self._table.column(name).to_pylist()
        return values

    def __contains__(self, name: object) -> bool:
        return name in self._table.column_names

    def __iter__(self) -> Iterator[str]:
        return iter(self._table.column_names)

    def __len__(self) -> int:
        return self._table.num_columns


def _role(spec: DatasetSpec, name: str, columns: Mapping[str, list[Any]], n: int) -> list[Any]:
    """The values of one role of the dataset, one per row."""
    try:
        return evaluate(spec.roles[name], columns, n, f"dataset {spec.name!r}: role ")
    except SpecError as exc:  # name the descriptor whose RecordSet lacks the field
        raise SpecError(exc.message, path=spec.descriptor, hint=exc.hint) from None


def _text_role(spec: DatasetSpec, name: str, table: pa.Table, columns: Mapping[str, list[Any]]) -> pa.Array:
    """A text role's values: over whole columns where :mod:`.roles_columnar` can, else by
    :func:`evaluate` (which raises the errors)."""
    values = roles_columnar.text_role(spec.roles[name], table, _as_text) if COLUMNAR else None
    if values is not None:
        return values
    return pa.array([_as_text(v) for v in _role(spec, name, columns, table.num_rows)], pa.string())


def _columnar_options_and_keys(
    spec: DatasetSpec, table: pa.Table, columns: Mapping[str, list[Any]]
) -> tuple[pa.Array | list[list[str] | None], pa.Array | list[str | None]]:
    """Options and key letters over whole columns where :mod:`.roles_columnar` can, else
    by :func:`_options_and_keys` (which raises the errors)."""
    if COLUMNAR and spec.key_format != "text":
        fmt = spec.key_format
        fast = roles_columnar.options_and_keys(
            spec.roles.get("options"),
            spec.roles.get("key"),
            table,
            _as_text,
            lambda v: _key_letter(v, fmt, None),
            lambda v: _parse_list(v, "python_list"),
        )
        if fast is not None and not (fmt == "index" and pc.any(pc.starts_with(fast[1], _BAD_INDEX)).as_py()):
            return fast
    return _options_and_keys(spec, columns, table.num_rows)


def _options_and_keys(
    spec: DatasetSpec, columns: Mapping[str, list[Any]], n: int
) -> tuple[list[list[str] | None], list[str | None]]:
    """Options (as text, padding trimmed) and key letters per row; None where absent."""
    raw_keys = _role(spec, "key", columns, n) if "key" in spec.roles else [None] * n
    options: list[list[str] | None]
    if "options" in spec.roles:
        raw = _role(spec, "options", columns, n)
        _refuse(spec, columns, (options_problem(o) for o in raw))
        options = [
            None if o is None else _trim_padding([_as_text(x) for x in o], k, spec.key_format)
            for o, k in zip(raw, raw_keys, strict=True)
        ]
    else:
        options = [None] * n
    keys = [_key_letter(k, spec.key_format, o) for k, o in zip(raw_keys, options, strict=True)]
    _refuse(spec, columns, (index_problem(k) for k in keys))
    _refuse(spec, columns, (key_problem(o, k) for o, k in zip(options, keys, strict=True)))
    return options, keys


def _refuse(spec: DatasetSpec, columns: Mapping[str, list[Any]], problems: Any) -> None:
    """Raise DataError for the first record with a problem (see :mod:`.shape`)."""
    for row, problem in enumerate(problems):
        if problem is not None:
            file, line = columns[FILE_COLUMN][row], columns[ROW_COLUMN][row]
            raise DataError(f"dataset {spec.name!r}, {file} row {line}: {problem}", path=spec.descriptor)


def _check_ids(spec: DatasetSpec, ids: list[str | None]) -> None:
    """Raise :class:`DataError` when an item has no id or two items share one."""
    missing = [i for i, x in enumerate(ids) if not x]
    if missing:
        raise DataError(
            f"dataset {spec.name!r}: {len(missing)} items have no id (first at row {missing[0]})",
            path=spec.descriptor,
        )
    dupes = [i for i, c in Counter(ids).items() if c > 1 and i is not None]
    if dupes:
        raise DataError(
            f"dataset {spec.name!r}: {len(dupes)} duplicate item ids (e.g. {sorted(str(d) for d in dupes)[0]!r})",
            path=spec.descriptor,
            hint="make the id role unique, e.g. add the file or row to its template",
        )
