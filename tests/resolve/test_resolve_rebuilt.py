"""Resolve from enriched descriptors (``croissant_lineage.resolve``): the whole rebuilt
lineage checked against the linked one, the descriptor variants resolve must read (full
IRIs, foreign nodes, several family names), the resolve cache and the item-ref rule."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import warnings
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from croissant_lineage.croissant.namespaces import CL_NS, PROV_NS, SCHEMA_NS
from croissant_lineage.enrich import enrich_family
from croissant_lineage.errors import InputError
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import (
    DUPLICATES_SCHEMA,
    EDGES_SCHEMA,
    ITEMS_BASE_SCHEMA,
    ITEMS_SCHEMA,
)
from croissant_lineage.resolve import (
    Resolver,
    _components,
    _split,
    find_enriched,
    resolve,
)
from tests.resolve.test_resolve import _expected, _findings, _isolated

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"


@pytest.fixture(scope="module")
def folder(toy_lineage: Lineage, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("toy-enriched-rebuilt")
    return _isolated(enrich_family(toy_lineage, TOY / "family.json", out / "enriched", _findings()), out / "isolated")


@pytest.fixture(scope="module")
def resolver(folder: Path) -> Resolver:
    return Resolver.load(folder)


def _rows(table: pa.Table, drop: tuple[str, ...] = ()) -> list[str]:
    cols = [c for c in table.column_names if c not in drop]
    return sorted(json.dumps(r, sort_keys=True) for r in table.select(cols).to_pylist())


def _key(d: dict[str, Any]) -> str:
    return json.dumps(d, sort_keys=True)


def test_rebuilt_lineage_is_the_linked_one(toy_lineage: Lineage, resolver: Resolver) -> None:
    got = resolver.lineage
    assert got.items.schema == ITEMS_SCHEMA and got.edges.schema == EDGES_SCHEMA
    assert got.duplicates.schema == DUPLICATES_SCHEMA
    # the enriched items files carry the base and the key columns; solutions and tests come back as nulls
    keys = ("key_kind", "key_text", "key_value", "key_answers")
    absent = tuple(n for n in ITEMS_SCHEMA.names if n not in ITEMS_BASE_SCHEMA.names and n not in keys)
    assert _rows(got.items, ("record", *absent)) == _rows(toy_lineage.items, ("record", *absent))
    assert all(got.items.column(n).null_count == got.items.num_rows for n in absent)
    assert got.items.column("key_kind").null_count < got.items.num_rows
    assert got.items.column("record").null_count == got.items.num_rows == 65
    # the enriched lineage file has no text_repaired column: it comes back as nulls
    assert _rows(got.edges, ("text_repaired",)) == _rows(toy_lineage.edges, ("text_repaired",))
    assert got.edges.column("text_repaired").null_count == got.edges.num_rows == 41
    assert _rows(got.duplicates) == _rows(toy_lineage.duplicates) and got.duplicates.num_rows == 4
    fam = got.family.to_dict()
    assert (fam["name"], fam["title"]) == ("toy", "")
    assert sorted(map(_key, fam["derivations"])) == sorted(map(_key, toy_lineage.family.to_dict()["derivations"]))
    # a dataset with documented coverage only has no descriptor: its title is not known
    want = [{**d, "title": ""} if d["coverage"] == "documented" else d for d in toy_lineage.family.to_dict()["datasets"]]
    assert sorted(map(_key, fam["datasets"])) == sorted(map(_key, want))
    assert [d["name"] for d in fam["datasets"]] == ["toy-base", "toy-xx", "toy-code-js", "toy-code", "toy-fr",
                                                   "toy-math-perturbed", "toy-math", "toy-pro-v2", "toy-pro", "toy-redux"]


def test_sources_are_sorted_with_their_files_and_family(folder: Path, resolver: Resolver) -> None:
    names = [s.path.name for s in resolver.sources]
    assert names == sorted(names) and len(names) == 9
    for s in resolver.sources:
        stem = s.path.name.removesuffix(".json")
        assert s.family == "toy"
        assert s.files == {k: folder / f"{stem}.{k}.parquet" for k in ("items", "lineage", "findings", "index")}
        assert [_key(d) for d in s.datasets] == [_key(d) for d in json.loads(s.path.read_text())["cl:familyDataset"]]
    assert [f.id for f in resolver.findings] == [f.id for f in _findings()]


def _full_iris(value: Any) -> Any:
    """The same JSON-LD with every prov: key, cl:familyDataset and distribution written as full IRIs."""
    if isinstance(value, list):
        return [_full_iris(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for k, v in value.items():
        if k.startswith("prov:"):
            k = PROV_NS + k.removeprefix("prov:")
        elif k == "cl:familyDataset":
            k = CL_NS + "familyDataset"
        elif k == "distribution":
            k = SCHEMA_NS + "distribution"
        out[k] = v if k == "@context" else _full_iris(v)
    return out


def _rewrite(folder: Path, dest: Path, edit: Any, names: tuple[str, ...] = ()) -> Path:
    shutil.copytree(folder, dest)
    for path in sorted(dest.glob("*.json")):
        if not names or path.name in names:
            path.write_text(json.dumps(edit(json.loads(path.read_text()))))
    return dest


def test_properties_written_as_full_iris_are_read(folder: Path, resolver: Resolver, tmp_path: Path) -> None:
    full = Resolver.load(_rewrite(folder, tmp_path / "full", _full_iris))
    assert all(CL_NS + "familyDataset" in json.loads(s.path.read_text()) for s in full.sources)
    assert full.lineage.family == resolver.lineage.family
    assert [s.family for s in full.sources] == ["toy"] * 9
    for ref in ("toy-pro:101", "toy-base:astronomy/test/0", "toy-redux:astronomy/1", "toy-pro-v2:101"):
        assert full.family(ref) == resolver.family(ref)


def test_family_name_only_when_the_descriptors_agree(folder: Path, tmp_path: Path) -> None:
    def rename(doc: dict[str, Any]) -> dict[str, Any]:
        for act in doc["prov:wasGeneratedBy"]:
            for used in act.get("prov:used", []):
                if "cl:Lineage" in used["@type"]:
                    used["sc:name"] = {"@value": "other"}
        return doc

    two = Resolver.load(_rewrite(folder, tmp_path / "two", rename, ("toy-pro.json",)))
    assert sorted({s.family for s in two.sources}) == ["other", "toy"]
    assert two.lineage.family.name == ""

    def foreign_activity(doc: dict[str, Any]) -> dict[str, Any]:
        for act in doc["prov:wasGeneratedBy"]:
            del act["@index"]  # the same activity, not marked as ours: not read
        return doc

    def lineage_first(doc: dict[str, Any]) -> dict[str, Any]:
        for act in doc["prov:wasGeneratedBy"]:
            act["prov:used"] = sorted(act.get("prov:used", []), key=lambda u: "cl:Lineage" not in u["@type"])
        return doc

    first = Resolver.load(_rewrite(folder, tmp_path / "first", lineage_first, ("toy-pro.json",)))
    # the family is the cl:Lineage entity's name, not the name of an entity used after it
    assert [s.family for s in first.sources] == ["toy"] * 9

    none = Resolver.load(_rewrite(folder, tmp_path / "none", foreign_activity, ("toy-pro.json",)))
    assert {s.path.name: s.family for s in none.sources}["toy-pro.json"] is None
    assert none.lineage.family.name == "toy"


def test_foreign_files_and_nodes_are_skipped(folder: Path, resolver: Resolver, tmp_path: Path) -> None:
    dest = tmp_path / "mixed"
    shutil.copytree(folder, dest)
    (dest / "a-list.json").write_text("[1, 2]")
    (dest / "plain.json").write_text(json.dumps({"name": "plain"}))
    pro = json.loads((dest / "toy-pro.json").read_text())
    unmarked = {k: v for k, v in pro["cl:familyDataset"][0].items() if k != "@index"}
    (dest / "unmarked.json").write_text(json.dumps({**pro, "cl:familyDataset": [unmarked]}))
    assert [s.path.name for s in find_enriched(dest)] == [s.path.name for s in resolver.sources]
    # a file node of ours needs a string contentUrl; a node with our @id but no mark is not ours
    for dist in pro["distribution"]:
        if dist.get("@id") == "cl-findings-file":
            dist["contentUrl"] = ["toy-pro.findings.parquet"]
        if dist.get("@id") == "cl-items-file":
            del dist["@index"]
    (dest / "toy-pro.json").write_text(json.dumps(pro))
    src = {s.path.name: s for s in find_enriched(dest)}["toy-pro.json"]
    assert sorted(src.files) == ["index", "lineage"]


def test_nothing_enriched_is_a_coded_error(folder: Path, tmp_path: Path) -> None:
    (tmp_path / "plain.json").write_text("{}")
    with pytest.raises(InputError) as err:
        find_enriched(tmp_path)
    assert (err.value.code, err.value.message, err.value.path) == ("CL-E001", "no enriched descriptor found", str(tmp_path))
    assert err.value.hint == "give the output folder of 'croissant-lineage enrich --family'"
    with pytest.raises(InputError) as err:
        find_enriched([tmp_path, tmp_path / "plain.json"])
    assert err.value.path is None
    with pytest.raises(InputError) as err:
        find_enriched([folder, tmp_path / "missing"])
    assert (err.value.message, err.value.path) == ("not found", str(tmp_path / "missing"))
    # a file named directly is read even without the .json suffix
    shutil.copy(folder / "toy-pro.json", tmp_path / "toy-pro.descriptor")
    assert [s.path.name for s in find_enriched(tmp_path / "toy-pro.descriptor")] == ["toy-pro.descriptor"]


def test_no_descriptor_gives_an_empty_lineage() -> None:
    empty = Resolver([])
    assert empty.lineage.items.num_rows == empty.lineage.edges.num_rows == empty.lineage.duplicates.num_rows == 0
    assert empty.lineage.items.schema == ITEMS_SCHEMA and empty.lineage.edges.schema == EDGES_SCHEMA
    assert empty.findings == [] and empty.lineage.family.name == ""
    with pytest.raises(InputError):
        empty.family("toy-pro:101")


def test_refs_split_at_the_first_colon() -> None:
    datasets, items = _split(pa.chunked_array([["mmlu:a:b", "toy-pro:101"], ["x:"]]))
    assert datasets.to_pylist() == ["mmlu", "toy-pro", "x"]
    assert items.to_pylist() == ["a:b", "101", ""]


def test_components_join_edges_and_duplicates(toy_lineage: Lineage) -> None:
    comp = _components(toy_lineage)
    for cd, ci, pd_, pi in zip(*(toy_lineage.edges.column(c).to_pylist()
                                 for c in ("child_dataset", "child_item", "parent_dataset", "parent_item")), strict=True):
        assert comp.get(f"{cd}:{ci}", f"{cd}:{ci}") == comp.get(f"{pd_}:{pi}", f"{pd_}:{pi}")
    for ds, item, group in zip(*(toy_lineage.duplicates.column(c).to_pylist() for c in ("dataset", "item", "group")), strict=True):
        assert comp.get(f"{ds}:{item}", f"{ds}:{item}") == comp.get(f"{ds}:{group}", f"{ds}:{group}")
    # a representative stands for itself (it is left out: a ref not listed is its own)
    assert not set(comp.values()) & set(comp)
    # unrelated items are in different components
    assert len(set(comp.values())) > 1


def test_findings_on_every_item_reach_every_relative(toy_lineage: Lineage, tmp_path: Path) -> None:
    """One finding per item: the component shortcut must not hide any of them."""
    src = Source("invented review", "https://example.org/review", "person")
    refs = [f"{d}:{i}" for d, i in zip(toy_lineage.items.column("dataset").to_pylist(), toy_lineage.items.column("item").to_pylist(), strict=True)]
    findings = [Finding(item=r, target="stem", kind="other", source=src, evidence=[f"about {r}"]) for r in refs]
    folder = _isolated(enrich_family(toy_lineage, TOY / "family.json", tmp_path / "e", findings), tmp_path / "i")
    resolver = Resolver.load(folder)
    graph = LineageGraph(toy_lineage)
    for ref in refs:
        got = resolver.family(ref)
        assert got == _expected(graph, ref, findings), ref
        assert got.findings, ref


def test_resolve_sees_a_descriptor_rewritten_in_place(folder: Path, tmp_path: Path) -> None:
    dest = tmp_path / "live"
    shutil.copytree(folder, dest)
    before = resolve("toy-pro:101", dest)
    assert before.findings and before.ancestors[0].ref == "toy-base:astronomy/test/0"
    pro = dest / "toy-pro.json"
    st = pro.stat()
    doc = json.loads(pro.read_text())
    del doc["cl:familyDataset"]  # toy-pro is no longer described: its lineage file is not read
    pro.write_text(json.dumps(doc))
    os.utime(pro, ns=(st.st_atime_ns, st.st_mtime_ns))  # same time, other size
    after = resolve("toy-pro:101", dest)
    assert after.ancestors == () and after.descendants == before.descendants


def test_resolve_sees_a_file_of_the_same_size_rewritten(folder: Path, toy_lineage: Lineage, tmp_path: Path) -> None:
    other = _isolated(enrich_family(toy_lineage, TOY / "family.json", tmp_path / "e", []), tmp_path / "other")
    dest = tmp_path / "live"
    shutil.copytree(folder, dest)
    assert resolve("toy-pro:101", dest).findings
    for path in sorted(other.iterdir()):
        shutil.copy(path, dest / path.name)
    pro, size = dest / "toy-pro.json", (folder / "toy-pro.json").stat().st_size
    text = pro.read_text()
    assert len(text.encode()) < size
    pro.write_text(text + " " * (size - len(text.encode())))  # JSON allows trailing blanks
    # the same size: only the modification time tells the file changed
    assert pro.stat().st_size == size
    os.utime(pro, ns=(pro.stat().st_atime_ns, (folder / "toy-pro.json").stat().st_mtime_ns + 10**9))
    assert resolve("toy-pro:101", dest).findings == ()


@pytest.mark.parametrize(
    ("value", "is_ref"),
    [("toy-pro:101", True), ("mmlu:astronomy/test/1", True), ("a:b:c", True), ("a: b", False),
     ("toy pro:1", False), ("a/b:1", False), ("a\\b:1", False), (":1", False), ("a:", False),
     ("toy-pro", False), (Path("toy-pro:101"), False), (None, False)],
)
def test_what_an_item_ref_is(value: object, is_ref: bool, folder: Path) -> None:
    """The version 1 order ``resolve(descriptors, item_ref)`` is recognised (and warned of)
    by its second argument being an item ref: ``dataset:id``, not an existing path."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # an item the toy family lacks, or no descriptors at all: only the order matters here
        with contextlib.suppress(InputError, TypeError):
            resolve(str(folder), value)  # type: ignore[arg-type]
    assert [w.category for w in caught] == ([DeprecationWarning] if is_ref else [])


def test_old_argument_order_warns_at_the_callers_line(folder: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = resolve(Path(folder), "toy-pro:101")  # type: ignore[arg-type]
    # the warning names the caller's line (under mutmut a trampoline frame of its own sits
    # between the caller and resolve, and takes the caller's place)
    assert [Path(w.filename).name for w in caught] in ([Path(__file__).name], ["trampoline.py"])
    assert caught[0].category is DeprecationWarning
    assert str(caught[0].message) == (
        "resolve(descriptors, item_ref) is deprecated; call resolve(item_ref, descriptors), "
        "the order of 'croissant-lineage resolve ITEM DESCRIPTOR...'"
    )
    assert dataclasses.replace(old) == resolve("toy-pro:101", folder)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # two item-like strings: the first is the item, nothing is swapped
        with pytest.raises(InputError):
            resolve("toy-pro:101", "toy-pro:102")


def test_dataset_and_derivation_defaults_when_properties_are_absent(folder: Path, resolver: Resolver,
                                                                    tmp_path: Path) -> None:
    def strip_optional(doc: dict[str, Any]) -> dict[str, Any]:
        node = doc["cl:familyDataset"][0]
        for key in ("cl:title", "cl:coverage", "cl:date", "cl:languages"):
            node.pop(key, None)
        node["sc:description"] = {"@value": "a note"}
        doc_derivation = node["cl:documentedDerivation"][0]
        doc_derivation.pop("sc:description")
        node["cl:documentedDerivation"].append({"@id": "_:no-derivative", "cl:activityKind": {"@value": "translation"}})
        return doc

    got = Resolver.load(_rewrite(folder, tmp_path / "bare", strip_optional, ("toy-base.json",))).lineage.family.to_dict()
    base = next(d for d in got["datasets"] if d["name"] == "toy-base")
    assert base == {"name": "toy-base", "iri": "https://example.org/toy/base", "title": "", "date": None,
                    "languages": [], "coverage": "items", "note": "a note"}
    assert [d["name"] for d in got["datasets"]] == [d["name"] for d in resolver.lineage.family.to_dict()["datasets"]]
    documented = [d for d in got["derivations"] if d["coverage"] == "documented"]
    assert documented == [
        {"child": "toy-xx", "parent": "toy-base", "activity": "translation", "coverage": "documented",
         "languages": 5, "method": None, "threshold": None, "note": ""},
        {"child": "", "parent": "toy-base", "activity": "translation", "coverage": "documented",
         "languages": None, "method": None, "threshold": None, "note": ""},
    ]
    # derivations up from a dataset keep their evidence; a missing description is an empty note
    up = [d for d in got["derivations"] if d["child"] == "toy-pro"]
    assert up == [d for d in resolver.lineage.family.to_dict()["derivations"] if d["child"] == "toy-pro"]
    assert up[0]["note"] == "" and up[0]["method"] == "text" and up[0]["threshold"] == 85.0


def test_findings_on_leaves_and_on_a_root_reach_their_components(toy_lineage: Lineage, tmp_path: Path) -> None:
    """Findings on the last snapshot's items (never a component's representative) and on one
    base item (a representative): every item's findings are the lineage lookup's."""
    src = Source("invented review", "https://example.org/review", "person")
    refs = [f"{d}:{i}" for d, i in zip(toy_lineage.items.column("dataset").to_pylist(), toy_lineage.items.column("item").to_pylist(), strict=True)]
    on = [r for r in refs if r.startswith("toy-pro-v2:")] + ["toy-base:astronomy/test/1"]
    findings = [Finding(item=r, target="stem", kind="other", source=src, evidence=[f"about {r}"]) for r in on]
    resolver = Resolver.load(_isolated(enrich_family(toy_lineage, TOY / "family.json", tmp_path / "e", findings), tmp_path / "i"))
    graph = LineageGraph(toy_lineage)
    with_findings = set()
    for ref in refs:
        got = resolver.family(ref)
        assert got == _expected(graph, ref, findings), ref
        with_findings |= {ref} if got.findings else set()
    assert {"toy-base:astronomy/test/1", "toy-pro:101", "toy-base:astronomy/test/0"} <= with_findings
    assert with_findings < set(refs)


def test_a_derivations_language_count_and_note_are_read(folder: Path, resolver: Resolver, tmp_path: Path) -> None:
    def annotate(doc: dict[str, Any]) -> dict[str, Any]:
        (q,) = doc["cl:familyDataset"][0]["prov:qualifiedDerivation"]
        q["cl:languageCount"] = 3
        q["sc:description"] = {"@value": "three languages", "@language": "en"}
        return doc

    got = Resolver.load(_rewrite(folder, tmp_path / "annotated", annotate, ("toy-pro.json",))).lineage.family.to_dict()
    (up,) = [d for d in got["derivations"] if d["child"] == "toy-pro"]
    (before,) = [d for d in resolver.lineage.family.to_dict()["derivations"] if d["child"] == "toy-pro"]
    assert up == {**before, "languages": 3, "note": "three languages"}


# A duplicate group alone, documented coverage, a null alternatives cell.


def test_a_duplicate_group_alone_joins_a_component() -> None:
    """Items linked only by a duplicate group (no edge) share one component, so a finding on
    one copy is looked up for the other."""
    dups = pa.table({"dataset": ["d", "d", "e"], "item": ["1", "2", "9"], "group": ["1", "1", "9"],
                     "parent_dataset": [None, None, None], "parent_item": [None, None, None],
                     "size": [2, 2, 1]}, schema=DUPLICATES_SCHEMA)
    lin = Lineage(family={}, items=ITEMS_SCHEMA.empty_table(), edges=EDGES_SCHEMA.empty_table(), duplicates=dups)
    comp = _components(lin)
    assert comp.get("d:2", "d:2") == comp.get("d:1", "d:1")
    assert comp.get("d:2", "d:2") != comp.get("e:9", "e:9")


def test_dataset_coverage_is_read_from_the_metadata(folder: Path, tmp_path: Path) -> None:
    """A family dataset node that says its coverage is documented is reported so, not as the
    default ``items``."""
    dest = shutil.copytree(folder, tmp_path / "edited")
    path = dest / "toy-pro.json"
    doc = json.loads(path.read_text())
    node = next(n for n in doc["cl:familyDataset"] if n["sc:name"] == {"@value": "toy-pro"})
    assert node["cl:coverage"] == {"@value": "items"}
    node["cl:coverage"] = {"@value": "documented"}
    path.write_text(json.dumps(doc))
    got = {d["name"]: d["coverage"] for d in Resolver.load(dest).lineage.family.to_dict()["datasets"]}
    assert got["toy-pro"] == "documented"
    assert got["toy-base"] == "items"


def test_a_null_alternatives_cell_reads_as_no_alternatives(folder: Path, tmp_path: Path) -> None:
    """A lineage file written by another tool may hold a null list of alternatives: it
    reads as no alternative, as the empty list this library writes does."""
    import pyarrow.parquet as pq

    dest = shutil.copytree(folder, tmp_path / "nulls")
    path = next(p for p in sorted(dest.glob("*.lineage.parquet")) if pq.read_table(p).num_rows)
    table = pq.read_table(path)
    i = table.schema.get_field_index("alternatives")
    nulls = pa.nulls(table.num_rows, table.schema.field(i).type)
    pq.write_table(table.set_column(i, table.schema.field(i), nulls), path)
    edges = Resolver.load(dest).lineage.edges
    assert table.num_rows and edges.num_rows >= table.num_rows
    assert edges.column("alternatives").null_count == 0
    assert sum(a == [] for a in edges.column("alternatives").to_pylist()) >= table.num_rows
