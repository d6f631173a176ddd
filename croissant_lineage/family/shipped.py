"""The families that ship with the package, under ``family/families/NAME/family.json``.

A shipped family is found by name (``"mmlu"``): :func:`croissant_lineage.family.spec.load_family`
accepts a name from :func:`builtin_families` as well as a spec file's path. A new family
goes into its own folder there.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["builtin_families", "builtin_family_path"]

_ROOT = ("croissant_lineage.family", "families")


def builtin_families() -> list[str]:
    """Names of the family specs that ship with the package, sorted."""
    root = resources.files(_ROOT[0]).joinpath(_ROOT[1])
    return sorted(p.name for p in root.iterdir() if p.is_dir() and p.joinpath("family.json").is_file())


def builtin_family_path(name: str) -> Path | None:
    """The spec file of the shipped family ``name``; None when no shipped family has that name."""
    if name not in builtin_families():
        return None
    return Path(str(resources.files(_ROOT[0]).joinpath(_ROOT[1]).joinpath(name).joinpath("family.json")))
