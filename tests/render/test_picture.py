"""The family picture: what is drawn, in which style, and the SVG it gives."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import pairwise
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the picture needs matplotlib (a dependency of the package)")

from croissant_lineage.cli import main
from croissant_lineage.errors import InputError, OutputExistsError
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import route, route_item
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.render._fonts import clean_text, fit_text, text_width, wrap_text
from croissant_lineage.render._layered import layered_layout
from croissant_lineage.render._picture_draw import legend_statuses
from croissant_lineage.render.picture import STATUS_STYLES, family_picture, is_our_picture

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"
EXAMINER = Source("Invented examiner", kind="person")
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def toy(toy_lineage: Lineage) -> LineageGraph:
    return LineageGraph(toy_lineage)


def _texts(svg: str) -> str:
    root = ET.fromstring(svg)  # raises on invalid XML
    return "\n".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


def test_added_option_styles_the_family(toy: LineageGraph) -> None:
    added = Finding(item="toy-pro:101", target="option", option_index=0, kind="bad_options_clarity", source=EXAMINER)
    pic = family_picture(toy, "toy-pro:101", findings=[added])
    assert pic.node("toy-pro:101").status == "added" and pic.node("toy-pro:101").focus
    assert pic.node("toy-pro-v2:101").status == "inherited"
    assert pic.node("toy-base:astronomy/test/0").status == "unaffected"
    assert pic.node("toy-fr:astronomy/test/0").status == "unaffected"
    assert pic.node("toy-xx").documented and pic.node("toy-xx").status == "unaffected"
    assert pic.node("toy-pro:101").marks == ("⚑ bad_options_clarity on option A (proposed)",)
    # oldest on the left: a child is always in a later column than its parent
    assert pic.node("toy-base:astronomy/test/0").layer < pic.node("toy-pro:101").layer < pic.node("toy-pro-v2:101").layer
    kinds = {(e.parent, e.child): e.kind for e in pic.edges}
    assert kinds[("toy-base:astronomy/test/0", "toy-xx")] == "documented"
    assert "option_expansion" in next(e.label for e in pic.edges if e.child == "toy-pro:101")


def test_every_status_has_its_own_colour_border_and_marker() -> None:
    styles = [STATUS_STYLES[s] for s in ("added", "inherited", "unaffected", "unverified")]
    assert len({s.edgecolor for s in styles}) == 4
    # in greyscale: border line or marker shape or fill tells them apart
    assert len({(str(s.linestyle), s.linewidth, s.marker, s.filled) for s in styles}) == 4


def test_the_legend_lists_re_check_where_the_picture_shows_it(toy: LineageGraph) -> None:
    # toy-math-perturbed:v1 recomputed the key of toy-math:m1: a key finding there is re-checked
    f = Finding(item="toy-math:m1", target="key", kind="wrong_key", source=EXAMINER)
    pic = family_picture(toy, "toy-math:m1", findings=[f])
    assert pic.node("toy-math-perturbed:v1").status == "re-check"
    assert STATUS_STYLES["re-check"].label in _texts(pic.to_svg())
    assert legend_statuses(True, ["inherited", "re-check"]) == ["added", "inherited", "unaffected", "unverified", "re-check"]
    # a picture without a recomputed key keeps the four usual statuses, and no finding: the neutral style
    plain = Finding(item="toy-pro:101", target="option", option_index=0, kind="bad_options_clarity", source=EXAMINER)
    assert STATUS_STYLES["re-check"].label not in _texts(family_picture(toy, "toy-pro:101", findings=[plain]).to_svg())
    assert legend_statuses(False, ["re-check"]) == [None]


def test_svg_is_valid_deterministic_and_names_every_queued_item(toy: LineageGraph) -> None:
    f = Finding(item="toy-base:astronomy/test/0", target="key", kind="wrong_key", source=EXAMINER, proposed="Dusk")
    q = route(toy, f)
    svg = family_picture(toy, "toy-pro:101", queue=q, findings=[f]).to_svg()
    assert svg == family_picture(toy, "toy-pro:101", queue=q, findings=[f]).to_svg()
    texts = _texts(svg)
    for row in q.rows:
        dataset, _, item = row.ref.partition(":")
        assert dataset in texts and item in texts, row.ref
    assert "Family of toy-pro:101" in texts


def test_duplicates_and_a_plain_family_without_findings(toy: LineageGraph) -> None:
    pic = family_picture(toy, "toy-pro:106")
    assert all(n.status is None for n in pic.nodes)
    assert any(e.kind == "duplicate" and {e.parent, e.child} == {"toy-pro:106", "toy-pro:107"} for e in pic.edges)
    # findings that concern another family colour nothing
    far = Finding(item="toy-pro:101", target="key", kind="wrong_key", source=EXAMINER)
    assert all(n.status is None for n in family_picture(toy, "toy-pro:106", findings=[far]).nodes)


def test_max_items_counts_what_is_left_out(toy: LineageGraph) -> None:
    full = family_picture(toy, "toy-pro:101")
    small = family_picture(toy, "toy-pro:101", max_items=2)
    items = [n for n in full.nodes if not n.documented]
    assert len([n for n in small.nodes if not n.documented]) == 2
    assert small.omitted == len(items) - 2 and full.omitted == 0
    with pytest.raises(InputError):
        family_picture(toy, "toy-pro:101", max_items=0)


def test_unknown_item_raises_input_error(toy: LineageGraph) -> None:
    with pytest.raises(InputError):
        family_picture(toy, "toy-pro:999")


def test_save_writes_svg_or_png(toy: LineageGraph, tmp_path: Path) -> None:
    pic = family_picture(toy, "toy-pro:101")
    assert pic.save(tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ET.parse(pic.save(tmp_path / "f.svg"))
    assert pic._repr_html_().startswith("<div") and "<svg" in pic._repr_html_()


def test_save_replaces_its_own_pictures_only(toy: LineageGraph, tmp_path: Path) -> None:
    pic = family_picture(toy, "toy-pro:101")
    for name in ("f.svg", "f.png"):
        out = pic.save(tmp_path / name)
        assert is_our_picture(out) and pic.save(out) == out  # its own picture: refreshed
    foreign = tmp_path / "notes.svg"
    foreign.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", "utf-8")
    with pytest.raises(OutputExistsError):
        pic.save(foreign)
    assert foreign.read_text("utf-8").startswith("<svg xmlns")
    assert is_our_picture(pic.save(foreign, force=True))
    with pytest.raises(OutputExistsError):
        pic.save(tmp_path)


def test_cli_family_svg(toy: LineageGraph, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = toy.lineage.write(tmp_path / "lineage")
    out = tmp_path / "out" / "family.svg"
    assert main(["relatives", "toy-pro:101", "--lineage", str(folder), "--svg", str(out)]) == 0
    assert "toy-pro:101" in capsys.readouterr().out
    assert "toy-base" in _texts(out.read_text("utf-8"))
    assert main(["relatives", "toy-pro:999", "--lineage", str(folder), "--svg", str(out)]) == 2
    edges = folder / "edges.parquet"  # an input: refused unless forced
    assert main(["relatives", "toy-pro:101", "--lineage", str(folder), "--svg", str(edges)]) == 2
    assert not is_our_picture(edges)


def test_layered_layout_keeps_columns_apart_and_children_right() -> None:
    parents = {"b": ["a"], "c": ["a"], "d": ["b", "c"], "e": ["a"]}
    nodes = ["a", "b", "c", "d", "e"]
    size = {n: 1.0 for n in nodes}
    lay = layered_layout(nodes, parents, size=size, gap=0.5)
    assert lay.layer == {"a": 0, "b": 1, "c": 1, "e": 1, "d": 2}
    col = lay.columns[1]
    centres = [lay.center[n] for n in col]
    assert all(y2 - y1 >= 1.5 - 1e-9 for y1, y2 in pairwise(centres))
    assert lay == layered_layout(nodes, parents, size=size, gap=0.5)
    assert min(lay.center[n] - 0.5 for n in nodes) == pytest.approx(0.0)
    assert lay.height == pytest.approx(max(lay.center.values()) + 0.5)


def test_text_fitting() -> None:
    assert clean_text("a\x00b\n\t c") == "a b c"
    cut = fit_text("a long stem " * 20, 7, 1.0)
    assert cut.endswith("…") and text_width(cut, 7) <= 1.0
    lines = wrap_text("one two three four five six seven eight nine ten " * 4, 7, 1.2, 2)
    assert len(lines) == 2 and lines[-1].endswith("…")
    assert all(text_width(x, 7) <= 1.2 for x in lines)


@pytest.mark.realdata
def test_real_3542_svg_names_every_item_of_its_queue(mmlu_graph, mmlu_redux, tmp_path: Path) -> None:
    redux = mmlu_redux.findings
    q = route_item(mmlu_graph, "mmlu-pro:3542", redux)
    pic = family_picture(mmlu_graph, "mmlu-pro:3542", queue=q, findings=redux)
    texts = _texts(pic.save(tmp_path / "3542.svg").read_text("utf-8"))
    for row in q.rows:
        dataset, _, item = row.ref.partition(":")
        assert dataset in texts and item in texts, row.ref
    assert pic.node("mmlu-pro:3542").status == "inherited"
    assert pic.node("mmlu-2020:college_chemistry/test/86").status == "added"
    assert pic.node("mmlu-prox").status == "unverified"
    assert any("bad_question_clarity" in m for m in pic.node("mmlu:college_chemistry/test/86").marks)
    assert any("source annotation" in m for m in pic.node("mmlu-redux:college_chemistry/99").marks)


def test_a_folder_is_read_for_the_item_family_alone(toy: LineageGraph, toy_lineage_path: Path, monkeypatch) -> None:
    def whole(*_a: object, **_k: object) -> None:
        raise AssertionError("the whole lineage was read")

    monkeypatch.setattr(Lineage, "read", whole)
    for ref in ("toy-pro:101", "toy-math:m1"):
        from_folder = family_picture(toy_lineage_path, ref)
        from_graph = family_picture(toy, ref)
        assert (from_folder.nodes, from_folder.edges, from_folder.omitted) == (from_graph.nodes, from_graph.edges, from_graph.omitted)
    with pytest.raises(InputError):
        family_picture(toy_lineage_path, "toy-pro:no-such-item")
