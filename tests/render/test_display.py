"""Rich display: the HTML of each result object, and the family table."""

from __future__ import annotations

import html.parser
from pathlib import Path
from types import SimpleNamespace

import pytest

from croissant_lineage.family.spec import load_family
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import route
from croissant_lineage.lineage.graph import FAMILY_COLUMNS, LineageGraph, relatives_of
from croissant_lineage.render.html import (
    FINDING_COLUMNS,
    MAX_ROWS,
    family_frame,
    findings_frame,
    html_table,
    status_badge,
    to_html,
)
from croissant_lineage.validate.report import Checked, Issue, ValidationReport
from croissant_lineage.workflows import link

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"
EXAMINER = Source("Invented examiner", url="https://example.org/review?a=1&b=2", kind="person")


class _Tags(html.parser.HTMLParser):
    """Collects tags and text; fails on unbalanced table markup."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag in ("table", "tr", "td", "th", "div", "thead", "tbody"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("table", "tr", "td", "th", "div", "thead", "tbody"):
            assert self.stack and self.stack.pop() == tag, f"unbalanced </{tag}>"

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(fragment: str) -> _Tags:
    p = _Tags()
    p.feed(fragment)
    p.close()
    assert not p.stack, f"unclosed {p.stack}"
    return p


@pytest.fixture(scope="module")
def spec():
    return load_family(TOY / "family.json")


@pytest.fixture(scope="module")
def toy(spec):
    return link(spec)


@pytest.fixture(scope="module")
def graph(toy) -> LineageGraph:
    return LineageGraph(toy)


def test_family_html_and_frame(graph: LineageGraph) -> None:
    fam = relatives_of(graph, "toy-pro:101")
    frame = fam.to_pandas()
    assert tuple(frame.columns) == FAMILY_COLUMNS
    assert list(frame["relation"]) == ["item", "ancestor", "descendant", "documented"]
    up = frame[frame["relation"] == "ancestor"].iloc[0]
    assert (up["ref"], up["via"], up["options_added"], bool(up["key_inherited"])) == (
        "toy-base:astronomy/test/0", "toy-pro:101", 2, True,
    )
    page = _parse(fam._repr_html_())
    text = " ".join(page.text)
    assert "Family of toy-pro:101" in text and "toy-pro-v2:101" in text and "toy-xx" in text
    assert "+2 options" in text and "key kept" in text
    assert family_frame(relatives_of(graph, "toy-pro:106")).loc[1, "relation"] in ("ancestor", "descendant", "duplicate")


def test_queue_html_has_every_row_and_status_symbols(graph: LineageGraph) -> None:
    f = Finding(item="toy-pro:101", target="option", option_index=0, kind="bad_options_clarity", source=EXAMINER)
    q = route(graph, f)
    page = _parse(to_html(q.expand()))
    text = " ".join(page.text)
    for r in q.rows:
        assert r.ref in text
    assert "▲ added" in text and "○ unaffected" in text  # symbols read in greyscale
    assert page.tags.count("tr") == len(q.rows) + 1
    # the default view folds the snapshot version into its item's line
    folded = _parse(to_html(q))
    assert folded.tags.count("tr") == len(q.lines()) + 1 == len(q.rows)
    assert "toy-pro:101 (+1 version)" in folded.text
    assert folded.tags.count("details") == 1  # the folded version, one click away
    assert "<script>" not in to_html(route(graph, Finding(item="toy-pro:101", target="key", kind="wrong_key",
                                                            proposed="<script>", source=EXAMINER)))


def test_findings_are_escaped_and_tabulated() -> None:
    evil = Finding(item="toy-base:astronomy/test/0", target="key", kind="wrong_key", source=EXAMINER,
                   proposed="<script>alert(1)</script>", evidence=["a", "b"])
    out = to_html([evil])
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert 'href="https://example.org/review?a=1&amp;b=2"' in out
    frame = findings_frame([evil, evil.to_dict()])
    assert tuple(frame.columns) == FINDING_COLUMNS
    assert list(frame["evidence"]) == [2, 2] and frame.loc[0, "source"] == "Invented examiner"
    assert "finding " + evil.id in to_html(evil)


def test_long_tables_count_the_hidden_rows() -> None:
    rows = [{"a": i} for i in range(MAX_ROWS + 7)]
    page = _parse(html_table(rows, ["a"]))
    assert page.tags.count("tr") == MAX_ROWS + 1
    assert "7 more rows" in " ".join(page.text)
    assert "(none)" in html_table([], ["a"])
    assert status_badge(None) == "" and "inherited" in status_badge("inherited")


def test_validation_report_html() -> None:
    rep = ValidationReport(
        issues=(Issue("CLV101", "error", "bad <thing>", "x.json#/a"), Issue("CLV103", "warning", "w", "x.json#")),
        checked=(Checked("x.json", "descriptor"),),
    )
    page = _parse(to_html(rep))
    text = " ".join(page.text)
    assert "INVALID" in text and "CLV101" in text and "bad <thing>" in text
    assert "✓ valid" in " ".join(_parse(to_html(ValidationReport())).text)


def test_history_translation_and_family_report_html(spec, toy, graph: LineageGraph) -> None:
    from croissant_lineage.audits.translations import verify_translations
    from croissant_lineage.findings.report import family_report
    from croissant_lineage.workflows import snapshot_history

    h = snapshot_history(spec, lineage=toy, item="toy-pro:105")
    text = " ".join(_parse(to_html(h)).text)
    assert "toy-pro → toy-pro-v2" in text and "key_changed 1" in text
    text = " ".join(_parse(to_html(h.diffs[0])).text)
    assert "key_changed" in text and "105" in text
    text = " ".join(_parse(to_html(verify_translations(toy))).text)
    assert "toy-fr" in text and "verified" in text
    f = Finding(item="toy-base:astronomy/test/0", target="key", kind="wrong_key", source=EXAMINER, proposed="Dusk")
    text = " ".join(_parse(to_html(family_report(graph, [f]))).text)
    assert "flagged_parents" in text


def test_witness_report_html() -> None:
    from croissant_lineage.audits.witnesses import ModelTally, PooledTally

    report = SimpleNamespace(
        snapshot="toy-pro",
        summary=lambda: {"archives": 2, "archives_admitted": 1, "records": 9, "admitted": 7},
        pooled=PooledTally(2, 5, 3, 1, 1, 1.0, 3.0, 2, 2, 0, 1),
        contested=SimpleNamespace(rows=[1, 2]),
        models=SimpleNamespace(rows=[ModelTally("m-<1>", 2, 2, 0, 0, True, 4, 50.0, 100.0, 50.0)]),
        items=SimpleNamespace(rows=[]),
    )
    # a stand-in object: call the renderer itself
    from croissant_lineage.render.html import witness_html

    text = " ".join(_parse(witness_html(report)).text)
    assert "m-<1>" in text and "1 of 2 archives admitted" in text and "pooled ratio 3.00" in text


def test_unknown_objects_raise_type_error() -> None:
    with pytest.raises(TypeError):
        to_html(object())
    with pytest.raises(TypeError):
        to_html([1, 2])
