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
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import rdflib

from croissant_lineage._io import read_json
from croissant_lineage.errors import DescriptorError

__all__ = [
    "CONTEXT_URLS",
    "DEFAULT_BASE",
    "PROV_NS",
    "XSD_NS",
    "inline_contexts",
    "local_context",
    "read_graph",
    "to_graph",
]

#: PROV-O namespace.
PROV_NS = "http://www.w3.org/ns/prov#"
#: XML Schema datatypes namespace.
XSD_NS = "http://www.w3.org/2001/XMLSchema#"

#: Base IRI for relative ``@id``s when the caller gives none (location-independent).
DEFAULT_BASE = "urn:croissant-lineage:base/"

#: Context URL -> file in ``croissant_lineage/croissant/contexts/``. The Croissant spec URLs
#: (what ``conformsTo`` names) and their ``context.jsonld`` forms, http and https.
CONTEXT_URLS: dict[str, str] = {
    f"{scheme}://mlcommons.org/croissant/{version}{suffix}": f"croissant-{version}.jsonld"
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
    graph = rdflib.Graph()
    try:
        graph.parse(data=data, format="json-ld", base=base)
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
