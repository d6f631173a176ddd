"""Colours and symbols for routing statuses, shared by the HTML tables and the pictures.

Okabe-Ito colours (distinguishable with the common colour-vision deficiencies); each
status also has its own symbol and border, so it reads in greyscale too.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["STATUS_PALETTE", "StatusColours"]


@dataclass(frozen=True)
class StatusColours:
    """Border colour, fill colour and symbol of one routing status."""

    edge: str
    fill: str
    symbol: str


#: Routing status -> colours (``None``: no finding routed).
STATUS_PALETTE: dict[str | None, StatusColours] = {
    "added": StatusColours("#D55E00", "#F8D3BC", "▲"),
    "inherited": StatusColours("#E69F00", "#FCEDC8", "●"),
    "unaffected": StatusColours("#0072B2", "#FFFFFF", "○"),
    "unverified": StatusColours("#CC79A7", "#FFFFFF", "□"),
    "re-check": StatusColours("#009E73", "#D4EFE6", "◆"),
    None: StatusColours("#444444", "#FFFFFF", ""),
}
