"""RDF terms as N-Triples text: the one spelling every PROV serialisation is built from.

A triple is one N-Triples line (``<s> <p> <o> .\\n``, UTF-8). The spelling is the one
rdflib's N-Triples serialiser gives (so files written before this module, and the
golden hashes, keep their bytes):

* an IRI is ``<iri>``; an IRI N-Triples cannot hold (``IRIREF`` excludes white space,
  control characters and ``<>"{}|^`\\``) is refused with a coded :class:`InputError`
  (rdflib printed a warning on stderr, then failed while writing);
* a literal is ``"lexical"`` with ``\\``, newline, ``"`` and carriage return escaped
  (``\\\\``, ``\\n``, ``\\"``, ``\\r``; other characters, control characters included, are
  written as they are, which N-Triples allows), then ``@lang`` or ``^^<datatype>``;
* a blank node is ``_:label``.

:func:`split_line` and :func:`literal_value` read such a line back (for the Turtle and
JSON-LD writers, which are built from sorted N-Triples lines).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from rdflib import BNode, Literal, URIRef

from croissant_lineage.errors import InputError

__all__ = [
    "XSD_BOOLEAN",
    "XSD_DOUBLE",
    "XSD_INTEGER",
    "escape",
    "iri",
    "literal",
    "literal_value",
    "nt_row",
    "per_distinct",
    "py_literal",
    "split_line",
    "term",
    "utf8_lines",
]

_XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_INTEGER = f"{_XSD}integer"
XSD_DOUBLE = f"{_XSD}double"
XSD_BOOLEAN = f"{_XSD}boolean"

#: Characters outside N-Triples' IRIREF (``[^#x00-#x20<>"{}|^`\\]``).
_BAD_IRI = re.compile(r'[\x00-\x20<>"{}|^`\\]')


def iri(value: str) -> str:
    """``<value>``.

    Raises:
        InputError: ``value`` holds a character an N-Triples IRI cannot (see module docstring).
    """
    bad = _BAD_IRI.search(value)
    if bad is not None:
        raise InputError(
            f"cannot write the PROV graph: {value[:200]!r} is not an IRI "
            f"(character {bad.group()!r} at {bad.start()})",
            hint="an IRI in the family spec, descriptors or findings is not a valid IRI (spaces, <, >, quotes...)",
        )
    return f"<{value}>"


#: Control characters other than tab, newline and carriage return (ESC, NUL, BEL, DEL...):
#: written as ``\\uXXXX`` (N-Triples' UCHAR), never raw, so a PROV file cannot steer a terminal.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def escape(text: str) -> str:
    """The inside of an N-Triples (and Turtle) string literal: rdflib's escapes, in rdflib's
    order, then every other control character as ``\\uXXXX``."""
    out = text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"').replace("\r", "\\r")
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04X}", out) if _CONTROL.search(out) else out


def literal(lexical: str, datatype: str | None = None, lang: str | None = None) -> str:
    """A literal term: ``"lexical"``, ``"lexical"@lang`` or ``"lexical"^^<datatype>``."""
    if lang:
        return f'"{escape(lexical)}"@{lang}'
    if datatype:
        return f'"{escape(lexical)}"^^<{datatype}>'
    return f'"{escape(lexical)}"'


def py_literal(value: Any) -> str:
    """The literal rdflib makes of a Python value (``Literal(value)``): str plain, bool
    ``xsd:boolean``, int ``xsd:integer``, float ``xsd:double`` (rdflib's lexical form)."""
    if isinstance(value, str):
        return literal(value)
    return term(Literal(value))


def term(node: Any) -> str:
    """An rdflib term (URIRef, BNode, Literal) as N-Triples."""
    if isinstance(node, Literal):
        return literal(str(node), str(node.datatype) if node.datatype else None, node.language)
    if isinstance(node, BNode):
        return f"_:{node}"
    if isinstance(node, URIRef):
        return iri(str(node))
    raise InputError(f"cannot write {type(node).__name__} {node!r} as an RDF term")


def nt_row(triple: tuple[Any, Any, Any]) -> str:
    """One rdflib triple as an N-Triples line (newline included)."""
    s, p, o = triple
    return f"{term(s)} {term(p)} {term(o)} .\n"


def utf8_lines(lines: Iterable[str]) -> pa.Array:
    """Lines as an Arrow string array.

    Raises:
        InputError: a line UTF-8 cannot encode (a lone surrogate such as ``\\ud800`` that a
            JSON findings file or family spec can hold; rdflib failed on it while writing).
    """
    values = list(lines)
    try:
        return pa.array(values, pa.string())
    except (UnicodeEncodeError, pa.ArrowException):
        bad = next(v for v in values if not _encodable(v))
        raise InputError(
            f"cannot write the PROV graph: a text is not valid Unicode: {bad[:200]!r}",
            hint="a text of the family spec or findings holds a lone surrogate (\\ud800...)",
        ) from None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def per_distinct(column: pa.Array, spell: Callable[[Any], str]) -> pa.Array:
    """``spell(value)`` of each value of a column (null stays null), computed once per
    distinct value in Python and spread with ``take``: for values that repeat."""
    distinct = pc.unique(column)
    spelled = pa.array([None if v is None else spell(v) for v in distinct.to_pylist()], pa.string())
    return spelled.take(pc.index_in(column, value_set=distinct))


def split_line(line: bytes) -> tuple[bytes, bytes, bytes]:
    """Subject, predicate and object terms of an N-Triples line written by this module.

    Subjects and predicates hold no space (IRIs are checked, labels are slugs), so the
    first two spaces end them; the object is the rest without ``" .\\n"``.
    """
    s, p, o = line[:-3].split(b" ", 2)
    return s, p, o


_UNESCAPE = {"\\": "\\", "n": "\n", '"': '"', "r": "\r"}
_ESCAPED = re.compile(r"\\(u[0-9A-F]{4}|.)", re.DOTALL)


def _unescaped(m: re.Match[str]) -> str:
    code = m.group(1)
    return chr(int(code[1:], 16)) if len(code) == 5 else _UNESCAPE.get(code, m.group(0))


def literal_value(obj: str) -> tuple[str, str | None, str | None]:
    """(lexical form, datatype IRI or None, language or None) of a literal term."""
    end = obj.rindex('"')
    lexical = _ESCAPED.sub(_unescaped, obj[1:end])
    tail = obj[end + 1:]
    if tail.startswith("@"):
        return lexical, None, tail[1:]
    if tail.startswith("^^<"):
        return lexical, tail[3:-1], None
    return lexical, None, None
