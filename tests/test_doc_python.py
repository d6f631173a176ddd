"""docs/python.md's Python blocks run as written (from a folder laid out as a clone: the
examples reachable), with ``EXPR  # LITERAL`` lines checked as the README's are."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.golden.readme import Block

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "python.md"


def test_the_python_blocks_of_the_page_run(tmp_path: Path) -> None:
    blocks = [m.group(1) for m in re.finditer(r"```python\n(.*?)```", PAGE.read_text("utf-8"), re.S)]
    assert blocks
    (tmp_path / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    scripts = [Block("python", body, "docs", 0).python_script() for body in blocks]
    assert any("assert (" in s for s in scripts)  # a checked line: the page's claim is tested
    for script in scripts:
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                              env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
