"""One line of evidence for a derivation edge, shared by the HTML tables and the pictures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["edge_evidence"]


def edge_evidence(edge: Mapping[str, Any]) -> str:
    """``fuzzy 93 · +6 options · key kept``: how an edge was linked and what changed on it.

    Args:
        edge: The edge's ``method``, ``score``, ``options_added``, ``options_dropped``,
            ``key_inherited`` and ``ambiguous`` (an edge's ``to_dict()`` or a table row).

    Returns:
        The link method (with its score unless exact), then options added or dropped,
        key kept or changed, and ``ambiguous``, joined by `` · ``; empty without a method.
    """
    method = edge.get("method")
    if method is None:
        return ""
    exact = method in ("id", "index") or (edge.get("score") or 0) >= 100
    bits = [method if exact else f"{method} {edge['score']:.0f}"]
    if edge.get("options_added"):
        bits.append(f"+{edge['options_added']} options")
    if edge.get("options_dropped"):
        bits.append(f"-{edge['options_dropped']} options")
    if edge.get("key_inherited") is not None:
        bits.append("key kept" if edge["key_inherited"] else "key changed")
    if edge.get("ambiguous"):
        bits.append("ambiguous")
    return " · ".join(bits)
