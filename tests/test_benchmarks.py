"""The benchmark script in its reduced form: small sizes, one run, no thresholds."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the benchmark script's --quick run: ~30 s

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "run.py"


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--runs", "1", "--sizes", "500,1500", "--json", str(out)],
        capture_output=True, text=True, timeout=600, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout, json.loads(out.read_text(encoding="utf-8"))


def test_prints_every_section_with_ratios(quick: tuple[str, dict]) -> None:
    stdout, _ = quick
    for title in ("1. Whole-family link", "2. Fuzzy matching", "3. Resolve", "4. Enrich", "5. Scale", "6. PROV"):
        assert title in stdout
    assert re.search(r"cores: \d+", stdout)
    ratio = r"\s+\d+(\.\d+)?\s+\d+(\.\d+)?"
    for label in (
        r"\(a\) link / mlcroissant, same datasets",
        r"\(b\) link \+ write / \(pyarrow read \+ plain write\)",
        r"\(b0\) link \+ write / pyarrow read alone",
        r"\(b''\) loading the items, whole family / pyarrow read",
        r"\(b''\) writing the lineage folder / pyarrow read",
        r"speed-up of rapidfuzz over difflib",
        r"cold start \(\w+\) / import mlcroissant",
        r"enrich / json.dump of the same JSON",
        r"time per item, [\d,]+ items / [\d,]+ items",
    ):
        assert re.search(label + ratio, stdout), label


def test_json_holds_the_figures(quick: tuple[str, dict]) -> None:
    _, data = quick
    assert data["mode"] == "quick" and data["runs"] == 1 and data["machine"]["cores"] >= 1
    sections = data["sections"]
    assert set(sections) == {"link", "fuzzy", "enrich", "resolve", "scale", "prov"}
    link = sections["link"]
    assert link["mlcroissant_readable"]  # the synthetic descriptors are readable by mlcroissant
    for name in ("link_all", "link_same", "pyarrow_all", "pyarrow_all_write", "mlcroissant_same", "load_all",
                 "write_all"):
        assert link["times"][name]["median_wall"] > 0
    # 1b's baseline: the read and a plain write of the lineage folder's tables
    assert link["ratios"]["link_all_over_pyarrow_write"][0] > 0
    assert any(t["name"].startswith("1b link + write / (pyarrow read + plain write)") for t in data["targets"])
    # the parts of link each cost less than the whole link (same family, same run)
    for part in ("load_all", "write_all"):
        assert link["times"][part]["median_cpu"] < link["times"]["link_all"]["median_cpu"]
        assert link["ratios"][f"{part}_over_pyarrow"][0] > 0
    assert sections["fuzzy"]["pairs"] > 0 and sections["fuzzy"]["speedup"]["difflib"][0] > 1
    assert sections["resolve"]["warm_qps"]["relatives_of"]["median_wall"] > 0
    rows = sections["scale"]["rows"]
    assert [r["size"] for r in rows] == [500, 1500]
    assert all(r["items"] > 0 and r["peak_rss_mb"] > 0 and r["per_item_us"] > 0 for r in rows)
    names = {t["name"] for t in data["targets"]}
    assert any(n.startswith("1a ") for n in names) and any(n.startswith("3 warm") for n in names)
    assert all(isinstance(t["met"], bool) for t in data["targets"])


def test_help_names_the_modes() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert proc.returncode == 0
    assert "--quick" in proc.stdout and "--full" in proc.stdout and "Example:" in proc.stdout


def test_profile_link_times_the_linker_steps() -> None:
    """``profile_link.py --steps`` wraps the linker's steps (a renamed step would drop out)."""
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "profile_link.py"), str(REPO / "examples" / "toy" / "family.json"),
         "--steps"], capture_output=True, text=True, timeout=300, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout)
    assert got["link"] > 0 and set(got["steps"]) == {
        "load_items_packed", "match_text", "id_matches", "check_index_matches", "edges_table", "side_duplicates",
        "assemble_lineage"}
    assert got["steps"]["match_text"] > 0


def test_profile_link_links_only_the_datasets_asked() -> None:
    """``--datasets`` cuts the family to those datasets (derivations with both ends kept); a
    name the family lacks is refused, naming it."""
    spec = str(REPO / "examples" / "toy" / "family.json")
    script = str(REPO / "benchmarks" / "profile_link.py")
    proc = subprocess.run([sys.executable, script, spec, "--steps", "--datasets", "toy-base,toy-fr"],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    steps = json.loads(proc.stdout)["steps"]
    assert "match_text" not in steps and "id_matches" in steps  # toy-fr <- toy-base is an id link: no text match
    bad = subprocess.run([sys.executable, script, spec, "--steps", "--datasets", "toy-base,nope"],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert bad.returncode != 0 and "not in family" in bad.stderr and "nope" in bad.stderr


def test_profile_link_summarises_samples_of_the_measured_link_only() -> None:
    """``profile_link.py --sampled`` keeps py-spy's samples under ``_measured`` (not the
    warm-up's), counts a recursive function once per sample, and names the innermost line."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import profile_link
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    here = "/x/benchmarks/profile_link.py"
    raw = [
        f"<module> ({here}:1);_warm_up ({here}:9);link (/p/linker.py:5) 50",
        f"<module> ({here}:1);_measured ({here}:12);link (/p/linker.py:5);f (/p/a.py:3);f (/p/a.py:4) 3",
        f"<module> ({here}:1);_measured ({here}:12);link (/p/linker.py:5);g (/p/b.py:7) 1",
        "garbage",
    ]
    text = profile_link.summarise(raw, top=10)
    assert text.splitlines()[0] == "4 samples of the measured link + write"
    assert "      100.0  link (linker.py)" in text and "       75.0  f (a.py)" in text
    assert "       75.0  f (a.py:4)" in text and "       25.0  g (b.py:7)" in text
    assert "a.py:3" not in text and "_warm_up" not in text
    assert profile_link.summarise(raw[:1], top=10).startswith("no sample")


def test_query_benchmark_prints_ratios(tmp_path: Path) -> None:
    """``bench_query.py`` on a small synthetic lineage: every cold measure, warm, ratios."""
    out = tmp_path / "query.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_query.py"), "--no-mmlu", "--sizes", "1000", "--runs", "1",
         "--items", "1", "--work", str(tmp_path / "work"), "--json", str(out)],
        capture_output=True, text=True, timeout=600, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    figures = json.loads(out.read_text(encoding="utf-8"))["1000"]
    assert set(figures["cold"]) == {"relatives", "route", "library route", "whole", "resolve", "resolve whole", "baseline"}
    assert figures["warm_resolve_ms"] > 0 and "cold resolve" in proc.stdout
    assert figures["warm_ms"] > 0
    assert "cold relatives" in proc.stdout and "warm relatives" in proc.stdout
    assert figures["warm_cpu_ms"] > 0
    assert "cold library route" in proc.stdout
    # --measures: those named, and the baseline their ratios need (the lineage of the first run reused)
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_query.py"), "--no-mmlu", "--sizes", "1000", "--runs", "1",
         "--items", "1", "--work", str(tmp_path / "work"), "--json", str(out), "--measures", "library route"],
        capture_output=True, text=True, timeout=600, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert set(json.loads(out.read_text(encoding="utf-8"))["1000"]["cold"]) == {"library route", "baseline"}
    wrong = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_query.py"), "--no-mmlu", "--measures", "everything"],
        capture_output=True, text=True, timeout=600, cwd=REPO,
    )
    assert wrong.returncode == 2


def test_update_benchmark_checks_the_content_and_prints_ratios(tmp_path: Path) -> None:
    """``bench_update.py`` on a small synthetic family: the update, its baselines, the same content."""
    out = tmp_path / "update.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_update.py"), "--items", "2000",
         "--work", str(tmp_path / "work"), "--json", str(out)],
        capture_output=True, text=True, timeout=600, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures["same_as_full"] is True
    assert figures["update"]["update"] == "linked: syn-pro@2 <- syn-pro"
    assert all(figures[k]["wall"] > 0 for k in ("update", "alone", "full"))
    assert "wall / derivation alone" in proc.stdout and "CPU / derivation alone" in proc.stdout


def test_validate_benchmark_prints_ratios(tmp_path: Path) -> None:
    """``bench_validate.py`` on one shipped descriptor, one round: the baseline, the ratios, the figures."""
    out, raw = tmp_path / "validate.json", tmp_path / "raw.json"
    desc = REPO / "croissant_lineage" / "family" / "families" / "mmlu" / "descriptors" / "mmlu-2020.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_validate.py"), "--runs", "1", "--examples", str(desc),
         "--out", str(out), "--json", str(raw)],
        capture_output=True, text=True, timeout=600, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert (figures["descriptors"], figures["runs"], figures["pycache"]) == (1, 1, True)
    one = figures["per_descriptor"]["mmlu-2020"]
    assert one["ratio_cpu"] > 0 and one["ratio_cpu_paired"] > 1 and one["after_import_cpu_s"] > 0
    assert figures["ratio_cpu_max"] == one["ratio_cpu"]
    runs = json.loads(raw.read_text(encoding="utf-8"))["runs"]
    assert set(runs) == {"python -c pass", "import mlcroissant", "mmlu-2020"}
    assert runs["mmlu-2020"][0]["status"] in (0, 1)
    assert "paired cpu" in proc.stdout and "target <= 1.2" in proc.stdout
