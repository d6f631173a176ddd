"""The corpus stem index: candidates, save/load, reuse by fingerprint, same bytes."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from croissant_lineage.discovery.index import StemIndex, build_index, load_or_build
from croissant_lineage.linking.normalize import normalize_stem

TEXTS = [
    "Which planet of the Zeta system has the shortest year?",
    "How many moons does the planet Sable keep in its orbit?",
    "What fraction of Tarn's surface is covered by ocean water?",
    "Who discovered the rings around the gas giant Quill?",
]


def _index() -> StemIndex:
    stems = [normalize_stem(t) for t in TEXTS]
    return build_index(["a", "a", "b", "b"], ["1", "2", "3", "4"], stems)


def test_exact_and_fuzzy_candidates() -> None:
    idx = _index()
    exact = idx.candidates(normalize_stem(TEXTS[1]), threshold=85)
    assert [(c.row, c.exact, c.score) for c in exact] == [(1, True, 100.0)]
    edited = normalize_stem("How many moons does the planet Sable keep in orbit?")
    fuzzy = idx.candidates(edited, threshold=85)
    assert [c.row for c in fuzzy] == [1] and not fuzzy[0].exact and 85 <= fuzzy[0].score < 100
    assert idx.candidates(normalize_stem("An unrelated question about cooking pasta well?"), threshold=85) == []


def _tables() -> dict[str, pa.Table]:
    return {"a": pa.table({"item": ["1", "2"], "stem": TEXTS[:2]}), "b": pa.table({"item": ["3", "4"], "stem": TEXTS[2:]})}


def test_saved_index_is_reused_and_deterministic(tmp_path: Path) -> None:
    first = load_or_build(tmp_path / "i1", _tables())
    assert not first.reused
    again = load_or_build(tmp_path / "i1", _tables())
    assert again.reused and again.fingerprint == first.fingerprint
    assert again.candidates(first.stems[2], threshold=85)[0].row == 2
    load_or_build(tmp_path / "i2", _tables())
    for name in ("stems.parquet", "postings.npz", "index.json"):
        assert (tmp_path / "i1" / name).read_bytes() == (tmp_path / "i2" / name).read_bytes()


def test_changed_corpus_rebuilds(tmp_path: Path) -> None:
    load_or_build(tmp_path / "i", _tables())
    tables = _tables()
    tables["c"] = pa.table({"item": ["5"], "stem": ["A brand new question for the corpus index?"]})
    rebuilt = load_or_build(tmp_path / "i", tables)
    assert not rebuilt.reused and len(rebuilt) == 5
