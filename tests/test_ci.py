"""``.ci/run`` runs the README's test command, as written, in a fresh venv of its own."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _readme_test_command() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    (line,) = [m.group(1) for m in re.finditer(r"^(python3 -m venv \.venv && .*pytest.*)$", text, re.M)]
    return line


def test_ci_runs_the_readme_test_command() -> None:
    command = _readme_test_command()
    assert "pip install -e '.[test]'" in command and "-m pytest" in command
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").replace("pip install -q ", "pip install ")
    here = command.replace("-m venv .venv", '-m venv "$work/venv"').replace(".venv/bin/python", '"$work/venv/bin/python"')
    assert here in ci


def test_ci_venvs_are_fresh() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "--system-site-packages" not in ci
    assert "--resolution lowest-direct" in ci
    assert re.search(r"mkdocs build --strict(?! -q)", ci) and " -q --site-dir" not in ci
