"""Dataset IRIs and the item IRIs minted from them: never two ``#`` in an item IRI."""

from __future__ import annotations

from pathlib import Path

import pytest

from croissant_lineage.errors import SpecError
from croissant_lineage.family.spec import iri_problems, item_iri_prefix, load_family, parse_family
from croissant_lineage.lineage.refs import iri_column
from croissant_lineage.lineage.schema import item_iri
from croissant_lineage.validate.family import check_family


def _doc(*iris: str, items: bool = True) -> dict:
    roles = {"id": "id", "stem": "question"}
    return {"name": "f", "datasets": [
        {"name": f"d{i}", "iri": iri, **({"descriptor": f"d{i}.json", "roles": roles} if items else {})}
        for i, iri in enumerate(iris)
    ]}


@pytest.mark.parametrize(("dataset", "item"), [
    ("https://x.org/ds", "https://x.org/ds#a/1"),
    ("https://x.org/ds#", "https://x.org/ds#a/1"),
    ("https://x.org/ds#en", "https://x.org/ds#en/a/1"),
])
def test_an_item_iri_has_one_hash(dataset: str, item: str) -> None:
    assert item_iri(dataset, "a/1") == item
    assert item_iri(dataset, "a/1").count("#") == 1
    assert iri_column(["d"], ["a/1"], {"d": dataset}).to_pylist() == [item]


def test_the_shipped_families_mint_item_iris_with_one_hash() -> None:
    for name in ("mmlu", "humaneval"):
        spec = load_family(name)
        assert iri_problems(spec.datasets.values()) == []
        assert all(item_iri(d.iri, "x#y").count("#") == 1 for d in spec.datasets.values())
    assert item_iri_prefix("https://huggingface.co/datasets/CohereLabs/Global-MMLU#ja").endswith("#ja/")


def test_a_dataset_iri_with_two_hashes_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as err:
        parse_family(_doc("https://x.org/ds#a#b"), tmp_path / "family.json")
    assert err.value.code == "CL-E003" and "two '#'" in err.value.message
    codes = [i.code for i in check_family(_doc("https://x.org/ds#a#b"), tmp_path / "family.json", "family.json")]
    assert "CLV503" in codes and "CLV501" not in codes


def test_item_iris_of_two_datasets_that_could_collide_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecError):  # item en/3 of d0 would be item 3 of d1
        parse_family(_doc("https://x.org/ds", "https://x.org/ds#en"), tmp_path / "family.json")
    with pytest.raises(SpecError):  # the same IRI twice
        parse_family(_doc("https://x.org/ds", "https://x.org/ds"), tmp_path / "family.json")
    codes = [i.code for i in check_family(_doc("https://x.org/ds", "https://x.org/ds#en"), tmp_path / "f.json", "f.json")]
    assert codes.count("CLV503") == 1
    # a documented dataset has no items: its IRI may be the others' root
    parse_family(_doc("https://x.org/ds#en", "https://x.org/ds#fr"), tmp_path / "family.json")
    doc = _doc("https://x.org/ds#en")
    doc["datasets"].append({"name": "root", "iri": "https://x.org/ds"})
    assert iri_problems(parse_family(doc, tmp_path / "family.json").datasets.values()) == []
