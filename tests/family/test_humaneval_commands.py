"""The shipped HumanEval family through every command a user runs, on the real files, with its
example findings (examples/humaneval/findings.yaml): link, route, relatives --svg, report, validate,
enrich, resolve, prov, publish --dry-run, and the notebook's views (each result's HTML)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.cli import main
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.report import family_report
from croissant_lineage.findings.routing import route
from croissant_lineage.lineage.graph import as_graph
from croissant_lineage.render.picture import family_picture

REPO = Path(__file__).resolve().parents[2]
FINDINGS = str(REPO / "examples" / "humaneval" / "findings.yaml")
LANGS = ("python", "cpp", "go", "java", "js", "rust")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def folder(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A work folder holding the family's lineage (``link``), written once."""
    work = tmp_path_factory.mktemp("humaneval-commands")
    assert main(["link", "humaneval", "--data-dir", str(shared_data), "--out", str(work / "lineage"), "-q"]) == 0
    return work


def test_link_reads_every_key(shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "link", "humaneval", "--data-dir", str(shared_data), "--out", str(tmp_path / "lineage"))
    assert "  keys read: 1,148 of 1,148 items whose spec names a key (tests 1,148)" in out.splitlines()
    assert "warning" not in out


def test_route_relatives_and_report(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lineage = str(folder / "lineage")
    queue = json.loads(_run(capsys, "route", "he-weak-tests", "--lineage", lineage, "--findings", FINDINGS, "--json"))
    status = {r["dataset"]: (r["status"], r["certainty"]) for r in queue["rows"]}
    assert status == {"humaneval": ("added", "certain"), **{f"humaneval-x-{lang}": ("inherited", "probable") for lang in LANGS}}
    _run(capsys, "relatives", "humaneval:HumanEval/32", "--lineage", lineage, "--findings", FINDINGS,
         "--svg", str(folder / "he32.svg"), "--force")
    svg = (folder / "he32.svg").read_text(encoding="utf-8")
    assert all(f"humaneval-x-{lang}" in svg for lang in LANGS) and "Python/32" in svg and "Rust/32" in svg
    report = json.loads(_run(capsys, "report", "--lineage", lineage, "--findings", FINDINGS, "--json"))
    figures = {f["name"]: (f["value"], f["by_dataset"]) for f in report["figures"]}
    # the wrong solution of HumanEval/3: its copy in the Python rows is graded on it; a translated
    # solution was not compared, so the five translations count neither as kept nor as changed
    assert figures["flagged_parents"] == (1, {"humaneval": 1})
    assert figures["flagged_keys_surviving"] == (1, {"humaneval-x-python": 1})
    assert figures["flagged_keys_changed"] == (0, {})
    assert figures["descendants_graded_on_flagged_keys"] == (1, {"humaneval-x-python": 1})
    assert "valid: 0 error(s)" in _run(capsys, "validate", lineage, FINDINGS)


def test_enrich_resolve_prov_and_publish(folder: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lineage, enriched = str(folder / "lineage"), folder / "enriched"
    _run(capsys, "enrich", "--family", "humaneval", "--lineage", lineage, "--findings", FINDINGS, "--out", str(enriched),
         "--data-dir", str(shared_data), "--force", "-q")
    assert len(list(enriched.glob("*.json"))) == 7
    resolved = json.loads(_run(capsys, "resolve", "humaneval-x-cpp:CPP/3", str(enriched), "--json"))
    text = json.dumps(resolved)
    assert "humaneval:HumanEval/3" in text and "he-wrong-solution" in text
    _run(capsys, "prov", "--lineage", lineage, "--findings", FINDINGS, "--syntax", "nt", "--out", str(folder / "he.nt"), "-q")
    nt = (folder / "he.nt").read_text(encoding="utf-8")
    assert "CodeTranslation" in nt and "he-wrong-solution" in nt
    card = folder / "card.md"
    card.write_text("---\nlicense: mit\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n"
                    "    path: humaneval/humaneval/HumanEval.jsonl.gz\n---\n# HumanEval\n", encoding="utf-8")
    out = _run(capsys, "publish", str(enriched / "humaneval.json"), "--lineage", lineage, "--out", str(folder / "hub"),
               "--repo-id", "openai/openai_humaneval", "--base-card", str(card), "--findings", FINDINGS, "--dry-run", "--force")
    assert out.startswith("dry run for openai/openai_humaneval (humaneval)")
    assert {p.name for p in (folder / "hub").iterdir()} >= {"README.md", "croissant.json", "lineage"}


def test_the_notebook_views(folder: Path) -> None:
    graph = as_graph(folder / "lineage", "lineage")
    findings = load_findings(FINDINGS)
    queue = route(graph, findings[2])
    for result in (queue, family_report(graph, findings), family_picture(graph, "humaneval:HumanEval/3", findings=findings)):
        html = result._repr_html_()
        assert "humaneval" in html, type(result).__name__
    assert "humaneval-x-rust:Rust/3" in queue._repr_html_()
