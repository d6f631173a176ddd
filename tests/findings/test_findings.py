"""The finding model, its status lifecycle, and findings files (JSON/YAML + schema)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.errors import FindingsError, InputError
from croissant_lineage.findings.files import load_findings, save_findings
from croissant_lineage.findings.model import CONFIRMED, STATUSES, Finding, Source, finding_id

SRC = Source("Invented review", url="https://example.org/review", kind="person")


def _finding(**kw) -> Finding:
    base = {"item": "toy:q/1", "target": "key", "kind": "wrong_key", "source": SRC, "proposed": "Tarn"}
    return Finding(**{**base, **kw})


def _entry(**kw) -> dict:
    base = {"item": "toy:q/1", "target": "key", "kind": "wrong_key", "source": {"name": "A person"}}
    return {**base, **kw}


def _write(tmp_path: Path, doc, name: str = "f.json") -> Path:
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return p


def test_id_is_stable_and_depends_on_source_item_target_kind() -> None:
    a = _finding()
    assert a.id == _finding().id == finding_id(SRC, "toy:q/1", "key", "wrong_key")
    assert a.id.startswith("F-") and len(a.id) == 14
    others = {
        _finding(item="toy:q/2").id,
        _finding(target="stem", kind="wrong_key").id,
        _finding(kind="no_correct_answer").id,
        _finding(source=Source("Other")).id,
        _finding(source=Source("Invented review", item="ann:r/1")).id,
        _finding(target="option", option_index=1).id,
    }
    assert a.id not in others and len(others) == 6
    assert _finding(id="my-own-id").id == "my-own-id"
    assert len({a, _finding(), _finding(status="submitted")}) == 2  # hashable despite its lists


@pytest.mark.parametrize(
    "kw",
    [
        {"item": "no-colon"},
        {"target": "answer"},
        {"kind": "typo"},
        {"status": "fixed"},
        {"target": "option"},  # option without index
        {"option_index": 2},  # index without option target
        {"status": "rejected"},  # no reason
        {"status": "no_response"},  # no as-of date
        {"status": "submitted", "status_date": "17/08/2024"},
    ],
)
def test_invalid_findings_raise_findings_error(kw) -> None:
    with pytest.raises(FindingsError) as exc:
        _finding(**kw)
    assert exc.value.code == "CL-E005"


def test_status_lifecycle_keeps_history_and_only_confirmed_counts() -> None:
    f = _finding()
    assert f.status == "proposed" and not f.is_confirmed
    g = f.with_status("submitted", date="2025-01-02")
    h = g.with_status("no_response", date="2025-06-30")
    assert not h.is_confirmed  # silence is never confirmation
    r = h.with_status("rejected", date="2025-07-01", reason="the key is right", evidence=["source book"])
    assert [c.status for c in r.history] == ["proposed", "submitted", "no_response"]
    assert r.history[-1].date == "2025-06-30"
    assert r.evidence[-1] == "source book"
    assert r.id == f.id
    assert {s for s in STATUSES if _finding(status=s, status_date="2025-01-01", status_reason="x").is_confirmed} == set(
        CONFIRMED
    )
    with pytest.raises(FindingsError):
        f.with_status("rejected")


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_save_load_round_trip_is_byte_stable(tmp_path: Path, suffix: str) -> None:
    findings = [
        _finding(),
        _finding(item="toy:q/2", target="option", option_index=3, kind="bad_options_clarity", proposed=None,
                 answers=["Sable"], label="bad options", related=["toy:q/3"], evidence=["line 1", "line 2"]),
        _finding(item="toy:q/4", status="no_response", status_date="2025-03-04").with_status(
            "rejected", reason="checked", date="2025-05-06"),
    ]
    p = save_findings(findings, tmp_path / f"a{suffix}")
    back = load_findings(p)
    assert back == findings
    p2 = save_findings(back, tmp_path / f"b{suffix}")
    assert p.read_bytes() == p2.read_bytes()


def test_save_findings_takes_the_findings_first_and_the_old_order_warns(tmp_path: Path) -> None:
    findings = [_finding(), _finding(item="toy:q/2")]
    new = save_findings(findings, tmp_path / "new.yaml")
    assert save_findings(findings=findings, path=str(tmp_path / "kw.yaml")) == tmp_path / "kw.yaml"
    with pytest.warns(DeprecationWarning, match=r"save_findings\(findings, path\)"):
        old = save_findings(tmp_path / "old.yaml", findings)  # type: ignore[arg-type]
    assert old == tmp_path / "old.yaml" and old.read_bytes() == new.read_bytes()
    with pytest.warns(DeprecationWarning):
        save_findings(str(tmp_path / "old.json"), iter(findings))  # type: ignore[arg-type]
    assert load_findings(tmp_path / "old.json") == findings


def test_bare_list_and_appended_status_update_across_files(tmp_path: Path) -> None:
    f = _finding()
    imported = save_findings([f], tmp_path / "imported.json")
    review = _write(
        tmp_path,
        "# appended by hand\n"
        f"- id: {f.id}\n  status: rejected\n  status_date: 2025-02-03\n  status_reason: the key is right\n"
        "- item: toy:q/9\n  target: stem\n  kind: bad_question_clarity\n  source: {name: Me}\n",
        "review.yaml",
    )
    out = load_findings([imported, review])
    assert [x.status for x in out] == ["rejected", "proposed"]
    assert out[0].status_date == "2025-02-03"  # a YAML date stays an ISO string
    assert out[1].id.startswith("F-")


@pytest.mark.parametrize(
    ("doc", "where"),
    [
        ({"findings": [_entry(), _entry(item="toy:q/2", color="red")]}, "findings/1/color"),
        ({"findings": [_entry(status="fixed")]}, "findings/0/status"),
        ({"findings": [_entry(kind="typo")]}, "findings/0/kind"),
        ({"findings": [_entry(source={"name": "x", "who": "y"})]}, "findings/0/source/who"),
        ({"findings": [_entry(status="rejected")]}, "findings/0"),
        ({"findings": [_entry(), _entry()]}, "findings/1"),
        ({"findings": [{"id": "F-000000000000", "status": "rejected", "status_reason": "x"}]}, "findings/0/id"),
        ({"findings": [_entry()], "extra": 1}, "(top level)"),
        ([_entry(status_date="yesterday")], "0/status_date"),
    ],
)
def test_bad_files_name_the_file_and_json_path(tmp_path: Path, doc, where: str) -> None:
    p = _write(tmp_path, doc)
    with pytest.raises(FindingsError) as exc:
        load_findings(p)
    assert exc.value.code == "CL-E005"
    assert exc.value.path == str(p)
    assert f"at {where}:" in exc.value.message


def test_yaml_tags_that_construct_objects_are_refused(tmp_path: Path) -> None:
    p = _write(tmp_path, "findings:\n  - !!python/object/apply:os.system ['echo hi']\n", "evil.yaml")
    with pytest.raises(FindingsError) as exc:
        load_findings(p)
    assert exc.value.code == "CL-E005" and exc.value.path == str(p)


def test_unparseable_or_missing_files_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        load_findings(tmp_path / "missing.json")
    with pytest.raises(InputError):
        load_findings(_write(tmp_path, "{not json", "bad.json"))
    with pytest.raises(InputError):
        load_findings(_write(tmp_path, "a: [1, 2", "bad.yaml"))


def test_cli_findings_list_applies_updates_and_filters(tmp_path: Path, capsys) -> None:
    from croissant_lineage.cli import main

    f = _finding()
    a = save_findings([f, _finding(item="toy:q/2")], tmp_path / "a.json")
    b = _write(tmp_path, [{"id": f.id, "status": "rejected", "status_reason": "no"}], "b.json")
    assert main(["findings", "list", str(a), str(b), "--status", "rejected", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [x["id"] for x in doc["findings"]] == [f.id]
    bad = _write(tmp_path, [{"id": "F-0", "status": "weird"}], "bad.json")
    assert main(["findings", "list", str(bad)]) == 2
