"""Every public function that takes a lineage takes what its docs pass: a ``Lineage``, the
path of a lineage folder (``str`` or ``Path``) or, where it queries, a ``LineageGraph``;
anything else is ``CL-E011`` naming the parameter. A ``Lineage`` builds its graph once."""

from __future__ import annotations

import inspect
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import croissant_lineage as cl
from croissant_lineage.errors import ArgumentError, InputError, LineageError
from croissant_lineage.lineage import graph as graph_module

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "examples" / "toy"
FAMILY = TOY / "family.json"


def _findings() -> list[cl.Finding]:
    return cl.load_findings(TOY / "findings.yaml")


def _toy_items() -> Any:
    return cl.link(FAMILY).items


#: public function -> (its lineage parameter, a call with a lineage ``lin``, and a place to write)
CALLS: dict[str, tuple[str, Callable[[Any, Path], Any]]] = {
    "relatives_of": ("lineage", lambda lin, _: cl.relatives_of(lin, "toy-pro:105")),
    "route": ("lineage", lambda lin, _: cl.route(lin, _findings()[0], _findings())),
    "route_item": ("lineage", lambda lin, _: cl.route_item(lin, "toy-pro:109", _findings())),
    "family_report": ("lineage_or_graph", lambda lin, _: cl.family_report(lin, _findings())),
    "family_picture": ("lineage_or_graph", lambda lin, _: cl.family_picture(lin, "toy-pro:105")),
    "apply_corrections": ("lineage", lambda lin, _: cl.apply_corrections(lin, _findings(), dataset="toy-pro")),
    "verify_translations": ("lineage", lambda lin, _: cl.verify_translations(lin)),
    "build_graph": ("lineage", lambda lin, _: cl.build_graph(lin)),
    "enrich_family": ("lineage", lambda lin, out: cl.enrich_family(lin, FAMILY, out / "enriched")),
    "verify_family_translations": ("lineage", lambda lin, _: cl.verify_family_translations(FAMILY, lineage=lin)),
    "compare_family_snapshots": ("lineage", lambda lin, _: cl.compare_family_snapshots(FAMILY, lineage=lin)),
    "snapshot_history": ("lineage", lambda lin, _: cl.snapshot_history(FAMILY, lineage=lin)),
    "import_redux": ("lineage", lambda lin, _: cl.import_redux(lineage=lin, family=str(FAMILY), dataset="toy-redux", parent_dataset="toy-base")),
}

#: Taking a lineage, but whose successful call needs data the toy family has not: the
#: wrong type is still refused before anything is read.
WRONG_TYPE_ONLY: dict[str, Callable[[Any, Path], Any]] = {
    "import_mmlu_pro_errata": lambda lin, out: cl.import_mmlu_pro_errata(out / "no-errata", lineage=lin),
    "witness_family": lambda lin, out: cl.witness_family(
        FAMILY, archives_dir=out, data_dir=out, dataset="toy-pro", lineage=lin),
}


def _takes_a_lineage(fn: Any) -> bool:
    params = inspect.signature(fn).parameters
    return any(name in ("lineage", "lineage_or_graph") for name in params)


def test_every_public_function_taking_a_lineage_is_covered() -> None:
    public = {n for n in cl.__all__ if inspect.isfunction(getattr(cl, n)) and _takes_a_lineage(getattr(cl, n))}
    assert public == set(CALLS) | set(WRONG_TYPE_ONLY)


@pytest.fixture
def folder(toy_lineage_path: Path, tmp_path: Path) -> Path:
    """A copy-free place beside the session's toy lineage: outputs go to ``tmp_path``."""
    (tmp_path / "lineage").symlink_to(toy_lineage_path, target_is_directory=True)
    return tmp_path / "lineage"


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("kind", [str, Path])
def test_a_lineage_folder_path_works(name: str, kind: type, folder: Path, tmp_path: Path) -> None:
    _, call = CALLS[name]
    from_path = call(kind(folder), tmp_path / "a")
    from_lineage = call(cl.Lineage.read(folder), tmp_path / "b")
    assert type(from_path) is type(from_lineage)
    if hasattr(from_path, "to_dict") and name != "enrich_family":  # (enrich: paths differ)
        assert from_path.to_dict() == from_lineage.to_dict()


@pytest.mark.parametrize("name", sorted({**CALLS, **WRONG_TYPE_ONLY}))
@pytest.mark.parametrize("wrong", [42, b"lineage", {"items": []}])
def test_a_wrong_type_is_a_coded_error_naming_the_parameter(name: str, wrong: Any, folder: Path, tmp_path: Path) -> None:
    param, call = CALLS[name] if name in CALLS else ("lineage", WRONG_TYPE_ONLY[name])
    with pytest.raises(ArgumentError) as caught:
        call(wrong, tmp_path)
    assert caught.value.code == "CL-E011"
    assert isinstance(caught.value, (LineageError, TypeError))
    assert caught.value.message.startswith(f"{param} must be ")


@pytest.mark.parametrize("call", [
    lambda out: cl.write_prov(42, out / "family.ttl"),
    lambda out: cl.publish(out / "croissant.json", 42, out / "publish", repo_id="owner/name"),
    lambda out: cl.Lineage.read(42),  # type: ignore[arg-type]
], ids=["write_prov", "publish", "Lineage.read"])
def test_a_lineage_folder_parameter_refuses_what_is_no_path(call: Callable[[Path], Any], tmp_path: Path) -> None:
    with pytest.raises(ArgumentError) as caught:
        call(tmp_path)
    assert caught.value.code == "CL-E011"
    assert not any(tmp_path.iterdir())  # nothing written


def test_a_missing_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(LineageError) as caught:
        cl.relatives_of(tmp_path / "nowhere", "toy-pro:105")
    assert caught.value.code == "CL-E001"


def test_a_lineage_builds_its_graph_once(toy_lineage_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds = []
    real_init = graph_module.LineageGraph.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        builds.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(graph_module.LineageGraph, "__init__", counting)
    lin = cl.Lineage.read(toy_lineage_path)
    findings = _findings()
    first = cl.relatives_of(lin, "toy-pro:105")
    cl.relatives_of(lin, "toy-pro:105")
    cl.route_item(lin, "toy-pro:109", findings)
    cl.family_report(lin, findings)
    cl.family_picture(lin, "toy-pro:105")
    assert len(builds) == 1
    # The kept graph is no field: equality, pickling and the repr ignore it ...
    assert lin == cl.Lineage.read(toy_lineage_path)
    assert "_graph" not in pickle.loads(pickle.dumps(lin)).__dict__
    # ... and setting a field drops it: the next query builds the new tables' graph.
    lin.duplicates = lin.duplicates.slice(0, 0)
    assert cl.relatives_of(lin, "toy-pro:105").duplicates == ()
    assert len(builds) == 2
    assert first.ref == "toy-pro:105"


def test_datasets_loaded_unlinked_have_the_shape_of_a_linked_family() -> None:
    lin = cl.load_datasets(FAMILY, ["toy-pro"])
    assert isinstance(lin, cl.Lineage) and lin.edges.num_rows == 0
    assert set(lin.items.column("dataset").to_pylist()) == {"toy-pro"}
    assert lin.items_of("toy-pro").equals(cl.link(FAMILY).items_of("toy-pro"))
    assert lin.items_of("toy-base").num_rows == 0
    with pytest.raises(InputError) as e:
        lin.items_of("toy-base", required=True)
    assert e.value.code == "CL-E001"
    with pytest.raises(ArgumentError):
        cl.load_datasets(FAMILY, "toy-pro")  # type: ignore[arg-type]  # one name, not a collection
