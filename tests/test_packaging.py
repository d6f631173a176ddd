"""What the wheel ships: every data file of the package is matched by ``package-data``.

``.ci/run`` builds the wheel and sdist, runs ``twine check --strict`` and runs the quick start
from the wheel installed in a fresh venv; this test catches the commonest packaging slip (a new
data file, e.g. a family's descriptor, that the wheel would leave out) in a second, without a build.
"""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
PKG = REPO / "croissant_lineage"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _matches(rel: str, pattern: str) -> bool:
    """setuptools' glob: ``**`` spans folders, ``*`` stays within one."""
    regex_parts = pattern.split("/")
    parts = rel.split("/")

    def walk(i: int, j: int) -> bool:
        if i == len(regex_parts):
            return j == len(parts)
        if regex_parts[i] == "**":
            return any(walk(i + 1, k) for k in range(j, len(parts) + 1))
        return j < len(parts) and fnmatch.fnmatchcase(parts[j], regex_parts[i]) and walk(i + 1, j + 1)

    return walk(0, 0)


def test_every_package_data_file_is_shipped() -> None:
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["croissant_lineage"]
    data = sorted(
        p.relative_to(PKG).as_posix() for p in PKG.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    )
    assert data, "the package holds data files"
    missing = [rel for rel in data if not any(_matches(rel, pat) for pat in patterns)]
    assert missing == [], f"add to [tool.setuptools.package-data]: {missing}"


def test_matcher_follows_setuptools_globs() -> None:
    assert _matches("family/families/mmlu/descriptors/a.json", "family/families/**/*.json")
    assert not _matches("family/families/mmlu/a.yaml", "family/families/**/*.json")
    assert not _matches("croissant/contexts/x/y.jsonld", "croissant/contexts/*.jsonld")


def test_build_tools_are_in_the_test_extra_and_site_tools_in_docs() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    names = {e: {r.split(">")[0].split("[")[0].strip() for r in reqs} for e, reqs in extras.items()}
    assert {"build", "twine", "pre-commit"} <= names["test"]
    assert {"mkdocs", "mkdocs-material", "mkdocstrings", "mkdocs-jupyter"} <= names["docs"]
