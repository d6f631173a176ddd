"""What the synthetic generators share: an invented vocabulary and deterministic Parquet files."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from croissant_lineage._io import atomic_write_bytes

__all__ = ["Words", "write_parquet"]

_CONSONANTS = "bcdfghjklmnprstvz"
_VOWELS = "aeiou"


class Words:
    """An invented vocabulary and random texts made of it."""

    def __init__(self, rng: np.random.Generator, size: int = 6000):
        syllables = [c + v for c in _CONSONANTS for v in _VOWELS]
        words: dict[str, None] = {}
        while len(words) < size:
            n = int(rng.integers(2, 5))
            words["".join(syllables[int(i)] for i in rng.integers(0, len(syllables), n))] = None
        self.words = list(words)
        self.rng = rng

    def texts(self, n: int, lo: int, hi: int) -> list[str]:
        """``n`` texts of ``lo``..``hi`` words each."""
        lengths = self.rng.integers(lo, hi + 1, n)
        idx = self.rng.integers(0, len(self.words), (n, hi))
        w = self.words
        return [" ".join(w[j] for j in row[:k]) for row, k in zip(idx.tolist(), lengths.tolist(), strict=True)]

    def questions(self, n: int) -> list[str]:
        """``n`` question stems: capitalised, 8..40 words, ending with ``?``."""
        return [t[:1].upper() + t[1:] + "?" for t in self.texts(n, 8, 40)]

    def options(self, n: int) -> list[str]:
        """``n`` answer options: 1..6 words, a fifth of them numbers (some written as
        spreadsheets damage them: ``1,500``, ``3/4``)."""
        out = self.texts(n, 1, 6)
        numbers = self.rng.integers(0, 5000, n).tolist()
        for i in np.flatnonzero(self.rng.random(n) < 0.2).tolist():
            k = numbers[i]
            out[i] = (f"{k:,}", f"{k % 9 + 1}/{k % 7 + 2}", f"{k / 8:.1f}", str(k))[i % 4]
        return out


def write_parquet(path: Path, rows: dict[str, list[Any]]) -> None:
    """A table written as Parquet (zstd, no statistics): same rows, same bytes."""
    buf = io.BytesIO()
    pq.write_table(pa.table(rows), buf, compression="zstd", write_statistics=False)
    atomic_write_bytes(path, buf.getvalue())
