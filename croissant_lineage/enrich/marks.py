"""The library's marks in a descriptor: which nodes are ours, and taking them out again.

Every JSON object the library adds to a descriptor carries ``"@index": "croissant-lineage"``
(:data:`~croissant_lineage.prov.vocab.MARK`; a JSON-LD keyword: kept by JSON-LD processors,
no triple), and the ``@context`` terms it adds are listed in the enrichment activity's
``cl:addedContextTerms``. :func:`strip_enrichment` removes exactly these, so
``strip_enrichment(enrich_descriptor(doc, ...)) == doc``. :func:`is_our_descriptor` is the
check that lets a later run replace a file this library wrote, and no other.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from croissant_lineage.croissant.descriptor import (
    is_generated,
    is_generated_file,
)
from croissant_lineage.prov.vocab import MARK

__all__ = ["is_our_descriptor", "is_ours", "strip_enrichment"]


def is_ours(value: Any) -> bool:
    """True for a JSON object this library added (``"@index": "croissant-lineage"``)."""
    return isinstance(value, dict) and value.get("@index") == MARK


def _written_by_us(doc: Any) -> bool:
    """A descriptor this library wrote: enriched (some node marked), or made by ``describe``."""
    if is_generated(doc):
        return True
    stack = [doc]
    while stack:
        cur = stack.pop()
        if is_ours(cur):
            return True
        if isinstance(cur, dict):
            stack.extend(v for k, v in cur.items() if k != "@context")
        elif isinstance(cur, list):
            stack.extend(cur)
    return False


def is_our_descriptor(path: Path) -> bool:
    """True for a descriptor file this library wrote (enriched, or made by ``describe``)."""
    return is_generated_file(path, _written_by_us)


def _added_terms(doc: Any) -> list[str]:
    terms: list[str] = []
    stack = [doc]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            if is_ours(cur) and isinstance(cur.get("cl:addedContextTerms"), list):
                terms.extend(t for t in cur["cl:addedContextTerms"] if isinstance(t, str))
            stack.extend(v for k, v in cur.items() if k != "@context")
        elif isinstance(cur, list):
            stack.extend(cur)
    return terms


def _strip(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip(v) for v in node if not is_ours(v)]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if is_ours(v):
            continue
        if isinstance(v, list):
            kept = [x for x in v if not is_ours(x)]
            if len(kept) < len(v) and not kept:
                continue
            out[k] = [_strip(x) for x in kept]
        else:
            out[k] = _strip(v) if k != "@context" else copy.deepcopy(v)
    return out


def strip_enrichment(doc: dict[str, Any]) -> dict[str, Any]:
    """The descriptor without this library's additions (the inverse of enrichment).

    Returns:
        A new document: every marked node removed (and a key left empty by that
        removal), and the ``@context`` terms the enrichment recorded as added.
    """
    terms = _added_terms(doc)
    out = _strip(doc)
    if terms and isinstance(out, dict):
        ctx = out.get("@context")
        target = ctx if isinstance(ctx, dict) else (ctx[-1] if isinstance(ctx, list) and ctx else None)
        if isinstance(target, dict):
            for t in terms:
                target.pop(t, None)
    return dict(out)
