"""Resolve: an item's family from enriched descriptors alone, equal to the lineage lookup."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from croissant_lineage.cli import main
from croissant_lineage.enrich import FamilyEnrichResult, enrich_family
from croissant_lineage.errors import InputError
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import relevant_findings
from croissant_lineage.lineage.graph import LineageGraph, relatives_of
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.resolve import Resolver, resolve

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"


def _findings() -> list[Finding]:
    src = Source("invented review", "https://example.org/review", "person")
    return [
        Finding(item="toy-base:astronomy/test/0", target="key", kind="wrong_key", source=src, proposed="x",
                evidence=["an invented reason"], answers=["x"]),
        Finding(item="toy-pro:101", target="option", option_index=5, kind="bad_options_clarity", source=src,
                status="no_response", status_date="2025-03-01"),
        Finding(item="toy-redux:astronomy/1", target="stem", kind="other", source=Source("someone"),
                related=["toy-base:astronomy/test/1"]).with_status("rejected", reason="fine", date="2025-04-01"),
    ]


def _isolated(result: FamilyEnrichResult, dest: Path) -> Path:
    """Copy the enriched descriptors and their files, and nothing else, to an empty folder."""
    dest.mkdir()
    for d in result.descriptors:
        shutil.copy(d.path, dest)
        for f in d.files.values():
            shutil.copy(f, dest)
    return dest


@pytest.fixture(scope="module")
def toy(toy_lineage: Lineage) -> Lineage:
    return toy_lineage


@pytest.fixture(scope="module")
def toy_folder(toy: Lineage, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("toy-enriched")
    result = enrich_family(toy, TOY / "family.json", out / "enriched", _findings())
    return _isolated(result, out / "isolated")


def _expected(graph: LineageGraph, ref: str, findings: list[Finding]) -> Any:
    fam = relatives_of(graph, ref)
    return dataclasses.replace(fam, findings=tuple(f.to_dict() for f in relevant_findings(graph, ref, findings)))


def test_every_toy_item_resolves_as_the_lineage_says(toy: Lineage, toy_folder: Path,
                                                     monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CROISSANT_LINEAGE_DATA", str(tmp_path / "nowhere"))
    resolver = Resolver.load(toy_folder)
    graph = LineageGraph(toy)
    refs = [f"{d}:{i}" for d, i in zip(toy.items.column("dataset").to_pylist(), toy.items.column("item").to_pylist(), strict=True)]
    assert len(refs) > 40
    for ref in refs:
        assert resolver.family(ref) == _expected(graph, ref, _findings()), ref
    fam = resolver.family("toy-pro:101")
    assert fam.ancestors[0].ref == "toy-base:astronomy/test/0"
    assert fam.ancestors[0].path[0].options_added == 2
    assert {f["id"] for f in fam.findings} == {_findings()[0].id, _findings()[1].id}
    assert [d["child"] for d in resolver.family("toy-base:astronomy/test/0").documented] == ["toy-xx"]


def test_resolve_function_and_errors(toy_folder: Path, tmp_path: Path) -> None:
    fam = resolve("toy-pro:101", toy_folder)
    assert fam.item is not None and fam.item.key is not None
    assert resolve("toy-pro:101", [toy_folder / "toy-pro.json", toy_folder / "toy-base.json"]).ancestors == fam.ancestors
    with pytest.raises(InputError) as err:
        resolve("toy-pro:999999", toy_folder)
    assert err.value.code == "CL-E001"
    with pytest.raises(InputError):
        resolve("toy-pro:101", tmp_path)  # nothing enriched there
    broken = tmp_path / "broken"
    shutil.copytree(toy_folder, broken)
    (broken / "toy-pro.lineage.parquet").unlink()
    with pytest.raises(InputError):
        resolve("toy-pro:101", broken)


def test_resolve_item_first_and_the_old_order_warns(
    toy_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = resolve("toy-pro:101", toy_folder)
    assert resolve(item_ref="toy-pro:101", descriptors=[toy_folder]) == new
    with pytest.warns(DeprecationWarning, match=r"resolve\(item_ref, descriptors\)"):
        old = resolve(toy_folder, "toy-pro:101")  # type: ignore[arg-type]
    assert old == new
    with pytest.warns(DeprecationWarning):
        assert resolve(str(toy_folder), "toy-pro:101") == new  # type: ignore[arg-type]
    two = [toy_folder / "toy-pro.json", toy_folder / "toy-base.json"]
    with pytest.warns(DeprecationWarning):
        assert resolve(two, "toy-pro:101") == resolve("toy-pro:101", two)  # type: ignore[arg-type]
    # a folder named like an item ref (dataset:id) is a path when it exists
    shutil.copytree(toy_folder, tmp_path / "enriched:1")
    monkeypatch.chdir(tmp_path)
    with pytest.warns(DeprecationWarning):
        assert resolve("enriched:1", "toy-pro:101") == new


def test_resolve_cli(toy_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", "toy-pro:101", str(toy_folder), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ancestors"][0]["ref"] == "toy-base:astronomy/test/0"
    assert len(out["findings"]) == 2
    assert main(["resolve", "toy-pro:101", str(toy_folder)]) == 0
    assert "toy-base:astronomy/test/0" in capsys.readouterr().out
    assert main(["resolve", "nope:1", str(toy_folder)]) == 2


@pytest.mark.slow
def test_mmlu_pro_3542_from_metadata_alone(mmlu_lineage: Lineage, shared_data: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from croissant_lineage.findings.importers import import_mmlu_pro_errata, import_redux

    pro_items = mmlu_lineage.items.filter(
        __import__("pyarrow.compute", fromlist=["equal"]).equal(mmlu_lineage.items.column("dataset"), "mmlu-pro")
    )
    findings = list(import_redux(items=mmlu_lineage.items, lineage=mmlu_lineage, data_dir=shared_data).findings)
    findings += list(import_mmlu_pro_errata(shared_data / "mmlu_pro_errata", items=pro_items, data_dir=shared_data).findings)
    result = enrich_family(mmlu_lineage, "mmlu", tmp_path / "enriched", findings)
    folder = _isolated(result, tmp_path / "isolated")
    monkeypatch.setenv("CROISSANT_LINEAGE_DATA", str(tmp_path / "nowhere"))
    monkeypatch.chdir(tmp_path)  # ../shared/data is not reachable from here

    fam = Resolver.load(folder).family("mmlu-pro:3542")
    graph = LineageGraph(mmlu_lineage)
    assert fam == _expected(graph, "mmlu-pro:3542", findings)
    parent = fam.ancestors[0]
    assert parent.ref.startswith("mmlu:") and parent.depth == 1
    edge = parent.path[0]
    assert edge.option_map and -1 in edge.option_map and edge.key_inherited is True
    assert fam.findings, "the parent's MMLU-Redux annotation reaches its MMLU-Pro copy"
    assert any(f["item"] == parent.ref for f in fam.findings)


@given(lists=st.lists(st.one_of(st.none(), st.lists(st.sampled_from(["a:1", "b:2:3", "c:x", "bad", ":1", "d:"]), max_size=3)),
                      max_size=8))
def test_alternatives_lose_their_dataset_as_split_ref_cuts_them(lists: list[list[str] | None]) -> None:
    from croissant_lineage.lineage.schema import split_ref
    from croissant_lineage.resolve import _alternative_items

    column = pa.chunked_array([pa.array(lists, pa.list_(pa.string()))], pa.list_(pa.string()))
    try:
        want: object = [[split_ref(a)[1] for a in alts] if alts else [] for alts in lists]
    except ValueError:
        with pytest.raises(ValueError, match="is not 'dataset:item'"):
            _alternative_items(column)
        return
    assert _alternative_items(column).to_pylist() == want
