"""Routing: a finding or an item to the ranked re-review queue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croissant_lineage.errors import ArgumentError, InputError
from croissant_lineage.findings.importers import import_redux
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import QUEUE_COLUMNS, finding_by_id, route, route_item
from croissant_lineage.lineage.graph import LineageGraph
from tests.findings_helpers import ANN, BASE, PRO, TRANS, edge, lineage, toy_lineage
from tests.helpers import items_table

REVIEWER = Source("Invented reviewer", kind="person")


@pytest.fixture(scope="module")
def graph() -> LineageGraph:
    return LineageGraph(toy_lineage())


def _f(item: str, target: str = "key", kind: str = "wrong_key", **kw) -> Finding:
    return Finding(item=item, target=target, kind=kind, source=kw.pop("source", REVIEWER), **kw)


def _status(q, ref: str) -> tuple[str, int]:
    r = q.row(ref)
    return r.status, r.rank


def test_key_finding_reaches_copies_where_the_key_text_was_inherited(graph) -> None:
    q = route(graph, _f("base:s/0", proposed="Cedar"))
    assert _status(q, "base:s/0") == ("added", 1)  # no parent: the key first appears here
    for ref in ("pro:10", "pro:11", "prosnap:10", "prosnap:11", "trans:s/0", "ann:s/7"):
        assert _status(q, ref) == ("inherited", 1), ref
    assert q.row("pro:10").letter == "A" and q.row("trans:s/0").letter == "B"
    assert "option D here" in q.row("pro:10").note  # Cedar sits at D in the child
    assert "option C here" in q.row("trans:s/0").note  # traced by position through the translation
    assert q.row("pro:11").relation in ("descendant", "duplicate")
    assert _status(q, "pro-x") == ("unverified", 3) and _status(q, "base-x") == ("unverified", 3)
    assert [r.rank for r in q.rows] == sorted(r.rank for r in q.rows)


def test_changed_key_stops_a_key_finding(graph) -> None:
    q = route(graph, _f("base:s/1"))
    assert _status(q, "pro:12") == ("unaffected", 4)
    assert "key changed" in q.row("pro:12").note
    assert _status(q, "ann:s/8") == ("inherited", 1)
    assert _status(q, "pro-x") == ("unaffected", 4)  # no pro item carries the key


def test_added_option_does_not_reach_the_parent_or_its_translations(graph) -> None:
    q = route(graph, _f("pro:10", "option", "multiple_correct_answers", option_index=1))  # Xylo, added
    assert _status(q, "pro:10") == ("added", 1)
    assert q.row("pro:10").letter == "B"
    for ref in ("base:s/0", "trans:s/0", "ann:s/7", "base-x"):
        assert q.row(ref).status == "unaffected", ref
    for ref in ("pro:11", "prosnap:10"):
        assert q.row(ref).status == "inherited", ref
    assert q.row("pro:11").letter == "B"
    assert _status(q, "pro-x") == ("unverified", 3)
    reached = {r.dataset for r in q.rows if r.status in ("inherited", "added", "unverified")}
    assert reached == {"pro", "prosnap", "pro-x"}


def test_copied_option_is_traced_to_its_origin_and_its_positions(graph) -> None:
    q = route(graph, _f("pro:10", "option", "bad_options_clarity", option_index=2))  # Ash, from base A
    assert _status(q, "base:s/0") == ("added", 1)
    assert q.row("base:s/0").letter == "A" and q.row("trans:s/0").letter == "A"
    assert _status(q, "pro:10") == ("inherited", 1) and q.row("pro:10").letter == "C"


def test_fuzzy_or_ambiguous_links_make_rows_probable() -> None:
    lin = lineage(
        [items_table("base", BASE), items_table("pro", PRO[:1]), items_table("trans", TRANS)],
        [
            edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3], method="fuzzy", score=91.0),
            edge("trans:s/0", "base:s/0", "translation", [0, 1, 2, 3], ambiguous=True),
        ],
    )
    q = route(lin, _f("base:s/0"))
    assert _status(q, "pro:10") == ("inherited", 2) and q.row("pro:10").certainty == "probable"
    assert "fuzzy 91" in q.row("pro:10").transformation
    assert _status(q, "trans:s/0") == ("inherited", 2)


def test_unknown_edge_evidence_is_probable_not_certain() -> None:
    lin = lineage(
        [items_table("base", BASE), items_table("pro", PRO[:1])],
        [edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3], key_inherited=None)],
    )
    assert _status(route(lin, _f("base:s/0")), "pro:10") == ("inherited", 2)


def test_rejected_source_annotation_is_rank_zero_and_other_statuses_are_not(graph) -> None:
    ann = import_redux(items_table("ann", ANN), family=_toy_family(), dataset="ann", lineage=graph,
                       parent_dataset="base").findings[0]
    assert route(graph, ann).row("ann:s/7").rank == 1
    assert route(graph, ann).row("ann:s/7").relation == "source_annotation"
    rejected = ann.with_status("rejected", date="2025-01-01", reason="the published key is right")
    q = route_item(graph, "pro:10", [rejected])
    assert q.findings == [rejected.id]
    assert q.rows[0].ref == "ann:s/7" and q.rows[0].rank == 0
    assert [r.rank for r in q.rows].count(0) == 1
    assert "queried item" in q.row("pro:10").note


def test_item_route_picks_findings_of_relatives_only(graph) -> None:
    near, far = _f("base:s/0"), _f("base:s/1", kind="no_correct_answer")
    q = route_item(graph, "trans:s/0", [near, far])
    assert q.findings == [near.id]
    assert {r.finding for r in q.rows} == {near.id}
    # no finding: the item routed as a whole
    whole = route_item(graph, "trans:s/0")
    assert whole.findings == [] and whole.row("pro:10").status == "inherited"
    # a finding id is looked up among the findings
    assert route(graph, far, [near, far]).item == "base:s/1"


def test_category_finding_stops_where_the_subject_changed() -> None:
    base = items_table("base", [dict(BASE[0], subject="virology")])
    pro = items_table("pro", [dict(PRO[0], subject="health")])
    snap = items_table("prosnap", [dict(PRO[0], subject="health")])
    lin = lineage([base, pro, snap, items_table("trans", [dict(TRANS[0], subject="virology")])], [
        edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3]),
        edge("prosnap:10", "pro:10", "snapshot", [0, 1, 2, 3, 4, 5]),
        edge("trans:s/0", "base:s/0", "translation", [0, 1, 2, 3]),
    ])
    q = route(lin, _f("pro:10", "category", "other"))
    assert _status(q, "pro:10") == ("added", 1)
    assert _status(q, "prosnap:10") == ("inherited", 1)
    assert q.row("base:s/0").status == q.row("trans:s/0").status == "unaffected"
    assert "virology -> health" in q.row("base:s/0").note


def test_duplicate_finding_reaches_copies_that_are_duplicated_too(graph) -> None:
    q = route(graph, _f("pro:11", "item", "duplicate", related=["pro:10"]))
    assert _status(q, "pro:11") == ("added", 1)  # base:s/0 has no identical copy: it entered in pro
    assert q.row("base:s/0").status == q.row("trans:s/0").status == "unaffected"
    assert q.row("prosnap:11").status == "inherited"  # the snapshot keeps both copies
    assert q.row("pro:10").status == "inherited"  # the other copy of the pair


def test_bad_queries_raise_input_error(graph) -> None:
    with pytest.raises(InputError):
        route_item(graph, "pro:999")
    with pytest.raises(InputError):
        route(graph, _f("nowhere:1"))
    with pytest.raises(InputError):
        route(graph, _f("base:s/0", "option", "other", option_index=9))


def test_a_finding_and_an_item_ref_are_two_queries(graph) -> None:
    f = _f("base:s/0", proposed="Cedar")
    with pytest.raises(ArgumentError) as e:
        route(graph, "base:s/0")  # type: ignore[arg-type]
    assert e.value.code == "CL-E011"
    with pytest.raises(ArgumentError):
        route_item(graph, f)  # type: ignore[arg-type]
    # an item's queue routes the findings on its relatives; a finding's, that finding
    assert route_item(graph, "pro:10", [f]).findings == [f.id] == route(graph, f, [f]).findings
    assert finding_by_id([f], f.id) is f and finding_by_id([f], "nope") is None


def test_queue_renders_as_table_json_and_text(graph) -> None:
    q = route(graph, _f("base:s/0", proposed="Cedar"))
    df = q.to_pandas()
    assert tuple(df.columns) == QUEUE_COLUMNS and len(df) == len(q.rows)
    assert json.loads(json.dumps(q.to_dict()))["rows"][0]["ref"] == q.rows[0].ref
    text = str(q.expand())
    assert all(r.ref in text for r in q.rows)
    folded = {v for f in q.folds for v in f.folded}
    assert folded == {"prosnap:10", "prosnap:11"}  # the snapshot versions fold into pro:10, pro:11
    assert all((r.ref in folded) != (f" {r.ref} " in str(q)) for r in q.rows if r.relation != "documented")
    assert q._repr_html_().startswith("<")


def _toy_family():
    from croissant_lineage.family.spec import DatasetSpec, FamilySpec

    return FamilySpec(name="toy", path=None, datasets={"ann": DatasetSpec(name="ann", iri="https://example.org/ann")},
                      derivations=())


# ----------------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def redux(mmlu_redux) -> list[Finding]:
    return mmlu_redux.findings


@pytest.mark.realdata
def test_real_3542_redux_parent_annotation_and_translations(mmlu_graph, redux) -> None:
    q = route_item(mmlu_graph, "mmlu-pro:3542", redux)
    parent = "mmlu:college_chemistry/test/86"
    (finding,) = [f for f in redux if f.id in q.findings]
    assert (finding.item, finding.kind, finding.target) == (parent, "bad_question_clarity", "stem")
    assert q.row("mmlu-redux:college_chemistry/99").relation == "source_annotation"
    assert q.row("mmlu-pro:3542").status == "inherited" and q.row("mmlu-pro:3542").rank == 1
    # MMLU-Pro kept MMLU's key text: the edge says so
    (e,) = mmlu_graph.parents("mmlu-pro:3542")
    assert e.parent == parent and e.key_inherited is True and e.activity == "option_expansion"
    for lang in ("es", "fr", "ja", "ru"):  # the parent's translations
        r = q.row(f"global-mmlu-{lang}:college_chemistry/test/86")
        assert (r.status, r.transformation) == ("inherited", "down:translation")
    # the item's (and the parent's) documented translations: unverified
    assert q.row("mmlu-prox").status == "unverified" and q.row("mmmlu").status == "unverified"


@pytest.mark.realdata
def test_real_6268_added_option_routes_to_mmlu_pro_and_prox_only(mmlu_graph) -> None:
    assert mmlu_graph.item("mmlu-pro:6268").options[1] == "95-100%"
    f = Finding(item="mmlu-pro:6268", target="option", option_index=1, kind="multiple_correct_answers",
                source=REVIEWER, evidence=["95-100% overlaps the key > 95%"])
    q = route(mmlu_graph, f)
    assert q.row("mmlu-pro:6268").status == "added"
    assert q.row("mmlu:nutrition/test/124").status == "unaffected"
    assert q.row("mmmlu-zh-cn:nutrition/test/124").status == "unaffected"  # the parent's translation
    assert q.row("mmmlu").status == "unaffected" and q.row("global-mmlu").status == "unaffected"
    assert q.row("mmlu-prox").status == "unverified"
    reached = {r.dataset for r in q.rows if r.status in ("inherited", "added", "unverified")}
    assert reached <= {"mmlu-pro", "mmlu-pro@2025-08-03", "mmlu-pro@2025-10-01", "mmlu-prox-lite-en", "mmlu-prox"}
    assert {"mmlu-pro", "mmlu-prox"} <= reached


@pytest.mark.realdata
def test_real_1932_rejected_redux_proposal_and_identical_copy(mmlu_graph, redux) -> None:
    (law,) = [f for f in redux if f.source.item == "mmlu-redux:international_law/19"]
    assert law.kind == "wrong_key" and law.proposed != mmlu_graph.item(law.item).key_text
    reviewed = [
        f.with_status("rejected", date="2025-01-01", reason="passive personality: nationality of the victims")
        if f.id == law.id else f
        for f in redux
    ]
    q = route_item(mmlu_graph, "mmlu-pro:1932", reviewed)
    assert q.rows[0].ref == "mmlu-redux:international_law/19" and q.rows[0].rank == 0
    assert "mmlu-pro:1933" in mmlu_graph.duplicates("mmlu-pro:1932")
    twin = q.row("mmlu-pro:1933")
    assert twin.status == "inherited" and "mmlu-pro:1932" in twin.note
    assert q.row("mmlu-pro:1932").letter == twin.letter == "D"


def test_cli_route_json_and_ad_hoc_option_finding(tmp_path: Path, capsys) -> None:
    from croissant_lineage.cli import main

    lin_dir = toy_lineage().write(tmp_path / "lineage")
    assert main(["route", "pro:10", "--lineage", str(lin_dir), "--target", "option", "--option", "B",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    status = {r["ref"]: r["status"] for r in doc["rows"]}
    assert status["pro:10"] == "added" and status["base:s/0"] == "unaffected"
    assert main(["route", "pro:999", "--lineage", str(lin_dir)]) == 2


@pytest.mark.realdata
def test_real_errata_findings_stay_in_mmlu_pro(shared_data: Path, mmlu_lineage, mmlu_graph) -> None:
    from croissant_lineage.findings.importers import import_mmlu_pro_errata

    errata = import_mmlu_pro_errata(data_dir=shared_data, items=mmlu_lineage.items).findings
    dup = next(f for f in errata if f.item == "mmlu-pro:6132")
    q = route(mmlu_graph, dup)
    assert q.row("mmlu-pro:6132").status == "added" and q.row("mmlu-pro:6131").status == "inherited"
    parents = [e.parent for e in mmlu_graph.parents("mmlu-pro:6132")]
    assert parents
    assert all(q.row(p).status == "unaffected" for p in parents)
    cat = next(f for f in errata if f.label == "unrelated" and mmlu_graph.parents(f.item))
    q = route(mmlu_graph, cat)
    assert q.row(cat.item).status == "added"
    assert all(r.status == "unaffected" for r in q.rows if r.dataset == "mmlu")


# ----------------------------------------------------------------------------- the three worked cases


def _line(q, ref: str):
    (line,) = [ln for ln in q.lines() if ln.ref == ref]
    return line


@pytest.mark.realdata
def test_real_3542_new_no_correct_answer_amends_the_redux_annotation(mmlu_graph, redux) -> None:
    new = Finding(item="mmlu-pro:3542", target="key", kind="no_correct_answer", source=REVIEWER)
    q = route(mmlu_graph, new, redux)
    (rel,) = q.related
    assert (rel.ref, rel.item, rel.source) == (
        "mmlu-redux:college_chemistry/99", "mmlu:college_chemistry/test/86", "MMLU-Redux")
    assert (rel.label, rel.status, rel.relation, rel.action) == ("bad_question_clarity", "proposed", "refines", "amend")
    assert q.rows[0].ref == rel.ref and [r.rank for r in q.rows].count(0) == 1
    # MMLU-Pro 3542: one line for its three versions, the key unchanged since the first
    item = _line(q, "mmlu-pro:3542")
    assert (item.kind, item.rank, item.status, item.count) == ("versions", 1, "inherited", 3)
    (fold,) = [f for f in q.folds if f.head == "mmlu-pro:3542"]
    assert fold.versions == ("mmlu-pro:3542", "mmlu-pro@2025-08-03:3542", "mmlu-pro@2025-10-01:3542")
    assert fold.key_changed == () and fold.key_since == "2024-10-16"
    # the parent's translations: one line per dataset family, with the count
    glob = [ln for ln in q.lines() if ln.kind == "group" and ln.ref == "global-mmlu"]
    assert [(g.count, g.status, g.rank) for g in glob] == [(4, "inherited", 1)]
    assert glob[0].datasets == ("global-mmlu-es", "global-mmlu-fr", "global-mmlu-ja", "global-mmlu-ru")
    documented = {ln.ref: (ln.rank, ln.status) for ln in q.lines() if ln.relation == "documented"}
    assert documented == {d: (3, "unverified") for d in ("global-mmlu", "mmlu-prox", "mmmlu")}
    assert len(q.to_dict()["rows"]) == len(q.rows) > len(q.lines())


@pytest.mark.realdata
def test_real_3542_printed_by_the_cli(mmlu_lineage_dir: Path, redux, tmp_path: Path, capsys) -> None:
    from croissant_lineage.cli import main
    from croissant_lineage.findings.files import save_findings

    path = save_findings(redux, tmp_path / "redux.json")
    args = ["route", "mmlu-pro:3542", "--lineage", str(mmlu_lineage_dir), "--findings", str(path),
            "--target", "key", "--kind", "no_correct_answer"]
    assert main(args) == 0
    text = capsys.readouterr().out
    rows = [ln.split() for ln in text.splitlines()[2:] if ln[:3].strip().isdigit()]
    assert rows[0][:2] == ["0", "mmlu-redux:college_chemistry/99"]
    assert rows[1][:3] == ["1", "mmlu-pro:3542", "(+2"]
    assert not any(r[1].startswith("mmlu-pro@") for r in rows)
    assert main([*args, "--expand"]) == 0
    expanded = capsys.readouterr().out
    assert "mmlu-pro@2025-10-01:3542" in expanded and "global-mmlu-ja:college_chemistry/test/86" in expanded
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["relation"] for r in doc["related_findings"]] == ["refines"]
    assert "mmlu-pro@2025-08-03:3542" in {r["ref"] for r in doc["rows"]}


@pytest.mark.realdata
def test_real_6268_added_option_reaches_mmlu_pro_and_prox_lines_only(mmlu_graph, redux) -> None:
    f = Finding(item="mmlu-pro:6268", target="option", option_index=1, kind="multiple_correct_answers",
                source=REVIEWER)
    q = route(mmlu_graph, f, redux)
    assert q.related == []  # no existing finding on that option (it was added by MMLU-Pro)
    item = _line(q, "mmlu-pro:6268")
    assert (item.kind, item.status, item.count) == ("versions", "added", 3)
    reached = {d for ln in q.lines() if ln.status in ("inherited", "added", "unverified") for d in ln.datasets}
    assert reached <= {"mmlu-pro", "mmlu-pro@2025-08-03", "mmlu-pro@2025-10-01", "mmlu-prox-lite-en", "mmlu-prox"}
    assert {"mmlu-pro", "mmlu-prox"} <= reached
    parent = _line(q, "mmlu:nutrition/test/124")
    assert parent.status == "unaffected" and "mmlu-2020:nutrition/test/124" in parent.refs


@pytest.mark.realdata
def test_real_1932_reviewer_keeps_the_key_redux_proposal_to_reject(mmlu_graph, redux) -> None:
    key = mmlu_graph.item("mmlu-pro:1932").key_text
    keeps = Finding(item="mmlu-pro:1932", target="key", kind="other", proposed=key, source=REVIEWER,
                    evidence=["passive personality: jurisdiction by the nationality of the victims"])
    q = route(mmlu_graph, keeps, redux)
    (rel,) = q.related
    assert (rel.ref, rel.kind, rel.relation, rel.action) == (
        "mmlu-redux:international_law/19", "wrong_key", "contradicts", "reject")
    (law,) = [f for f in redux if f.id == rel.id]
    assert law.proposed != key
    assert q.rows[0].ref == rel.ref and q.rows[0].rank == 0
    for ref in ("mmlu-pro:1932", "mmlu-pro:1933"):  # both MMLU-Pro copies, each with its versions
        line = _line(q, ref)
        assert (line.rank, line.status, line.letter, line.count) == (1, "inherited", "D", 3)
