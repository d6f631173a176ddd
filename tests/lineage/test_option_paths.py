"""lineage.paths: one option carried across edges through their option_map."""

from __future__ import annotations

from croissant_lineage.lineage.graph import Edge
from croissant_lineage.lineage.paths import OptionStep, follow_option, step_option


def _edge(option_map: tuple[int, ...]) -> Edge:
    return Edge(
        child="c:1", parent="p:1", activity="copy", method="exact", score=100.0,
        options_score=None, option_map=option_map, options_copied=None, options_added=None,
        options_dropped=None, key_inherited=None, stem_changed=None, ambiguous=False,
        alternatives=(),
    )


def test_step_down() -> None:
    assert step_option([2, 0, -1], 0) == OptionStep("carried", 1)
    assert step_option([2, 0, -1], 1) == OptionStep("dropped")
    assert step_option([0, 0], 0) == OptionStep("carried", 0)  # the first copy


def test_step_up() -> None:
    assert step_option([2, 0, -1], 0, up=True) == OptionStep("carried", 2)
    assert step_option([2, 0, -1], 2, up=True) == OptionStep("added")
    assert step_option([2, 0, -1], 3, up=True) == OptionStep("unknown")


def test_step_unknown() -> None:
    for omap in (None, [], ()):
        assert step_option(omap, 0) == OptionStep("unknown")
    assert step_option([0], None) == OptionStep("unknown")
    assert step_option([0, -1], -1) == OptionStep("unknown")


def test_follow_down_a_path() -> None:
    path = (_edge((1, 0, -1)), _edge((-1, 1, 0)))
    assert follow_option(path, 0) == 1  # 0 -> 1 -> 1
    assert follow_option(path, 1) == 2  # 1 -> 0 -> 2
    assert follow_option(path, 2) is None  # dropped at the first edge
    assert follow_option((_edge(()),), 0) is None
    assert follow_option((), 3) == 3
    assert follow_option(path, None) is None
