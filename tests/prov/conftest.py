"""Fixtures of the PROV tests: the real HumanEval family, linked once per test run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import shared_folder


@pytest.fixture(scope="session")
def humaneval_lineage_dir(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped HumanEval family (HumanEval and the six HumanEval-X languages) linked on the
    real data, written to a lineage folder."""
    from croissant_lineage.workflows import link

    return shared_folder(
        tmp_path_factory, "humaneval-lineage", lambda out: link("humaneval", data_dir=shared_data).write(out)
    )
