"""Evidence scores sum token weights in an order-free way (the token sets' order follows the
process's string hash seed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from croissant_lineage.linking.evidence import _total

WEIGHTS = st.lists(st.floats(min_value=0.0, max_value=1e6, allow_nan=False), min_size=1, max_size=30)


@given(WEIGHTS, st.randoms(use_true_random=False))
def test_a_total_is_the_same_float_in_any_order(weights: list[float], rnd) -> None:
    tokens = [f"n:{i}" for i in range(len(weights))]
    weight = dict(zip(tokens, weights, strict=True)).__getitem__
    shuffled = tokens[:]
    rnd.shuffle(shuffled)
    assert _total(weight, shuffled) == _total(weight, tokens)


def test_the_plain_sum_would_depend_on_the_order() -> None:
    """What the test above guards against: 0.1 + 0.2 + 0.3 is not 0.3 + 0.2 + 0.1 in floats."""
    assert (0.1 + 0.2) + 0.3 != (0.3 + 0.2) + 0.1
    weight = {"a": 0.1, "b": 0.2, "c": 0.3}.__getitem__
    assert _total(weight, "abc") == _total(weight, "cba") == 0.6
