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

The index is saved as a folder (``stems.parquet``, ``postings.npz``, ``index.json`` with
the corpus fingerprint) and reused by later runs whose corpus has the same fingerprint.
"""

from __future__ import annotations

import hashlib
import io
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from rapidfuzz import fuzz

from croissant_lineage._io import atomic_write_bytes, atomic_write_json, parquet_bytes, read_json
from croissant_lineage.errors import InputError
from croissant_lineage.linking.normalize import normalize_stem

__all__ = ["INDEX_VERSION", "MAX_POSTING", "TOP_K", "Candidate", "StemIndex", "build_index", "fingerprint", "load_or_build"]

INDEX_VERSION = 1
#: Candidates kept per query from the shingle counts (before scoring).
TOP_K = 10
#: Shingles in more rows than this are not indexed.
MAX_POSTING = 500
_N = 3
#: Rows shingled at a time when building.
_CHUNK = 100_000


def shingles(stem: str) -> list[int]:
    """The CRC-32 hashes of a normalised stem's word 3-grams (the whole stem when shorter)."""
    words = stem.split()
    if len(words) < _N:
        return [zlib.crc32(stem.encode())] if stem else []
    return sorted({zlib.crc32(" ".join(words[i : i + _N]).encode()) for i in range(len(words) - _N + 1)})


@dataclass(frozen=True)
class Candidate:
    """A corpus row that may be a query item's parent, with its stem score (0-100)."""

    row: int
    score: float
    exact: bool


def fingerprint(datasets: list[str], items: list[str], stems: list[str]) -> str:
    """The sha256 of a corpus (its rows' dataset, item id and normalised stem, in order)."""
    h = hashlib.sha256(f"v{INDEX_VERSION}\n".encode())
    for d, i, s in zip(datasets, items, stems, strict=True):
        h.update(f"{d}\t{i}\t{s}\n".encode())
    return h.hexdigest()


@dataclass
class StemIndex:
    """The normalised stems of a corpus, with an exact table and shingle postings.

    Attributes:
        datasets, items, stems: Per row: dataset name, item id, normalised stem.
        keys, rows: Postings sorted by shingle hash (``keys[i]`` occurs in row ``rows[i]``).
        fingerprint: See :func:`fingerprint`.
        reused: True when the index was read from a saved folder rather than built.
    """

    datasets: list[str]
    items: list[str]
    stems: list[str]
    keys: np.ndarray
    rows: np.ndarray
    fingerprint: str
    reused: bool = False
    _exact: dict[str, list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        exact: dict[str, list[int]] = {}
        for j, s in enumerate(self.stems):
            exact.setdefault(s, []).append(j)
        self._exact = exact

    def __len__(self) -> int:
        return len(self.stems)

    def candidates(self, stem: str, *, threshold: float, top_k: int = TOP_K) -> list[Candidate]:
        """The corpus rows whose stem scores at least ``threshold`` against ``stem``.

        Args:
            stem: A normalised stem.
            threshold: Minimum RapidFuzz ``ratio`` (0-100).
            top_k: Rows kept from the shingle counts before scoring.

        Returns:
            Exact rows (score 100) and scored candidates, best first (ties by row).
        """
        out = [Candidate(j, 100.0, True) for j in self._exact.get(stem, ())]
        seen = {c.row for c in out}
        hashes = np.asarray(shingles(stem), dtype=np.uint32)
        if hashes.size:
            lo = np.searchsorted(self.keys, hashes, "left")
            hi = np.searchsorted(self.keys, hashes, "right")
            counts: Counter[int] = Counter()
            for a, b in zip(lo.tolist(), hi.tolist(), strict=True):
                counts.update(self.rows[a:b].tolist())
            for j, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k]:
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
        table = pa.table({"dataset": self.datasets, "item": self.items, "stem": self.stems})
        atomic_write_bytes(out / "stems.parquet", parquet_bytes(table))
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
            InputError: a file is missing or unreadable.
        """
        src = Path(folder)
        meta = read_json(src / "index.json")
        try:
            table = pq.read_table(src / "stems.parquet")
            with np.load(src / "postings.npz") as z:
                keys, rows = z["keys"], z["rows"]
        except (OSError, KeyError, ValueError, pa.ArrowInvalid) as exc:
            raise InputError(f"not a stem index: {exc}", path=src) from None
        cols: dict[str, Any] = {c: table.column(c).to_pylist() for c in ("dataset", "item", "stem")}
        return cls(cols["dataset"], cols["item"], cols["stem"], keys, rows, str(meta.get("fingerprint")), reused=True)


def build_index(datasets: list[str], items: list[str], stems: list[str]) -> StemIndex:
    """Index a corpus given per row: dataset name, item id and *normalised* stem."""
    key_parts: list[np.ndarray] = []
    row_parts: list[np.ndarray] = []
    for lo in range(0, len(stems), _CHUNK):  # Python ints only for a chunk at a time (memory)
        keys: list[int] = []
        counts: list[int] = []
        for s in stems[lo : lo + _CHUNK]:
            hs = shingles(s)
            keys.extend(hs)
            counts.append(len(hs))
        key_parts.append(np.asarray(keys, dtype=np.uint32))
        row_parts.append(np.repeat(np.arange(lo, lo + len(counts), dtype=np.int32), counts))
    k = np.concatenate(key_parts) if key_parts else np.zeros(0, np.uint32)
    r = np.concatenate(row_parts) if row_parts else np.zeros(0, np.int32)
    del key_parts, row_parts
    order = np.lexsort((r, k))
    k, r = k[order], r[order]
    uniq, start, count = np.unique(k, return_index=True, return_counts=True)
    keep = np.repeat(count <= MAX_POSTING, count)
    del uniq, start
    return StemIndex(datasets, items, stems, k[keep], r[keep], fingerprint(datasets, items, stems))


def load_or_build(folder: str | Path | None, tables: dict[str, pa.Table]) -> StemIndex:
    """The index of the corpus ``tables`` (dataset -> item table): read from ``folder`` when
    one with the same fingerprint is saved there, else built (and saved there)."""
    datasets: list[str] = []
    items: list[str] = []
    stems: list[str] = []
    for name in sorted(tables):
        t = tables[name]
        datasets.extend([name] * t.num_rows)
        items.extend(t.column("item").to_pylist())
        stems.extend(normalize_stem(s) for s in t.column("stem").to_pylist())
    fp = fingerprint(datasets, items, stems)
    if folder is not None and (Path(folder) / "index.json").is_file():
        try:
            if read_json(Path(folder) / "index.json").get("fingerprint") == fp:
                return StemIndex.load(folder)
        except InputError:
            pass
    index = build_index(datasets, items, stems)
    if folder is not None:
        index.save(folder)
    return index
