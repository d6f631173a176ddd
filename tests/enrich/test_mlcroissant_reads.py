"""Enriched descriptors read as users read them: ``mlc.Dataset(jsonld=...)`` yields every
RecordSet the library adds, twice in a row on the same Dataset, with the same rows (and as
many as the Parquet file behind it holds)."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from croissant_lineage.enrich import FamilyEnrichResult, enrich_family
from croissant_lineage.enrich.files import RECORD_SETS
from croissant_lineage.lineage.model import Lineage

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy"



def _rows(ds: Any, rs: str) -> list[tuple[Any, ...]]:
    """The records of one RecordSet, each a sorted tuple of (field, value) with arrays as tuples."""
    out = []
    for rec in ds.records(rs):
        out.append(tuple(sorted((k, tuple(v) if hasattr(v, "__len__") and not isinstance(v, (str, bytes)) else v)
                                for k, v in rec.items())))
    return out


def _check_one(path: str, files: dict[str, str]) -> dict[str, int]:
    """Read every added RecordSet of one descriptor twice; rows per (descriptor, RecordSet)."""
    import mlcroissant as mlc

    counts: dict[str, int] = {}
    ds = mlc.Dataset(jsonld=path)
    for rs_id, spec in RECORD_SETS.items():
        first, second = _rows(ds, rs_id), _rows(ds, rs_id)
        assert first == second, (path, rs_id, len(first), len(second))
        assert len(first) == pq.ParquetFile(files[spec.kind]).metadata.num_rows, (path, rs_id)
        counts[f"{Path(path).name}:{rs_id}"] = len(first)
    return counts


def _check_twice(enriched: FamilyEnrichResult, workers: int = 1) -> dict[str, int]:
    """:func:`_check_one` for every descriptor, in ``workers`` processes (mlcroissant reads
    record by record in Python: the real family takes minutes on one core)."""
    jobs = [(d.path, {k: str(v) for k, v in d.files.items()}) for d in enriched.descriptors]
    counts: dict[str, int] = {}
    if workers == 1:
        for job in jobs:
            counts.update(_check_one(*job))
        return counts
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        for part in pool.map(_check_one, [p for p, _ in jobs], [f for _, f in jobs]):
            counts.update(part)
    return counts


def test_toy_added_record_sets_read_twice_with_equal_rows(toy_lineage: Lineage, tmp_path: Path) -> None:
    findings = TOY / "findings.yaml"
    enriched = enrich_family(toy_lineage, TOY / "family.json", tmp_path, findings, time="2025-01-01T00:00:00Z")
    counts = _check_twice(enriched)
    assert counts["toy-pro.json:lineage"] == 10 and counts["toy-pro.json:item_texts"] == 12
    assert sum(v for k, v in counts.items() if k.endswith(":findings")) > 0  # a findings set was read


def test_added_record_sets_declare_no_references_join(toy_lineage: Lineage, tmp_path: Path) -> None:
    """A ``references`` field makes mlcroissant 1.1.1 cache the target's generator (0 rows
    on a second read); the join is named in the field's description instead."""
    enriched = enrich_family(toy_lineage, TOY / "family.json", tmp_path, time="2025-01-01T00:00:00Z")
    for d in enriched.descriptors:
        doc = json.loads(Path(d.path).read_text("utf-8"))
        for rs in doc["recordSet"]:
            if rs["@id"] in RECORD_SETS:
                assert not [f["@id"] for f in rs["field"] if "references" in f]
        lineage = next(rs for rs in doc["recordSet"] if rs["@id"] == "lineage")
        child = next(f for f in lineage["field"] if f["@id"] == "lineage/child")
        assert "lineage_items/ref" in child["description"]


@pytest.mark.slow
def test_mmlu_added_record_sets_read_twice_with_equal_rows(mmlu_lineage: Lineage, mmlu_enriched: FamilyEnrichResult) -> None:
    """Every enriched MMLU descriptor, every added RecordSet, read twice: equal rows; and
    every edge ``link`` produced comes back through mlcroissant's ``records("lineage")``."""
    counts = _check_twice(mmlu_enriched, workers=2)
    assert len(counts) == len(mmlu_enriched.descriptors) * len(RECORD_SETS)
    assert sum(v for k, v in counts.items() if k.endswith(":lineage")) == mmlu_lineage.edges.num_rows
    assert counts["mmlu-pro.json:lineage"] == next(
        d.edges for d in mmlu_enriched.descriptors if Path(d.path).name == "mmlu-pro.json") > 0
