"""Section 5 of the benchmarks with a link-only size (what ``--sizes 10m`` runs), at toy sizes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def bench_scale(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_scale

    yield bench_scale
    for name in ("bench_scale", "common"):
        sys.modules.pop(name, None)


def test_link_only_size_is_linked_only_and_compared_with_the_biggest_full_size(
    bench_scale, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from common import Report

    monkeypatch.setattr(bench_scale, "LINK_ONLY_FROM", 600)
    report = Report()
    bench_scale.run(report, [300, 600], lambda size: 1, tmp_path, queries=50)
    out = capsys.readouterr().out
    rows = report.data["sections"]["scale"]["rows"]
    assert [(r["size"], r["link_only"]) for r in rows] == [(300, False), (600, True)]
    full, link_only = rows
    assert set(full["raw"][0]["phases"]) >= {"link", "enrich", "resolve"}
    assert set(link_only["raw"][0]["phases"]) == {"import", "link"}
    assert link_only["queries"] == 0 and link_only["peak_rss_mb"] > 0
    ratio = report.data["sections"]["scale"]["link_only_ratio"][0]
    assert ratio["base_items"] == full["items"] and ratio["items"] == link_only["items"]
    assert ratio["ratio"][0] == pytest.approx(link_only["link_per_item_us"] / full["link_per_item_us"])
    names = {t.name for t in report.targets}
    assert any(n.startswith("5 link time per item at") for n in names)
    assert any(n.startswith("5 peak memory, link only") for n in names)
    assert "link + lineage written only" in out and "link time per item," in out
