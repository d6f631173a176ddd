"""Witnesses: admission against a snapshot, contested items, routing, tallies, CLI."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from croissant_lineage.audits.witnesses import (
    REJECT_REASONS,
    Admission,
    AdmissionRow,
    ModelTally,
    admit,
    tally,
    with_witness_evidence,
    witness,
)
from croissant_lineage.audits.witnesses.archives import list_archives
from croissant_lineage.audits.witnesses.contested import (
    ContestedClaim,
    claims_from_findings,
    contested_items,
    snapshot_index,
)
from croissant_lineage.cli import main
from croissant_lineage.errors import LineageError
from croissant_lineage.lineage.schema import EDGES_SCHEMA
from croissant_lineage.workflows import witness_family
from tests.helpers import items_table

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"

# Invented snapshot: item -> (options, key).
SNAP = {
    "1": (["ant", "bee", "cat", "dog"], "A"),
    "2": (["elm", "fir", "gum", "hop"], "B"),
    "3": (["ice", "jet", "kin"], "C"),
    "4": (["lux", "mox"], "A"),
    "5": (["nib", "orb"], None),
}


def snapshot(dataset: str = "toy-pro") -> pa.Table:
    return items_table(
        dataset,
        [
            {"item": k, "stem": f"question {k}?", "options": o, "key": key}
            for k, (o, key) in SNAP.items()
        ],
    )


def rec(qid: str, pred: str | None, **over: Any) -> dict[str, Any]:
    options, key = SNAP.get(qid, (["x", "y"], "A"))
    base = {"question_id": int(qid), "question": f"question {qid}?", "options": options}
    return {**base, "answer": key or "A", "pred": pred, **over}


def write_archive(folder: Path, model: str, records: list[Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"model_outputs_{model}_5shots.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"model_outputs_{model}_5shots.json", json.dumps(records))
    return path


def picks_archives(folder: Path, picks: dict[str, dict[str, str]]) -> list[Path]:
    return [write_archive(folder, m, [rec(q, p) for q, p in ps.items()]) for m, ps in picks.items()]


# --- admission -----------------------------------------------------------------------------


def test_every_record_is_admitted_or_rejected_for_one_reason(tmp_path: Path) -> None:
    a = write_archive(
        tmp_path,
        "m1",
        [
            rec("1", "B"),
            rec("2", "B"),
            rec("3", "A", question="a reworded question?"),
            "total",
            {"question_id": 4},
            rec("99", "A"),
            rec("1", "C"),
        ],
    )
    b = write_archive(
        tmp_path,
        "m2",
        [
            rec("1", "A", options=["ant", "bee", "cat", "dog", "eel"]),
            rec("2", "A", options=["fir", "elm", "gum", "hop"]),
            rec("3", "C", answer="A"),
            rec("4", None),
            rec("1", "E") | {"question_id": 11},
            rec("5", "A"),
        ],
    )
    c = write_archive(tmp_path, "m3", [rec("4", "C"), rec("2", "b"), rec("3", "AB")])
    adm = admit(snapshot(), [a, b, c])
    rows = {r.model: r for r in adm.rows}
    assert rows["m1"] == AdmissionRow(
        archive=a.name,
        model="m1",
        member="model_outputs_m1_5shots.json",
        records=7,
        admitted=3,
        malformed=2,
        duplicate=1,
        not_in_snapshot=1,
        options_differ=0,
        key_differs=0,
        null_pred=0,
        pred_out_of_range=0,
        stem_differs=1,
        graded=3,
        correct=1,
    )
    m2 = rows["m2"]
    assert (m2.options_differ, m2.key_differs, m2.null_pred, m2.not_in_snapshot) == (2, 2, 1, 1)
    assert (m2.admitted, m2.graded) == (0, 1)
    assert (rows["m3"].pred_out_of_range, rows["m3"].admitted) == (3, 0)
    for r in adm.rows:
        assert r.records == r.admitted + sum(getattr(r, k) for k in REJECT_REASONS)
    assert adm.picks["m1"] == {"1": "B", "2": "B", "3": "A"}
    totals = adm.totals()
    assert (
        totals["archives"],
        totals["archives_admitted"],
        totals["records"],
        totals["admitted"],
    ) == (
        3,
        1,
        16,
        3,
    )
    assert adm.snapshot == "toy-pro" and adm.snapshot_items == 5
    frame = adm.to_pandas()
    assert list(frame.columns)[:3] == ["archive", "model", "member"] and len(frame) == 3


def test_same_model_twice_keeps_both(tmp_path: Path) -> None:
    a = write_archive(tmp_path / "a", "m", [rec("1", "A")])
    b = write_archive(tmp_path / "b", "m", [rec("1", "B")])
    adm = admit(snapshot(), [a, b])
    assert [r.model for r in adm.rows] == ["m", "model_outputs_m_5shots"]
    assert adm.picks["model_outputs_m_5shots"] == {"1": "B"}


def test_a_refused_archive_stops_admission(tmp_path: Path) -> None:
    bad = tmp_path / "model_outputs_bad_5shots.zip"
    bad.write_text("not a zip")
    with pytest.raises(LineageError) as info:
        admit(snapshot(), [bad])
    assert info.value.code == "CL-E001"


def test_snapshot_must_be_one_dataset() -> None:
    mixed = pa.concat_tables([snapshot("a"), snapshot("b")])
    with pytest.raises(LineageError) as info:
        snapshot_index(mixed)
    assert info.value.code == "CL-E004"


# --- contested items --------------------------------------------------------------------------


def test_contested_items_keep_proposals_among_the_options() -> None:
    claims = [
        ("f1", "toy-pro:1", "bee"),
        ContestedClaim("f8", "toy-pro:1", "bee"),
        ("f2", "toy-pro:3", "  ICE "),
        ("f3", "toy-pro:4", "mox"),
        ("f4", "toy-pro:2", "fir"),
        ("f5", "toy-pro:2", "zzz"),
        ("f6", "other:2", "elm"),
        ("f7", "toy-pro:5", "orb"),
        ("f9", "toy-pro:77", "bee"),
    ]
    con = contested_items(snapshot(), claims)
    got = [(c.item, c.finding_ids, c.key, c.proposed_letter, c.proposed) for c in con.rows]
    assert got == [
        ("toy-pro:1", ("f1", "f8"), "A", "B", "bee"),
        ("toy-pro:3", ("f2",), "C", "A", "ice"),
        ("toy-pro:4", ("f3",), "A", "B", "mox"),
    ]
    assert {s.finding_id: s.reason for s in con.skipped} == {
        "f4": "proposes_key",
        "f5": "not_among_options",
        "f6": "not_in_snapshot",
        "f7": "no_key",
        "f9": "not_in_snapshot",
    }
    assert con.conflicting() == set()
    with pytest.raises(LineageError):
        contested_items(snapshot(), [("only", "two")])


@dataclass
class FakeFinding:
    id: str
    item: str
    kind: str
    proposed: str | None


def edge(child: str, parent: str, option_map: list[int]) -> dict[str, Any]:
    cd, ci = child.split(":", 1)
    pd_, pi = parent.split(":", 1)
    return {
        "child_dataset": cd,
        "child_item": ci,
        "parent_dataset": pd_,
        "parent_item": pi,
        "activity": "option_expansion",
        "method": "exact",
        "score": 100.0,
        "option_map": option_map,
    }


def lineage_tables() -> tuple[pa.Table, pa.Table]:
    items = pa.concat_tables(
        [
            items_table(
                "base", [{"item": "p1", "stem": "s", "options": ["1/2", "x", "y", "z"], "key": "B"}]
            ),
            items_table("base", [{"item": "p2", "stem": "t", "options": ["q", "r"], "key": "A"}]),
            items_table(
                "pro",
                [
                    {
                        "item": "10",
                        "stem": "s",
                        "options": ["w", "1.0/2", "x", "y", "z", "v"],
                        "key": "C",
                    }
                ],
            ),
            items_table(
                "pro@v2",
                [
                    {
                        "item": "10",
                        "stem": "s",
                        "options": ["w", "1.0/2", "x", "y", "z", "v"],
                        "key": "C",
                    }
                ],
            ),
        ]
    )
    rows = [
        edge("pro:10", "base:p1", [-1, 0, 1, 2, 3, -1]),
        edge("pro@v2:10", "pro:10", [0, 1, 2, 3, 4, 5]),
    ]
    edges = pa.Table.from_pylist(rows, schema=EDGES_SCHEMA)
    return items, edges


def test_findings_route_to_descendants_through_option_maps() -> None:
    items, edges = lineage_tables()
    findings = [
        FakeFinding("a", "base:p1", "wrong_key", "1/2"),  # copied with formatting damage
        FakeFinding("b", "base:p1", "wrong_key", "v"),  # among the child's added options only
        FakeFinding("c", "pro:10", "wrong_key", "w"),  # on the snapshot itself
        FakeFinding("d", "base:p2", "wrong_key", "q"),  # no descendant in the snapshot
        FakeFinding("e", "base:p1", "bad_question_clarity", None),
        FakeFinding("f", "base:p1", "wrong_key", None),
    ]
    r = claims_from_findings(findings, dataset="pro", items=items, edges=edges)
    assert [(c.finding_id, c.item, c.proposed, c.via) for c in r.claims] == [
        ("a", "pro:10", "1.0/2", "base:p1"),
        ("b", "pro:10", "v", "base:p1"),
        ("c", "pro:10", "w", None),
    ]
    assert {u.finding_id: u.reason for u in r.unrouted} == {
        "d": "no_path",
        "e": "not_wrong_key",
        "f": "no_proposal",
    }
    two_hops = claims_from_findings(findings[:1], dataset="pro@v2", items=items, edges=edges)
    assert [(c.item, c.proposed) for c in two_hops.claims] == [("pro@v2:10", "1.0/2")]
    no_lineage = claims_from_findings(findings[:1], dataset="pro")
    assert [u.reason for u in no_lineage.unrouted] == ["no_lineage"]
    snap = items.filter(pc.equal(items.column("dataset"), "pro"))
    con = contested_items(snap, r.claims)
    assert [(c.proposed_letter, c.via) for c in con.rows] == [
        ("A", ()),
        ("B", ("base:p1",)),
        ("F", ("base:p1",)),
    ]


# --- tallies --------------------------------------------------------------------------------

PICKS = {
    "m1": {"1": "B", "2": "B", "3": "A", "4": "A"},
    "m2": {"1": "A", "2": "B", "3": "C", "4": "A"},
    "m3": {"1": "C", "2": "A", "3": "B", "4": "B"},
    "m4": {"1": "D", "2": "B", "3": "A"},
}
CLAIMS = [("f1", "toy-pro:1", "bee"), ("f2", "toy-pro:3", "ice"), ("f3", "toy-pro:4", "mox")]


def test_tallies_by_model_item_and_pooled(tmp_path: Path) -> None:
    report = witness(snapshot(), picks_archives(tmp_path, PICKS), CLAIMS)
    models = {m.model: m for m in report.models.rows}
    assert models["m1"] == ModelTally("m1", 3, 2, 1, 0, True, 4, 50.0, 75.0, 25.0)
    assert models["m2"] == ModelTally("m2", 3, 0, 3, 0, False, 4, 100.0, 25.0, -75.0)
    assert models["m3"] == ModelTally("m3", 3, 1, 0, 2, True, 4, 0.0, 25.0, 25.0)
    assert models["m4"] == ModelTally("m4", 2, 1, 0, 1, True, 3, 33.3333, 66.6667, 33.3333)
    items = {i.item: i for i in report.items.rows}
    assert [
        (
            i.models,
            i.proposed_picks,
            i.key_picks,
            i.other_picks,
            i.other_per_option,
            i.proposed_beats_key,
        )
        for i in items.values()
    ] == [(4, 1, 1, 2, 1.0, False), (4, 2, 1, 1, 1.0, True), (3, 1, 2, 0, None, False)]
    p = report.pooled
    assert (p.items, p.predictions, p.proposed_picks, p.key_picks, p.other_picks) == (
        3,
        11,
        4,
        4,
        3,
    )
    # P counts items with other options only (items 1 and 3: 1 + 2); O = 2/2 + 1/1.
    assert (p.average_other_picks, p.ratio) == (2.0, 1.5)
    assert (p.models, p.models_preferring_proposed, p.models_preferring_key) == (4, 3, 1)
    assert p.items_proposed_beats_key == 1
    assert list(report.models.to_pandas().columns)[:3] == ["model", "contested", "proposed_picks"]
    assert len(report.items.to_pandas()) == 3


def test_evidence_attaches_to_each_finding(tmp_path: Path) -> None:
    claims = [*CLAIMS, ("f8", "toy-pro:1", "bee")]
    report = witness(snapshot(), picks_archives(tmp_path, PICKS), claims)
    by = report.evidence_by_finding()
    assert sorted(by) == ["f1", "f2", "f3", "f8"]
    (e,) = by["f2"]
    assert (
        e.item,
        e.snapshot,
        e.key,
        e.proposed_letter,
        e.models,
        e.proposed_picks,
        e.key_picks,
    ) == (
        "toy-pro:3",
        "toy-pro",
        "C",
        "A",
        4,
        2,
        1,
    )
    assert e.proposed_beats_key and "toy-pro:3" in e.text
    assert by["f8"][0].proposed_picks == by["f1"][0].proposed_picks == 1


def test_conflicting_proposals_are_left_out_of_the_accuracy_change(tmp_path: Path) -> None:
    claims = [*CLAIMS, ("f9", "toy-pro:3", "jet")]
    report = witness(snapshot(), picks_archives(tmp_path, PICKS), claims)
    assert report.contested.conflicting() == {"toy-pro:3"}
    m1 = next(m for m in report.models.rows if m.model == "m1")
    assert m1.accuracy_change == 0.0  # +1 on item 1, -1 on item 4; item 3 not replaced
    assert report.summary()["conflicting_items"] == 1


def test_no_contested_items_gives_empty_tallies(tmp_path: Path) -> None:
    report = witness(snapshot(), picks_archives(tmp_path, PICKS), [])
    assert report.pooled.ratio is None and report.pooled.models == 0
    assert all(m.accuracy_change == 0.0 for m in report.models.rows)


def test_report_json_is_deterministic(tmp_path: Path) -> None:
    archives = picks_archives(tmp_path, PICKS)
    one = json.dumps(witness(snapshot(), archives, CLAIMS).to_dict())
    two = json.dumps(witness(snapshot(), list(reversed(archives))[::-1], CLAIMS).to_dict())
    assert one == two
    doc = json.loads(one)
    assert set(doc) >= {"summary", "definitions", "admission", "models", "items", "evidence"}
    assert doc["summary"]["pooled_ratio"] == 1.5


def test_tally_refuses_another_snapshot(tmp_path: Path) -> None:
    adm = admit(snapshot(), picks_archives(tmp_path, PICKS))
    con = contested_items(snapshot("other"), [("f", "other:1", "bee")])
    with pytest.raises(LineageError) as info:
        tally(adm, con)
    assert info.value.code == "CL-E004"


# --- the library entry point and the CLI on the toy family ---------------------------------------


def toy_archive(folder: Path) -> Path:
    lines = (TOY / "toy-pro" / "test.jsonl").read_text().splitlines()
    records = [json.loads(line) | {"pred": "A"} for line in lines]
    return write_archive(folder, "toy-model", records)


def test_witness_family_on_the_toy_family(tmp_path: Path) -> None:
    toy_archive(tmp_path / "archives")
    report = witness_family(
        TOY / "family.json", archives_dir=tmp_path / "archives", data_dir=TOY, dataset="toy-pro"
    )
    (row,) = report.admission.rows
    assert row.records == row.admitted == report.admission.snapshot_items == 12


def test_witness_lineage_reads_the_snapshot_from_the_lineage(tmp_path: Path) -> None:
    from croissant_lineage.audits.witnesses import witness_lineage
    from croissant_lineage.errors import InputError
    from croissant_lineage.workflows import link

    archive = toy_archive(tmp_path / "archives")
    lineage = link(TOY / "family.json")
    report = witness_lineage(lineage, [archive], dataset="toy-pro")
    assert report.admission.rows[0].admitted == report.admission.snapshot_items == 12
    with pytest.raises(InputError, match="no items of dataset 'toy-xx'"):
        witness_lineage(lineage, [archive], dataset="toy-xx")


def test_cli_prints_the_admission_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toy_archive(tmp_path / "archives")
    base = [
        "witnesses",
        "--archives",
        str(tmp_path / "archives"),
        "--family",
        str(TOY / "family.json"),
    ]
    base += ["--data-dir", str(TOY), "--dataset", "toy-pro"]
    assert main(base) == 0
    assert "toy-model" in capsys.readouterr().out
    assert main([*base, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["admitted"] == 12 and doc["admission"][0]["model"] == "toy-model"


def toy_findings(tmp_path: Path) -> tuple[Path, Path]:
    """A findings file with a wrong-key finding on toy-pro:101 and one on its parent."""
    from croissant_lineage.findings.files import save_findings
    from croissant_lineage.findings.model import Finding, Source
    from croissant_lineage.workflows import link

    lineage = link(TOY / "family.json")
    lineage.write(tmp_path / "lineage")
    e = lineage.edges.filter(pc.equal(lineage.edges.column("child_item"), "101")).to_pylist()[0]
    parent_ref = f"{e['parent_dataset']}:{e['parent_item']}"
    parent = lineage.items.filter(
        pc.equal(lineage.items.column("item"), e["parent_item"])
    ).to_pylist()[0]
    proposed_idx = e["option_map"][2]  # child option C, copied from the parent
    src = Source(name="test", kind="person")
    findings = [
        Finding(item="toy-pro:101", target="key", kind="wrong_key", source=src, proposed="Quill"),
        Finding(
            item=parent_ref,
            target="key",
            kind="wrong_key",
            source=src,
            proposed=parent["options"][proposed_idx],
        ),
        Finding(item="toy-pro:102", target="stem", kind="bad_question_clarity", source=src),
    ]
    return save_findings(findings, tmp_path / "findings.json"), tmp_path / "lineage"


def test_witness_family_routes_findings_and_evidence_attaches(tmp_path: Path) -> None:
    from croissant_lineage.findings.files import load_findings

    toy_archive(tmp_path / "archives")
    findings_file, lineage_dir = toy_findings(tmp_path)
    report = witness_family(
        TOY / "family.json",
        archives_dir=tmp_path / "archives",
        data_dir=TOY,
        dataset="toy-pro",
        findings=findings_file,
        lineage=lineage_dir,
    )
    (item,) = report.contested.rows
    assert (item.item, item.proposed_letter, len(item.finding_ids)) == ("toy-pro:101", "C", 2)
    assert report.summary()["findings_unrouted"] == {"not_wrong_key": 1}
    findings = load_findings(findings_file)
    updated = with_witness_evidence(findings, report)
    assert [len(u.evidence) - len(f.evidence) for f, u in zip(findings, updated, strict=True)] == [
        1,
        1,
        0,
    ]
    assert with_witness_evidence(updated, report) == updated  # idempotent


def test_cli_with_findings_and_lineage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toy_archive(tmp_path / "archives")
    findings_file, lineage_dir = toy_findings(tmp_path)
    args = [
        "witnesses",
        "--archives",
        str(tmp_path / "archives"),
        "--family",
        str(TOY / "family.json"),
    ]
    args += ["--data-dir", str(TOY), "--dataset", "toy-pro", "--findings", str(findings_file)]
    assert main([*args, "--lineage", str(lineage_dir), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["contested_items"] == 1 and len(doc["evidence"]) == 2
    assert main([*args, "--lineage", str(tmp_path / "missing")]) == 2


@pytest.mark.parametrize("kind", ["not_zip", "two_files", "bomb"])
def test_cli_refuses_a_bad_archive_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    folder = tmp_path / "archives"
    folder.mkdir()
    bad = folder / "model_outputs_bad_5shots.zip"
    if kind == "not_zip":
        bad.write_text("[]")
    else:
        with zipfile.ZipFile(bad, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("a.json", b"[" + b" " * (2_000_000 if kind == "bomb" else 1) + b"]")
            if kind == "two_files":
                zf.writestr("b.json", "[]")
    before = bad.read_bytes()
    args = ["witnesses", "--archives", str(folder), "--family", str(TOY / "family.json")]
    assert main([*args, "--data-dir", str(TOY), "--dataset", "toy-pro"]) == 2
    err = capsys.readouterr().err
    assert ("CL-E008" if kind == "bomb" else "CL-E001") in err and "Traceback" not in err
    assert bad.read_bytes() == before


# --- the real data ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_snapshot(mmlu_lineage: Any) -> pa.Table:
    return mmlu_lineage.items.filter(pc.equal(mmlu_lineage.items.column("dataset"), "mmlu-pro"))


@pytest.fixture(scope="module")
def real_admission(shared_data: Path, real_snapshot: pa.Table) -> Admission:
    return admit(real_snapshot, list_archives(shared_data / "mmlu_pro" / "eval_results"))


@pytest.mark.realdata
def test_real_admission_of_the_29_archives(real_admission: Admission) -> None:
    t = real_admission.totals()
    assert (t["archives"], t["archives_admitted"], t["records"], t["admitted"]) == (
        29,
        29,
        347_258,
        313_415,
    )
    assert (t["malformed"], t["null_pred"], t["pred_out_of_range"]) == (43, 32_589, 171)
    assert (t["options_differ"], t["key_differs"], t["not_in_snapshot"], t["duplicate"]) == (
        244,
        796,
        0,
        0,
    )
    rows = {r.model: r for r in real_admission.rows}
    # V4 archives match the 2024-10-16 snapshot exactly; V1 archives differ on 42 items.
    assert rows["jamba-1.5-large"].graded == 12_032
    assert (rows["gemini-1.5-flash-002"].records, rows["gemini-1.5-pro-002"].records) == (
        12_012,
        12_020,
    )
    assert (rows["Llama-2-7b-hf"].options_differ, rows["Llama-2-7b-hf"].key_differs) == (11, 31)
    assert rows["DeepSeek-Coder-V2"].malformed == 43


@pytest.mark.realdata
def test_real_redux_wrong_keys_routed_to_mmlu_pro(
    mmlu_redux: Any, mmlu_lineage: Any, real_snapshot: pa.Table, real_admission: Admission
) -> None:
    findings = mmlu_redux.findings
    assert sum(f.kind == "wrong_key" for f in findings) == 107
    routing = claims_from_findings(
        findings, dataset="mmlu-pro", items=mmlu_lineage.items, edges=mmlu_lineage.edges
    )
    report = tally(real_admission, contested_items(real_snapshot, routing.claims))
    by_item = {i.item: i for i in report.items.rows}
    # MMLU-Pro 1932 and its identical copy 1933: the Redux proposal is wrong, and models agree.
    for ref in ("mmlu-pro:1932", "mmlu-pro:1933"):
        assert ref in by_item and not by_item[ref].proposed_beats_key
        assert by_item[ref].key_picks > 3 * by_item[ref].proposed_picks
    assert len(report.contested.rows) >= 40
    assert {s.reason for s in report.contested.skipped} <= {"not_among_options", "proposes_key"}
    p = report.pooled
    assert p.models == 29 and p.models_preferring_proposed >= 25
    assert p.ratio is not None and p.ratio > 4
    assert p.items_proposed_beats_key > len(report.contested.rows) / 2
