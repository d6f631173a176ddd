"""Discovery on the real data: roles of the MMLU family, an MLCommons example with no relative,
and (slow) MMLU-Pro's parent recovered against MMLU with link's edges as the reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.discovery.propose import discover
from croissant_lineage.discovery.roles import guess_dataset
from croissant_lineage.family.shipped import builtin_family_path
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.linking.linker import link_derivation


def _spec_with(tmp_path: Path, names: tuple[str, ...]) -> Path:
    """The shipped MMLU spec reduced to ``names``, with no derivations."""
    src = builtin_family_path("mmlu")
    assert src is not None
    doc = json.loads(src.read_text(encoding="utf-8"))
    datasets = [dict(d, descriptor=str(src.parent / d["descriptor"])) for d in doc["datasets"] if d["name"] in names]
    path = tmp_path / "datasets-only.json"
    path.write_text(json.dumps({"name": "mmlu-stripped", "datasets": datasets, "derivations": []}), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["mmlu-2020", "mmlu-redux", "mmlu-pro", "mmmlu-zh-cn"])
def test_roles_of_mmlu_datasets_match_the_spec(shared_data: Path, name: str) -> None:
    declared = load_family("mmlu").dataset(name)
    spec, guess = guess_dataset(declared.descriptor, record_set=declared.record_set, data_dir=shared_data)
    assert spec is not None and guess.ok
    for role in ("subject", "stem", "options", "key"):
        assert guess.roles[role] == declared.roles[role], role
    assert guess.key_format == declared.key_format


def test_mlcommons_example_has_no_relative(shared_data: Path, tmp_path: Path) -> None:
    example = shared_data / "croissant-examples" / "1.0" / "simple-join" / "metadata.json"
    result = discover([example], [_spec_with(tmp_path, ("mmlu-redux-2.0",))], data_dir=shared_data)
    assert result.roles and all(g.ok for g in result.roles.values())
    assert result.proposals == [] and result.no_relative == list(result.roles)


def test_mlcommons_example_without_text_is_refused(shared_data: Path, tmp_path: Path) -> None:
    example = shared_data / "croissant-examples" / "1.0" / "simple-parquet" / "metadata.json"
    result = discover([example], [_spec_with(tmp_path, ("mmlu-redux-2.0",))], data_dir=shared_data)
    assert result.refused and result.proposals == []


@pytest.mark.slow
def test_mmlu_pro_parent_recovered_against_link(shared_data: Path, tmp_path: Path) -> None:
    """~40 s: MMLU-Pro against the MMLU datasets (no derivations declared)."""
    corpus = ("mmlu-2020", "mmlu", "mmlu-redux", "mmlu-redux-2.0", "global-mmlu-en")
    fam = load_family("mmlu")
    pro = fam.dataset("mmlu-pro")
    assert pro.descriptor is not None
    result = discover([pro.descriptor], [_spec_with(tmp_path, corpus)], data_dir=shared_data)
    first = result.proposals[0]
    assert (first.parent, first.activity) == ("mmlu", "option_expansion")
    deriv = next(d for d in fam.derivations if (d.child, d.parent) == ("mmlu-pro", "mmlu"))
    child = load_items(pro, data_dir=shared_data)
    edges, _, _ = link_derivation(deriv, child, load_items(fam.dataset("mmlu"), data_dir=shared_data))
    declared = set(zip(edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist(), strict=True))
    d = result.lineage.edges
    found = {
        (c, p)
        for c, p, pd in zip(*(d.column(k).to_pylist() for k in ("child_item", "parent_item", "parent_dataset")), strict=True)
        if pd == "mmlu"
    }
    agree = len(found & declared)
    assert agree >= 0.99 * len(declared)
    assert agree >= 0.995 * len(found)
    src = {i: json.loads(r).get("src", "") for i, r in zip(child.column("item").to_pylist(), child.column("record").to_pylist(), strict=True)}
    assert [c for c, _ in found if not src[c].startswith("ori_mmlu-")] == []
