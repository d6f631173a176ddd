"""Footer blocks: a Parquet file's footer cut into blocks of row groups, so that reading
one row group parses the footer of its block only.

A Parquet reader parses a file's whole footer before it reads anything, and the footer
holds every row group's column metadata: at ten million items in row groups of 1,024 rows
(10,000 groups of items, 6,500 of edges, 11,500 of the reference index), parsing them takes
about 250 MB and 0.3 s, for a query that then decodes a few groups of a few hundred KB.

:func:`write_footer_blocks` writes, beside a Parquet file of more than :data:`BLOCK_THRESHOLD`
row groups, a sidecar ``<stem>.footers`` holding the same footer cut into blocks of
:data:`BLOCK_GROUPS` consecutive row groups: each block a valid Parquet footer (the file's
schema and key-value metadata, the block's row groups with their absolute offsets into the
file) that ``pyarrow.parquet.ParquetFile(path, metadata=...)`` reads the block's groups
with. :class:`GroupedFile` reads a file's row groups by number through its blocks, each
block parsed when first used; a file without a sidecar (every file of up to
:data:`BLOCK_THRESHOLD` groups), or whose sidecar does not describe it (the file was
rewritten since), is read through its own footer, as one block.

The sidecar is an accelerator, never needed: a copy without it reads the same rows.

Format: ``CLFOOTERS1\\n``, a 4-byte little-endian length, a JSON header, then the blocks'
footers one after the other. The header::

    {"file_size": bytes of the Parquet file, "footer_length": its footer's,
     "tail_sha256": sha256 of the file's last 64 KiB (up to the whole file),
     "stats_column": the column whose min/max each block records, or null,
     "blocks": [{"first_group", "groups", "first_row", "rows", "offset", "length",
                 "min", "max"}, ...]}

``offset`` and ``length`` place a block's footer in the sidecar, after the header.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import struct
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from croissant_lineage._io import atomic_writer
from croissant_lineage._io.parquet_footer import footer_spans, put_varint

__all__ = [
    "BLOCK_GROUPS", "BLOCK_THRESHOLD", "FOOTERS_SUFFIX", "Block", "GroupedFile", "footers_path",
    "read_footer_blocks", "write_footer_blocks",
]

#: Row groups per block of a sidecar.
BLOCK_GROUPS = 1 << 8
#: Files of more row groups than this get a sidecar (a footer of up to this many groups is
#: parsed whole at a cost close to a block's: 1,024 groups of items, ~1 MB, ~10 ms).
BLOCK_THRESHOLD = 1 << 10
#: The sidecar's suffix, in place of ``.parquet``.
FOOTERS_SUFFIX = ".footers"
#: Blocks a :class:`GroupedFile` keeps parsed (the least recently used dropped first; a
#: parsed block of 256 groups of items takes about 3 MB: ten million items have 39).
KEPT_BLOCKS = 64

_MAGIC = b"CLFOOTERS1\n"
#: A footer up to this size is parsed by Arrow to count its groups (~10 ms, ~10 MB).
_SMALL_FOOTER = 1 << 22
_TAIL = 1 << 16
_LIST_OF_STRUCTS = 0xC  # (a list header's element type: struct)


def footers_path(path: str | Path) -> Path:
    """The sidecar of the Parquet file ``path`` (``items.parquet`` -> ``items.footers``)."""
    return Path(path).with_suffix(FOOTERS_SUFFIX)


def _cut(footer: bytes, fields: list[tuple[int, int, int, int]], groups: list[tuple[int, int]],
         first: int, count: int, rows: int) -> bytes:
    """The footer of the row groups ``first`` .. ``first + count - 1`` alone (``fields`` and
    ``groups``: the footer's parts, :func:`~croissant_lineage._io.parquet_footer.footer_spans`)."""
    out = bytearray()
    for fid, h0, start, end in fields:
        if fid == 3:  # num_rows (i64, zigzag)
            out += footer[h0:start]
            put_varint(out, rows << 1)
        elif fid == 4:  # row_groups: a list of structs of ``count`` elements
            out += footer[h0:start]
            out.append((count << 4) | _LIST_OF_STRUCTS if count < 15 else 0xF0 | _LIST_OF_STRUCTS)
            if count >= 15:
                put_varint(out, count)
            out += footer[groups[first][0]:groups[first + count - 1][1]]
        else:
            out += footer[h0:end]
    out.append(0)
    return bytes(out)


def _as_file(footer: bytes) -> pa.BufferReader:
    """A footer as the tail of a Parquet file, for :func:`pyarrow.parquet.read_metadata`."""
    return pa.BufferReader(b"PAR1" + footer + struct.pack("<i", len(footer)) + b"PAR1")


def _tail(path: Path, size: int) -> tuple[bytes, int]:
    """The file's last :data:`_TAIL` bytes and its footer's length."""
    with open(path, "rb") as fh:
        fh.seek(max(size - _TAIL, 0))
        tail = fh.read()
    if len(tail) < 12 or tail[-4:] != b"PAR1":
        raise ValueError("not a Parquet file")
    return tail, struct.unpack("<i", tail[-8:-4])[0]


# -- writing and reading sidecars ------------------------------------------------------------

@dataclass(frozen=True)
class Block:
    """One block of a sidecar: its row groups and rows in the file, where its footer is in
    the sidecar (``offset``/``length``: None for a file read through its own footer), and
    the min/max of the stats column over its groups (None when not recorded)."""

    first_group: int
    groups: int
    first_row: int
    rows: int
    offset: int | None = None
    length: int | None = None
    min: Any = None
    max: Any = None


def write_footer_blocks(path: str | Path, stats_column: str | None = None, *,
                        threshold: int | None = None, block_groups: int | None = None) -> Path | None:
    """Write the sidecar of the Parquet file ``path`` when it has more than
    ``threshold`` row groups (default :data:`BLOCK_THRESHOLD`), in blocks of ``block_groups``
    (default :data:`BLOCK_GROUPS`; see the module docstring);
    returns its path, or None (no sidecar needed; an older one at that name is removed).
    ``stats_column``: a column written with statistics whose min/max each block records (a
    file sorted by it is then looked up block by block)."""
    path = Path(path)
    side = footers_path(path)
    threshold = BLOCK_THRESHOLD if threshold is None else threshold
    block_groups = BLOCK_GROUPS if block_groups is None else block_groups
    size = path.stat().st_size
    tail, footer_length = _tail(path, size)
    if footer_length <= _SMALL_FOOTER and pq.read_metadata(path).num_row_groups <= threshold:
        side.unlink(missing_ok=True)  # (a small footer parsed whole: what a file of few groups has)
        return None
    with open(path, "rb") as fh:
        fh.seek(size - 8 - footer_length)
        footer = fh.read(footer_length)
    fields, spans = footer_spans(footer)  # (the whole footer is never parsed by Arrow: a block at a time)
    groups = len(spans)
    if groups <= threshold:
        side.unlink(missing_ok=True)
        return None
    blocks, bodies, offset, row = [], [], 0, 0
    for first in range(0, groups, block_groups):
        count = min(block_groups, groups - first)
        meta = pq.read_metadata(_as_file(_cut(footer, fields, spans, first, count, 0)))
        rows = sum(meta.row_group(g).num_rows for g in range(count))
        body = _cut(footer, fields, spans, first, count, rows)
        low = high = None
        column = meta.schema.to_arrow_schema().get_field_index(stats_column) if stats_column else -1
        if column >= 0:
            stats = [meta.row_group(g).column(column).statistics for g in range(count)]
            if all(s is not None and s.has_min_max for s in stats):
                low, high = min(s.min for s in stats), max(s.max for s in stats)
        blocks.append({"first_group": first, "groups": count, "first_row": row, "rows": rows,
                       "offset": offset, "length": len(body), "min": low, "max": high})
        bodies.append(body)
        offset += len(body)
        row += rows
    header = json.dumps({
        "file_size": size, "footer_length": footer_length,
        "tail_sha256": hashlib.sha256(tail).hexdigest(), "stats_column": stats_column, "blocks": blocks,
    }, sort_keys=True).encode()
    with atomic_writer(side, "wb") as fh:
        fh.write(_MAGIC + struct.pack("<I", len(header)) + header)
        for body in bodies:
            fh.write(body)
    return side


def read_footer_blocks(path: str | Path) -> list[Block] | None:
    """The blocks of the sidecar of ``path``, or None when it has none or the sidecar
    does not describe the file as it is (its size, footer length and last bytes)."""
    path = Path(path)
    side = footers_path(path)
    try:
        with open(side, "rb") as fh:
            head = fh.read(len(_MAGIC) + 4)
            if head[: len(_MAGIC)] != _MAGIC:
                return None
            length = struct.unpack("<I", head[len(_MAGIC):])[0]
            header = json.loads(fh.read(length))
        size = path.stat().st_size
        if header["file_size"] != size:
            return None
        tail, footer_length = _tail(path, size)
        if footer_length != header["footer_length"] or hashlib.sha256(tail).hexdigest() != header["tail_sha256"]:
            return None
        start = len(_MAGIC) + 4 + length
        return [Block(b["first_group"], b["groups"], b["first_row"], b["rows"], start + b["offset"], b["length"],
                      b["min"], b["max"]) for b in header["blocks"]]
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None


class GroupedFile:
    """The row groups of a Parquet file read by number, through its footer blocks when it
    has a sidecar (each block's footer parsed on first use; :data:`KEPT_BLOCKS` kept),
    else through its own footer."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        blocks = read_footer_blocks(self.path)
        self._files: OrderedDict[int, pq.ParquetFile] = OrderedDict()
        if blocks is None:
            whole = pq.ParquetFile(self.path, pre_buffer=False)
            meta = whole.metadata
            blocks = [Block(0, meta.num_row_groups, 0, meta.num_rows)]
            self._files[0] = whole
            self._pinned = True
        else:
            self._pinned = False
        self.blocks = blocks
        self._block_starts = [b.first_group for b in blocks]
        self._row_starts = [b.first_row for b in blocks]
        self._group_starts: dict[int, list[int]] = {}

    @property
    def num_row_groups(self) -> int:
        last = self.blocks[-1]
        return last.first_group + last.groups

    @property
    def num_rows(self) -> int:
        last = self.blocks[-1]
        return last.first_row + last.rows

    @property
    def schema_arrow(self) -> pa.Schema:
        return self._file(0).schema_arrow

    def _file(self, b: int) -> pq.ParquetFile:
        got = self._files.get(b)
        if got is not None:
            self._files.move_to_end(b)
            return got
        block = self.blocks[b]
        with open(footers_path(self.path), "rb") as fh:
            fh.seek(block.offset or 0)
            footer = fh.read(block.length or 0)
        try:
            meta = pq.read_metadata(_as_file(footer))
        except (pa.ArrowInvalid, OSError) as exc:
            raise ValueError(f"{footers_path(self.path).name}: footer block {b} unreadable ({exc}); "
                             "without this file the table is read through its own footer") from None
        # (no pre-buffering: a local group of a few hundred KB reads faster in one pass)
        got = self._files[b] = pq.ParquetFile(self.path, metadata=meta, pre_buffer=False)
        while len(self._files) > KEPT_BLOCKS and not self._pinned:
            self._files.popitem(last=False)
        return got

    def _block_of_group(self, g: int) -> int:
        return bisect.bisect_right(self._block_starts, g) - 1

    def read_row_group(self, g: int, columns: list[str] | None = None) -> pa.Table:
        """Row group ``g`` (numbered in the whole file)."""
        b = self._block_of_group(g)
        return self._file(b).read_row_group(g - self.blocks[b].first_group, columns=columns, use_threads=False)

    def group_starts(self, b: int) -> list[int]:
        """The first row (in the whole file) of each group of block ``b``, and the row
        after its last."""
        got = self._group_starts.get(b)
        if got is None:
            meta = self._file(b).metadata
            got = [self.blocks[b].first_row]
            for g in range(meta.num_row_groups):
                got.append(got[-1] + meta.row_group(g).num_rows)
            self._group_starts[b] = got
        return got

    def locate(self, row: int) -> tuple[int, int]:
        """The row group holding ``row`` (numbered in the whole file) and the row's place in it."""
        b = bisect.bisect_right(self._row_starts, row) - 1
        starts = self.group_starts(b)
        local = bisect.bisect_right(starts, row) - 1
        return self.blocks[b].first_group + local, row - starts[local]

    def group_stats(self, b: int, column: int) -> list[tuple[Any, Any] | None]:
        """Per group of block ``b``: the min/max of column ``column`` (None without statistics)."""
        meta = self._file(b).metadata
        out: list[tuple[Any, Any] | None] = []
        for g in range(meta.num_row_groups):
            stats = meta.row_group(g).column(column).statistics
            out.append((stats.min, stats.max) if stats is not None and stats.has_min_max else None)
        return out

