"""The shape of one item's options and key: what ``link`` refuses and ``validate`` reports.

A key must name one of the item's options (letter ``K`` for four options names none), and
options are a list: a string (``"a|b|c|d"``, which a reader would split into seven
one-character options) or a struct (whose keys a reader would take for options) is not.
:func:`options_problem` judges a raw value as read from the data; :func:`key_problem` an
item's options and key letter as they stand in an items table.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LETTERS", "key_problem", "options_problem"]

#: Option letters, in order: the key letter of option ``i`` is ``LETTERS[i]``.
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def options_problem(value: Any) -> str | None:
    """Why a raw ``options`` value is not a list of options, or None when it is one (or null).

    Args:
        value: The value the options role gave for one record.

    Returns:
        A short message (``"options are a string, not a list"``), or None.
    """
    if value is None or isinstance(value, list):
        return None
    if isinstance(value, (str, bytes)):
        return "options are a string, not a list (split it with a list of fields, or parse: json_list)"
    if isinstance(value, dict):
        return "options are a struct, not a list (name its fields as a list of options)"
    return f"options are a {type(value).__name__}, not a list"


def key_problem(options: list[Any] | None, key: str | None) -> str | None:
    """Why an item's key names none of its options, or None when it names one.

    Args:
        options: The item's options (None when the item has none: nothing to check).
        key: Its key letter (``"A"``...; None when unknown: nothing to check).

    Returns:
        A short message, or None.
    """
    if options is None or key is None:
        return None
    if len(key) != 1 or key not in LETTERS:
        return f"key {key[:20]!r} is not an option letter"
    index = LETTERS.index(key)
    if index >= len(options):
        return f"key {key!r} (option {index + 1}) is past the {len(options)} options"
    return None
