"""Whether a child kept its parent's key, for keys that are not option letters.

Option keys are compared through the option map (:mod:`croissant_lineage.linking.options`);
the other kinds of :mod:`croissant_lineage.lineage.keys` are compared here, per edge, where
both items have a key of the same kind:

* ``text``: equal normalised texts (:func:`~croissant_lineage.linking.normalize.normalize_option`);
* ``number``: equal values under the derivation's tolerance (``key_tolerance``);
* ``set``: equal sets of normalised answers;
* ``tests``: equal normalised reference solutions.

Across a translation only numbers compare (a text, a set or a solution in another language
is not the same text): the others stay unknown (None).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from croissant_lineage.lineage.keys import equal_numbers
from croissant_lineage.linking.normalize import normalize_option

__all__ = ["free_key_inherited"]

_COLUMNS = ("key_kind", "key_text", "key_value", "key_answers", "solution")


def _rows(table: pa.Table, rows: np.ndarray) -> dict[str, list[object]] | None:
    if not set(_COLUMNS) <= set(table.column_names):
        return None
    idx = pa.array(rows, pa.int64())
    return {c: table.column(c).take(idx).to_pylist() for c in _COLUMNS}


def _same(kind: str, c: dict[str, object], p: dict[str, object], tolerance: float, translated: bool) -> bool | None:
    if kind == "number":
        cv, pv = c["key_value"], p["key_value"]
        return None if cv is None or pv is None else equal_numbers(float(cv), float(pv), tolerance)  # type: ignore[arg-type]
    if translated:
        return None
    field = {"text": "key_text", "set": "key_answers", "tests": "solution"}.get(kind)
    if field is None:
        return None
    cv, pv = c[field], p[field]
    if cv is None or pv is None:
        return None
    if kind == "set":
        return {normalize_option(str(x)) for x in cv} == {normalize_option(str(x)) for x in pv}  # type: ignore[attr-defined]
    if kind == "tests":
        return " ".join(str(cv).split()) == " ".join(str(pv).split())
    return bool(normalize_option(str(cv)) == normalize_option(str(pv)))


def free_key_inherited(
    child: pa.Table, parent: pa.Table, ci: np.ndarray, pi: np.ndarray, *, tolerance: float, translated: bool
) -> list[bool | None] | None:
    """Per pair ``(ci[k], pi[k])``: did the child keep the parent's key (None: unknown, or an
    option key)? None when neither side has a key of another kind than ``option``."""
    cr, pr = _rows(child, ci), _rows(parent, pi)
    if cr is None or pr is None:
        return None
    kinds = set(cr["key_kind"]) | set(pr["key_kind"])
    if not kinds - {None, "option"}:
        return None
    out: list[bool | None] = []
    for k in range(len(ci)):
        ck, pk = cr["key_kind"][k], pr["key_kind"][k]
        if ck is None or ck != pk or ck == "option":
            out.append(None)
            continue
        c = {name: cr[name][k] for name in _COLUMNS}
        p = {name: pr[name][k] for name in _COLUMNS}
        out.append(_same(str(ck), c, p, tolerance, translated))
    return out
