"""One text field of many JSON records, read by pyarrow's JSON reader: what
:func:`json.loads` of each record gives, or None where the reader cannot be trusted to.

A link rule's field (``src``, or the record's own ``subject``) was read by parsing every
record with :func:`json.loads` (0.5 s on the MMLU family). :func:`read_field` parses a
part of records at once in C and keeps its answer only where it is the standard library's:

* every record is one non-empty JSON object on its line (no null or empty record, no
  control character, so no raw line break; the reader's row count must be the records'),
  and no ``\\uD800``-``\\uDFFF`` escape (the reader refuses or re-pairs surrogates);
* every record's keys are among the first record's (then the names, in order of first
  appearance, are the first record's in its order; a key twice in a record is the
  reader's error);
* the field's column is of strings or all null: a JSON string decodes to the same text in
  both, a missing key or ``null`` is None in both (numbers, timestamps the reader infers
  from dates, lists and objects are left to the standard library).

Otherwise (or when the reader fails) the answer is None and the caller parses each record.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pjson

__all__ = ["read_field"]

#: What sends a part to the standard library before it is parsed: a control character
#: (a raw line break among them) or an escaped surrogate.
_UNSAFE = r"[\x00-\x1f]|\\[uU][dD][89a-fA-F]"


def read_field(chunks: Iterable[pa.Array], key: str) -> tuple[dict[str, None], list[str | None]] | None:
    """The records' keys and the values of ``key`` (None where a record lacks it).

    Args:
        chunks: The records' JSON texts as ``string`` arrays, in order.
        key: The field asked for.

    Returns:
        ``(names, values)`` as parsing each record with :func:`json.loads` gives them
        (``names``: every key of every record in order of first appearance), or None when
        the reader's answer might differ from it (see the module docstring).
    """
    first: list[str] | None = None
    values: list[str | None] = []
    for chunk in chunks:
        if not len(chunk):
            continue
        table = _read(chunk)
        if table is None:
            return None
        if first is None:
            first = list(json.loads(chunk[0].as_py()))
        if not set(table.column_names) <= set(first):
            return None
        if key in table.column_names:
            column = table.column(key)
            if column.type not in (pa.string(), pa.null()):
                return None
            values.extend(column.to_pylist())
        elif key in first:  # no record of this part has it (an earlier part's record does)
            values.extend([None] * len(chunk))
    return dict.fromkeys(first or ()), values


def _read(chunk: pa.Array) -> pa.Table | None:
    """The records of ``chunk`` as one table, or None (see the module docstring)."""
    if chunk.type != pa.string() or chunk.null_count:
        return None
    if pc.any(pc.equal(chunk, "")).as_py() or pc.any(pc.match_substring_regex(chunk, _UNSAFE)).as_py():
        return None
    lines = pc.binary_join_element_wise(chunk, "", "\n")  # each record and a line break
    offsets = np.frombuffer(lines.buffers()[1], np.int32, len(lines) + 1, lines.offset * 4)
    start, end = int(offsets[0]), int(offsets[-1])
    data = lines.buffers()[2].slice(start, end - start)
    try:
        table = pjson.read_json(
            pa.BufferReader(data),
            read_options=pjson.ReadOptions(use_threads=False, block_size=max(end - start, 1) + 1),
            parse_options=pjson.ParseOptions(newlines_in_values=False),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    return table if table.num_rows == len(chunk) else None
