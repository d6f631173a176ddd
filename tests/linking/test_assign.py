"""One child per parent: the components found from the collisions are the ones the
assignment re-solves, and a child left without a candidate parent gets none."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from croissant_lineage.linking.assign import assign_one_to_one, children_in_collision


@st.composite
def _graph(draw: st.DrawFn) -> tuple[dict[int, int], dict[int, list[tuple[float, int]]]]:
    kids = draw(st.integers(1, 8))
    cands = {
        i: [(draw(st.sampled_from([1.0, 2.0, 5.0])), j) for j in draw(st.sets(st.integers(0, 6), min_size=1, max_size=3))]
        for i in range(kids)
    }
    chosen = draw(st.sets(st.integers(0, kids - 1)))
    choices = {i: draw(st.sampled_from([j for _, j in cands[i]])) for i in sorted(chosen)}
    return choices, cands


@given(_graph())
def test_only_the_components_with_a_collision_are_reassigned(graph: tuple[dict[int, int], dict[int, list]]) -> None:
    choices, cands = graph
    involved = children_in_collision(choices, cands)
    assert involved == sorted(involved)
    everything = assign_one_to_one(choices, cands)
    assert assign_one_to_one(choices, {i: cands[i] for i in involved}) == everything
    assert set(everything) == set(involved)


def test_no_collision_no_children() -> None:
    assert children_in_collision({0: 1, 1: 2}, {0: [(1.0, 1), (1.0, 2)], 1: [(1.0, 2)]}) == []
    # A chain: 0 and 1 both chose 5; 2 reaches them through parent 6.
    cands = {0: [(1.0, 5)], 1: [(1.0, 5), (1.0, 6)], 2: [(1.0, 6)], 3: [(1.0, 7)]}
    assert children_in_collision({0: 5, 1: 5, 2: 6, 3: 7}, cands) == [0, 1, 2]


def test_a_child_whose_candidates_are_all_taken_is_left_unmatched() -> None:
    # A and B both want X only; C wants X, Y or Z. A keeps X (the heavier claim), C takes Y
    # (heavier than Z), and B, whose one candidate is taken, gets no parent: the
    # assignment's zero-weight cell (B, Z) is no candidate pair.
    a, b, c, x, y, z = 0, 1, 2, 10, 11, 12
    cands = {a: [(5.0, x)], b: [(4.0, x)], c: [(3.0, x), (2.0, y), (1.0, z)]}
    assert assign_one_to_one({a: x, b: x, c: y}, cands) == {a: x, b: None, c: y}
