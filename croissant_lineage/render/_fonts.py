"""Fonts and text fitting shared by the pictures and plots.

Text is measured with matplotlib's own font machinery (no renderer needed), so boxes
and labels are sized the same way on every machine that has the same fonts. Text in a
script none of the available fonts can draw is detected (:func:`drawable`) so that a
picture can say so instead of printing empty boxes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

import matplotlib as mpl
from matplotlib import font_manager, ft2font
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import text_to_path

__all__ = ["MAX_DRAWN_CHARS", "clean_text", "drawable", "fit_text", "picture_rc", "text_width", "wrap_text"]

#: Fonts used, when installed, for scripts DejaVu Sans lacks (CJK).
_CJK_FALLBACKS = (
    "Noto Sans CJK JP",
    "Noto Sans CJK SC",
    "Source Han Sans",
    "WenQuanYi Zen Hei",
    "Droid Sans Fallback",
    "IPAGothic",
)


@contextmanager
def picture_rc() -> Iterator[None]:
    """matplotlib settings for pictures and plots: DejaVu Sans (then CJK fonts when
    installed, then generic sans-serif), SVG text kept as text, fixed SVG id salt."""
    fams = {f.name for f in font_manager.fontManager.ttflist}
    sans = ["DejaVu Sans", *(f for f in _CJK_FALLBACKS if f in fams)]
    rest = [f for f in mpl.rcParamsDefault["font.sans-serif"] if f not in sans]
    with mpl.rc_context(
        {
            "font.family": ["sans-serif"],
            "font.sans-serif": sans + rest,
            "svg.fonttype": "none",
            "svg.hashsalt": "croissant-lineage",
            "path.simplify": False,
        }
    ):
        yield


@lru_cache(maxsize=1)
def _coverage() -> frozenset[int]:
    """Code points the picture's fonts can draw."""
    fams = {f.name for f in font_manager.fontManager.ttflist}
    out: set[int] = set()
    for name in ("DejaVu Sans", *(f for f in _CJK_FALLBACKS if f in fams)):
        path = font_manager.findfont(FontProperties(family=name), fallback_to_default=True)
        out.update(ft2font.FT2Font(path).get_charmap())
    return frozenset(out)


#: The most characters of one text a picture ever draws: a box line holds about 60, a
#: title about 150. Every text is cut to this before it is cleaned, measured or wrapped,
#: so a 200 MB stem costs what a 2 KB one does.
MAX_DRAWN_CHARS = 1000


def clean_text(text: str | None) -> str:
    """One line of printable text, at most :data:`MAX_DRAWN_CHARS` long (control
    characters and runs of white space -> one space)."""
    if not text:
        return ""
    head = str(text)[: 4 * MAX_DRAWN_CHARS]  # room for white space runs that collapse
    chars = (" " if unicodedata.category(ch).startswith("C") else ch for ch in head)
    return re.sub(r"\s+", " ", "".join(chars)).strip()[:MAX_DRAWN_CHARS]


def drawable(text: str) -> bool:
    """True when the available fonts have a glyph for every character of ``text``."""
    cov = _coverage()
    return all(ch.isspace() or ord(ch) in cov for ch in text)


@lru_cache(maxsize=4096)
def text_width(text: str, size: float, weight: str = "normal", style: str = "normal") -> float:
    """Width of ``text`` in inches."""
    prop = FontProperties(family="DejaVu Sans", size=size, weight=weight, style=style)  # type: ignore[arg-type]
    w, _h, _d = text_to_path.get_text_width_height_descent(text, prop, ismath=False)
    return float(w) / 72


def fit_text(text: str, size: float, room: float, weight: str = "normal", style: str = "normal") -> str:
    """``text`` (cleaned: :func:`clean_text`), cut with an ellipsis so it fits in ``room`` inches."""
    text = clean_text(text)
    if text_width(text, size, weight, style) <= room:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid].rstrip() + "…", size, weight, style) <= room:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…"


def wrap_text(
    text: str, size: float, room: float, lines: int, *, weight: str = "normal", style: str = "normal"
) -> list[str]:
    """Greedy word wrap of ``text`` (cleaned: :func:`clean_text`) into at most ``lines``
    lines of ``room`` inches, the last cut."""
    words = clean_text(text).split(" ")
    out: list[str] = []
    cur = ""
    for i, w in enumerate(words):
        trial = f"{cur} {w}".strip()
        if text_width(trial, size, weight, style) <= room or not cur:
            cur = trial
            continue
        out.append(cur)
        cur = w
        if len(out) == lines - 1:
            cur = " ".join(words[i:])
            break
    out.append(cur)
    return [fit_text(line, size, room, weight, style) for line in out if line]
