"""The release tags the Action, the hook and their docs name agree with the package version.

Releases are tagged ``v`` + the version (``croissant_lineage._version.__version__``, which
``pyproject.toml`` reads); every ``croissant-lineage@vX`` (a workflow's ``uses:``) and every
``rev: vX`` under a croissant-lineage ``repo:`` in the docs and examples names that tag.
"""

from __future__ import annotations

import re
from pathlib import Path

from croissant_lineage._version import __version__

REPO = Path(__file__).resolve().parents[1]
_USES = re.compile(r"croissant-lineage@(v[\w.]+)")
_REV = re.compile(r"repo:\s*\S*croissant-lineage\S*\s*(?:#[^\n]*)?\n\s*rev:\s*(\S+)")


def _documents() -> list[Path]:
    found = [REPO / "README.md", REPO / "action.yml", REPO / ".pre-commit-hooks.yaml"]
    found += sorted((REPO / "docs").glob("*.md")) + sorted((REPO / "examples").rglob("*.md"))
    found += sorted((REPO / "examples").rglob("*.yml")) + sorted((REPO / "examples").rglob("*.yaml"))
    return [p for p in found if p.is_file()]


def release_refs(text: str) -> list[str]:
    """The release tags a text names for croissant-lineage."""
    return _USES.findall(text) + _REV.findall(text)


def test_pyproject_reads_the_version_from_the_package() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^dynamic = \["version"\]$', text, re.M)
    assert re.search(r'^version = \{ attr = "croissant_lineage\._version\.__version__" \}$', text, re.M)


def test_docs_and_examples_name_the_current_release_tag() -> None:
    refs = {str(p.relative_to(REPO)): release_refs(p.read_text(encoding="utf-8")) for p in _documents()}
    named = {where: tags for where, tags in refs.items() if tags}
    assert {"action.yml", "README.md", "examples/pre-commit.md", "examples/github-actions/validate.yml"} <= set(named)
    wrong = {where: tags for where, tags in named.items() if set(tags) != {f"v{__version__}"}}
    assert wrong == {}


def test_refs_are_found() -> None:
    text = "- uses: OWNER/croissant-lineage@v1.2.3\n  - repo: https://github.com/OWNER/croissant-lineage  # x\n    rev: v0.0.1\n"
    assert release_refs(text) == ["v1.2.3", "v0.0.1"]
