"""The corpus stem index: candidates, save/load, reuse by fingerprint, same bytes, and the
candidate lists pinned (computed by the row-list index of a94b358, before it went columnar)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from croissant_lineage.discovery.index import INDEX_VERSION, StemIndex, build_index, load_or_build
from croissant_lineage.errors import InputError
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


# --- candidate lists pinned -------------------------------------------------------------


def _synthetic_corpus(n: int = 20_000, queries: int = 1_500, seed: int = 34) -> tuple[list[str], list[str], list[str], list[str]]:
    """A corpus meant to exercise every path of :meth:`StemIndex.candidates`: a small
    vocabulary (shared shingles, ties in the counts), a boilerplate opening in 30 % of the
    stems (its shingles pass ``MAX_POSTING``), exact duplicates (several exact rows), near
    copies, stems of one or two words and empty stems; queries are corpus stems with 0-4
    words replaced, short and empty stems and unrelated ones."""
    rng = random.Random(seed)
    syll = [c + v for c in "bdfklmnprstv" for v in "aeiou"]
    vocab = sorted({"".join(rng.choice(syll) for _ in range(rng.randint(1, 3))) for _ in range(600)})[:400]
    stems: list[str] = []
    for _ in range(n):
        r = rng.random()
        if stems and r < 0.05:
            s = rng.choice(stems)
        elif stems and r < 0.15:
            words = rng.choice(stems).split() or ["x"]
            words[rng.randrange(len(words))] = rng.choice(vocab)
            s = " ".join(words)
        elif r < 0.17:
            s = " ".join(rng.choices(vocab, k=rng.randint(0, 2)))
        else:
            s = " ".join(rng.choices(vocab, k=rng.randint(4, 20)))
            if rng.random() < 0.3:
                s = "which of the following is " + s
        stems.append(normalize_stem(s))
    out: list[str] = []
    for q in range(queries):
        kind = q % 5
        if kind == 4:
            s = " ".join(rng.choices(vocab, k=rng.randint(0, 12)))
        else:
            words = rng.choice(stems).split()
            for _ in range(kind if words else 0):
                words[rng.randrange(len(words))] = rng.choice(vocab)
            s = " ".join(words)
        out.append(normalize_stem(s))
    datasets = [("a", "b", "c")[j % 3] for j in range(n)]
    return datasets, [str(j) for j in range(n)], stems, out


def _mmlu_corpus(data_dir: Path) -> tuple[list[str], list[str], list[str], list[str]]:
    """The whole MMLU family (every dataset with item data, by name) and every 7th stem as a query."""
    from croissant_lineage.family.spec import load_family
    from croissant_lineage.lineage.items import load_items

    spec = load_family("mmlu")
    datasets: list[str] = []
    items: list[str] = []
    stems: list[str] = []
    for name in sorted(spec.datasets):
        ds = spec.datasets[name]
        if ds.has_items:
            t = load_items(ds, data_dir=str(data_dir))
            datasets += [name] * t.num_rows
            items += [str(x) for x in t.column("item").to_pylist()]
            stems += [normalize_stem(s) for s in t.column("stem").to_pylist()]
    return datasets, items, stems, stems[::7]


def _digest(index: StemIndex, queries: list[str], threshold: float) -> str:
    """sha256 of every query's candidates (row, score, exact), in order."""
    h = hashlib.sha256()
    for q, stem in enumerate(queries):
        for c in index.candidates(stem, threshold=threshold):
            h.update(f"{q}\t{c.row}\t{c.score!r}\t{c.exact}\n".encode())
    return h.hexdigest()


#: sha256 of the candidate lists (see :func:`_digest`) computed with the list-of-strings index
#: of a94b358 (``Counter`` over the postings, a dict as exact table) before it went columnar.
PINNED_SYNTHETIC = {
    85.0: "78fcc2c0fd2032d52cf6e1eb7d071570f0ede0201f869d504ed8492cbc23ce1e",
    40.0: "2c3e1a30664ac291c55db5b0d750b5f73093391baa37b3ff42cf1641fe76021f",
}
#: The same for the whole MMLU family (93,751 stems; every 7th as a query; threshold 85).
PINNED_MMLU = "46a07e22e713713af2d24cbdf8013a899a887c8ff982f4990e2e8fd4ec459877"


def test_candidates_are_those_of_the_list_index() -> None:
    datasets, items, stems, queries = _synthetic_corpus()
    idx = build_index(datasets, items, stems)
    for threshold, digest in PINNED_SYNTHETIC.items():
        assert _digest(idx, queries, threshold) == digest, threshold


def test_chunk_boundaries_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from croissant_lineage.discovery import index as index_module

    datasets, items, stems, queries = _synthetic_corpus(n=3_000, queries=300)
    whole = build_index(datasets, items, stems)
    monkeypatch.setattr(index_module, "_CHUNK", 7)
    chunked = build_index(pa.array(datasets).dictionary_encode(), pa.array(items), pa.chunked_array([stems[:10], stems[10:]]))
    assert chunked.fingerprint == whole.fingerprint
    assert np.array_equal(chunked.keys, whole.keys) and np.array_equal(chunked.rows, whole.rows)
    assert list(chunked.datasets) == datasets and list(chunked.stems) == stems and chunked.items[-1] == items[-1]
    for threshold in (85.0, 40.0):
        assert _digest(chunked, queries, threshold) == _digest(whole, queries, threshold)


def test_columns_read_like_lists() -> None:
    idx = _index()
    assert list(idx.datasets) == ["a", "a", "b", "b"] and idx.datasets[-1] == "b" and idx.items[1:3] == ["2", "3"]
    assert idx.stems[0] == normalize_stem(TEXTS[0]) and len(idx.stems) == 4
    with pytest.raises(IndexError):
        idx.stems[4]


def test_old_format_is_rebuilt_or_refused(tmp_path: Path) -> None:
    folder = tmp_path / "i"
    load_or_build(folder, _tables())
    meta = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    (folder / "index.json").write_text(json.dumps(dict(meta, version=1)), encoding="utf-8")
    with pytest.raises(InputError, match="format version 1") as err:
        StemIndex.load(folder)
    assert str(err.value).startswith("CL-E001")
    rebuilt = load_or_build(folder, _tables())
    assert not rebuilt.reused and rebuilt.fingerprint == meta["fingerprint"]
    assert json.loads((folder / "index.json").read_text(encoding="utf-8"))["version"] == INDEX_VERSION
    assert load_or_build(folder, _tables()).reused


@pytest.mark.realdata
def test_mmlu_candidates_are_those_of_the_list_index(shared_data: Path) -> None:
    """~20 s, ~0.6 GB: the whole MMLU family indexed, every 7th stem looked up."""
    datasets, items, stems, queries = _mmlu_corpus(shared_data)
    assert _digest(build_index(datasets, items, stems), queries, 85.0) == PINNED_MMLU


def test_postings_keep_shingles_in_at_most_max_posting_rows() -> None:
    from croissant_lineage.discovery.index import MAX_POSTING, shingles

    stems = ["alpha beta gamma"] * MAX_POSTING + ["delta epsilon zeta"] * (MAX_POSTING + 1) + ["eta theta iota kappa"]
    idx = build_index(["a"] * len(stems), [str(j) for j in range(len(stems))], stems)
    kept = set(idx.keys.tolist())
    assert shingles("alpha beta gamma")[0] in kept and shingles("delta epsilon zeta")[0] not in kept
    assert idx.keys.size == MAX_POSTING + 2 and int(idx.rows.max()) == len(stems) - 1  # the 500 rows and the last one's 2 shingles
