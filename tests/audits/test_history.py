"""Snapshot history: change classification, joins, item versions, revisions, CLI.

Invented items for the rules; the MMLU-Pro snapshots in ../shared/data for the figures
their README states (tests skip without the data).
"""

from __future__ import annotations

import json
from collections import defaultdict
from itertools import pairwise
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from croissant_lineage.audits.history import (
    CHANGE_KINDS,
    Snapshot,
    compare_items,
    compare_snapshots,
    item_history,
    joins_from_edges,
    revision_pairs,
    snapshot_chain,
)
from croissant_lineage.cli import main
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.info import family_info
from croissant_lineage.lineage.schema import (
    EDGES_SCHEMA,
    ITEMS_BASE_SCHEMA,
    UNMATCHED_SCHEMA,
)
from croissant_lineage.workflows import compare_family_snapshots, snapshot_history

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy" / "family.json"


def _row(item: str, stem: str, options: list[str], key: str | None, subject: str = "s") -> dict[str, Any]:
    return {"item": item, "stem": stem, "options": options, "key": key, "subject": subject}


def _table(dataset: str, rows: list[dict[str, Any]]) -> pa.Table:
    cols: dict[str, list[Any]] = {f.name: [] for f in ITEMS_BASE_SCHEMA}
    for i, r in enumerate(rows):
        for k in ITEMS_BASE_SCHEMA.names:
            cols[k].append({"dataset": dataset, "source_file": "f", "source_row": i, "record": "{}"}.get(k, r.get(k)))
    return pa.table(cols, schema=ITEMS_BASE_SCHEMA)


BASE = _row("1", "What colour is the sky of Zorb?", ["red", "green", "blue", "violet"], "C")


# ------------------------------------------------------------------ classification


def test_unchanged_item_has_no_kinds() -> None:
    c = compare_items(BASE, dict(BASE))
    assert c.kinds == ()
    assert c.pattern == "unchanged"


def test_stem_whitespace_vs_edit_vs_replacement() -> None:
    ws = compare_items(BASE, {**BASE, "stem": "What colour is  the sky of Zorb? "})
    assert ws.kinds == ("stem_whitespace",)
    edit = compare_items(BASE, {**BASE, "stem": "What colour is the sky of planet Zorb?"})
    assert edit.kinds == ("stem_edited",)
    assert edit.stem_score is not None and 80 < edit.stem_score < 100
    new = compare_items(BASE, {**BASE, "stem": "How many moons orbit Quell in winter?"})
    assert new.kinds == ("item_replaced",)


def test_options_reordered_key_repointed_or_changed() -> None:
    moved = compare_items(BASE, {**BASE, "options": ["blue", "red", "green", "violet"], "key": "A"})
    assert moved.kinds == ("key_repointed", "options_reordered")
    assert moved.option_map == (2, 0, 1, 3)
    wrong = compare_items(BASE, {**BASE, "options": ["blue", "red", "green", "violet"], "key": "B"})
    assert wrong.kinds == ("key_changed", "options_reordered")
    assert (wrong.old_key_text, wrong.new_key_text) == ("blue", "red")


def test_answer_only_change() -> None:
    c = compare_items(BASE, {**BASE, "key": "D"})
    assert c.kinds == ("key_changed",)


def test_option_edits_whitespace_added_removed() -> None:
    ws = compare_items(BASE, {**BASE, "options": ["red ", "green", "blue", "violet"]})
    assert ws.kinds == ("option_whitespace",)
    edited = compare_items(BASE, {**BASE, "options": ["red", "green", "blue", "deep violet"]})
    assert edited.kinds == ("option_edited",)
    removed = compare_items(BASE, {**BASE, "options": ["red", "blue", "violet"], "key": "B"})
    assert removed.kinds == ("key_repointed", "option_removed")  # the key letter follows "blue"
    after = compare_items(BASE, {**BASE, "options": ["red", "green", "blue"]})
    assert after.kinds == ("option_removed",)
    added = compare_items(BASE, {**BASE, "options": ["red", "green", "blue", "violet", "grey"]})
    assert added.kinds == ("option_added",)


def test_option_rewritten_in_place_is_an_edit_not_a_key_change() -> None:
    old = _row("2", "How many days?", ["10-20", "30", "40", "50"], "A")
    c = compare_items(old, {**old, "options": ["10 through 20", "30", "40", "50"]})
    assert c.kinds == ("option_edited",)


def test_added_and_removed_items() -> None:
    assert compare_items(None, BASE).kinds == ("item_added",)
    assert compare_items(BASE, None).kinds == ("item_removed",)
    with pytest.raises(ValueError):
        compare_items(None, None)


def test_kinds_are_known_codes() -> None:
    c = compare_items(BASE, {**BASE, "stem": BASE["stem"] + " ", "options": ["blue", "red", "green", "violet"], "key": "A"})
    assert set(c.kinds) <= set(CHANGE_KINDS)


# ------------------------------------------------------------------------ snapshots


def _three_snapshots() -> list[Snapshot]:
    v1 = _table("toy", [BASE, _row("2", "Name the capital of Wen.", ["Ash", "Birl"], "A"), _row("3", "Gone soon?", ["y", "n"], "A")])
    v2 = _table("toy@2", [BASE, _row("2", "Name the capital of Wen.", ["Ash", "Birl"], "B")])
    v3 = _table("toy@3", [{**BASE, "stem": BASE["stem"] + "  "}, _row("2", "Name the capital of Wen.", ["Ash", "Birl"], "B"), _row("4", "New?", ["a", "b"], "B")])
    return [Snapshot("toy", "2020-01-01", v1), Snapshot("toy@2", "2021-01-01", v2), Snapshot("toy@3", "2022-01-01", v3)]


def test_compare_snapshots_counts_and_revisions() -> None:
    s = _three_snapshots()
    d = compare_snapshots(s[0].items, s[1].items, old_date=s[0].date, new_date=s[1].date)
    assert d.counts == {"old": 3, "new": 2, "joined": 2, "unchanged": 1, "changed": 1, "added": 0, "removed": 1, "renumbered": 0}
    assert d.kind_counts() == {"item_removed": 1, "key_changed": 1}
    assert d.items_with("key_changed") == ["2"]
    revs = d.revisions()
    assert [(r.new_ref, r.old_ref, r.date, r.kinds) for r in revs] == [
        ("toy@2:1", "toy:1", "2021-01-01", ()),
        ("toy@2:2", "toy:2", "2021-01-01", ("key_changed",)),
    ]
    assert [r.new_ref for r in d.revisions(changed_only=True)] == ["toy@2:2"]
    assert len(d.to_pandas()) == 2  # the key change and the removal
    json.dumps(d.to_dict())


def test_compare_snapshots_through_joins() -> None:
    old = _table("a", [_row("s/0", "Alpha question here?", ["x", "y"], "A"), _row("s/1", "Beta question here?", ["x", "y"], "B")])
    new = _table("b", [_row("s/0", "Beta question here?", ["x", "y"], "B")])
    d = compare_snapshots(old, new, old_date=None, new_date=None, joins={"s/0": "s/1"})
    assert d.counts["joined"] == 1 and d.counts["renumbered"] == 1 and d.counts["removed"] == 1
    back = d.change_for("s/1")
    assert back is not None and back.kinds == ()
    forward = d.change_for(new_item="s/0")
    assert forward is not None and forward.old_item == "s/1"


def test_compare_snapshots_refuses_mixed_tables() -> None:
    mixed = pa.concat_tables([_table("a", [BASE]), _table("b", [BASE])])
    with pytest.raises(ValueError):
        compare_snapshots(mixed, mixed, old_date=None, new_date=None)


def _edges(rows: list[tuple[str, str, float, list[str]]]) -> pa.Table:
    cols: dict[str, list[Any]] = {f.name: [] for f in EDGES_SCHEMA}
    for child, parent, score, alts in rows:
        vals = {
            "child_dataset": "new", "child_item": child, "parent_dataset": "old", "parent_item": parent,
            "activity": "re_release", "method": "exact", "score": score, "alternatives": alts,
            "ambiguous": bool(alts),
        }
        for k in EDGES_SCHEMA.names:
            cols[k].append(vals.get(k))
    return pa.table(cols, schema=EDGES_SCHEMA)


def test_joins_from_edges_is_one_to_one() -> None:
    # Two identical items in "old" (x/2 and x/9): both children linked to x/2 with x/9 as
    # the tie; each must get its own parent, the one with its own id first.
    edges = _edges([("x/9", "x/2", 100.0, ["x/9"]), ("x/2", "x/2", 100.0, ["x/9"]), ("x/3", "x/4", 90.0, [])])
    unmatched = pa.table(
        {"child_dataset": ["new", "new"], "child_item": ["x/5", "x/6"], "parent_dataset": ["old", "old"],
         "best_parent_item": ["x/5", "x/4"], "best_score": [80.0, 70.0], "reason": ["low", "low"]},
        schema=UNMATCHED_SCHEMA,
    )
    joins = joins_from_edges(edges, "new", "old", unmatched=unmatched)
    assert joins == {"x/2": "x/2", "x/9": "x/9", "x/3": "x/4", "x/5": "x/5"}  # x/6's candidate is taken


def test_item_history_versions_and_notes() -> None:
    s = _three_snapshots()
    v = item_history(s, "2")
    assert [x.key for x in v] == ["A", "B", "B"]
    assert [x.kinds for x in v] == [(), ("key_changed",), ()]
    assert v[-1].key_since == "2021-01-01" and v[-1].note == "key unchanged since 2021-01-01"
    one = item_history(s, "1")
    assert one[-1].kinds == ("stem_whitespace",)
    assert one[-1].key_since == "2020-01-01" and one[-1].unchanged_since == "2022-01-01"
    gone = item_history(s, "3")
    assert [x.present for x in gone] == [True, False, False]
    assert gone[1].kinds == ("item_removed",) and gone[1].note.startswith("removed in")
    new = item_history(s, "toy@3:4")
    assert [x.present for x in new] == [False, False, True] and new[2].kinds == ("item_added",)
    with pytest.raises(KeyError):
        item_history(s, "404")


def test_item_history_follows_joins() -> None:
    old = Snapshot("a", "2020", _table("a", [_row("s/1", "Beta question here?", ["x", "y"], "B")]))
    new = Snapshot("b", None, _table("b", [_row("s/0", "Beta question here?", ["x", "y"], "A")]), joins={"s/0": "s/1"})
    v = item_history([old, new], "s/0")
    assert [x.ref for x in v] == ["a:s/1", "b:s/0"]
    assert v[1].kinds == ("key_changed",) and v[1].key_since == "b"  # no date: the dataset name


def test_snapshot_chain_of_the_mmlu_family() -> None:
    spec = family_info(load_family("mmlu"))
    chain = snapshot_chain(spec, "mmlu-pro@2025-08-03")
    assert [(d.parent, d.child) for d in chain] == [
        ("mmlu-pro", "mmlu-pro@2025-08-03"),
        ("mmlu-pro@2025-08-03", "mmlu-pro@2025-10-01"),
    ]
    assert [(d.parent, d.child) for d in snapshot_chain(spec, "mmlu")] == [("mmlu-2020", "mmlu")]
    assert snapshot_chain(spec, "global-mmlu-ja") == []


def test_family_snapshots_from_a_lineage() -> None:
    from croissant_lineage.workflows import link

    lineage = link(TOY)
    snaps = compare_family_snapshots(TOY, lineage=lineage)
    assert [(s.dataset, s.date, s.items.num_rows) for s in snaps] == [
        ("toy-pro", "2021-01-01", 12), ("toy-pro-v2", "2022-01-01", 12)]
    v = item_history(snaps, "107")
    assert v[-1].kinds == ("key_repointed", "options_reordered")
    assert v[-1].note == "key unchanged since 2021-01-01; options_reordered in 2022-01-01"
    report = snapshot_history(TOY, lineage=lineage, item="toy-pro:105")
    assert [r.new_ref for r in report.revisions(changed_only=True)] == ["toy-pro-v2:105", "toy-pro-v2:107"]


def test_history_audit_reads_the_lineage_and_never_loads() -> None:
    from croissant_lineage.audits.history import history
    from croissant_lineage.errors import InputError
    from croissant_lineage.lineage.model import Lineage
    from croissant_lineage.workflows import link

    lineage = link(load_family(TOY))
    report = history(lineage, item="toy-pro:105")
    assert report.datasets == ("toy-pro", "toy-pro-v2") and report.versions[-1].kinds == ("key_changed",)
    keep = pa.compute.not_equal(lineage.items.column("dataset"), "toy-pro-v2")
    without = Lineage(lineage.family, lineage.items.filter(keep), lineage.edges)
    with pytest.raises(InputError, match="toy-pro-v2"):
        history(without)


def test_audits_never_link_or_load_items() -> None:
    import ast

    root = REPO / "croissant_lineage" / "audits"
    banned = {"croissant_lineage.linking.linker", "croissant_lineage.lineage.items.load_items"}
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
                found += [f"{path.relative_to(root)}: {n}" for n in names & banned]
    assert found == []


# ------------------------------------------------------------------------------ CLI


def test_cli_history_on_the_toy_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--family", str(TOY), "--item", "105", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["datasets"] == ["toy-pro", "toy-pro-v2"]
    assert out["diffs"][0]["kinds"] == {"key_changed": 1, "key_repointed": 1, "options_reordered": 1}
    assert [v["kinds"] for v in out["versions"]] == [[], ["key_changed"]]
    assert main(["history", "--family", str(TOY), "--item", "105"]) == 0
    assert "key changed in 2022-01-01" in capsys.readouterr().out


def test_cli_history_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--family", str(TOY), "--item", "no-such-item"]) == 2
    assert "CL-E001" in capsys.readouterr().err
    assert main(["history", "--family", str(TOY), "--dataset", "toy-fr"]) == 2
    assert "CL-E003" in capsys.readouterr().err


# ------------------------------------------------------------------------- real data

README_ANSWER_ONLY = {3011, 6045, 6248, 6252, 6307, 6308, 6432, 6491, 6493, 6501, 6503, 6550, 6611, 6672}


@pytest.fixture(scope="module")
def mmlu_pro(mmlu_lineage) -> list[Snapshot]:
    """The three MMLU-Pro snapshots, their items those of the session's linked family."""
    spec = load_family("mmlu")
    return [
        Snapshot(n, spec.dataset(n).date, mmlu_lineage.items_of(n, required=True))
        for n in ("mmlu-pro", "mmlu-pro@2025-08-03", "mmlu-pro@2025-10-01")
    ]


def _diffs(s: list[Snapshot]):
    return [compare_snapshots(a.items, b.items, old_date=a.date, new_date=b.date) for a, b in pairwise(s)]


def test_mmlu_pro_2024_10_16_vs_2025_08_03(mmlu_pro: list[Snapshot]) -> None:
    d = _diffs(mmlu_pro)[0]
    assert d.counts["joined"] == 12032 and d.counts["changed"] == 1
    assert [c.new_item for c in d.changes()] == ["6047"]
    assert d.changes()[0].kinds == ("item_replaced",)
    assert (d.changes()[0].old_options, d.changes()[0].new_options) == (10, 7)


def test_mmlu_pro_2025_08_03_vs_2025_10_01(mmlu_pro: list[Snapshot]) -> None:
    d = _diffs(mmlu_pro)[1]
    assert d.counts["changed"] == 176 and d.counts["added"] == d.counts["removed"] == 0
    patterns = d.pattern_counts()
    assert patterns["key_changed"] == 14
    assert {int(c.new_item) for c in d.changes() if c.kinds == ("key_changed",)} == README_ANSWER_ONLY
    assert d.items_with("option_removed") == ["3983"]
    assert set(d.items_with("option_edited")) == {"996", "5635"}
    assert d.items_with("stem_edited") == ["3569"]
    # The 158 permuted items are exactly the second members of the exact-duplicate groups
    # of 2025-08-03 (question, options, answer), with a white-space change to the stem.
    permuted = set(d.items_with("options_reordered"))
    assert len(permuted) == 158
    assert permuted == set(d.items_with("stem_whitespace"))
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in mmlu_pro[1].items.select(["item", "stem", "options", "key"]).to_pylist():
        groups[(r["stem"], tuple(r["options"]), r["key"])].append(r["item"])
    later = {i for members in groups.values() if len(members) > 1 for i in sorted(members, key=int)[1:]}
    assert permuted == later
    assert d.kind_counts()["key_repointed"] + sum(1 for c in d.changes() if {"options_reordered", "key_changed"} <= set(c.kinds)) == 158


def test_history_of_3542_is_unchanged(mmlu_pro: list[Snapshot]) -> None:
    v = item_history(mmlu_pro, "3542")
    assert [x.ref for x in v] == ["mmlu-pro:3542", "mmlu-pro@2025-08-03:3542", "mmlu-pro@2025-10-01:3542"]
    assert all(x.kinds == () for x in v)
    assert {x.key for x in v} == {v[0].key}
    assert v[-1].key_since == "2024-10-16" and v[-1].unchanged_since == "2024-10-16"
    assert v[-1].note == "key unchanged since 2024-10-16"


def test_history_of_3011_key_changed(mmlu_pro: list[Snapshot]) -> None:
    v = item_history(mmlu_pro, "3011")
    assert [x.kinds for x in v] == [(), (), ("key_changed",)]
    assert [x.key for x in v] == ["B", "B", "I"]
    assert v[1].key_since == "2024-10-16" and v[2].key_since == "2025-10-01"
    assert v[2].note == "key changed in 2025-10-01"
    assert revision_pairs(_diffs(mmlu_pro), changed_only=True)[-1].date == "2025-10-01"


def test_mmlu_2020_vs_hub_release_through_links(shared_data: Path) -> None:
    report = snapshot_history("mmlu", data_dir=shared_data, dataset="mmlu", item="high_school_physics/test/0")
    (d,) = report.diffs
    # ../shared/data/global_mmlu/README.md: 14,028 rows map to a 2020 row, 11,950 at the
    # same index, 14 new, 52 absent, answers equal, 912 edited questions, 35 option formats.
    assert d.counts["joined"] == 14028 and d.counts["added"] == 14 and d.counts["removed"] == 52
    assert d.counts["joined"] - d.counts["renumbered"] == 11950
    assert "key_changed" not in d.kind_counts()
    assert d.kind_counts()["stem_edited"] == 912
    assert d.kind_counts()["option_edited"] == 35
    assert [v.ref for v in report.versions] == ["mmlu-2020:high_school_physics/test/1", "mmlu:high_school_physics/test/0"]
