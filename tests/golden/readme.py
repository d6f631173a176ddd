"""The README's code blocks, parsed so that tests run them exactly as written.

Each fenced ``bash`` or ``python`` block in README.md is preceded by a marker comment:

* ``<!-- readme-test: GROUP -->``: run by the golden test of that group (``toy``: the quick
  start; ``mmlu``: the real-data blocks), in README order, in one work folder laid out as a
  clone: the work folder is the repository (``examples/`` reachable) and ``../shared/data`` is
  the real data;
* ``<!-- readme-test: skip REASON -->``: not run, for the reason given (e.g. ``.ci/run`` runs it).

A ``bash`` block is split into commands (one per line, ``\\`` continuations joined, comments
and blank lines dropped). A leading ``python3 -m pip install ... &&`` is not run by the tests
(the package is installed already; ``.ci/run`` installs it in a fresh venv from the wheel and
runs the same quick start). A ``python`` block runs as one script; a line ``EXPR  # LITERAL``
whose comment is a Python literal is checked: ``assert (EXPR) == LITERAL``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
_BLOCK = re.compile(r"(?:<!--\s*readme-test:\s*(?P<marker>[^>]*?)\s*-->\s*\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)
_INSTALL = re.compile(r"^python3 -m pip install [^&]*&&\s*")


@dataclass(frozen=True)
class Block:
    """One fenced code block of the README and what the tests do with it."""

    lang: str
    body: str
    marker: str | None
    line: int

    @property
    def group(self) -> str | None:
        """The golden group that runs it, or None when it is skipped (or unmarked)."""
        if self.marker is None or self.marker.startswith("skip"):
            return None
        return self.marker

    def commands(self) -> list[str]:
        """The shell commands of a bash block, install prefixes removed."""
        joined = re.sub(r"\s*\\\n\s*", " ", self.body)
        lines = [ln.strip() for ln in joined.splitlines()]
        return [_INSTALL.sub("", ln) for ln in lines if ln and not ln.startswith("#")]

    def python_script(self) -> str:
        """The python block with ``EXPR  # LITERAL`` lines turned into assertions."""
        out = []
        for line in self.body.splitlines():
            code, sep, comment = line.partition("  #")
            if sep and _is_literal(comment.strip()) and _is_expression(code.strip()):
                line = f"assert ({code.strip()}) == {comment.strip()}, {code.strip()!r}"
            out.append(line)
        return "\n".join(out) + "\n"


def _is_literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return False
    return True


def _is_expression(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    return len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)


def blocks(text: str | None = None) -> list[Block]:
    """Every ``bash`` and ``python`` block of the README, in order."""
    text = README.read_text(encoding="utf-8") if text is None else text
    return [
        Block(m["lang"], m["body"], m["marker"], text.count("\n", 0, m.start("body")) + 1)
        for m in _BLOCK.finditer(text)
        if m["lang"] in ("bash", "python")
    ]


def group(name: str) -> list[Block]:
    """The blocks the golden group ``name`` runs, in README order."""
    found = [b for b in blocks() if b.group == name]
    if not found:
        raise ValueError(f"README.md has no block marked readme-test: {name}")
    return found
