"""Plots: witness picks, snapshot changes, join verification (matplotlib Figures)."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("matplotlib", reason="plots need matplotlib (a dependency of the package)")

from matplotlib.figure import Figure

from croissant_lineage.audits.translations import verify_translations
from croissant_lineage.audits.witnesses import ModelTally, PooledTally
from croissant_lineage.family.spec import load_family
from croissant_lineage.render.plots import (
    JOIN_STATUS_STYLES,
    join_verification_plot,
    snapshot_changes_plot,
    witness_picks_plot,
)
from croissant_lineage.workflows import link, snapshot_history

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"


@pytest.fixture(scope="module")
def toy():
    spec = load_family(TOY / "family.json")
    return spec, link(spec)


def _bars(fig: Figure) -> list:
    return [p for ax in fig.axes for p in ax.patches]


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=50)
    return buf.getvalue()


def _witnesses(models: list[ModelTally]) -> SimpleNamespace:
    return SimpleNamespace(
        snapshot="toy-pro",
        models=SimpleNamespace(rows=models),
        pooled=PooledTally(2, 5, 3, 1, 1, 1.0, 3.0, 2, 2, 0, 1),
        contested=SimpleNamespace(rows=[1, 2]),
    )


def test_witness_picks_one_stacked_bar_per_answering_model() -> None:
    models = [
        ModelTally("m1", 2, 2, 0, 0, True, 4, 50.0, 100.0, 50.0),
        ModelTally("m2", 2, 0, 1, 1, False, 4, 75.0, 25.0, -50.0),
        ModelTally("silent", 0, 0, 0, 0, False, 4, 0.0, 0.0, 0.0),  # answered no contested item
    ]
    fig = witness_picks_plot(_witnesses(models))
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_yticklabels()] == ["m2", "m1 *"]  # most proposed picks on top
    widths = sorted((round(p.get_x()), round(p.get_width())) for p in _bars(fig) if p.get_width())
    assert widths == [(0, 1), (0, 2), (1, 1)]  # m1: 2 proposed; m2: 1 key then 1 other
    assert "3.00×" in fig._suptitle.get_text()
    assert _png(fig)[:4] == b"\x89PNG"
    empty = witness_picks_plot(_witnesses([]))
    assert "no admitted prediction" in empty.axes[0].texts[0].get_text()


def test_snapshot_changes_one_bar_per_kind_and_step(toy) -> None:
    spec, lin = toy
    h = snapshot_history(spec, lineage=lin)
    fig = snapshot_changes_plot(h)
    (ax,) = fig.axes
    kinds = [t.get_text() for t in ax.get_yticklabels()]
    assert kinds == list(h.diffs[0].kind_counts())
    assert sorted(round(p.get_width()) for p in _bars(fig)) == sorted(h.diffs[0].kind_counts().values())
    assert snapshot_changes_plot(list(h.diffs)).axes[0].get_yticklabels()[0].get_text() == kinds[0]
    none = SimpleNamespace(diffs=[SimpleNamespace(kind_counts=dict, old_dataset="a", new_dataset="b")])
    assert "no item changed" in snapshot_changes_plot(none).axes[0].texts[0].get_text()


def test_join_verification_shares_add_up_to_100(toy) -> None:
    _spec, lin = toy
    report = verify_translations(lin)
    fig = join_verification_plot(report)
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_yticklabels()] == ["toy-fr (fr, 6)"]
    assert sum(p.get_width() for p in _bars(fig)) == pytest.approx(100.0)
    assert list(JOIN_STATUS_STYLES)[:2] == ["verified", "consistent"]
    empty = SimpleNamespace(totals=SimpleNamespace(to_pylist=list))
    assert "no join" in join_verification_plot(empty).axes[0].texts[0].get_text()
