"""The house rules of docs/architecture.md, checked by tools rather than by review.

* imports point only down the stages, with no cycle (import-linter contracts in
  pyproject.toml);
* no library function above radon's grade D (cyclomatic complexity over 30); the CLI's
  tables of cases are exempt;
* the package root holds only the foundation modules and the top-level entry points.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from radon.complexity import cc_rank, cc_visit

PKG = Path(__file__).resolve().parents[1] / "croissant_lineage"

#: Modules allowed at the package root: the foundation and the top-level entry points.
ROOT_MODULES = {
    "__init__.py",
    "__main__.py",
    "_io.py",
    "_results.py",
    "_version.py",
    "errors.py",
    "resolve.py",
    "workflows.py",
}


#: import-linter through its Python entry point: its console script may not be on PATH (a
#: pyenv interpreter without a rehash), and a missing linter must fail, not skip.
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"


def test_imports_point_down_the_stages() -> None:
    proc = subprocess.run([sys.executable, "-c", LINT_IMPORTS], cwd=PKG.parent, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_no_library_function_above_grade_d() -> None:
    too_complex = []
    for path in sorted(PKG.rglob("*.py")):
        if "cli" in path.relative_to(PKG).parts:
            continue
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if cc_rank(block.complexity) in ("E", "F"):
                too_complex.append(f"{path.relative_to(PKG)}:{block.lineno} {block.name} {block.complexity}")
    assert too_complex == []


def test_package_root_holds_only_the_foundation() -> None:
    flat = {p.name for p in PKG.glob("*.py")}
    assert flat <= ROOT_MODULES, sorted(flat - ROOT_MODULES)


def test_architecture_doc_names_every_module() -> None:
    """docs/architecture.md has a line for every module and package of the library."""
    doc = (PKG.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    tree = doc.split("## The modules", 1)[1]
    missing = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        if path.name == "__init__.py":
            if len(rel.parts) > 1 and f"{rel.parts[-2]}/" not in tree:
                missing.append(str(rel.parent))
        elif f" {path.name} " not in tree:
            missing.append(str(rel))
    assert missing == []


#: Most lines a module of the package may have: a module holds one concept, and past
#: about 600 lines it holds two.
MAX_MODULE_LINES = 650

#: Modules over :data:`MAX_MODULE_LINES`, each with its reason.
LONG_MODULES: dict[str, str] = {}


def test_modules_stay_small() -> None:
    sizes = {p.relative_to(PKG).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in sorted(PKG.rglob("*.py"))}
    long = {rel for rel, n in sizes.items() if n > MAX_MODULE_LINES}
    assert sorted(long - set(LONG_MODULES)) == [], "split it by concept, or list it in LONG_MODULES with its reason"
    assert sorted(set(LONG_MODULES) - long) == [], "small enough now: drop it from LONG_MODULES"


def test_activity_groupings_are_declared_once() -> None:
    """A tuple of activity kinds is written out only in the family spec; other modules
    name its groupings (so a grouping cannot differ between two stages)."""
    import ast

    from croissant_lineage.family.spec import ACTIVITIES

    literal_at: list[str] = []
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, ast.Tuple) and value.elts and all(
                isinstance(e, ast.Constant) and e.value in ACTIVITIES for e in value.elts
            ):
                literal_at.append(path.relative_to(PKG).as_posix())
    assert literal_at and set(literal_at) == {"family/spec.py"}, literal_at
