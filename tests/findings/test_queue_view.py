"""The queue's view: an item's versions folded with their story, translations grouped."""

from __future__ import annotations

import json

from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import route
from croissant_lineage.lineage.info import FamilyInfo
from croissant_lineage.lineage.model import Lineage
from tests.findings_helpers import BASE, PRO, TRANS, edge, lineage
from tests.helpers import items_table

REVIEWER = Source("Invented reviewer", kind="person")
DATES = {"base": "2020-01-01", "pro": "2024-10-16", "prosnap": "2025-08-03", "prolast": "2025-10-01"}


def _family(*, key_changed_at_last: bool = False) -> Lineage:
    """base -> pro -> prosnap -> prolast (snapshots), base -> fr/de (translations), and a
    documented translation of base; the datasets dated."""
    last = dict(PRO[0], options=["Xylo", "Birch", "Ash", "Cedar", "Yew", "Dogwood"]) if key_changed_at_last else PRO[0]
    lin = lineage(
        [items_table("base", BASE[:1]), items_table("pro", PRO[:1]), items_table("prosnap", PRO[:1]),
         items_table("prolast", [last]), items_table("tr-fr", TRANS), items_table("tr-de", TRANS)],
        [
            edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3]),
            edge("prosnap:10", "pro:10", "snapshot", [0, 1, 2, 3, 4, 5]),
            edge("prolast:10", "prosnap:10", "snapshot", [1, 0, 2, 3, 4, 5] if key_changed_at_last else [0, 1, 2, 3, 4, 5],
                 key_inherited=not key_changed_at_last, stem_changed=False),
            edge("tr-fr:s/0", "base:s/0", "translation", [0, 1, 2, 3]),
            edge("tr-de:s/0", "base:s/0", "translation", [0, 1, 2, 3]),
        ],
        documented=[{"child": "tr", "parent": "base", "activity": "translation", "languages": 9}],
    )
    family = lin.family.to_dict()
    for d in family["datasets"]:
        if d["name"] in DATES:
            d["date"] = DATES[d["name"]]
    family["derivations"] += [
        {"child": c, "parent": "base", "activity": "translation"} for c in ("tr-fr", "tr-de")
    ]
    lin.family = FamilyInfo.from_dict(family)
    return lin


def _key(item: str, **kw) -> Finding:
    return Finding(item=item, target="key", kind="wrong_key", source=REVIEWER, **kw)


def test_snapshots_fold_into_the_item_with_the_key_unchanged_since_its_first_date() -> None:
    q = route(_family(), _key("pro:10"))
    (fold,) = q.folds
    assert fold.head == "pro:10" and fold.versions == ("pro:10", "prosnap:10", "prolast:10")
    assert fold.labels == ("2024-10-16", "2025-08-03", "2025-10-01")
    assert fold.key_changed == () and fold.key_since == "2024-10-16"
    assert "2024-10-16" in fold.note
    (line,) = [ln for ln in q.lines() if "pro:10" in ln.refs]
    assert (line.kind, line.ref, line.count, line.rank) == ("versions", "pro:10", 3, 1)
    assert not any(ln.ref in ("prosnap:10", "prolast:10") for ln in q.lines())
    text = str(q)
    assert "prosnap:10" not in text and "2025-10-01" in text


def test_a_key_change_in_a_later_snapshot_is_in_the_note() -> None:
    q = route(_family(key_changed_at_last=True), _key("pro:10"))
    assert q.row("prolast:10").status == "unaffected"  # rows keep every version
    (fold,) = q.folds
    assert fold.key_changed == ("2025-10-01",) and fold.key_since == "2025-10-01"
    assert "2025-10-01" in fold.note and "2024-10-16" not in fold.note


def test_the_line_shown_is_the_version_nearest_to_the_finding() -> None:
    q = route(_family(), _key("prosnap:10"))
    (fold,) = q.folds
    assert fold.head == "prosnap:10" and fold.versions[0] == "pro:10"
    q = route(_family(), _key("base:s/0"))
    assert q.folds[0].head == "pro:10"  # reached first from base:s/0


def test_translations_are_grouped_per_family_with_their_count() -> None:
    q = route(_family(), _key("base:s/0"))
    groups = [ln for ln in q.lines() if ln.kind == "group"]
    (tr,) = groups
    assert (tr.ref, tr.count, tr.datasets, tr.status, tr.rank) == ("tr", 2, ("tr-de", "tr-fr"), "inherited", 1)
    documented = [ln for ln in q.lines() if ln.relation == "documented"]
    assert [(d.kind, d.ref, d.status) for d in documented] == [("row", "tr", "unverified")]  # its own rank
    assert "tr (2 rows)" in str(q) and "tr-fr:s/0" not in str(q)


def test_expand_and_json_keep_every_row() -> None:
    q = route(_family(), _key("base:s/0"))
    assert len(q.lines()) < len(q.rows)
    full = q.expand()
    assert [ln.refs for ln in full.lines()] == [(r.ref,) for r in q.rows]
    assert all(r.ref in str(full) for r in q.rows)
    doc = json.loads(json.dumps(q.to_dict()))
    assert [r["ref"] for r in doc["rows"]] == [r.ref for r in q.rows]
    assert set(doc) == {"query", "item", "findings", "ranks", "rows", "related_findings"}


def test_a_rank_zero_row_is_never_folded() -> None:
    old = Finding(item="prosnap:10", target="key", kind="wrong_key", proposed="Ash", source=REVIEWER)
    q = route(_family(), _key("pro:10", proposed="Cedar"), [old])
    assert q.row("prosnap:10").rank == 0
    # prosnap:10 stays its own line; pro:10 and prolast:10 were joined only through it
    assert q.folds == []
    assert [(ln.kind, ln.rank) for ln in q.lines() if ln.ref == "prosnap:10"] == [("row", 0)]
