"""Just enough JSON-LD to check a descriptor offline: the @context, term expansion,
and a walk over every node with its JSON pointer.

This is not a JSON-LD processor: it reads the inline ``@context`` of the document
(an object, or a list of objects) and expands keys, ``@type`` values and IRI-valued
terms the way a processor would, so that checks can say *where* something is wrong.
A remote context (a URL string) is never fetched.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["PROV_NS", "Expansion", "JsonLdContext", "pointer", "walk"]

PROV_NS = "http://www.w3.org/ns/prov#"

#: IRI schemes that are not prefixes (``https://...``, ``urn:...``).
SCHEMES = frozenset({"http", "https", "urn", "mailto", "file", "ftp", "data", "tag", "doi", "did", "ark", "git+https", "s3", "gs", "hf"})


def pointer(parts: tuple[Any, ...] | list[Any]) -> str:
    """RFC 6901 JSON pointer for a path of keys and indices (``""`` for the root)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


@dataclass(frozen=True)
class Expansion:
    """What a key or compact IRI expands to.

    Attributes:
        iri: The absolute IRI, or None for keywords and undeclared prefixes.
        undeclared: The prefix when ``x:y`` names a prefix the context does not declare.
    """

    iri: str | None
    undeclared: str | None = None


class JsonLdContext:
    """The merged inline ``@context`` of a document.

    Attributes:
        terms: Term -> definition (a string IRI / compact IRI, or a dict).
        remote: URLs of remote contexts the document names (never fetched).
    """

    def __init__(self, raw: Any):
        self.terms: dict[str, Any] = {}
        self.remote: list[str] = []
        for part in raw if isinstance(raw, list) else [raw]:
            if isinstance(part, str):
                self.remote.append(part)
            elif isinstance(part, dict):
                imported = part.get("@import")
                if isinstance(imported, str):
                    self.remote.append(imported)
                self.terms.update(part)

    @property
    def vocab(self) -> str | None:
        v = self.terms.get("@vocab")
        return v if isinstance(v, str) else None

    def definition(self, term: str) -> dict[str, Any] | None:
        """The term's definition as a dict (``{"@id": ...}`` for string definitions)."""
        d = self.terms.get(term)
        if isinstance(d, str):
            return {"@id": d}
        return d if isinstance(d, dict) else None

    def type_of(self, term: str) -> str | None:
        """The ``@type`` coercion of a term (``@id``, ``@vocab``, ``@json``...), if any."""
        d = self.definition(term)
        t = d.get("@type") if d else None
        return t if isinstance(t, str) else None

    def expand_iri(self, value: str, *, vocab: bool, _depth: int = 0) -> Expansion:
        """Expand a compact IRI or term.

        Args:
            value: ``prov:wasDerivedFrom``, ``dataType``, ``https://...``.
            vocab: Whether a bare term is relative to ``@vocab`` (keys, ``@type``
                values, ``@vocab``-typed values) rather than a document-relative IRI.
        """
        if value.startswith("@") or _depth > 8:
            return Expansion(None)
        if vocab and value in self.terms:
            d = self.definition(value)
            target = d.get("@id") if d else None
            if isinstance(target, str) and target != value:
                return self.expand_iri(target, vocab=True, _depth=_depth + 1)
            if d is not None and target is None and ":" not in value:
                base = self.vocab
                return Expansion(base + value if base else None)
        if ":" in value:
            prefix, _, suffix = value.partition(":")
            if suffix.startswith("//"):
                return Expansion(value)
            d = self.definition(prefix)
            target = d.get("@id") if d else None
            if isinstance(target, str):
                return Expansion(target + suffix)
            if prefix.lower() in SCHEMES:
                return Expansion(value)
            return Expansion(None, undeclared=prefix)
        if vocab and self.vocab:
            return Expansion(self.vocab + value)
        return Expansion(None)


def walk(doc: Any, *, skip_keys: frozenset[str] = frozenset()) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every JSON object in ``doc`` with its path, depth first, in document order.

    The ``@context`` subtree and the values of keys in ``skip_keys`` (``@json`` data)
    are not entered.
    """
    stack: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    while stack:
        path, cur = stack.pop()
        if isinstance(cur, dict):
            yield path, cur
            children = [((*path, k), v) for k, v in cur.items() if k != "@context" and k not in skip_keys]
            stack.extend(reversed(children))
        elif isinstance(cur, list):
            stack.extend(reversed([((*path, i), v) for i, v in enumerate(cur)]))
