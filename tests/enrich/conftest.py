"""Shared by the enrichment tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module", autouse=True)
def _quiet_absl() -> Iterator[None]:
    """absl's level raised for each module's tests only (mlcroissant logs through it)."""
    absl = logging.getLogger("absl")
    level = absl.level
    absl.setLevel(logging.ERROR)
    yield
    absl.setLevel(level)
