"""The library's marks in a descriptor: which nodes are ours, and taking them out again.

Every JSON object the library adds to a descriptor carries ``"@index": "croissant-lineage"``
(:data:`~croissant_lineage.prov.vocab.MARK`; a JSON-LD keyword: kept by JSON-LD processors,
no triple). A user's own node may carry that same ``@index`` (it is an ordinary JSON-LD
value), so the mark alone never decides: the enrichment activity (the marked node typed
``cl:Enrichment``; ``_:cl-enrichment`` before enrichment activities had IRIs) lists in ``cl:addedNodes`` the JSON pointer of every node the
enrichment added (:func:`seal`), and in ``cl:addedContextTerms`` the ``@context`` terms it
added. :func:`strip_enrichment` removes exactly a marked node at a listed pointer and those
terms, so ``strip_enrichment(enrich_descriptor(doc, ...)) == doc`` whatever ``doc`` holds;
a document with no enrichment activity is returned unchanged. A copy whose paths were
rewritten (``enrich --rebase-urls``) lists each rewrite under :data:`REBASED` of the
activity (the value's JSON pointer and its original value as JSON text), and
:func:`strip_enrichment` puts the original values back. (A descriptor enriched by a
version without ``cl:addedNodes`` is stripped of every marked node, as that version did.)
:func:`is_our_descriptor` is the check that lets a later run replace a file this library
wrote, and no other.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from croissant_lineage.croissant.descriptor import (
    is_generated,
    is_generated_file,
)
from croissant_lineage.croissant.jsonld import pointer
from croissant_lineage.prov.vocab import MARK

__all__ = [
    "ADDED_NODES", "ENRICHMENT_ID", "ENRICHMENT_TYPE", "REBASED", "is_our_descriptor", "is_ours", "note_rebased",
    "restore_values", "seal", "strip_enrichment",
]

#: The enrichment activity's property listing the JSON pointers of the nodes it added.
ADDED_NODES = "cl:addedNodes"
#: The enrichment activity's property listing the values it rewrote (``cl:at``: a JSON
#: pointer; ``cl:original``: the value there before, as JSON text).
REBASED = "cl:rebasedValues"
#: The ``@id`` of the enrichment activity node written by versions before it had an IRI;
#: now the node is known by its type, :data:`ENRICHMENT_TYPE` (see ``prov.graph.enrichment_node``).
ENRICHMENT_ID = "_:cl-enrichment"
#: The type that marks the enrichment activity node.
ENRICHMENT_TYPE = "cl:Enrichment"


def is_ours(value: Any) -> bool:
    """True for a JSON object this library added (``"@index": "croissant-lineage"``)."""
    return isinstance(value, dict) and value.get("@index") == MARK


def _marked(doc: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(JSON pointer, node) of every outermost marked node, outside ``@context``, in order."""
    stack: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    while stack:
        path, cur = stack.pop()
        if is_ours(cur):
            yield pointer(path), cur
        elif isinstance(cur, dict):
            stack.extend(reversed([((*path, k), v) for k, v in cur.items() if k != "@context"]))
        elif isinstance(cur, list):
            stack.extend(reversed([((*path, i), v) for i, v in enumerate(cur)]))


def _activities(doc: Any) -> list[dict[str, Any]]:
    """The enrichment activity nodes of a document (marked, see :func:`_is_enrichment`)."""
    return [node for _, node in _marked(doc) if _is_enrichment(node)]


def _is_enrichment(node: dict[str, Any]) -> bool:
    """A marked node is the enrichment activity: typed :data:`ENRICHMENT_TYPE` (or, as
    older versions wrote it, ``@id`` :data:`ENRICHMENT_ID`)."""
    types = node.get("@type")
    return node.get("@id") == ENRICHMENT_ID or ENRICHMENT_TYPE in (types if isinstance(types, list) else [types])


def seal(doc: dict[str, Any], base: Any) -> None:
    """Record in the enrichment activity which marked nodes of ``doc`` the enrichment added.

    Enrichment only adds keys and appends to lists, so a node of ``base`` keeps its JSON
    pointer in ``doc``: the added nodes are the marked ones at a pointer where ``base`` has
    no marked node. Their pointers go, in document order, under :data:`ADDED_NODES` of
    the activity node (itself among them).

    Args:
        doc: The enriched document (modified in place).
        base: The document it was made from (after :func:`strip_enrichment`).

    Raises:
        ValueError: ``doc`` holds no enrichment activity added by this enrichment.
    """
    before = {at for at, _ in _marked(base)}
    added = [(at, node) for at, node in _marked(doc) if at not in before]
    activity = [node for _, node in added if _is_enrichment(node)]
    if len(activity) != 1:
        raise ValueError("an enriched document holds exactly one new enrichment activity")
    activity[0][ADDED_NODES] = [at for at, _ in added]


def note_rebased(doc: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """Record under :data:`REBASED` of the document's enrichment activity the values the
    enrichment rewrote (nothing when there are none)."""
    if records:
        for activity in _activities(doc):
            activity[REBASED] = records


def _unpointer(at: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in at.split("/")[1:]]


def restore_values(doc: Any, records: Any) -> None:
    """Put back, in ``doc`` (changed in place), the original values that ``records`` list
    (:data:`REBASED`); a record that does not name an existing value is skipped."""
    for rec in records if isinstance(records, list) else []:
        at, original = (rec.get("cl:at"), rec.get("cl:original")) if isinstance(rec, dict) else (None, None)
        if not isinstance(at, str) or not isinstance(original, str) or not at:
            continue
        *parents, last = _unpointer(at)
        node = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) and part.isdigit() and int(part) < len(node) else (
                node.get(part) if isinstance(node, dict) else None)
        if isinstance(node, dict) and last in node:
            node[last] = json.loads(original)


def _written_by_us(doc: Any) -> bool:
    """A descriptor this library wrote: enriched (it holds our activity), or made by ``describe``."""
    return is_generated(doc) or bool(_activities(doc))


def is_our_descriptor(path: Path) -> bool:
    """True for a descriptor file this library wrote (enriched, or made by ``describe``)."""
    return is_generated_file(path, _written_by_us)


def _strip(node: Any, path: tuple[Any, ...], ours: set[str] | None) -> Any:
    def added(at: tuple[Any, ...], value: Any) -> bool:
        return is_ours(value) and (ours is None or pointer(at) in ours)

    if isinstance(node, list):
        return [_strip(v, (*path, i), ours) for i, v in enumerate(node) if not added((*path, i), v)]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k == "@context":
            out[k] = copy.deepcopy(v)
        elif added((*path, k), v):
            continue
        elif isinstance(v, list):
            kept = [(i, x) for i, x in enumerate(v) if not added((*path, k, i), x)]
            if len(kept) < len(v) and not kept:
                continue
            out[k] = [_strip(x, (*path, k, i), ours) for i, x in kept]
        else:
            out[k] = _strip(v, (*path, k), ours)
    return out


def strip_enrichment(doc: dict[str, Any]) -> dict[str, Any]:
    """The descriptor without this library's additions (the inverse of enrichment).

    Returns:
        A new document: every node the enrichment activity lists in
        :data:`ADDED_NODES` (marked, at that pointer) removed, a key left empty by that
        removal too, and the ``@context`` terms the enrichment recorded as added; the
        values it rewrote (:data:`REBASED`) are put back as they were. A user
        node that carries the mark but is not listed is kept; a document without an
        enrichment activity is returned as it is (a copy).
    """
    activities = _activities(doc)
    if not activities:
        return copy.deepcopy(doc)
    listed = [a.get(ADDED_NODES) for a in activities]
    ours: set[str] | None = None  # an older enrichment without the list: every marked node
    if all(isinstance(x, list) for x in listed):
        ours = {p for x in listed if isinstance(x, list) for p in x if isinstance(p, str)}
    terms = [t for a in activities if isinstance(a.get("cl:addedContextTerms"), list)
             for t in a["cl:addedContextTerms"] if isinstance(t, str)]
    out = _strip(doc, (), ours)
    for a in activities:
        restore_values(out, a.get(REBASED))
    if terms and isinstance(out, dict):
        ctx = out.get("@context")
        target = ctx if isinstance(ctx, dict) else (ctx[-1] if isinstance(ctx, list) and ctx else None)
        if isinstance(target, dict):
            for t in terms:
                target.pop(t, None)
    return dict(out)
