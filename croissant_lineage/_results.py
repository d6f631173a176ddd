"""What every result type shares: one text view, one HTML view, one dict, one table.

A result object (a queue, a report, an item's relatives...) is data. How it reads is
decided in :mod:`croissant_lineage.render`, which registers a text and an HTML renderer
per type here; nothing below ``render/`` imports it. The layer above installs what loads
it (:func:`add_renderer_source`: the package's ``__init__`` does, so the renderers load on
the first ``str(result)`` of any program). So:

* ``str(result)`` is what the CLI prints,
* ``result._repr_html_()`` is what a notebook shows,
* ``result.to_dict()`` is what ``--json`` prints and CI reads.

Renderers are found by the object's type (its MRO), never by a class name;
:func:`text_renderer` and :func:`html_renderer` say whether one is registered.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import asdict, fields, is_dataclass
from typing import Any, ClassVar, TypeVar

__all__ = [
    "Result",
    "RowTable",
    "add_renderer_source",
    "html_renderer",
    "inert",
    "inert_json",
    "inert_value",
    "is_uri",
    "link_url",
    "register_html",
    "register_text",
    "render_html",
    "render_text",
    "summary_repr",
    "text_renderer",
]

T = TypeVar("T")
Renderer = Callable[[Any], str]
#: A result type, or its place named ``"package.module:Class"`` (see :func:`register_text`).
TypeRef = type | str

_TEXT: dict[type, Renderer] = {}
_HTML: dict[type, Renderer] = {}
#: Renderers registered by a type's place, not yet resolved: (table, "module:Class", fn).
_PENDING: list[tuple[dict[type, Renderer], str, Renderer]] = []
#: What loads the renderers, installed from above (the package's ``__init__``): nothing
#: here imports :mod:`croissant_lineage.render`.
_SOURCES: list[Callable[[], object]] = []
_LOADED = False


def add_renderer_source(load: Callable[[], object]) -> None:
    """``load()`` registers renderers (it imports the presentation layer); it is called once,
    when a result is first shown. Installed by the layer above, never imported from here."""
    global _LOADED
    _SOURCES.append(load)
    _LOADED = False


def _register(table: dict[type, Renderer], cls: TypeRef) -> Callable[[Renderer], Renderer]:
    def deco(fn: Renderer) -> Renderer:
        if isinstance(cls, str):
            _PENDING.append((table, cls, fn))
        else:
            table[cls] = fn
        return fn

    return deco


def register_text(cls: TypeRef) -> Callable[[Renderer], Renderer]:
    """Decorator: ``fn`` renders instances of ``cls`` (and its subclasses) as text.

    ``cls`` is a type, or its place ``"package.module:Class"``: then the type is looked up
    only once its module has been imported by someone else (an instance exists only then),
    so registering a renderer imports nothing of the stage it renders."""
    return _register(_TEXT, cls)


def register_html(cls: TypeRef) -> Callable[[Renderer], Renderer]:
    """Decorator: ``fn`` renders instances of ``cls`` (and its subclasses) as HTML (``cls``
    as in :func:`register_text`)."""
    return _register(_HTML, cls)


def _resolve_pending() -> None:
    """Move the pending registrations whose module is loaded into their tables."""
    keep = []
    for table, place, fn in _PENDING:
        module_name, _, qualname = place.partition(":")
        module = sys.modules.get(module_name)
        if module is None:
            keep.append((table, place, fn))
            continue
        obj: Any = module
        for part in qualname.split("."):
            obj = getattr(obj, part, None)
        if not isinstance(obj, type):  # its module is still being imported
            keep.append((table, place, fn))
            continue
        table.setdefault(obj, fn)
    _PENDING[:] = keep


def _find(table: dict[type, Renderer], obj: Any) -> Renderer | None:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        for load in list(_SOURCES):
            load()
    if _PENDING:
        _resolve_pending()
    for klass in type(obj).__mro__:
        if klass in table:
            return table[klass]
    return None


def text_renderer(obj: Any) -> Renderer | None:
    """The text renderer registered for ``obj``'s type (or a base type), or None."""
    return _find(_TEXT, obj)


def html_renderer(obj: Any) -> Renderer | None:
    """The HTML renderer registered for ``obj``'s type (or a base type), or None."""
    return _find(_HTML, obj)


def render_text(obj: Any) -> str:
    """The registered text view of ``obj`` (its ``repr`` when none is registered), made
    :func:`inert` for a terminal."""
    fn = _find(_TEXT, obj)
    return inert(fn(obj) if fn is not None else repr(obj))


#: Characters that steer a terminal or reorder what it shows: C0 and C1 controls, DEL,
#: and the Unicode bidirectional overrides and isolates ("Trojan source").
_STEERING = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str, *, lines: bool = True) -> str:
    """``text`` with every control character escaped, so printing it cannot steer a terminal.

    ANSI / OSC escape sequences (colours, window titles, clearing the screen), carriage
    returns, backspaces, bells and bidirectional overrides become visible escapes
    (``\\x1b``, ``\\u202e``); a tab stays. The one function every printed text goes
    through: :func:`render_text` (so ``str(result)``), the CLI's error line and
    :func:`inert_value` for values the text renderers put on a line.

    Args:
        text: The text to print.
        lines: Keep newlines (a multi-line view); with False a newline is escaped too
            (one line: an error message, a value inside a line).
    """
    out = _STEERING.sub(_escape, text)
    return out if lines else out.replace("\n", "\\n")


#: An absolute URI: a scheme, then no white space, control character, quote or angle bracket.
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f-\x9f\"<>\\^`{|}]+")


def is_uri(value: Any) -> bool:
    """True when ``value`` is an absolute URI (RFC 3986 syntax: a scheme, no white space or
    control characters). The ``format: uri`` check of the JSON schemas."""
    return isinstance(value, str) and _URI.fullmatch(value) is not None


def link_url(value: Any) -> str | None:
    """``value`` when it may become a link in HTML or Markdown (an ``http``/``https`` URI
    with a host), else None: ``javascript:``, ``data:``, ``file:`` and relative URLs are
    shown as text, never as links."""
    if not is_uri(value) or not str(value).lower().startswith(("http://", "https://")):
        return None
    rest = str(value).split("://", 1)[1]
    return str(value) if rest and rest[0] not in "/?#" else None


def inert_json(text: str) -> str:
    """JSON text with every character :func:`inert` escapes written as a ``\\uXXXX`` escape:
    the same JSON value, printable on a terminal (``json.dumps`` leaves DEL, C1 controls and
    bidirectional overrides raw when ``ensure_ascii`` is off)."""
    return _STEERING.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def inert_value(value: Any) -> str:
    """``str(value)`` for one place on a line: every control character, newline included, escaped."""
    return inert(str(value), lines=False)


def render_html(obj: Any) -> str:
    """The registered HTML view of ``obj`` (its escaped text view when none is registered)."""
    fn = _find(_HTML, obj)
    if fn is not None:
        return fn(obj)
    import html

    return f"<pre>{html.escape(render_text(obj))}</pre>"


#: The longest ``repr`` of a result: one line of summary in a plain REPL.
REPR_WIDTH = 160


def _brief(value: Any) -> str:
    """One value of a result's ``repr``: scalars as themselves (long texts cut), tables and
    collections as their size, other objects as their type."""
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if hasattr(value, "num_rows") and hasattr(value, "schema"):  # an Arrow table
        return f"<{value.num_rows:,} rows>"
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return f"<{len(value):,}>"
    if hasattr(value, "__fspath__"):
        return repr(str(value))
    return f"<{type(value).__name__}>"


def summary_repr(obj: Any) -> str:
    """``TypeName(field=value, ...)`` on one line of at most :data:`REPR_WIDTH` characters:
    each dataclass field of ``obj`` in order, shortened by :func:`_brief`."""
    names = [f.name for f in fields(obj) if f.repr] if is_dataclass(obj) else []
    head, parts, width = type(obj).__name__, [], len(type(obj).__name__) + 2
    for name in names:
        part = f"{name}={_brief(getattr(obj, name, None))}"
        if width + len(part) + 2 > REPR_WIDTH - 5:
            parts.append("...")
            break
        parts.append(part)
        width += len(part) + 2
    return inert(f"{head}({', '.join(parts)})", lines=False)


class Result:
    """Mixin for result types: ``__str__`` and ``_repr_html_`` come from the registry.

    Subclasses define ``to_dict()`` (plain JSON-ready data). Their ``repr`` is one line of
    summary (:func:`summary_repr`), not the dataclass's dump of every row: a subclass that
    defines no ``__repr__`` of its own gets it even when ``@dataclass`` would write one.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__repr__" not in cls.__dict__:  # set before @dataclass runs, which then keeps it
            cls.__repr__ = summary_repr  # type: ignore[method-assign]

    def __repr__(self) -> str:
        return summary_repr(self)

    def __str__(self) -> str:
        return render_text(self)

    def _repr_html_(self) -> str:
        return render_html(self)

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - every result overrides it
        raise NotImplementedError(f"{type(self).__name__}.to_dict")


class RowTable(Result):
    """A result holding a list of row dataclasses, convertible to a DataFrame."""

    row_type: ClassVar[type]
    rows: list[Any]

    def to_pandas(self) -> Any:
        """The rows as a ``pandas.DataFrame``, one column per row field (in field order)."""
        import pandas as pd

        cols = [f.name for f in fields(self.row_type)]
        return pd.DataFrame([asdict(r) for r in self.rows], columns=cols)

    def __len__(self) -> int:
        return len(self.rows)
