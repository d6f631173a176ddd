"""A corpus index of normalised stems: candidates for items whose subject is not shared.

Discovery cannot block by subject (an unknown dataset's subjects are not the corpus's), so
every reference item is a possible parent. :class:`StemIndex` holds the corpus's normalised
stems (:func:`~croissant_lineage.linking.normalize.normalize_stem`, the linker's own) with:

* an exact table (stem -> rows), and
* an inverted index of word 3-gram shingles (CRC-32 of the shingle, so the saved index is
  the same on every run): a query's candidates are the rows sharing the most shingles with
  it (at most :data:`TOP_K`); shingles more frequent than :data:`MAX_POSTING` (boilerplate
  such as "which of the following is") are left out of the postings.

Candidates are then scored with RapidFuzz ``ratio`` (0-100), the linker's stem scorer.
RapidFuzz over n-gram blocking was chosen over MinHash LSH (``datasketch``) by measurement
(``benchmarks/bench_index.py``: the MMLU family without MMLU-Pro as corpus, 57,067 stems;
MMLU-Pro's 12,032 stems as queries): both find the true parent of all 6,810 items ``link``
links (score >= 85), but MinHash (128 permutations, LSH threshold 0.5) took 240 s to build
and 69 s to query against 7.8 s and 16 s here (one run, load average ~11). It also adds no
dependency, is deterministic, and reuses the linker's scorer.

The index is columnar, so that a corpus of 10 million items fits on one machine
(``benchmarks/bench_index.py --sizes``): the stems and item ids are Arrow string arrays, the
dataset names a dictionary-encoded array, the exact table two sorted NumPy arrays (stem
hash, row) and the postings two more (shingle hash, row); no Python object is kept per row
or per shingle, and the postings are shingled in chunks of :data:`_CHUNK` rows. The
candidates are the same, row for row and score for score, as those of the list-of-strings
index it replaced (``tests/discovery/test_index.py`` pins them).

The index is saved as a folder (``stems.parquet``, ``postings.npz``, ``index.json`` with the
format version and the corpus fingerprint) and reused by later runs whose corpus has the same
fingerprint; a folder of another format version is rebuilt by :func:`load_or_build` and
refused with a coded error by :meth:`StemIndex.load`.
"""

from __future__ import annotations

import hashlib
import heapq
import io
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from rapidfuzz import fuzz

from croissant_lineage._io import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_parquet,
    read_json,
)
from croissant_lineage.errors import InputError
from croissant_lineage.linking.normalize import normalize_stem

__all__ = ["INDEX_VERSION", "MAX_POSTING", "TOP_K", "Candidate", "StemIndex", "build_index", "fingerprint", "load_or_build"]

#: The saved folder's format. 1: row lists (``dataset`` a plain string column); 2: columnar
#: (``dataset`` dictionary-encoded). The corpus fingerprint does not depend on it.
INDEX_VERSION = 2
#: Candidates kept per query from the shingle counts (before scoring).
TOP_K = 10
#: Shingles in more rows than this are not indexed.
MAX_POSTING = 500
_N = 3
#: Rows shingled (and normalised, hashed, fingerprinted) at a time.
_CHUNK = 100_000
#: The fingerprint's own version: unchanged since format 1, so a corpus keeps its fingerprint.
_FINGERPRINT_PREFIX = b"v1\n"

#: Per-row text given as a list or as an Arrow array.
Strings: TypeAlias = "Sequence[str] | pa.Array | pa.ChunkedArray"


def shingles(stem: str) -> list[int]:
    """The CRC-32 hashes of a normalised stem's word 3-grams (the whole stem when shorter)."""
    return sorted(_shingle_set(stem))


def _shingle_set(stem: str) -> set[int]:
    words = stem.split()
    if len(words) < _N:
        return {zlib.crc32(stem.encode())} if stem else set()
    crc = zlib.crc32
    return {crc(s.encode()) for s in map(" ".join, zip(words, words[1:], words[2:], strict=False))}


@dataclass(frozen=True)
class Candidate:
    """A corpus row that may be a query item's parent, with its stem score (0-100)."""

    row: int
    score: float
    exact: bool


def _strings(values: Strings) -> pa.LargeStringArray:
    """``values`` as one large-string Arrow array (offset 0, no nulls: None becomes "")."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], pa.large_string())
    if isinstance(values, pa.Array):
        if pa.types.is_dictionary(values.type):
            values = values.dictionary_decode()
        arr = pc.cast(values, pa.large_string())
    else:
        parts = [pa.array(list(values[lo : lo + _CHUNK]), pa.large_string()) for lo in range(0, len(values), _CHUNK)]
        arr = pa.concat_arrays(parts) if parts else pa.array([], pa.large_string())
    if arr.null_count:
        arr = pc.fill_null(arr, "")
    return pa.concat_arrays([arr]) if arr.offset else arr


def _codes(values: Strings) -> pa.DictionaryArray:
    """``values`` dictionary-encoded (int32 codes, names in order of first appearance)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], pa.string())
    if isinstance(values, pa.Array) and pa.types.is_dictionary(values.type):
        return pc.cast(values, pa.dictionary(pa.int32(), pa.string()))
    arr = pc.cast(_strings(values), pa.string())
    return pc.cast(arr.dictionary_encode(), pa.dictionary(pa.int32(), pa.string()))


class StringColumn(Sequence[str]):
    """A read-only sequence of ``str`` over an Arrow string array (no Python string kept)."""

    def __init__(self, array: pa.Array) -> None:
        self.array = array
        if pa.types.is_dictionary(array.type):
            self._codes: np.ndarray | None = array.indices.to_numpy(zero_copy_only=False)
            self._names: list[str] = array.dictionary.to_pylist()
        else:
            self._codes = None
            width = np.int64 if pa.types.is_large_string(array.type) else np.int32
            bufs = array.buffers()
            self._offsets = np.frombuffer(bufs[1], dtype=width)[array.offset : array.offset + len(array) + 1]
            self._data = memoryview(bufs[2]) if bufs[2] is not None else memoryview(b"")

    def __len__(self) -> int:
        return len(self.array)

    @overload
    def __getitem__(self, j: int) -> str: ...
    @overload
    def __getitem__(self, j: slice) -> list[str]: ...
    def __getitem__(self, j: int | slice) -> str | list[str]:
        if isinstance(j, slice):
            return [self[k] for k in range(*j.indices(len(self)))]
        if j < 0:
            j += len(self)
        if not 0 <= j < len(self):
            raise IndexError(j)
        if self._codes is not None:
            return self._names[self._codes[j]]
        return str(self._data[self._offsets[j] : self._offsets[j + 1]], "utf-8")

    def __iter__(self) -> Iterator[str]:
        for lo in range(0, len(self), _CHUNK):
            if self._codes is not None:
                names = self._names
                yield from (names[c] for c in self._codes[lo : lo + _CHUNK].tolist())
            else:
                yield from self.array.slice(lo, _CHUNK).to_pylist()


def fingerprint(datasets: Strings, items: Strings, stems: Strings) -> str:
    """The sha256 of a corpus (its rows' dataset, item id and normalised stem, in order)."""
    h = hashlib.sha256(_FINGERPRINT_PREFIX)
    d, i, s = pc.cast(_codes(datasets), pa.large_string()), _strings(items), _strings(stems)
    if not len(d) == len(i) == len(s):
        raise ValueError("datasets, items and stems differ in length")
    tab, newline, empty = (pa.scalar(x, pa.large_string()) for x in ("\t", "\n", ""))
    for lo in range(0, len(s), _CHUNK):
        line = pc.binary_join_element_wise(d.slice(lo, _CHUNK), i.slice(lo, _CHUNK), s.slice(lo, _CHUNK), tab)
        line = pc.binary_join_element_wise(line, empty, newline)
        if len(line):
            offsets = np.frombuffer(line.buffers()[1], dtype=np.int64)[line.offset : line.offset + len(line) + 1]
            h.update(memoryview(line.buffers()[2])[offsets[0] : offsets[-1]])
    return h.hexdigest()


def _stem_hashes(stems: StringColumn) -> np.ndarray:
    """Python's ``hash`` of every stem (in memory only: it varies between processes)."""
    out = np.empty(len(stems), dtype=np.int64)
    for lo in range(0, len(stems), _CHUNK):
        chunk = stems.array.slice(lo, _CHUNK).to_pylist()
        out[lo : lo + len(chunk)] = np.fromiter(map(hash, chunk), dtype=np.int64, count=len(chunk))
    return out


@dataclass
class StemIndex:
    """The normalised stems of a corpus, with an exact table and shingle postings.

    Attributes:
        datasets, items, stems: Per row: dataset name, item id, normalised stem (read-only
            sequences over Arrow arrays).
        keys, rows: Postings sorted by shingle hash, then row (``keys[i]`` occurs in row ``rows[i]``).
        fingerprint: See :func:`fingerprint`.
        reused: True when the index was read from a saved folder rather than built.
    """

    datasets: StringColumn
    items: StringColumn
    stems: StringColumn
    keys: np.ndarray
    rows: np.ndarray
    fingerprint: str
    reused: bool = False
    _exact_hash: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)
    _exact_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32), repr=False)

    def __post_init__(self) -> None:
        hashes = _stem_hashes(self.stems)
        order = np.argsort(hashes, kind="stable")  # rows ascending within a hash
        self._exact_hash = hashes[order]
        del hashes
        self._exact_rows = order.astype(np.int32)

    def __len__(self) -> int:
        return len(self.stems)

    def _exact(self, stem: str) -> list[int]:
        h = hash(stem)
        at, end = int(self._exact_hash.searchsorted(h)), self._exact_hash.size
        rows: list[int] = []
        while at < end and self._exact_hash[at] == h:
            j = int(self._exact_rows[at])
            if self.stems[j] == stem:  # a hash collision is not an exact match
                rows.append(j)
            at += 1
        return rows  # ascending: the hashes were sorted stably

    def _shared(self, stem: str, top_k: int, exclude: range | None = None) -> list[int]:
        """The ``top_k`` rows sharing the most shingles with ``stem`` (ties by row), rows in ``exclude`` left out."""
        hashes = np.asarray(shingles(stem), dtype=np.uint32)
        if not hashes.size:
            return []
        lo = self.keys.searchsorted(hashes, "left")
        hi = self.keys.searchsorted(hashes, "right")
        counts: Counter[int] = Counter()
        for a, b in zip(lo.tolist(), hi.tolist(), strict=True):
            counts.update(self.rows[a:b].tolist())
        if exclude is not None:
            for j in [j for j in counts if j in exclude]:
                del counts[j]
        # the first top_k of sorted(..., key=(-count, row)); keys are distinct, so nsmallest is the same
        return [j for j, _ in heapq.nsmallest(top_k, counts.items(), key=lambda kv: (-kv[1], kv[0]))]

    def candidates(self, stem: str, *, threshold: float, top_k: int = TOP_K, exclude: range | None = None) -> list[Candidate]:
        """The corpus rows whose stem scores at least ``threshold`` against ``stem``.

        Args:
            stem: A normalised stem.
            threshold: Minimum RapidFuzz ``ratio`` (0-100).
            top_k: Rows kept from the shingle counts before scoring.
            exclude: Rows that are not candidates (the querying dataset's own, in a family:
                its near-copies of one question would fill the ``top_k``).

        Returns:
            Exact rows (score 100) and scored candidates, best first (ties by row).
        """
        out = [Candidate(j, 100.0, True) for j in self._exact(stem)]
        seen = {c.row for c in out}
        for j in self._shared(stem, top_k, exclude):
            if j in seen:
                continue
            score = round(float(fuzz.ratio(stem, self.stems[j])), 2)
            if score >= threshold:
                out.append(Candidate(j, score, False))
        out.sort(key=lambda c: (-c.score, c.row))
        return out

    def save(self, folder: str | Path) -> Path:
        """Write the index folder (``stems.parquet``, ``postings.npz``, ``index.json``)."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        table = pa.table({"dataset": self.datasets.array, "item": self.items.array, "stem": self.stems.array})
        atomic_write_parquet(out / "stems.parquet", table)
        buf = io.BytesIO()
        np.savez(buf, keys=self.keys, rows=self.rows)
        atomic_write_bytes(out / "postings.npz", buf.getvalue())
        atomic_write_json(
            out / "index.json",
            {"version": INDEX_VERSION, "fingerprint": self.fingerprint, "rows": len(self), "postings": int(self.keys.size),
             "shingle_words": _N, "max_posting": MAX_POSTING},
        )
        return out

    @classmethod
    def load(cls, folder: str | Path) -> StemIndex:
        """Read an index folder written by :meth:`save`.

        Raises:
            InputError: a file is missing or unreadable, or the folder has another format version.
        """
        src = Path(folder)
        meta = read_json(src / "index.json")
        version = meta.get("version") if isinstance(meta, dict) else None
        if version != INDEX_VERSION:
            raise InputError(
                f"stem index of format version {version}, this release reads version {INDEX_VERSION}: "
                "delete the folder (discover rebuilds it)", path=src,
            )
        try:
            table = pq.read_table(src / "stems.parquet", read_dictionary=["dataset"])
            with np.load(src / "postings.npz") as z:
                keys, rows = z["keys"], z["rows"]
            cols: dict[str, Any] = {c: table.column(c).combine_chunks() for c in ("dataset", "item", "stem")}
        except (OSError, KeyError, ValueError, pa.ArrowInvalid) as exc:
            raise InputError(f"not a stem index: {exc}", path=src) from None
        return cls(StringColumn(_codes(cols["dataset"])), StringColumn(_strings(cols["item"])), StringColumn(_strings(cols["stem"])),
                   keys, rows, str(meta.get("fingerprint")), reused=True)


def _postings(stems: StringColumn) -> tuple[np.ndarray, np.ndarray]:
    """Shingle postings sorted by (shingle hash, row), boilerplate shingles left out.

    Each (hash, row) pair is one uint64 (hash in the high half), so that one in-place sort
    orders them; rows are shingled :data:`_CHUNK` at a time (Python ints only for a chunk).
    """
    parts: list[np.ndarray] = []
    for lo in range(0, len(stems), _CHUNK):
        keys: list[int] = []
        counts: list[int] = []
        for s in stems.array.slice(lo, _CHUNK).to_pylist():
            hs = _shingle_set(s)
            keys.extend(hs)
            counts.append(len(hs))
        pair = np.asarray(keys, dtype=np.uint64) << np.uint64(32)
        pair |= np.repeat(np.arange(lo, lo + len(counts), dtype=np.uint64), counts)
        parts.append(pair)
    pairs = np.empty(sum(p.size for p in parts), dtype=np.uint64)
    at = 0
    while parts:  # each part freed once copied: the peak is the pairs and one part, not twice the pairs
        part = parts.pop(0)
        pairs[at : at + part.size] = part
        at += part.size
        del part
    pairs.sort()
    halves = pairs.view(np.uint32).reshape(-1, 2)
    key_half, row_half = (1, 0) if np.little_endian else (0, 1)
    k = halves[:, key_half]
    # sorted: a shingle is in more than MAX_POSTING rows iff it equals the key MAX_POSTING places on
    # (no per-shingle array: most shingles of a large corpus occur once)
    frequent = np.unique(k[MAX_POSTING:][k[MAX_POSTING:] == k[:-MAX_POSTING]]) if k.size > MAX_POSTING else k[:0]
    keep = np.ones(k.size, dtype=bool)
    for key in frequent.tolist():
        keep[np.searchsorted(k, key, "left") : np.searchsorted(k, key, "right")] = False
    keys_out = k[keep]
    rows_out = halves[:, row_half][keep].view(np.int32)
    return keys_out, rows_out


def build_index(datasets: Strings, items: Strings, stems: Strings) -> StemIndex:
    """Index a corpus given per row: dataset name, item id and *normalised* stem (lists or
    Arrow arrays; a dictionary-encoded ``datasets`` array is kept as it is)."""
    d, i, s = StringColumn(_codes(datasets)), StringColumn(_strings(items)), StringColumn(_strings(stems))
    if not len(d) == len(i) == len(s):
        raise ValueError("datasets, items and stems differ in length")
    keys, rows = _postings(s)
    return StemIndex(d, i, s, keys, rows, fingerprint(d.array, i.array, s.array))


def _normalized(stems: pa.Array | pa.ChunkedArray) -> pa.LargeStringArray:
    parts = [pa.array([normalize_stem(x) for x in stems.slice(lo, _CHUNK).to_pylist()], pa.large_string())
             for lo in range(0, len(stems), _CHUNK)]
    return pa.concat_arrays(parts) if parts else pa.array([], pa.large_string())


def _corpus(tables: dict[str, pa.Table]) -> tuple[pa.DictionaryArray, pa.LargeStringArray, pa.LargeStringArray]:
    """Per row of the tables (by dataset name): dataset (dictionary-encoded), item id, normalised stem."""
    names = sorted(tables)
    if not names:
        return _codes([]), _strings([]), _strings([])
    codes = np.concatenate([np.full(tables[n].num_rows, k, np.int32) for k, n in enumerate(names)])
    datasets = pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32()), pa.array(names, pa.string()))
    items = pa.concat_arrays([_strings(tables[n].column("item")) for n in names])
    return datasets, items, pa.concat_arrays([_normalized(tables[n].column("stem")) for n in names])


def load_or_build(folder: str | Path | None, tables: dict[str, pa.Table]) -> StemIndex:
    """The index of the corpus ``tables`` (dataset -> item table): read from ``folder`` when
    one of this format with the same fingerprint is saved there, else built (and saved there)."""
    datasets, items, stems = _corpus(tables)
    fp = fingerprint(datasets, items, stems)
    if folder is not None and (Path(folder) / "index.json").is_file():
        try:
            meta = read_json(Path(folder) / "index.json")
            if isinstance(meta, dict) and meta.get("fingerprint") == fp and meta.get("version") == INDEX_VERSION:
                return StemIndex.load(folder)
        except InputError:
            pass
    index = build_index(datasets, items, stems)
    if folder is not None:
        index.save(folder)
    return index
