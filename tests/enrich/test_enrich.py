"""Enrichment: lossless, marked, deterministic, mlcroissant-valid; family lineage files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import rdflib

from croissant_lineage._io import dumps_json
from croissant_lineage.cli import main
from croissant_lineage.croissant.jsonld import PROV_NS, to_graph
from croissant_lineage.enrich import (
    FamilyEnrichResult,
    enrich_descriptor,
    enrich_family,
    enrich_file,
    is_ours,
    mlcroissant_issues,
    strip_enrichment,
)
from croissant_lineage.errors import DescriptorError, InputError, OutputExistsError
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.parquet import FINDINGS_SCHEMA, findings_from_table
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.prov import MARK

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy"
PARENT = "https://example.org/parent-dataset"
EXAMPLES_REL = "croissant-examples"


def _examples(shared: Path) -> list[Path]:
    return sorted((shared / EXAMPLES_REL).glob("*/*/metadata.json"))


@pytest.fixture(autouse=True)
def _no_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)



# ----------------------------------------------------------------- dataset level


def test_every_example_round_trips(shared_data: Path, tmp_path: Path) -> None:
    """All 30 MLCommons examples: content kept, valid, re-run and re-enrich byte-identical."""
    examples = _examples(shared_data)
    assert len(examples) == 30
    for path in examples:
        doc = json.loads(path.read_text("utf-8"))
        out = tmp_path / "a.json"
        enrich_file(path, out, derived_from=[PARENT], activity="filter", time="2025-01-02T03:04:05Z")
        enriched = json.loads(out.read_text("utf-8"))
        stripped = strip_enrichment(enriched)
        assert stripped == doc, path
        assert json.dumps(stripped) == json.dumps(doc), path  # key order too
        first = out.read_bytes()
        enrich_file(path, tmp_path / "b.json", derived_from=[PARENT], activity="filter", time="2025-01-02T03:04:05Z")
        assert (tmp_path / "b.json").read_bytes() == first, path
        enrich_file(out, out, derived_from=[PARENT], activity="filter", time="2025-01-02T03:04:05Z")
        assert out.read_bytes() == first, path  # enriching the enriched: same bytes
        before, after = mlcroissant_issues(doc), mlcroissant_issues(enriched)
        assert after.errors <= before.errors and after.warnings <= before.warnings, (path, after.messages)
        graph = to_graph(enriched)
        parents = set(graph.objects(None, rdflib.URIRef(PROV_NS + "wasDerivedFrom")))
        assert rdflib.URIRef(PARENT) in parents, path


def test_records_unchanged_by_enrichment(shared_data: Path, tmp_path: Path) -> None:
    import mlcroissant as mlc

    checked = 0
    for out_dir in sorted((shared_data / EXAMPLES_REL / "1.0").glob("*/output")):
        folder = out_dir.parent
        work = tmp_path / folder.name
        shutil.copytree(folder / "data", work / "data")
        enrich_file(folder / "metadata.json", work / "metadata.json", derived_from=[PARENT])
        for expected in sorted(out_dir.glob("*.jsonl")):
            rs = expected.stem
            before = sorted(map(repr, mlc.Dataset(folder / "metadata.json").records(rs)))
            after = sorted(map(repr, mlc.Dataset(work / "metadata.json").records(rs)))
            assert before == after and before, (folder.name, rs)
            checked += 1
    assert checked >= 5


def test_existing_prov_is_kept_and_extended(shared_data: Path) -> None:
    path = shared_data / EXAMPLES_REL / "1.1" / "huggingface-squad_v2" / "metadata.json"
    doc = json.loads(path.read_text("utf-8"))
    enriched = enrich_descriptor(doc, derived_from=[PARENT], activity="re_annotation")
    assert enriched["prov:wasDerivedFrom"] == doc["prov:wasDerivedFrom"]  # untouched single value
    assert [n["@id"] for n in enriched[PROV_NS + "wasDerivedFrom"]] == [PARENT]
    derived = {str(o) for o in to_graph(enriched).objects(None, rdflib.URIRef(PROV_NS + "wasDerivedFrom"))}
    assert PARENT in derived and len(derived) == 2


def _prefixes(node: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "@context":
                continue
            m = re.match(r"^([A-Za-z][\w-]*):(?!//)", k)
            if m:
                out.add(m.group(1))
            if k == "@type" or (isinstance(v, str) and k in ("dataType", "equivalentProperty")):
                for t in v if isinstance(v, list) else [v]:
                    if isinstance(t, str) and (m := re.match(r"^([A-Za-z][\w-]*):(?!//)", t)):
                        out.add(m.group(1))
            out |= _prefixes(v)
    elif isinstance(node, list):
        for v in node:
            out |= _prefixes(v)
    return out


def test_context_declares_every_prefix_and_term_used() -> None:
    doc = {"@context": {"@vocab": "https://schema.org/", "sc": "https://schema.org/"}, "@type": "sc:Dataset", "name": "x"}
    enriched = enrich_descriptor(doc, derived_from=[PARENT], time="2025-01-01T00:00:00Z")
    ours = [v for k, v in enriched.items() if k != "@context"]
    assert _prefixes(ours) <= set(enriched["@context"])
    assert {"prov", "cl", "xsd"} <= set(enriched["@context"])
    assert strip_enrichment(enriched) == doc


def test_marks_every_added_node() -> None:
    doc = {"@context": {"sc": "https://schema.org/"}, "@type": "sc:Dataset", "sc:name": "x"}
    enriched = enrich_descriptor(doc, derived_from=[PARENT, "https://example.org/other"])
    for key in ("prov:wasDerivedFrom", "prov:qualifiedDerivation", "prov:wasGeneratedBy"):
        assert enriched[key] and all(is_ours(v) for v in enriched[key])
    assert len(enriched["prov:wasDerivedFrom"]) == 2


def test_time_is_never_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = {"@context": {"sc": "https://schema.org/"}, "@type": "sc:Dataset", "sc:name": "x"}

    def times(d: dict[str, Any]) -> list[str]:
        return [n["prov:endedAtTime"]["@value"] for n in d["prov:wasGeneratedBy"] if "prov:endedAtTime" in n]

    assert times(enrich_descriptor(doc, derived_from=[PARENT])) == []
    assert times(enrich_descriptor(doc, derived_from=[PARENT], time="2024-05-06T07:08:09+02:00")) == ["2024-05-06T05:08:09Z"]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert times(enrich_descriptor(doc, derived_from=[PARENT])) == ["1970-01-01T00:00:00Z"]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(InputError):
        enrich_descriptor(doc, derived_from=[PARENT])


def test_bad_inputs_raise_coded_errors(tmp_path: Path) -> None:
    doc = {"@context": {"prov": "https://example.org/not-prov#"}, "@type": "sc:Dataset"}
    with pytest.raises(DescriptorError) as err:
        enrich_descriptor(doc, derived_from=[PARENT])
    assert err.value.code == "CL-E002"
    ok = {"@context": {"sc": "https://schema.org/"}, "@type": "sc:Dataset"}
    with pytest.raises(InputError) as err2:
        enrich_descriptor(ok, derived_from=[PARENT], activity="teleportation")
    assert err2.value.code == "CL-E001"
    with pytest.raises(InputError):
        enrich_descriptor(ok, derived_from=[])
    with pytest.raises(DescriptorError):
        enrich_descriptor({"@context": "http://mlcommons.org/croissant/1.1", "@type": "sc:Dataset"}, derived_from=[PARENT])
    with pytest.raises(DescriptorError):
        enrich_descriptor({"@type": "sc:Dataset"}, derived_from=[PARENT])


def test_failed_run_leaves_the_old_output(tmp_path: Path) -> None:
    src = tmp_path / "in.json"
    src.write_text(json.dumps({"@context": {"sc": "https://schema.org/"}, "@type": "sc:Dataset", "url": "https://example.org/me"}))
    out = tmp_path / "out.json"
    out.write_text("old")
    with pytest.raises(InputError):
        enrich_file(src, out, derived_from=[str(tmp_path / "missing.json")])
    assert out.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_out_replaced_only_when_ours_or_forced(tmp_path: Path) -> None:
    src = tmp_path / "in.json"
    src.write_text(json.dumps({"@context": {"sc": "https://schema.org/"}, "@type": "sc:Dataset", "url": "https://example.org/me"}))
    out = tmp_path / "out.json"
    enrich_file(src, out, derived_from=[PARENT])
    enrich_file(src, out, derived_from=[PARENT], activity="filter")  # our own output: replaced
    assert json.loads(out.read_text())["prov:wasGeneratedBy"][0]["@type"] == ["prov:Activity", "cl:Filter"]
    foreign = tmp_path / "hand-written.json"
    foreign.write_text(src.read_text())
    with pytest.raises(OutputExistsError) as err:
        enrich_file(src, foreign, derived_from=[PARENT])
    assert err.value.code == "CL-E007" and foreign.read_text() == src.read_text()
    assert main(["enrich", str(src), "--derived-from", PARENT, "--out", str(foreign), "-q"]) == 2
    assert main(["enrich", str(src), "--derived-from", PARENT, "--out", str(foreign), "-q", "--force"]) == 0
    assert strip_enrichment(json.loads(foreign.read_text())) == json.loads(src.read_text())
    with pytest.raises(OutputExistsError):
        enrich_file(src, tmp_path, derived_from=[PARENT])  # a folder
    original = json.loads(src.read_text())
    enrich_file(src, src, derived_from=[PARENT])  # in place: enrichment only adds
    assert strip_enrichment(json.loads(src.read_text())) == original != json.loads(src.read_text())


def test_parent_given_as_descriptor_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parent = tmp_path / "parent.json"
    parent.write_text(json.dumps({"@context": {"sc": "https://schema.org/"}, "@type": "sc:Dataset", "name": "p", "url": "https://example.org/p"}))
    child = tmp_path / "child.json"
    ctx = {"@language": "en", "@vocab": "https://schema.org/", "sc": "https://schema.org/"}
    child.write_text(json.dumps({"@context": ctx, "@type": "sc:Dataset", "name": "c"}))
    out = tmp_path / "child.enriched.json"
    code = main(["enrich", str(child), "--derived-from", str(parent), "--activity", "translation", "--out", str(out), "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["parents"] == ["https://example.org/p"] and report["replaced"] is False
    enriched = json.loads(out.read_text())
    assert enriched["prov:wasDerivedFrom"][0]["@id"] == "https://example.org/p"
    assert "cl:Translation" in enriched["prov:wasGeneratedBy"][0]["@type"]
    assert main(["enrich", str(child), "--out", str(out)]) == 2  # no parent given
    before = out.read_bytes()  # the CLI never writes to its own input, even with --force
    assert main(["enrich", str(out), "--derived-from", "https://example.org/q", "--out", str(out), "--force"]) == 2
    assert out.read_bytes() == before
    again = tmp_path / "child.re-enriched.json"
    assert main(["enrich", str(out), "--derived-from", "https://example.org/q", "--out", str(again),
                 "--validate", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["replaced"] is True and report["parents"] == ["https://example.org/q"]
    assert report["issues"]["after"]["errors"] == report["issues"]["before"]["errors"] == 0
    assert [n["@id"] for n in json.loads(again.read_text())["prov:wasDerivedFrom"]] == ["https://example.org/q"]


# ----------------------------------------------------------------- family level


@pytest.fixture(scope="module")
def toy(toy_lineage: Lineage) -> Lineage:
    return toy_lineage


def _toy_findings() -> list[Finding]:
    src = Source("invented review", "https://example.org/review", "person")
    return [
        Finding(item="toy-pro:101", target="key", kind="wrong_key", source=src, proposed="x"),
        Finding(item="toy-base:astronomy/test/0", target="stem", kind="bad_question_clarity", source=src,
                status="rejected", status_reason="clear enough", status_date="2025-01-01"),
    ]


@pytest.fixture(scope="module")
def toy_enriched(toy: Lineage, tmp_path_factory: pytest.TempPathFactory) -> FamilyEnrichResult:
    out = tmp_path_factory.mktemp("toy-enriched")
    return enrich_family(toy, TOY / "family.json", out, _toy_findings(), time="2025-01-01T00:00:00Z")


def test_family_descriptors_validate_and_yield_every_edge(toy: Lineage, toy_enriched: FamilyEnrichResult) -> None:
    import mlcroissant as mlc

    from croissant_lineage.family.spec import load_family

    spec = load_family(TOY / "family.json")
    assert toy_enriched.edges == toy.edges.num_rows > 0
    read = 0
    for d in toy_enriched.descriptors:
        original = json.loads(spec.dataset(d.datasets[0]).descriptor.read_text("utf-8"))  # type: ignore[union-attr]
        enriched = json.loads(Path(d.path).read_text("utf-8"))
        before, after = mlcroissant_issues(original), mlcroissant_issues(enriched)
        assert after.errors == 0 and after.warnings <= before.warnings, after.messages
        assert strip_enrichment(enriched) == original
        records = list(mlc.Dataset(d.path).records("lineage"))
        assert len(records) == d.edges
        read += len(records)
        assert sum(1 for _ in mlc.Dataset(d.path).records("findings")) == d.findings
        assert pq.read_schema(d.files["findings"]) == FINDINGS_SCHEMA  # the table publish writes too
    assert read == toy.edges.num_rows
    assert sum(d.findings for d in toy_enriched.descriptors) == 2
    pro = next(d for d in toy_enriched.descriptors if d.datasets == ["toy-pro"])
    (row,) = mlc.Dataset(pro.path).records("findings")
    assert (row["findings/dataset"], row["findings/item"]) == (b"toy-pro", b"toy-pro:101")
    assert findings_from_table(pq.read_table(pro.files["findings"])) == _toy_findings()[:1]


def test_family_lineage_records_carry_the_evidence(toy_enriched: FamilyEnrichResult) -> None:
    import mlcroissant as mlc

    pro = next(d for d in toy_enriched.descriptors if d.datasets == ["toy-pro"])
    rows = {r["lineage/child"].decode(): r for r in mlc.Dataset(pro.path).records("lineage")}
    r = rows["toy-pro:101"]
    assert r["lineage/parent_iri"].decode().startswith("https://example.org/toy/base#")
    assert (r["lineage/options_copied"], r["lineage/options_added"], r["lineage/key_inherited"]) == (4, 2, True)
    assert list(r["lineage/option_map"]).count(-1) == 2
    assert r["lineage/activity"] == b"option_expansion"


def test_family_levels_recordset_field_annotation(toy_enriched: FamilyEnrichResult) -> None:
    pro = next(d for d in toy_enriched.descriptors if d.datasets == ["toy-pro"])
    doc = json.loads(Path(pro.path).read_text("utf-8"))
    items_rs = next(r for r in doc["recordSet"] if r["@id"] == "default")
    assert items_rs["prov:wasDerivedFrom"][0]["@id"] == "https://example.org/toy/base/default"
    (ann,) = items_rs["annotation"]
    assert ann["equivalentProperty"] == "prov:wasDerivedFrom" and ann["source"]["field"]["@id"] == "lineage/parent_iri"
    fields = {f["@id"]: f for f in items_rs["field"]}
    assert [x["@id"] for x in fields["default/options"]["prov:wasDerivedFrom"]] == [
        f"https://example.org/toy/base/default/{c}" for c in "ABCD"
    ]
    activity = fields["default/answer"]["prov:qualifiedDerivation"][0]["prov:hadActivity"]["@id"]
    assert activity == "https://w3id.org/croissant-lineage/family/toy/activity/toy-pro--option_expansion--toy-base"
    assert "prov:wasDerivedFrom" not in fields["default/question_id"]  # ids are each dataset's own
    assert _prefixes([v for k, v in doc.items() if k != "@context"]) <= set(doc["@context"])
    lineage = next(r for r in doc["recordSet"] if r["@id"] == "lineage")
    child = next(f for f in lineage["field"] if f["@id"] == "lineage/child")
    assert "references" not in child and "lineage_items/ref" in child["description"]


def test_family_rerun_is_byte_identical(toy: Lineage, toy_enriched: FamilyEnrichResult, tmp_path: Path) -> None:
    again = enrich_family(toy, TOY / "family.json", tmp_path, _toy_findings(), time="2025-01-01T00:00:00Z")
    for a, b in zip(toy_enriched.descriptors, again.descriptors, strict=True):
        assert Path(a.path).read_bytes() == Path(b.path).read_bytes()
        for kind in a.files:
            assert Path(a.files[kind]).read_bytes() == Path(b.files[kind]).read_bytes()


def test_family_cli(toy: Lineage, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toy.write(tmp_path / "lineage")
    assert main(["enrich", "--family", str(TOY / "family.json"), "--lineage", str(tmp_path / "lineage"),
                 "--out", str(tmp_path / "out"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["edges"] == toy.edges.num_rows
    assert main(["enrich", "--family", "mmlu", "--out", str(tmp_path / "x")]) == 2  # no --lineage


def test_family_out_replaced_only_when_ours_or_forced(toy: Lineage, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = enrich_family(toy, TOY / "family.json", out, _toy_findings())
    enrich_family(toy, TOY / "family.json", out, _toy_findings())  # its own files: replaced
    pro = next(d for d in first.descriptors if d.datasets == ["toy-pro"])
    old_layout = pq.read_table(pro.files["findings"]).drop(["dataset"])  # written before a column was added
    pq.write_table(old_layout, pro.files["findings"])
    enrich_family(toy, TOY / "family.json", out, _toy_findings())
    assert pq.read_schema(pro.files["findings"]) == FINDINGS_SCHEMA
    for foreign in (b"not Parquet", None):
        if foreign is None:
            pq.write_table(pa.table({"x": [1]}), pro.files["items"])  # Parquet with other columns
        else:
            Path(pro.files["items"]).write_bytes(foreign)
        before = Path(pro.files["items"]).read_bytes()
        with pytest.raises(OutputExistsError):
            enrich_family(toy, TOY / "family.json", out)
        assert Path(pro.files["items"]).read_bytes() == before
    Path(pro.path).write_text('{"hand": "written"}')
    with pytest.raises(OutputExistsError):
        enrich_family(toy, TOY / "family.json", out, force=False)
    enrich_family(toy, TOY / "family.json", out, force=True)
    assert is_ours(json.loads(Path(pro.path).read_text())["prov:wasGeneratedBy"][-1])
    assert pq.read_schema(pro.files["items"]).names[0] == "ref"
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputExistsError):
        enrich_family(toy, TOY / "family.json", tmp_path / "file")


def test_marked_nodes_only_in_additions(toy_enriched: FamilyEnrichResult) -> None:
    doc = json.loads(Path(toy_enriched.descriptors[0].path).read_text("utf-8"))
    assert f'"@index": "{MARK}"' in dumps_json(doc)
    assert '"@index"' not in dumps_json(strip_enrichment(doc))


# ----------------------------------------------------------------- real MMLU family


def test_mmlu_family_enriched_validates(mmlu_lineage: Lineage, mmlu_enriched: FamilyEnrichResult) -> None:
    from croissant_lineage.family.spec import load_family

    spec = load_family("mmlu")
    originals = {d.name: d.descriptor for d in spec.datasets.values() if d.descriptor}
    assert len(mmlu_enriched.descriptors) == 12
    for d in mmlu_enriched.descriptors:
        original = json.loads(originals[d.datasets[0]].read_text("utf-8"))
        enriched = json.loads(Path(d.path).read_text("utf-8"))
        before, after = mlcroissant_issues(original), mlcroissant_issues(enriched)
        assert after.errors == 0 and after.warnings <= before.warnings, (d.path, after.messages)
        assert strip_enrichment(enriched) == original
        assert pq.ParquetFile(d.files["lineage"]).metadata.num_rows == d.edges
    assert mmlu_enriched.edges == mmlu_lineage.edges.num_rows


def _mlcroissant_edges(descriptors: list[Any]) -> int:
    import mlcroissant as mlc

    return sum(sum(1 for _ in mlc.Dataset(d.path).records("lineage")) for d in descriptors)


def test_mmlu_lineage_records_small_descriptors(mmlu_lineage: Lineage, mmlu_enriched: FamilyEnrichResult) -> None:
    """mlcroissant reads ~1.5 ms per lineage record; the small descriptors here, all in the slow test."""
    small = [d for d in mmlu_enriched.descriptors if d.edges <= 1000]
    assert len(small) >= 5
    children = mmlu_lineage.edges.column("child_dataset").to_pylist()
    expected = sum(children.count(ds) for d in small for ds in d.datasets)
    assert _mlcroissant_edges(small) == expected > 0
