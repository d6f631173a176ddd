"""Shared fixtures.

Real-data tests read ``../shared/data`` (beside the repository). They skip only when
that folder is absent (a user's fresh clone); ``.ci/run`` refuses to run without it.
``CROISSANT_LINEAGE_DATA`` overrides the location.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tests import netguard

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("CROISSANT_LINEAGE_DATA", REPO.parent / "shared" / "data"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# Hypothesis profiles. "ci" (the default) is short and derandomised, so a CI run is
# reproducible; "long" is run by hand: HYPOTHESIS_PROFILE=long python3 -m pytest tests/test_fuzz.py
settings.register_profile("ci", max_examples=60, derandomize=True, deadline=None, print_blob=True)
settings.register_profile("long", max_examples=5000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    # Every test runs with non-local network access blocked (see tests/netguard.py).
    netguard.install()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real benchmark data folder; skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def mmlu_lineage_dir(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real MMLU family linked once per test session, written to a lineage folder."""
    from croissant_lineage.linking.linker import link

    out = tmp_path_factory.mktemp("mmlu-lineage")
    link("mmlu", data_dir=shared_data).write(out)
    return out


@pytest.fixture(scope="session")
def mmlu_lineage(mmlu_lineage_dir: Path):
    """The real MMLU family's :class:`~croissant_lineage.lineage.model.Lineage` (read back from disk)."""
    from croissant_lineage.lineage.model import Lineage

    return Lineage.read(mmlu_lineage_dir)


@pytest.fixture(scope="session")
def mmlu_graph(mmlu_lineage):
    """A :class:`~croissant_lineage.lineage.graph.LineageGraph` over the real MMLU family."""
    from croissant_lineage.lineage.graph import LineageGraph

    return LineageGraph(mmlu_lineage)
