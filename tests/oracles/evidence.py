"""The option evidence of one (child, parent) pair in plain Python: the statement that
:func:`croissant_lineage.linking.match.evidence_columns` (the package's one implementation,
of which :func:`~croissant_lineage.linking.match.option_evidence` is the one-pair form) is
proved equal to (``tests/linking/test_match_columnar.py``).
"""

from __future__ import annotations

from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.linking.sides import Side
from tests.oracles.options import diff_texts_reference

__all__ = ["Evidence", "option_evidence_reference"]

#: ``(stem and options byte-identical, option score, options paired as equal bytes, ... as
#: equal case-preserving forms or better, ... as equal forms of any kind, options paired at all)``.
Evidence = tuple[bool, float, int, int, int, int]


def _key_index(key: str | None) -> int | None:
    return LETTERS.index(key) if key and key in LETTERS else None


def option_evidence_reference(child: Side, i: int, parent: Side, j: int) -> Evidence:
    """How closely child ``i`` copies parent ``j``, as a tuple that sorts better last."""
    craw, praw = child.raw_options[i], parent.raw_options[j]
    if craw is None or praw is None:
        return (child.raw_stems[i] == parent.raw_stems[j] and craw is None and praw is None, 0.0, 0, 0, 0, 0)
    if craw == praw:  # options copied as they were: the identity diff, without normalising them
        n = len(craw)
        return (child.raw_stems[i] == parent.raw_stems[j], 100.0, n, n, n, n)
    c, p = child.option_texts(i), parent.option_texts(j)
    assert c is not None and p is not None  # None only without options
    d = diff_texts_reference(c, p, keys=(_key_index(child.keys[i]), _key_index(parent.keys[j])))
    same = tuple(c.raw) == tuple(p.raw) and child.raw_stems[i] == parent.raw_stems[j]
    n_bytes = d.paired("bytes")
    n_cased = n_bytes + d.paired("cased")
    return (same, d.score, n_bytes, n_cased, n_cased + d.paired("folded", "na"), d.copied)
