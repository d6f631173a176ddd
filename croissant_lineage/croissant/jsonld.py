"""Offline JSON-LD: Croissant descriptors to RDF graphs without a network fetch.

A descriptor may name its ``@context`` by URL (``"@context": "http://mlcommons.org/
croissant/1.1"``), inline it (what every published Croissant example does), or mix both
in a list. rdflib's JSON-LD parser fetches every context URL it meets (and every
``@import``), so this module resolves them first: each URL is replaced by the local
copy shipped in ``croissant_lineage/croissant/contexts/`` (or given by the caller), and a URL with
no local copy is an error (:class:`~croissant_lineage.errors.DescriptorError`), never a
download. Only then is the document handed to rdflib.

Relative ``@id``s (Croissant uses them for RecordSets and Fields: ``default/options``)
resolve against an explicit ``base``; the default is a fixed IRI, so the same document
gives the same triples wherever it is stored.

Beside rdflib, the same layer reads a document's inline ``@context`` as a processor
would (:class:`JsonLdContext`: term expansion, ``@type`` coercion) so that checks can
say *where* something is wrong (:func:`walk`, :func:`pointer`), and finds the context
object that enrichment adds terms to (:func:`context_object`, :func:`term_meaning`).
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from croissant_lineage._io import read_json
from croissant_lineage.croissant.namespaces import CROISSANT_NS, PROV_NS, XSD_NS
from croissant_lineage.errors import DescriptorError

if TYPE_CHECKING:
    import rdflib  # (imported where a graph is built: reading JSON needs no rdflib)

__all__ = [
    "CONTEXT_URLS",
    "DEFAULT_BASE",
    "PROV_NS",
    "SCHEMES",
    "XSD_NS",
    "Expansion",
    "JsonLdContext",
    "check_contexts",
    "context_object",
    "context_urls",
    "inline_contexts",
    "local_context",
    "offline_documents",
    "pointer",
    "read_graph",
    "term_meaning",
    "to_graph",
    "walk",
]

#: Base IRI for relative ``@id``s when the caller gives none (location-independent).
DEFAULT_BASE = "urn:croissant-lineage:base/"

#: Context URL -> file in ``croissant_lineage/croissant/contexts/``. The Croissant spec URLs
#: (what ``conformsTo`` names) and their ``context.jsonld`` forms, http and https.
CONTEXT_URLS: dict[str, str] = {
    CROISSANT_NS.replace("http:", f"{scheme}:", 1) + f"{version}{suffix}": f"croissant-{version}.jsonld"
    for scheme in ("http", "https")
    for version in ("1.0", "1.1")
    for suffix in ("", "/", "/context.jsonld")
}


@cache
def _packaged(name: str) -> str:
    ref = resources.files("croissant_lineage.croissant").joinpath("contexts").joinpath(name)
    return ref.read_text("utf-8")


def local_context(url: str, extra: Mapping[str, Any] | None = None) -> Any:
    """The ``@context`` value a context URL stands for, from local copies only.

    Args:
        url: The context URL as written in the document.
        extra: More URL -> context documents (``{"@context": ...}``) or context values,
            checked before the packaged ones.

    Returns:
        A fresh copy of the context value (a dict or a list), never shared state.

    Raises:
        DescriptorError: no local copy of ``url`` (nothing is fetched).
    """
    if extra is not None and url in extra:
        value = copy.deepcopy(extra[url])
    elif url in CONTEXT_URLS:
        value = json.loads(_packaged(CONTEXT_URLS[url]))
    else:
        raise DescriptorError(
            f"remote @context {url!r} has no local copy and is never fetched",
            hint="inline the context in the descriptor, or pass it as contexts={url: {...}}",
        )
    if isinstance(value, dict) and "@context" in value:
        value = value["@context"]
    return value


def _scoped_urls(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """Context URLs inside one ``@context`` value: itself, list items, ``@import``, scoped."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        at, cur = stack.pop()
        if isinstance(cur, str):
            yield at, cur
        elif isinstance(cur, list):
            stack.extend(reversed([(f"{at}/{i}", v) for i, v in enumerate(cur)]))
        elif isinstance(cur, dict):
            for key, definition in reversed(list(cur.items())):
                if key == "@import":
                    stack.append((f"{at}/@import", definition))
                elif isinstance(definition, dict) and "@context" in definition:
                    # A property- or type-scoped context (JSON-LD 1.1 term definitions).
                    stack.append((f"{at}{pointer([key])}/@context", definition["@context"]))


def context_urls(doc: Any) -> list[tuple[str, str]]:
    """Every context URL a JSON-LD document names, at every level, in document order.

    Covers the top-level ``@context`` and any nested one, lists of contexts, ``@import``,
    and contexts scoped to a property or a type in a term definition (those a processor
    only loads when it meets the term). Bundled URLs are included (see :data:`CONTEXT_URLS`).

    Args:
        doc: A parsed JSON document.

    Returns:
        (JSON pointer of the URL, URL) pairs; a non-string ``@import`` is reported as ``""``.
    """
    out: list[tuple[str, str]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    while stack:
        path, cur = stack.pop()
        if isinstance(cur, dict):
            children = []
            for k, v in cur.items():
                if k == "@context":
                    out.extend((at, url if isinstance(url, str) else "") for at, url in _scoped_urls(v, pointer((*path, k))))
                else:
                    children.append(((*path, k), v))
            stack.extend(reversed(children))
        elif isinstance(cur, list):
            stack.extend(reversed([((*path, i), v) for i, v in enumerate(cur)]))
    return out


def check_contexts(doc: Any, *, path: str | Path | None = None, contexts: Mapping[str, Any] | None = None) -> None:
    """Refuse a document that names a context URL with no bundled copy, at any level.

    The one rule every reader applies before any JSON-LD processor sees a document:
    ``read_descriptor`` (``link``, ``enrich``...) raises, ``validate`` reports ``CLV202``.

    Args:
        doc: A parsed JSON document.
        path: The file, for the error message.
        contexts: Extra URL -> context the caller supplies (allowed like bundled ones).

    Raises:
        DescriptorError: the first such URL (its JSON pointer in the message).
    """
    for at, url in context_urls(doc):
        if url not in CONTEXT_URLS and not (contexts is not None and url in contexts):
            raise DescriptorError(
                f"@context at {at} names {url[:200]!r}, which has no bundled copy and is never fetched",
                path=path,
                hint="inline the context object in the descriptor",
            )


_LOADER_LOCK = threading.RLock()


def _bundled_document(url: Any, *_args: Any, **_kwargs: Any) -> tuple[Any, None]:
    """rdflib's ``source_to_json`` replacement: bundled Croissant contexts, nothing else."""
    key = url if isinstance(url, str) else None
    if key is None or key not in CONTEXT_URLS:
        raise DescriptorError(f"JSON-LD processor asked for {str(url)[:200]!r}: only bundled contexts are served")
    return json.loads(_packaged(CONTEXT_URLS[key])), None


@contextmanager
def offline_documents() -> Iterator[None]:
    """Within the block, rdflib (and so mlcroissant, which parses with rdflib) loads no document.

    rdflib's JSON-LD context loader (``rdflib.plugins.shared.jsonld.context.source_to_json``,
    which opens ``http(s)://`` and ``file:`` URLs) is replaced by one that serves only the
    bundled Croissant contexts and raises :class:`DescriptorError` for anything else. The
    original is put back on exit; blocks may nest and run in several threads.
    """
    from rdflib.plugins.shared.jsonld import context as rdflib_context

    with _LOADER_LOCK:
        saved = rdflib_context.source_to_json
        rdflib_context.source_to_json = _bundled_document  # type: ignore[assignment]
        try:
            yield
        finally:
            rdflib_context.source_to_json = saved


def _resolve_context(value: Any, extra: Mapping[str, Any] | None, seen: tuple[str, ...]) -> Any:
    """Replace every context URL in a context value by its local copy (recursively)."""
    if isinstance(value, str):
        if value in seen:
            raise DescriptorError(f"@context {value!r} includes itself")
        return _resolve_context(local_context(value, extra), extra, (*seen, value))
    if isinstance(value, list):
        out: list[Any] = []
        for v in value:
            resolved = _resolve_context(v, extra, seen)
            # A URL standing for a list of contexts is spliced in place.
            if isinstance(v, str) and isinstance(resolved, list):
                out.extend(resolved)
            else:
                out.append(resolved)
        return out
    if isinstance(value, dict):
        ctx = dict(value)
        imported = ctx.pop("@import", None)
        if imported is not None:
            if not isinstance(imported, str):
                raise DescriptorError("@import must name a context URL")
            base = _resolve_context(imported, extra, seen)
            if not isinstance(base, dict):
                raise DescriptorError(f"@import {imported!r} is not a single context object")
            ctx = {**base, **ctx}
        for term, definition in ctx.items():
            if isinstance(definition, dict) and "@context" in definition:
                scoped = dict(definition)
                scoped["@context"] = _resolve_context(definition["@context"], extra, seen)
                ctx[term] = scoped
        return ctx
    return value


def inline_contexts(doc: Any, *, contexts: Mapping[str, Any] | None = None) -> Any:
    """A copy of ``doc`` in which every ``@context`` URL is replaced by its local copy.

    Covers top-level and nested ``@context`` values, lists of contexts, scoped
    contexts in term definitions and ``@import``.

    Args:
        doc: A parsed JSON-LD document (not modified).
        contexts: Extra URL -> context, checked before the packaged copies.

    Returns:
        The new document, with no context URL left in it.

    Raises:
        DescriptorError: a context URL has no local copy.
    """

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: _resolve_context(v, contexts, ()) if k == "@context" else walk(v)
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(doc)


def to_graph(
    doc: Any,
    *,
    base: str = DEFAULT_BASE,
    contexts: Mapping[str, Any] | None = None,
    path: str | Path | None = None,
) -> rdflib.Graph:
    """Parse a JSON-LD document into an rdflib graph, offline.

    Args:
        doc: The parsed JSON-LD document (not modified).
        base: Base IRI for relative ``@id``s.
        contexts: Extra URL -> context for remote contexts (see :func:`local_context`).
        path: The file the document came from, for error messages.

    Returns:
        A new :class:`rdflib.Graph` holding the document's triples.

    Raises:
        DescriptorError: a context URL has no local copy, or rdflib rejects the JSON-LD.
    """
    try:
        inlined = inline_contexts(doc, contexts=contexts)
    except DescriptorError as exc:
        raise DescriptorError(exc.message, path=path, hint=exc.hint) from None
    try:
        # NaN and Infinity are not JSON: refuse them here rather than leave it to whichever
        # JSON parser rdflib happens to use (orjson rejects them, the standard library not).
        data = json.dumps(inlined, allow_nan=False)
    except ValueError:
        raise DescriptorError("invalid JSON-LD: NaN or Infinity is not a JSON value", path=path) from None
    import rdflib

    graph = rdflib.Graph()
    try:
        with offline_documents():
            graph.parse(data=data, format="json-ld", base=base)
    except DescriptorError as exc:
        raise DescriptorError(exc.message, path=path, hint=exc.hint) from None
    except Exception as exc:  # rdflib raises bare Exceptions for invalid JSON-LD
        raise DescriptorError(f"invalid JSON-LD: {exc}", path=path) from None
    return graph


def read_graph(
    path: str | Path, *, base: str = DEFAULT_BASE, contexts: Mapping[str, Any] | None = None
) -> rdflib.Graph:
    """Read a JSON-LD file into an rdflib graph, offline (see :func:`to_graph`).

    Raises:
        InputError: the file is missing or not JSON.
        DescriptorError: a context URL has no local copy, or invalid JSON-LD.
    """
    return to_graph(read_json(path), base=base, contexts=contexts, path=path)


# --------------------------------------------------------------------------- inline contexts


def context_object(doc: dict[str, Any], path: str | Path | None = None) -> dict[str, Any]:
    """The inline ``@context`` object new terms go into (the last one of a list).

    Raises:
        DescriptorError: the ``@context`` is a URL (or ends with one), not an object.
    """
    ctx = doc.get("@context")
    if isinstance(ctx, dict):
        return ctx
    if isinstance(ctx, list) and ctx and isinstance(ctx[-1], dict):
        return ctx[-1]
    raise DescriptorError(
        "the @context is a URL, not an inline object: terms cannot be added to it",
        path=path,
        hint="inline the context (every Croissant example does)",
    )


def term_meaning(
    definition: Any, ctx: Mapping[str, Any], prefixes: Mapping[str, str] | None = None
) -> tuple[Any, Any]:
    """A term definition reduced to (IRI, ``@type``), its prefix expanded, for comparison.

    Args:
        definition: The term's definition (a string IRI / compact IRI, or a dict).
        ctx: The context object the term is defined in (its prefixes are read first).
        prefixes: Fallback prefix -> IRI for prefixes ``ctx`` does not define.
    """
    if isinstance(definition, dict):
        iri, typ = definition.get("@id"), definition.get("@type")
    else:
        iri, typ = definition, None
    if isinstance(iri, str) and ":" in iri and "://" not in iri:
        prefix, _, rest = iri.partition(":")
        base = ctx.get(prefix, (prefixes or {}).get(prefix))
        if isinstance(base, str):
            iri = base + rest
    return iri, typ


# --------------------------------------------------------------------------- reading a context

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
