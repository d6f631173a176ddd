"""The embedded example family (examples/toy): every kind of edge, CLI behaviour."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from croissant_lineage.cli import main
from croissant_lineage.errors import OutputExistsError, SpecError
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.graph import LineageGraph, relatives_of
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.workflows import link

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"


@pytest.fixture(scope="module")
def toy(toy_lineage: Lineage) -> Lineage:
    return toy_lineage


@pytest.fixture(scope="module")
def graph(toy: Lineage) -> LineageGraph:
    return LineageGraph(toy)


def test_every_kind_of_edge(toy: Lineage, graph: LineageGraph) -> None:
    methods = {(s["child"], m) for s in toy.summary.to_dict()["derivations"] for m in s["by_method"]}
    assert {("toy-pro", "exact"), ("toy-pro", "fuzzy"), ("toy-redux", "fuzzy"), ("toy-fr", "id")} <= methods
    (e,) = graph.parents("toy-pro:101")
    assert (e.options_copied, e.options_added, e.key_inherited) == (4, 2, True)
    (e,) = graph.parents("toy-pro:105")
    assert e.key_inherited is False
    (e,) = graph.parents("toy-pro:103")  # generic stem: resolved by its options
    assert e.parent == "toy-base:astronomy/test/2" and e.alternatives == ("toy-base:astronomy/test/3",)
    assert graph.duplicates("toy-pro:106") == ["toy-pro:107"]
    assert graph.duplicates("toy-pro-v2:107") == ["toy-pro-v2:106"]  # permuted options still a copy
    assert graph.parents("toy-pro:111") == []  # its own item, not selected
    fam = relatives_of(graph, "toy-base:astronomy/test/0")
    assert {r.ref for r in fam.descendants} >= {"toy-fr:astronomy/test/0", "toy-pro:101", "toy-pro-v2:101"}
    assert [d["child"] for d in fam.documented] == ["toy-xx"]


def test_link_is_deterministic(tmp_path: Path, toy: Lineage) -> None:
    toy.write(tmp_path / "a")
    link(TOY / "family.json").write(tmp_path / "b")
    for name in ("items.parquet", "edges.parquet", "duplicates.parquet", "unmatched.parquet", "family.json", "summary.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_lineage_round_trips(tmp_path: Path, toy: Lineage) -> None:
    back = Lineage.read(toy.write(tmp_path / "l"))
    assert back.edges.equals(toy.edges) and back.items.equals(toy.items)
    assert back.summary == toy.summary


def test_cli_link_and_family_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lin"
    assert main(["link", str(TOY / "family.json"), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["relatives", "toy-pro:105", "--lineage", str(out), "--json"]) == 0
    fam = json.loads(capsys.readouterr().out)
    assert fam["ancestors"][0]["ref"] == "toy-base:astronomy/test/5"
    assert fam["ancestors"][0]["path"][0]["key_inherited"] is False
    assert fam["descendants"][0]["ref"] == "toy-pro-v2:105"


def test_unknown_item_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lin"
    link(TOY / "family.json").write(out)
    assert main(["relatives", "toy-pro:999", "--lineage", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "CL-E001" in err


def _copy_toy(tmp_path: Path) -> Path:
    dst = tmp_path / "toy"
    shutil.copytree(TOY, dst)
    return dst


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda d: (d / "toy-pro" / "test.jsonl").unlink(), "CL-E004"),  # FileSet matches nothing
        (lambda d: (d / "toy-fr" / "croissant.json").write_text("{not json"), "CL-E001"),
        (lambda d: (d / "toy-fr" / "croissant.json").write_text('{"@type": "Thing"}'), "CL-E002"),
        (lambda d: (d / "toy-redux" / "toy_redux.csv").write_bytes(b"a;b\x00;c\n"), "CL-E001"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str], mutate, code) -> None:
    d = _copy_toy(tmp_path)
    mutate(d)
    out = tmp_path / "out"
    assert main(["link", str(d / "family.json"), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert code in err and err.count("\n") == 1
    assert not out.exists()


def test_spec_naming_a_missing_field_is_a_spec_error(tmp_path: Path) -> None:
    d = _copy_toy(tmp_path)
    spec = json.loads((d / "family.json").read_text())
    spec["datasets"][0]["roles"]["stem"] = "questoin"
    (d / "family.json").write_text(json.dumps(spec))
    with pytest.raises(SpecError) as exc:
        link(d / "family.json")
    assert "questoin" in str(exc.value)


def test_spec_schema_errors_name_the_place(tmp_path: Path) -> None:
    bad = tmp_path / "f.json"
    bad.write_text(json.dumps({"name": "x", "datasets": [{"name": "a:b", "iri": "https://e.org"}]}))
    with pytest.raises(SpecError) as exc:
        load_family(bad)
    assert "datasets/0/name" in str(exc.value)


def test_existing_foreign_output_is_not_replaced(tmp_path: Path, toy: Lineage) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(OutputExistsError):
        toy.write(out)
    assert (out / "notes.txt").read_text() == "keep me"
    toy.write(out, force=True)
    toy.write(out)  # our own folder may be refreshed


def test_link_rule_naming_a_missing_field_names_the_spec(tmp_path: Path) -> None:
    d = _copy_toy(tmp_path)
    spec = json.loads((d / "family.json").read_text())
    spec["derivations"][0]["link"]["select"]["field"] = "srcc"
    (d / "family.json").write_text(json.dumps(spec))
    with pytest.raises(SpecError) as exc:
        link(d / "family.json")
    assert exc.value.path == str(d / "family.json") and "srcc" in str(exc.value)


def test_broken_pipe_ends_quietly(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "lin"
    link(TOY / "family.json").write(out)
    code = (
        "import sys; from croissant_lineage.cli import main; "
        f"sys.exit(main(['relatives', 'toy-base:astronomy/test/0', '--lineage', {str(out)!r}, '--json']))"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.close()  # the reader is gone before anything is written, as with `| head -0`
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 141
    assert b"Traceback" not in err and b"Exception ignored" not in err


def test_the_free_form_and_code_datasets(toy: Lineage, graph: LineageGraph) -> None:
    """Numeric keys read out of worked solutions, linked by stem without blocks; code items joined by id."""
    math = toy.items_of("toy-math").to_pylist()
    assert {r["item"]: r["key_value"] for r in math} == {"m1": 36.0, "m2": 150.0, "m3": 12.5, "m4": 3.0}
    (e,) = graph.parents("toy-math-perturbed:v3")  # copied, its key written 12.5 for $12.50
    assert (e.parent, e.method, e.key_inherited) == ("toy-math:m3", "exact", True)
    (e,) = graph.parents("toy-math-perturbed:v2")  # one number changed, the answer recomputed
    assert (e.parent, e.method, e.key_inherited) == ("toy-math:m2", "fuzzy", False)
    assert graph.parents("toy-math-perturbed:v1")[0].parent == "toy-math:m1"
    code = {r["item"]: r for r in toy.items_of("toy-code").to_pylist()}
    assert set(code) == {"Toy/0", "Toy/1"} and "assert f(2, 3) == 5" in code["Toy/0"]["tests"]
    assert [e.parent for e in graph.parents("toy-code-js:JS/1")] == ["toy-code:Toy/1"]
