"""Figures in the user documents, produced by the code they describe.

A number in README.md or a page of ``docs/`` that reports an output of the program is
written between two markers naming where it comes from::

    returns <!-- fig: link/totals/edges -->74,429<!-- /fig --> edges

The name is a path (parts joined by ``/``) into a source of figures computed by the code (``SOURCES``: today
the real MMLU figures of ``tests/real_figures.json``, which ``tests/test_real_figures.py``
recomputes from the code on the real data). A name may end with ``|FORMAT``: ``,``
(thousands, the default), ``d`` (plain), ``2f`` (two decimals), ``pct1`` (one decimal
and `` %``), or
``frac:OTHER`` (``fig: x|frac:y`` writes ``X/Y``). ``tests/test_doc_figures.py`` fails when
a marked number differs from its source; ``python3 -m tests.golden.docfigures`` rewrites
every marked number from the sources (after the sources were regenerated on purpose).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.golden import figures

REPO = Path(__file__).resolve().parents[2]

#: The pages whose figures are checked: the README and every page of the documentation site.
PAGES: tuple[str, ...] = ("README.md", "docs/**/*.md")

#: A figure: ``<!-- fig: NAME -->VALUE<!-- /fig -->`` (VALUE holds no ``<`` and no backtick: the
#: two markers quoted apart in a code span are no figure).
MARK = re.compile(r"<!--\s*fig:\s*(?P<name>[^>]*?)\s*-->(?P<value>[^<`]*)<!--\s*/fig\s*-->")

#: Source prefix -> the figures it holds (a nested dict). A name without a known prefix
#: reads the default source, ``real``.
SOURCES: dict[str, Callable[[], dict[str, Any]]] = {
    "real": figures.load,
    # the last run of benchmarks/bench_unblocked.py (fuzzy linking without blocks)
    "unblocked": lambda: json.loads((REPO / "benchmarks" / "unblocked.json").read_text("utf-8")),
    # the last run of benchmarks/bench_validate.py (validate of one descriptor against import mlcroissant)
    "validate": lambda: json.loads((REPO / "benchmarks" / "validate.json").read_text("utf-8")),
}


@dataclass(frozen=True)
class Figure:
    """One marked figure of a page."""

    page: str
    line: int
    name: str
    written: str
    span: tuple[int, int]  # of the value, in the page's text


def pages() -> list[Path]:
    """The pages :data:`PAGES` names, in a stable order."""
    found: set[Path] = set()
    for pattern in PAGES:
        found.update(p for p in REPO.glob(pattern) if p.is_file())
    return sorted(found)


def marked(path: Path) -> Iterator[Figure]:
    """The marked figures of one page."""
    text = path.read_text("utf-8")
    for m in MARK.finditer(text):
        yield Figure(str(path.relative_to(REPO)), text.count("\n", 0, m.start()) + 1, m["name"], m["value"], m.span("value"))


def _lookup(name: str, loaded: dict[str, dict[str, Any]]) -> Any:
    prefix, _, rest = name.partition(":")
    source, path = (prefix, rest) if rest and prefix in SOURCES else ("real", name)
    if source not in loaded:
        loaded[source] = SOURCES[source]()
    value: Any = loaded[source]
    for part in path.split("/"):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(f"no figure {name!r} ({part!r} not found)")
        value = value[part]
    return value


def _format(value: Any, fmt: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"not a number: {value!r}")
    if fmt == "d":
        return str(value)
    if fmt == "pct1":
        return f"{value:.1f} %"
    if fmt[:-1].isdigit() and fmt.endswith("f"):  # "2f": two decimals
        return f"{value:.{int(fmt[:-1])}f}"
    if isinstance(value, float):
        return f"{value:,.1f}"
    return f"{value:,}"


def expected(name: str, loaded: dict[str, dict[str, Any]] | None = None) -> str:
    """The text a figure named ``name`` (with its ``|FORMAT``) must read."""
    loaded = {} if loaded is None else loaded
    key, _, fmt = name.partition("|")
    if fmt.startswith("frac:"):
        return f"{_format(_lookup(key.strip(), loaded), 'd')}/{_format(_lookup(fmt[5:].strip(), loaded), 'd')}"
    return _format(_lookup(key.strip(), loaded), fmt.strip() or ",")


def mismatches() -> list[tuple[Figure, str]]:
    """Every marked figure whose text is not what its source says, with that text."""
    loaded: dict[str, dict[str, Any]] = {}
    out = []
    for path in pages():
        for fig in marked(path):
            want = expected(fig.name, loaded)
            if fig.written != want:
                out.append((fig, want))
    return out


def main() -> int:
    """Rewrite every marked figure from its source; print what changed."""
    loaded: dict[str, dict[str, Any]] = {}
    for path in pages():
        text = path.read_text("utf-8")
        figs = list(marked(path))
        for fig in reversed(figs):
            want = expected(fig.name, loaded)
            if fig.written != want:
                print(f"{fig.page}:{fig.line}: {fig.name}: {fig.written} -> {want}")
                text = text[: fig.span[0]] + want + text[fig.span[1]:]
        path.write_text(text, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
