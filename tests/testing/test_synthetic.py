"""The synthetic family generator: shape, determinism, and the linker finding what was planted."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from croissant_lineage.errors import InputError, OutputExistsError
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.testing.synthetic import MANIFEST, SyntheticFamily, generate_family
from croissant_lineage.workflows import link


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> SyntheticFamily:
    return generate_family(tmp_path_factory.mktemp("syn") / "fam", 600, seed=3)


@pytest.fixture(scope="module")
def linked(family: SyntheticFamily) -> Lineage:
    return link(family.spec)


def test_shape_and_counts(family: SyntheticFamily) -> None:
    spec = load_family(family.spec)
    assert [d.name for d in spec.datasets.values() if d.has_items] == list(family.datasets)
    assert spec.datasets["syn-zz"].coverage == "documented"
    assert {(d.child, d.activity) for d in spec.item_derivations()} == {
        ("syn-pro", "option_expansion"), ("syn-redux", "re_annotation"),
        ("syn-xx", "translation"), ("syn-yy", "translation"),
    }
    assert family.items == sum(family.datasets.values())
    assert 560 <= family.items <= 640  # "about 600"
    truth = pq.read_table(family.folder / "truth.parquet")
    assert truth.num_rows == family.derived
    kinds = Counter(truth.column("kind").to_pylist())
    assert set(kinds) <= {"copy", "presentation", "edit", "duplicate", "reannotation", "translation"}
    assert kinds["translation"] == family.datasets["syn-xx"] * 2
    assert kinds["reannotation"] == family.datasets["syn-redux"]


def test_linker_finds_every_planted_parent(family: SyntheticFamily, linked: Lineage) -> None:
    truth = pq.read_table(family.folder / "truth.parquet").to_pylist()
    e = linked.edges
    got = {
        (cd, ci): (pd_, pi)
        for cd, ci, pd_, pi in zip(
            *(e.column(c).to_pylist() for c in ("child_dataset", "child_item", "parent_dataset", "parent_item")),
            strict=True,
        )
    }
    want = {(r["child_dataset"], r["child_item"]): (r["parent_dataset"], r["parent_item"]) for r in truth}
    assert got == want
    assert linked.unmatched.num_rows == 0
    methods = {m for s in linked.summary.to_dict()["derivations"] for m in s["by_method"]}
    assert {"exact", "fuzzy", "id"} <= methods


def test_duplicates_and_key_changes_are_found(family: SyntheticFamily, linked: Lineage) -> None:
    truth = pq.read_table(family.folder / "truth.parquet").to_pylist()
    dup_items = {r["child_item"] for r in truth if r["kind"] == "duplicate"}
    grouped = set(linked.duplicates.column("item").to_pylist())
    assert dup_items and dup_items <= grouped
    redux = next(s for s in linked.summary.to_dict()["derivations"] if s["child"] == "syn-redux")
    assert redux["key_changed"] >= 1 and redux["key_inherited"] >= 1
    pro = next(s for s in linked.summary.to_dict()["derivations"] if s["child"] == "syn-pro")
    assert pro["options_added"] == 6 * pro["linked"]


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    a = generate_family(tmp_path / "a", 300, seed=7)
    b = generate_family(tmp_path / "b", 300, seed=7)
    files = sorted(p.relative_to(a.folder) for p in a.folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    assert files == sorted(p.relative_to(b.folder) for p in b.folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    for rel in files:
        assert (a.folder / rel).read_bytes() == (b.folder / rel).read_bytes(), rel
    c = generate_family(tmp_path / "c", 300, seed=8)
    assert (c.folder / "syn-base" / "test.parquet").read_bytes() != (a.folder / "syn-base" / "test.parquet").read_bytes()


def test_refuses_foreign_folder_and_tiny_sizes(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(OutputExistsError) as exc:
        generate_family(other, 200)
    assert exc.value.code == OutputExistsError.code
    assert (other / "notes.txt").read_text(encoding="utf-8") == "mine"
    with pytest.raises(InputError) as exc2:
        generate_family(tmp_path / "tiny", 99)
    assert exc2.value.code == InputError.code
    again = generate_family(tmp_path / "fam", 200)
    assert generate_family(again.folder, 200).items == again.items  # its own folder: replaced
