"""``resolve`` reads the rows of the item's family alone (through the index beside each
enriched descriptor's files), with the whole files' answer."""

from __future__ import annotations

import importlib
import random
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from croissant_lineage.enrich import enrich_family
from croissant_lineage.errors import InputError
from croissant_lineage.findings.files import load_findings
from croissant_lineage.lineage.index import QUERY_ROW_GROUP
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.resolve import Resolver, find_enriched, resolve

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"
module = importlib.import_module("croissant_lineage.resolve")  # (the package's ``resolve`` is the function)


def _refs(lineage: Lineage) -> list[str]:
    items = lineage.items
    return [f"{d}:{i}" for d, i in zip(items.column("dataset").to_pylist(), items.column("item").to_pylist(), strict=True)]


@pytest.fixture(scope="module")
def enriched(toy_lineage: Lineage, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("toy-enriched") / "enriched"
    enrich_family(toy_lineage, TOY / "family.json", out, load_findings(TOY / "findings.yaml"))
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Lineage, Path]:
    from croissant_lineage.testing.synthetic import generate_family
    from croissant_lineage.workflows import link

    work = tmp_path_factory.mktemp("generated")
    fam = generate_family(work / "family", items=4000, seed=3)
    lineage = link(fam.spec)
    out = work / "enriched"
    enrich_family(lineage, fam.spec, out)
    return lineage, out


def test_every_toy_item_resolves_from_its_family_as_from_the_whole_files(toy_lineage, enriched):
    sources = find_enriched(enriched)
    assert all("index" in s.files for s in sources)
    whole, part = Resolver(sources), module._FamilyReader(sources)
    with_findings = 0
    for ref in _refs(toy_lineage):
        got = part.family(ref)
        assert got == whole.family(ref), ref
        with_findings += bool(got.findings)
    assert with_findings > 3  # findings reached through the family (not only on the item)


def test_a_generated_family_resolves_from_row_groups_as_from_the_whole_files(generated):
    lineage, out = generated
    sources = find_enriched(out)
    items = max((s.files["items"] for s in sources), key=lambda p: pq.ParquetFile(p).metadata.num_rows)
    meta = pq.ParquetFile(items).metadata
    assert meta.num_row_groups > 1 and meta.row_group(0).num_rows == QUERY_ROW_GROUP
    assert meta.row_group(0).column(0).statistics.has_min_max  # (the ref column's)
    whole, part = Resolver(sources), module._FamilyReader(sources)
    for ref in random.Random(5).sample(_refs(lineage), 150):
        assert part.family(ref) == whole.family(ref), ref


def test_the_index_points_at_the_rows_of_each_ref(enriched):
    for s in find_enriched(enriched):
        index = pq.read_table(s.files["index"])
        items = pq.read_table(s.files["items"], columns=["ref"]).column("ref").to_pylist()
        child = pq.read_table(s.files["lineage"], columns=["child", "parent"])
        for ref, kind, row, other in zip(*(index.column(c).to_pylist() for c in ("ref", "kind", "row", "other")), strict=True):
            if kind == 0:
                assert items[row] == ref == other
            elif kind == 3:
                assert items[row] == other
            else:
                ends = (child.column("child")[row].as_py(), child.column("parent")[row].as_py())
                assert ends == ((ref, other) if kind == 1 else (other, ref))
        assert index.column("ref").to_pylist() == sorted(index.column("ref").to_pylist())


def test_queries_reuse_one_reader_of_the_files(toy_lineage, enriched, monkeypatch):
    made = []
    real = module._FamilyReader
    monkeypatch.setattr(module, "_FamilyReader", lambda sources: made.append(1) or real(sources))
    monkeypatch.setattr(module, "_READERS", type(module._READERS)())
    whole = Resolver(find_enriched(enriched))
    for ref in _refs(toy_lineage)[:6]:
        assert resolve(ref, enriched) == whole.family(ref)
    assert made == [1]


def test_descriptors_without_an_index_are_read_whole(toy_lineage, enriched, tmp_path, monkeypatch):
    import json
    import shutil

    old = tmp_path / "old"
    shutil.copytree(enriched, old)
    for p in old.glob("*.json"):
        doc = json.loads(p.read_text())
        if isinstance(doc.get("distribution"), list):
            doc["distribution"] = [n for n in doc["distribution"] if n.get("@id") != "cl-index-file"]
        p.write_text(json.dumps(doc))
    for p in old.glob("*.index.parquet"):
        p.unlink()
    monkeypatch.setattr(module, "_READERS", type(module._READERS)())
    ref = _refs(toy_lineage)[0]
    assert isinstance(module._cached(module._stamp(module._json_files([old]))), Resolver)
    assert resolve(ref, old) == Resolver(find_enriched(enriched)).family(ref)


def test_an_unknown_item_is_the_same_error(enriched):
    sources = find_enriched(enriched)
    with pytest.raises(InputError) as a:
        module._FamilyReader(sources).family("toy-pro:nosuch")
    with pytest.raises(InputError) as b:
        Resolver(sources).family("toy-pro:nosuch")
    assert a.value.code == b.value.code == "CL-E001"
    assert a.value.hint == b.value.hint


def test_a_missing_index_file_is_a_coded_error(enriched, tmp_path):
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(enriched, broken)
    next(broken.glob("*.index.parquet")).unlink()
    with pytest.raises(InputError) as e:
        module._FamilyReader(find_enriched(broken))
    assert e.value.code == "CL-E001"


@pytest.mark.realdata
def test_mmlu_family_reads_as_the_whole_files(mmlu_lineage, mmlu_enriched):
    folder = Path(mmlu_enriched.descriptors[0].path).parent
    sources = find_enriched(folder)
    whole, part = Resolver(sources), module._FamilyReader(sources)
    for ref in ["mmlu-pro:3542", "mmlu:college_chemistry/test/86", *random.Random(3).sample(_refs(mmlu_lineage), 15)]:
        assert part.family(ref) == whole.family(ref), ref


def test_enriched_files_with_footer_blocks_resolve_the_same(generated, tmp_path, monkeypatch):
    from croissant_lineage.lineage import footers

    lineage, out = generated
    monkeypatch.setattr(footers, "BLOCK_THRESHOLD", 0)  # (every file: ~800 items a dataset, one group)
    monkeypatch.setattr(footers, "BLOCK_GROUPS", 1)
    from croissant_lineage.testing.synthetic import generate_family

    fam = generate_family(tmp_path / "family", items=4000, seed=3)
    blocked = tmp_path / "enriched"
    enrich_family(lineage, fam.spec, blocked)
    sides = sorted(p.name for p in blocked.rglob("*.footers"))
    assert sum(".index." in n for n in sides) == sum(".items." in n for n in sides) == 5
    whole, part = Resolver(find_enriched(out)), module._FamilyReader(find_enriched(blocked))
    for ref in random.Random(7).sample(_refs(lineage), 60):
        assert part.family(ref) == whole.family(ref), ref
