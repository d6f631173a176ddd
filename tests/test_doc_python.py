"""The Python blocks of the README and the documentation pages marked ``readme-test: page``
run as written, each on its own, from a folder laid out as a clone (the examples reachable, no
real data), with ``EXPR  # LITERAL`` lines checked as the README's are."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.golden import readme

REPO = Path(__file__).resolve().parents[1]
BLOCKS = readme.group("page")


def test_page_blocks_are_python_and_check_a_claim() -> None:
    assert all(b.lang == "python" for b in BLOCKS), [b.where for b in BLOCKS if b.lang != "python"]
    assert any("assert (" in b.python_script() for b in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.where for b in BLOCKS])
def test_the_block_runs(block: readme.Block, tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    done = subprocess.run([sys.executable, "-c", block.python_script()], cwd=tmp_path, capture_output=True,
                          text=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=False)
    assert done.returncode == 0, f"{block.where}: {done.stderr[-2000:]}"
