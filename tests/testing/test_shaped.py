"""Synthetic families of every shape: their truth, and the linker finding it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croissant_lineage._io import read_json
from croissant_lineage.errors import InputError
from croissant_lineage.family.spec import ACTIVITIES, load_family
from croissant_lineage.lineage.keys import KEYS_UNREAD
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.testing.problems import SHAPES
from croissant_lineage.testing.shaped import (
    FATES,
    FORMAT_CONVERSION,
    PERTURBATION,
    TEMPLATED_VARIANTS,
    VARIANTS_PER_PARENT,
    spec_activity,
)
from croissant_lineage.testing.synthetic import (
    FAMILY_SHAPES,
    MANIFEST,
    SyntheticFamily,
    generate_family,
)
from croissant_lineage.workflows import link

_KIND = {"number": "number", "text": "text", "set": "set", "code": "tests"}


@pytest.fixture(scope="module", params=SHAPES)
def family(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> SyntheticFamily:
    return generate_family(tmp_path_factory.mktemp("shaped") / request.param, 300, seed=4, shape=request.param)


@pytest.fixture(scope="module")
def linked(family: SyntheticFamily) -> Lineage:
    return link(family.spec)


def _truth(family: SyntheticFamily) -> list[dict[str, object]]:
    return pq.read_table(family.folder / "truth.parquet").to_pylist()


def test_shape_counts_and_spec(family: SyntheticFamily) -> None:
    spec = load_family(family.spec)
    assert {d.key_kind for d in spec.datasets.values()} == {_KIND[family.shape]}
    assert all(d.activity in ACTIVITIES for d in spec.item_derivations())
    assert family.items == sum(family.datasets.values())
    assert 250 <= family.items <= 400  # "about 300"
    truth = _truth(family)
    assert len(truth) == family.derived == family.items - family.datasets["syn-root"]
    per_parent = Counter(r["parent_item"] for r in truth if r["child_dataset"] == "syn-variants")
    assert set(per_parent.values()) == {VARIANTS_PER_PARENT}
    manifest = read_json(family.folder / MANIFEST)
    assert manifest["shape"] == family.shape
    assert [t["older"] for t in manifest["twins"]] == ["syn-root", None]
    dates = {d.name: d.date for d in spec.datasets.values()}
    assert dates["syn-root"] == dates["syn-annotated"] == dates["syn-mirror"]


def test_truth_records_each_content(family: SyntheticFamily) -> None:
    truth = _truth(family)
    for content in ("stem", "options", "key", "solution", "tests"):
        assert {r[content] for r in truth} <= set(FATES)
    by_kind = {r["kind"]: r for r in truth}
    assert set(by_kind) >= {PERTURBATION, TEMPLATED_VARIANTS, FORMAT_CONVERSION, "copy", "re_annotation"}
    perturbed = by_kind[PERTURBATION]
    assert (perturbed["stem"], perturbed["key"]) == ("edited", "recomputed")
    assert by_kind[TEMPLATED_VARIANTS]["key"] == "recomputed"
    assert all(by_kind[FORMAT_CONVERSION][c] in ("copied", "absent") for c in ("stem", "options", "key", "solution", "tests"))
    assert perturbed["options"] == ("recomputed" if family.shape == "text" else "absent")
    assert perturbed["tests"] == ("recomputed" if family.shape == "code" else "absent")
    annotated = by_kind["re_annotation"]
    assert annotated[("tests" if family.shape == "code" else "solution")] == "edited"
    assert {r["activity"] for r in truth} == {spec_activity(str(r["kind"])) for r in truth}


def test_linker_finds_every_parent(family: SyntheticFamily, linked: Lineage) -> None:
    want = {(r["child_dataset"], r["child_item"]): (r["parent_dataset"], r["parent_item"]) for r in _truth(family)}
    e = linked.edges
    got = {
        (cd, ci): (pd_, pi)
        for cd, ci, pd_, pi in zip(
            *(e.column(c).to_pylist() for c in ("child_dataset", "child_item", "parent_dataset", "parent_item")),
            strict=True,
        )
    }
    correct = sum(1 for k, v in got.items() if want.get(k) == v)
    assert correct / len(want) >= 0.99  # recall
    assert correct / len(got) >= 0.99  # precision
    for dataset in {k[0] for k in want}:  # every derivation, not only the big ones
        mine = [k for k in want if k[0] == dataset]
        assert sum(1 for k in mine if got.get(k) == want[k]) / len(mine) >= 0.99, dataset


def test_key_inherited_matches_the_truth(family: SyntheticFamily, linked: Lineage) -> None:
    truth = {(r["child_dataset"], r["child_item"]): r for r in _truth(family)}
    compared: Counter[bool] = Counter()
    for row in linked.edges.select(["child_dataset", "child_item", "parent_item", "key_inherited"]).to_pylist():
        t = truth[(row["child_dataset"], row["child_item"])]
        if t["key_same"] is None or t["parent_item"] != row["parent_item"]:
            continue
        assert row["key_inherited"] == t["key_same"], (row, t)
        compared[t["key_same"]] += 1
    assert compared[True] > 0 and compared[False] > 0
    assert not [w for w in linked.summary.to_dict().get("warnings", []) if w.get("code") == KEYS_UNREAD]


def test_same_seed_same_bytes_and_shapes_differ(tmp_path: Path) -> None:
    a = generate_family(tmp_path / "a", 150, seed=2, shape="set")
    b = generate_family(tmp_path / "b", 150, seed=2, shape="set")
    files = sorted(p.relative_to(a.folder) for p in a.folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    assert files == sorted(p.relative_to(b.folder) for p in b.folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    for rel in files:
        assert (a.folder / rel).read_bytes() == (b.folder / rel).read_bytes(), rel
    c = generate_family(tmp_path / "c", 150, seed=2, shape="number")
    assert (c.folder / "syn-root" / "test.parquet").read_bytes() != (a.folder / "syn-root" / "test.parquet").read_bytes()


def test_one_entry_point_replaces_a_family_of_another_shape(tmp_path: Path) -> None:
    mmlu = generate_family(tmp_path / "fam", 200)
    assert mmlu.shape == "choice" and "shape" not in read_json(mmlu.folder / MANIFEST)
    code = generate_family(tmp_path / "fam", 200, shape="code")
    assert not (code.folder / "syn-base").exists() and (code.folder / "syn-root").is_dir()
    again = generate_family(tmp_path / "fam", 200)
    assert not (again.folder / "syn-root").exists() and again.datasets == mmlu.datasets
    with pytest.raises(InputError) as exc:
        generate_family(tmp_path / "other", 200, shape="essay")
    assert exc.value.code == InputError.code
    assert ("choice", *SHAPES) == FAMILY_SHAPES


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**16))
def test_any_seed_links_to_its_truth(tmp_path: Path, shape: str, seed: int) -> None:
    """Whatever the seed: every child's parent, and key_inherited where the truth can say."""
    fam = generate_family(tmp_path / f"{shape}-{seed}", 150, seed=seed, shape=shape, force=True)
    truth = {(r["child_dataset"], r["child_item"]): r for r in _truth(fam)}
    edges = link(fam.spec).edges.select(["child_dataset", "child_item", "parent_item", "key_inherited"]).to_pylist()
    right = [e for e in edges if truth[(e["child_dataset"], e["child_item"])]["parent_item"] == e["parent_item"]]
    assert len(right) / len(truth) >= 0.99 and len(right) / len(edges) >= 0.99
    for e in right:
        same = truth[(e["child_dataset"], e["child_item"])]["key_same"]
        assert same is None or e["key_inherited"] == same, e
