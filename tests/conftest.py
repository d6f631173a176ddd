"""Shared fixtures and the test markers.

Real-data tests read ``../shared/data`` (beside the repository). They skip only when
that folder is absent (a user's fresh clone); ``.ci/run`` refuses to run without it.
``CROISSANT_LINEAGE_DATA`` overrides the location.

Markers are kept true by construction: a test that uses a real-data fixture
(``shared_data`` and everything built on it) is marked ``realdata`` here, and a test that
is not marked ``realdata`` fails if it opens a file under the data folder (an audit hook
watches every ``open``), so ``pytest -m "not realdata"`` never reads the data. A test
over ~10 s is marked ``slow`` where it is written, or here when its cost is a fixture's
(:data:`SLOW_FIXTURES`).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import settings

from tests import netguard

REPO = Path(__file__).resolve().parents[1]
# Commands the tests run in subprocesses (`croissant-lineage ...`, the README's blocks) are the
# ones installed beside the interpreter running the tests: a venv's bin folder is not on PATH
# unless activated, and another installation found first would run other code.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
SHARED_DATA = Path(os.environ.get("CROISSANT_LINEAGE_DATA", REPO.parent / "shared" / "data"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# Hypothesis profiles. "ci" (the default) is short and derandomised, so a CI run is
# reproducible; "long" is run by hand: HYPOTHESIS_PROFILE=long python3 -m pytest tests/test_fuzz.py
settings.register_profile("ci", max_examples=60, derandomize=True, deadline=None, print_blob=True)
settings.register_profile("long", max_examples=5000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


#: Fixtures that read the real data; a test using any of them (directly or through
#: another fixture) is a ``realdata`` test.
REALDATA_FIXTURES = frozenset(
    {"shared_data", "mmlu_lineage_dir", "mmlu_lineage", "mmlu_graph", "mmlu_enriched", "mmlu_redux"}
)

_DATA_PREFIX = str(SHARED_DATA.resolve()) + os.sep
_data_reads: list[str] = []
_watching = False


def _audit(event: str, args: tuple) -> None:
    if _watching and event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.fsdecode(args[0])
        if path.startswith(_DATA_PREFIX) or os.path.abspath(path).startswith(_DATA_PREFIX):
            _data_reads.append(path)


def pytest_configure(config: pytest.Config) -> None:
    # Every test runs with non-local network access blocked (see tests/netguard.py).
    netguard.install()
    sys.addaudithook(_audit)


#: Fixtures that take over ~10 s to build (the whole MMLU family enriched; the 29 prediction
#: archives read); a test using one is a ``slow`` test.
SLOW_FIXTURES = frozenset({"mmlu_enriched", "real_admission"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if REALDATA_FIXTURES & used:
            item.add_marker(pytest.mark.realdata)
        if SLOW_FIXTURES & used:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """A test not marked ``realdata`` must not read the data folder."""
    global _watching
    watch = item.get_closest_marker("realdata") is None
    _data_reads.clear()
    _watching = watch
    try:
        yield
    finally:
        _watching = False
    if watch and _data_reads:
        pytest.fail(f"reads {_data_reads[0]} but is not marked realdata", pytrace=False)


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
def toy_lineage():
    """The embedded toy family (``examples/toy``) linked once per test session."""
    from croissant_lineage.workflows import link

    return link(REPO / "examples" / "toy" / "family.json")


@pytest.fixture(scope="session")
def toy_lineage_path(toy_lineage, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toy lineage written once per test session (a folder; do not write into it)."""
    return toy_lineage.write(tmp_path_factory.mktemp("toy-lineage") / "lineage")


def shared_folder(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """A folder built once per test run, shared by the pytest-xdist workers.

    Under xdist every worker runs the session fixtures; the first to take the lock builds
    the folder in the run's common temporary root and the others read it. Without xdist it
    is an ordinary per-session folder.
    """
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    out, done = root / name, root / f"{name}.complete"
    with FileLock(str(root / f"{name}.lock")):
        if not done.exists():
            if out.exists():
                shutil.rmtree(out)
            build(out)
            done.touch()
    return out


@pytest.fixture(scope="session")
def mmlu_lineage_dir(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real MMLU family linked once per test run, written to a lineage folder as ``link`` writes it."""
    from croissant_lineage.workflows import write_lineage

    return shared_folder(tmp_path_factory, "mmlu-lineage", lambda out: write_lineage("mmlu", out, data_dir=shared_data))


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


@pytest.fixture(scope="session")
def mmlu_redux(mmlu_lineage, mmlu_graph):
    """The MMLU-Redux annotations imported once per test session against the real MMLU
    family, from the rows the linked family holds (an import result: ``.findings``,
    ``.counts``, ``.notes``; do not change it)."""
    from croissant_lineage.findings.importers.redux import import_redux

    return import_redux(items=mmlu_lineage.items_of("mmlu-redux", required=True), lineage=mmlu_graph)


@pytest.fixture(scope="session")
def mmlu_enriched(mmlu_lineage_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """The real MMLU family enriched once per test run, shared by the xdist workers (a
    :class:`~croissant_lineage.enrich.family.FamilyEnrichResult`; do not write into its folder)."""
    import pickle

    def build(out: Path) -> None:
        from croissant_lineage.enrich import enrich_family
        from croissant_lineage.lineage.model import Lineage

        (out / "enriched").mkdir(parents=True)
        result = enrich_family(Lineage.read(mmlu_lineage_dir), "mmlu", out / "enriched", time="2025-01-01T00:00:00Z")
        (out / "result.pickle").write_bytes(pickle.dumps(result))

    return pickle.loads((shared_folder(tmp_path_factory, "mmlu-enriched", build) / "result.pickle").read_bytes())
