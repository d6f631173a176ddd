"""Docstrings as the API reference reads them (Google style, mkdocstrings/griffe).

Every ``Args:`` entry of a function or method of the public API names one parameter of
its signature (``name: text``), so that ``mkdocs build --strict`` does not reject it;
this checks the sources without building the site.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "croissant_lineage"
_SECTION = re.compile(r"^(\s*)(Args|Arguments|Parameters):\s*$")
_ENTRY = re.compile(r"^\*{0,2}([A-Za-z_]\w*)(\s*\([^)]*\))?:(\s|$)")


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return set(names)


def args_entries(doc: str) -> list[str]:
    """The first lines of the entries of a docstring's ``Args:`` section."""
    lines = doc.expandtabs().splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        m = _SECTION.match(line)
        if not m:
            continue
        indent: int | None = None
        for entry in lines[i + 1:]:
            if not entry.strip():
                if indent is not None:
                    break
                continue
            depth = len(entry) - len(entry.lstrip())
            if depth <= len(m.group(1)):
                break
            if indent is None:
                indent = depth
            if depth == indent:
                out.append(entry.strip())
    return out


def docstring_problems(source: str, where: str) -> list[str]:
    """``where:line: problem`` for each ``Args:`` entry that is not one of the parameters."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        doc = ast.get_docstring(node, clean=True)
        if not doc:
            continue
        params = _params(node)
        for entry in args_entries(doc):
            m = _ENTRY.match(entry)
            if m is None:
                problems.append(f"{where}:{node.lineno}: {node.name}: not 'name: text': {entry!r}")
            elif m.group(1) not in params:
                problems.append(f"{where}:{node.lineno}: {node.name}: no parameter {m.group(1)!r}")
    return problems


def _public_sources() -> list[tuple[str, str]]:
    """``(name, source)`` of each function and class of the public API (``_API``: what
    the API reference renders), and of the workflows' and Beam modules' functions."""
    import croissant_lineage

    out = []
    for module, names in sorted(croissant_lineage._API.items()):
        mod = importlib.import_module(f"croissant_lineage.{module}")
        for name in names:
            obj = getattr(mod, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                out.append((f"{module}.{name}", textwrap.dedent(inspect.getsource(obj))))
    for path in (PACKAGE / "workflows.py", *sorted((PACKAGE / "beam").glob("*.py"))):
        out.append((str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8")))
    return out


def test_args_entries_name_parameters():
    problems: list[str] = []
    for where, source in _public_sources():
        problems += docstring_problems(source, where)
    assert problems == []


@pytest.mark.parametrize(
    ("doc", "bad"),
    [
        ("Args:\n    a, b: Both.\n", 1),
        ("Args:\n    a / b: Both.\n", 1),
        ("Args:\n    c: Not a parameter.\n", 1),
        ("Args:\n    a: One.\n        More about a: it spans lines.\n    b (int): Two.\n\nReturns:\n    x: y.\n", 0),
        ("Args:\n    *rest: The rest.\n    **kw: Options.\n", 0),
    ],
)
def test_checker_finds_bad_entries(doc, bad):
    source = "def f(a, b, *rest, **kw):\n    " + repr("Summary.\n\n" + doc) + "\n"
    assert len(docstring_problems(source, "x.py")) == bad
