"""Per-content statuses of linked edges against the synthetic generator's truth.

For families of every shape (number, text, set and code keys) and any seed, every edge the
linker builds from the generated spec carries, for its child item, the five
``<content>_status`` columns the truth's fates name (:func:`fate_status`: the fate itself,
except a recomputed stem, options, solution or tests, which an edge calls ``edited``), and
``key_inherited`` equal to the truth's ``key_same``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from croissant_lineage.linking.content_status import CONTENT_STATUSES, CONTENTS
from croissant_lineage.testing.problems import SHAPES, Contents, Problem, contents
from croissant_lineage.testing.shaped import FATES, _Truth, fate_status
from croissant_lineage.testing.synthetic import SyntheticFamily, generate_family
from croissant_lineage.workflows import link

ITEMS = 200  # 190 child items: every derivation, one parent with 50 templated variants
_REFS = ("child_dataset", "child_item", "parent_item")
#: A seed is no smaller for being shrunk: a failing example is reported as drawn.
_NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


def _truth(fam: SyntheticFamily) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["child_dataset"], r["child_item"]): r for r in pq.read_table(fam.folder / "truth.parquet").to_pylist()}


def _compare(fam: SyntheticFamily) -> tuple[list[tuple[Any, ...]], Counter[tuple[str, str, str]]]:
    """Every disagreement between the linked edges and the truth, and what was compared
    ((dataset, content, status) -> edges)."""
    truth = _truth(fam)
    edges = link(fam.spec).edges
    columns = [*_REFS, "key_inherited", *(f"{c}_status" for c in CONTENTS)]
    rows = edges.select(columns).to_pylist()
    linked = {(e["child_dataset"], e["child_item"]) for e in rows}
    wrong: list[tuple[Any, ...]] = [("no edge", k) for k in truth if k not in linked]
    seen: Counter[tuple[str, str, str]] = Counter()
    for e in rows:
        t = truth.get((e["child_dataset"], e["child_item"]))
        if t is None or t["parent_item"] != e["parent_item"]:
            wrong.append(("wrong parent", e["child_dataset"], e["child_item"], e["parent_item"]))
            continue
        for c in CONTENTS:
            want, got = fate_status(c, t[c]), e[f"{c}_status"]
            seen[(e["child_dataset"], c, got)] += 1
            if got != want:
                wrong.append((e["child_dataset"], e["child_item"], c, t[c], want, got))
        if e["key_inherited"] != t["key_same"]:
            wrong.append((e["child_dataset"], e["child_item"], "key_inherited", t["key_same"], e["key_inherited"]))
    return wrong, seen


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          phases=_NO_SHRINK)
@given(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**16))
def test_every_edge_holds_the_statuses_of_its_truth(tmp_path: Path, shape: str, seed: int) -> None:
    fam = generate_family(tmp_path / f"{shape}-{seed}", ITEMS, seed=seed, shape=shape, force=True)
    wrong, seen = _compare(fam)
    assert wrong == []
    assert sum(seen.values()) == len(CONTENTS) * fam.derived


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape_exercises_the_statuses_it_should(tmp_path: Path, shape: str) -> None:
    """The comparison is not vacuous: each derivation gives the statuses its truth plants."""
    fam = generate_family(tmp_path / shape, ITEMS, seed=3, shape=shape)
    wrong, seen = _compare(fam)
    assert wrong == []
    by = {(d, c): {s for (d2, c2, s) in seen if (d2, c2) == (d, c)} for (d, c, _s) in seen}
    assert by[("syn-mirror", "stem")] == by[("syn-converted", "key")] == {"copied"}
    assert "recomputed" in by[("syn-perturbed", "key")] and "recomputed" in by[("syn-variants", "key")]
    assert by[("syn-perturbed", "stem")] == by[("syn-variants", "stem")] == {"edited"}
    assert by[("syn-xx", "stem")] == {"translated"}
    assert by[("syn-xx", "key")] == ({"copied"} if shape == "number" else {"translated"})
    signal = "tests" if shape == "code" else "solution"
    assert by[("syn-annotated", signal)] == {"edited"} and by[("syn-annotated", "key")] == {"copied"}
    assert by[("syn-mirror", "options")] == ({"copied"} if shape == "text" else {"absent"})
    assert by[("syn-mirror", "tests")] == ({"copied"} if shape == "code" else {"absent"})
    assert set().union(*by.values()) <= set(CONTENT_STATUSES)


def test_fates_map_onto_the_edge_statuses() -> None:
    assert set(FATES) == set(CONTENT_STATUSES)
    assert [fate_status(c, "recomputed") for c in CONTENTS] == ["edited", "edited", "recomputed", "edited", "edited"]
    assert {fate_status(c, f) for c in CONTENTS for f in FATES if f != "recomputed"} == set(FATES) - {"recomputed"}


def test_a_recomputed_content_equal_to_the_parents_is_copied_in_the_truth() -> None:
    """A derivation that recomputes a content which comes out equal (tests of ``x * a // b``
    on small inputs) leaves it copied: the truth says what the data shows."""
    p = Problem("f", "Take", "and floor it", "Note", 10, 50, "per")
    parent, child = contents(p, "code", ["w"]), contents(p.perturbed(1), "code", ["w"])
    assert child.tests == parent.tests and child.key != parent.key
    truth = _Truth("code")
    fates = {"stem": "edited", "key": "recomputed", "solution": "recomputed", "tests": "recomputed"}
    truth.plant("syn-perturbed", 0, 0, "perturbation", fates, child, parent)
    got = {c: truth.columns[c][0] for c in CONTENTS}
    assert got == {"stem": "edited", "options": "absent", "key": "recomputed", "solution": "recomputed",
                   "tests": "copied"}
    same = Contents(parent.stem, None, parent.key, parent.solution, parent.tests)
    truth.plant("syn-variants", 0, 0, "templated_variants", fates, same, parent)
    assert [truth.columns[c][1] for c in CONTENTS] == ["copied", "absent", "copied", "copied", "copied"]
    assert truth.columns["key_same"] == [False, True]
