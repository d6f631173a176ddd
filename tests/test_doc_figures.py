"""The figures of the README and the documentation pages are the code's: each marked number
(``<!-- fig: NAME -->N<!-- /fig -->``, see :mod:`tests.golden.docfigures`) equals its source,
and the sources are recomputed from the code by ``tests/test_real_figures.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.golden import docfigures


def test_every_marked_figure_is_the_codes() -> None:
    wrong = [f"{fig.page}:{fig.line} {fig.name}: written {fig.written!r}, the code gives {want!r}"
             for fig, want in docfigures.mismatches()]
    assert wrong == []


def test_the_pages_mark_their_figures() -> None:
    """The README's real-data sections carry their figures marked (a page that loses its
    markers loses its check)."""
    per_page = {p.name: len(list(docfigures.marked(p))) for p in docfigures.pages()}
    assert per_page["README.md"] >= 10


def test_a_wrong_figure_fails_and_names_its_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text("edges: <!-- fig: link/totals/edges -->74,430<!-- /fig -->\n"
                    "unmatched: <!-- fig: link/totals/unmatched|d -->20<!-- /fig -->\n", "utf-8")
    monkeypatch.setattr(docfigures, "REPO", tmp_path)
    monkeypatch.setattr(docfigures, "SOURCES", {"real": lambda: {"link": {"totals": {"edges": 74429, "unmatched": 20}}}})
    [(fig, want)] = docfigures.mismatches()
    assert (fig.page, fig.line, fig.written, want) == ("docs/page.md", 1, "74,430", "74,429")
    assert docfigures.main() == 0
    assert "-->74,429<!--" in page.read_text("utf-8")
    assert docfigures.mismatches() == []


def test_an_unknown_figure_is_an_error() -> None:
    with pytest.raises(KeyError):
        docfigures.expected("link/totals/nothing")
