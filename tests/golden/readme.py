"""The code blocks of the README and of the documentation pages, parsed so that tests run
them exactly as written.

The pages are README.md and every ``docs/*.md`` page (:data:`PAGES`). Each fenced ``bash`` or
``python`` block on them is preceded by a marker comment:

* ``<!-- readme-test: GROUP -->``: run by the test of that group, in page order:

  - ``toy`` (the quick start) and ``mmlu`` (the real-data blocks): README.md only, run by the
    golden test in one work folder laid out as a clone (the work folder is the repository,
    ``examples/`` reachable, and ``../shared/data`` is the real data);
  - ``page``: a Python block that runs on its own, from a folder laid out as a clone without
    the real data (``tests/test_doc_python.py``);
  - ``guide``: a bash block of a guide page, run whole by ``bash`` in one empty folder per
    page, in page order, the output shown in a ``text`` block right after it checked
    (``tests/test_guides.py``);

* ``<!-- readme-test: skip REASON -->``: not run, for the reason given (e.g. ``.ci/run`` runs
  it, or it names placeholder paths).

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

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
#: The groups a block may be marked with; the golden groups run from README.md only.
GROUPS = ("toy", "mmlu", "page", "guide")
GOLDEN = ("toy", "mmlu")
_BLOCK = re.compile(r"(?:<!--\s*readme-test:\s*(?P<marker>[^>]*?)\s*-->\s*\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)
_INSTALL = re.compile(r"^python3 -m pip install [^&]*&&\s*")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page and what the tests do with it."""

    lang: str
    body: str
    marker: str | None
    line: int
    page: str = "README.md"

    @property
    def group(self) -> str | None:
        """The group that runs it, or None when it is skipped (or unmarked)."""
        if self.marker is None or self.marker.startswith("skip"):
            return None
        return self.marker

    @property
    def where(self) -> str:
        """``page:line``, for messages."""
        return f"{self.page}:{self.line}"

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


def pages() -> list[Path]:
    """README.md, then every page of ``docs/`` by name."""
    return [README, *sorted((REPO / "docs").glob("*.md"))]


def blocks(text: str | None = None, page: str = "README.md") -> list[Block]:
    """Every ``bash`` and ``python`` block of one page (the README unless ``text`` is given), in order."""
    text = README.read_text(encoding="utf-8") if text is None else text
    return [
        Block(m["lang"], m["body"], m["marker"], text.count("\n", 0, m.start("body")) + 1, page)
        for m in _BLOCK.finditer(text)
        if m["lang"] in ("bash", "python")
    ]


def all_blocks() -> list[Block]:
    """Every ``bash`` and ``python`` block of every page of :func:`pages`."""
    found: list[Block] = []
    for path in pages():
        found += blocks(path.read_text(encoding="utf-8"), path.relative_to(REPO).as_posix())
    return found


def group(name: str) -> list[Block]:
    """The blocks the group ``name`` runs, in page order (the golden groups: README.md's only)."""
    found = [b for b in all_blocks() if b.group == name]
    if not found:
        raise ValueError(f"no page has a block marked readme-test: {name}")
    return found
