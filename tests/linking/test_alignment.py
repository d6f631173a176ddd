"""Index joins checked at link time (rule 6) and evidence read in the declared language.

Invented items for the rules; the real MMMLU zh-cn case from ../shared/data (realdata).
"""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa
import pytest

from croissant_lineage.family.spec import Derivation, LanguageRules, LinkRule, load_family
from croissant_lineage.lineage.schema import ITEMS_BASE_SCHEMA, METHODS
from croissant_lineage.linking.alignment import (
    SHIFTED_METHOD,
    UNVERIFIED_METHOD,
    Checker,
    JoinItem,
    _RowIndex,
    probe_mode,
    read_probe_evidence,
    readers_for,
    shifted_item,
)
from croissant_lineage.linking.evidence import (
    evidence_score,
    extract_evidence,
    number_reader,
    token_readings,
)
from croissant_lineage.linking.linker import link_derivation


def _items(dataset: str, rows: list[tuple[str, str, list[str], str]]) -> pa.Table:
    cols: dict[str, list[Any]] = {f.name: [] for f in ITEMS_BASE_SCHEMA}
    for i, (item, stem, options, key) in enumerate(rows):
        vals = {"dataset": dataset, "item": item, "subject": item.split("/")[0], "stem": stem,
                "options": options, "key": key, "source_file": "f", "source_row": i, "record": "{}"}
        for k in ITEMS_BASE_SCHEMA.names:
            cols[k].append(vals[k])
    return pa.table(cols, schema=ITEMS_BASE_SCHEMA)


def _numbers(k: int) -> tuple[int, int, int]:
    return 1500 + 37 * k, 203 + 11 * k, 1000 + 3 * k


def _source(k: int) -> tuple[str, str, list[str], str]:
    year, units, count = _numbers(k)
    return (f"crates/test/{k}", f"In the year {year}, how many of the {units} crates were full?",
            [str(count), "none", "all", "half"], "ABCD"[k % 4])


def _german(k: int, source_row: int, key: str | None = None) -> tuple[str, str, list[str], str]:
    year, units, count = _numbers(source_row)
    return (f"crates/test/{k}", f"Im Jahr {year}: wie viele der {units} Kisten waren voll?",
            [str(count), "keine", "alle", "halb"], key or "ABCD"[source_row % 4])


_DERIV = Derivation("tr", "src", "translation", LinkRule(by="index"), child_languages=("de",), parent_languages=("en",))


def _link(child_rows: list[tuple[str, str, list[str], str]]) -> dict[str, dict[str, Any]]:
    src = _items("src", [_source(k) for k in range(16)])
    edges, _unmatched, stats = link_derivation(_DERIV, _items("tr", child_rows), src)
    assert sum(stats["by_method"].values()) == stats["linked"]
    return {r["child_item"]: r for r in edges.to_pylist()}


def test_a_shifted_block_is_relinked_by_its_shift() -> None:
    # rows 2-11 translate the source two rows up; rows 0-1 and 12-13 are aligned
    rows = [_german(k, k - 2 if 2 <= k < 12 else k) for k in range(14)]
    edges = _link(rows)
    e = edges["crates/test/7"]
    assert (e["parent_item"], e["method"], e["alternatives"]) == ("crates/test/5", SHIFTED_METHOD, ["crates/test/7"])
    assert e["score"] >= 50 and e["key_inherited"] is True
    assert {edges[f"crates/test/{k}"]["method"] for k in range(2, 12)} == {SHIFTED_METHOD}
    assert {edges[f"crates/test/{k}"]["method"] for k in (0, 1, 12, 13)} == {"index"}  # aligned joins stay
    assert edges["crates/test/0"]["parent_item"] == "crates/test/0"


def test_an_aligned_translation_is_left_alone() -> None:
    edges = _link([_german(k, k) for k in range(14)])
    assert {e["method"] for e in edges.values()} == {"index"}
    assert all(e["parent_item"] == c for c, e in edges.items())


def test_an_unexplained_contradiction_is_demoted() -> None:
    rows = [_german(k, k) for k in range(14)]
    # row 6: other numbers than its source's and another key; no row nearby has them either
    rows[6] = ("crates/test/6", "Im Jahr 1111: wie viele der 9999 Kisten waren voll?",
               ["4321", "keine", "alle", "halb"], "D")
    edges = _link(rows)
    e = edges["crates/test/6"]
    assert (e["parent_item"], e["method"]) == ("crates/test/6", UNVERIFIED_METHOD)
    assert e["score"] == 0.0 and e["key_inherited"] is False
    assert {edges[f"crates/test/{k}"]["method"] for k in range(14) if k != 6} == {"index"}


def test_id_rules_are_not_touched() -> None:
    rows = [_german(k, k - 2 if k >= 2 else k) for k in range(14)]
    deriv = Derivation("tr", "src", "translation", LinkRule(by="id"), child_languages=("de",), parent_languages=("en",))
    edges, _u, _s = link_derivation(deriv, _items("tr", rows), _items("src", [_source(k) for k in range(16)]))
    assert set(edges.column("method").to_pylist()) == {"id"}


def test_new_methods_are_in_the_vocabulary() -> None:
    assert {SHIFTED_METHOD, UNVERIFIED_METHOD} <= set(METHODS)
    assert shifted_item("law/test/109", -3) == "law/test/106"
    assert shifted_item("law/test/1", -3) is None and shifted_item("law", 1) is None


# ------------------------------------------------------------------------- evidence


def _numbers_of(text: str, language: str | None, scales: tuple[tuple[str, int], ...] = ()) -> set[str]:
    return {t for t in extract_evidence(text, reader=number_reader(language, scales)).tokens if t[:2] in ("n:", "s:")}


def test_mil_is_a_thousand_only_where_the_language_says_so() -> None:
    assert _numbers_of("120 mil", "es") == {"n:120000~120~*12"}  # text2num: Spanish mil = 1,000
    assert _numbers_of("120 mil", "sv") == {"n:120~*12"}  # Swedish mil is a 10 km mile: no rule
    assert _numbers_of("120 mil", None) == {"n:120~*12"}
    miles = extract_evidence("The town is 120 miles away", reader=number_reader("en")).tokens
    swedish = extract_evidence("Staden ligger 120 mil bort", reader=number_reader("sv")).tokens
    assert evidence_score(swedish, miles) == 100.0


def test_decades_written_as_in_many_languages_agree() -> None:
    en = extract_evidence("Which band was famous in the 1960s?", reader=number_reader("en")).tokens
    es = extract_evidence("¿Qué banda era famosa en los años 60 del siglo 20?", reader=number_reader("es")).tokens
    assert evidence_score(es, en) == 100.0
    assert token_readings("n:1960") == {"n:1960", "n:60"}
    assert token_readings("n:1961") == {"n:1961"}  # only decades
    other = extract_evidence("¿Qué banda era famosa en los años 70 del siglo 20?", reader=number_reader("es")).tokens
    assert evidence_score(other, en) == 0.0  # the 70s are not the 1960s


def test_locale_separators_come_from_cldr() -> None:
    assert _numbers_of("1,500", "fr") == {"n:1.5~1500"}  # CLDR: the French decimal mark, then digits as written
    assert _numbers_of("1,500", "en") == {"n:1500"}
    assert _numbers_of("2,5", "de") == {"n:2.5"}
    assert _numbers_of("1\u202f000", "fr") == {"n:1000~*1"}  # a round number also reads as its significant digits


def test_scale_words_are_spec_data_and_spelled_numbers_come_from_text2num() -> None:
    assert _numbers_of("1.7 million", "en") == {"n:1700000~1.7~*17"}
    assert _numbers_of("dos mil personas", "es") == {"s:2000~*2"}  # spelled out: class s
    # spelled-out numbers count only against a text whose spelled-out numbers are read too
    en = extract_evidence("I fed my baby three times", reader=number_reader("en")).tokens
    assert en == {"s:3"}
    assert evidence_score(frozenset({"n:5"}), en) is None  # zh "三次": no reading, no conflict
    assert evidence_score(extract_evidence("tres veces", reader=number_reader("es")).tokens, en) == 100.0
    assert _numbers_of("170万光年", "ja") == {"n:170~*17"}  # no rule for 万: digits as written
    assert _numbers_of("170万光年", "ja", (("万", 4),)) == {"n:1700000~170~*17"}
    assert _numbers_of("1万3000年前", "ja", (("万", 4),)) == {"n:13000~1"}
    spec = load_family("mmlu")
    assert spec.language_rules["zh"].scale_words and "es" not in spec.language_rules
    zh = next(d for d in spec.item_derivations() if d.child == "mmmlu-zh-cn")
    readers = readers_for(zh)
    assert readers["mmmlu-zh-cn"].scales == spec.language_rules["zh"].scale_words  # zh covers zh-CN
    assert readers["mmlu"].spelled and not readers["mmlu"].scales
    assert isinstance(spec.language_rules["ja"], LanguageRules)


def test_ja_with_or_without_rules_agrees_with_english_millions() -> None:
    en = extract_evidence("How far?", ["1.7 million light years", "2.1 million light years"], reader=number_reader("en"))
    ja_rules = extract_evidence("どれくらい", ["170万光年", "210万光年"], reader=number_reader("ja", (("万", 4),)))
    ja_bare = extract_evidence("どれくらい", ["170万光年", "210万光年"], reader=number_reader("ja"))
    assert evidence_score(ja_rules.tokens, en.tokens) == 100.0
    assert evidence_score(ja_bare.tokens, en.tokens) == 100.0  # significant digits when the words are unknown


# ------------------------------------------------------------------------- real data


def test_mmmlu_zh_cn_world_history_is_relinked_at_link_time(mmlu_lineage) -> None:
    spec = load_family("mmlu")
    deriv = next(d for d in spec.item_derivations() if d.child == "mmmlu-zh-cn")
    child = mmlu_lineage.items_of("mmmlu-zh-cn", required=True)
    parent = mmlu_lineage.items_of("mmlu", required=True)
    edges, _u, stats = link_derivation(deriv, child, parent)
    rows = {r["child_item"]: r for r in edges.to_pylist()}
    e = rows["high_school_world_history/test/109"]
    assert (e["parent_item"], e["method"]) == ("high_school_world_history/test/106", SHIFTED_METHOD)
    assert e["alternatives"] == ["high_school_world_history/test/109"]
    assert rows["high_school_world_history/test/169"]["parent_item"] == "high_school_world_history/test/167"
    moved = {c for c, r in rows.items() if r["method"] != "index"}
    assert moved and all(c.startswith("high_school_world_history/") for c in moved)
    assert stats["by_method"].get(SHIFTED_METHOD, 0) >= 9


def test_relatives_and_route_carry_the_corrected_edge(mmlu_lineage: Any, mmlu_graph: Any) -> None:
    from croissant_lineage.findings.routing import route_item

    child = "mmmlu-zh-cn:high_school_world_history/test/109"
    parents = mmlu_graph.parents(child)
    assert [(e.parent, e.method) for e in parents] == [("mmlu:high_school_world_history/test/106", SHIFTED_METHOD)]
    # the declared (wrong) parent no longer has this translation among its relatives
    assert child not in {r.ref for r in mmlu_graph.descendants("mmlu:high_school_world_history/test/109")}
    rows = {r.ref: r for r in route_item(mmlu_graph, "mmlu:high_school_world_history/test/106").rows}
    assert rows[child].relation == "descendant" and rows[child].certainty == "certain"
    assert child not in {r.ref for r in route_item(mmlu_graph, "mmlu:high_school_world_history/test/109").rows}
    edges = mmlu_lineage.edges.to_pylist()
    moved = [e for e in edges if e["method"] in (SHIFTED_METHOD, UNVERIFIED_METHOD)]
    assert moved and {e["child_item"].split("/")[0] for e in moved} == {"high_school_world_history"}
    for e in (e for e in moved if e["method"] == UNVERIFIED_METHOD):  # never followed as certain
        ref = f"{e['child_dataset']}:{e['child_item']}"
        parent_rows = route_item(mmlu_graph, f"{e['parent_dataset']}:{e['parent_item']}").rows
        assert {r.certainty for r in parent_rows if r.ref == ref} <= {"unverified", "probable"}


def test_language_rules_are_checked_by_the_spec_schema() -> None:
    from croissant_lineage.errors import SpecError
    from croissant_lineage.family.spec import parse_family

    doc: dict[str, Any] = {"name": "f", "datasets": [{"name": "a", "iri": "https://example.org/a", "languages": ["zh-CN"]}],
                           "language_rules": {"zh": {"scale_words": {"万": 4}}}}
    spec = parse_family(doc)
    assert spec.language_rules["zh"].scale_words == (("万", 4),)
    doc["language_rules"] = {"zh": {"scale_words": {"万": "four"}}}
    with pytest.raises(SpecError):
        parse_family(doc)
    doc["language_rules"] = {"zh": {"decades": {}}}
    with pytest.raises(SpecError):
        parse_family(doc)


def test_token_weights_read_reads_each_asked_group_once_and_only_those() -> None:
    table = _items("src", [_source(k) for k in range(4)] + [("boxes/test/0", "How many of the 12 boxes?", ["1"], "A")])
    checker = Checker(table, {"src": number_reader("en")})
    crates = [checker.index[("src", f"crates/test/{k}")] for k in range(4)]
    boxes = checker.index[("src", "boxes/test/0")]
    checker.weights.read([("src", "crates"), ("src", "crates"), ("src", "missing")])
    assert all("evidence" in item.__dict__ for item in crates) and "evidence" not in boxes.__dict__
    assert [item.evidence for item in crates] == [extract_evidence(s, o, reader=number_reader("en"))
                                                  for _, s, o, _ in (_source(k) for k in range(4))]
    weight = checker.weights.for_group("src", "crates")  # built from the evidence read
    assert weight("n:1500") == pytest.approx(math.log(5 / 2)) and weight("w:absent") == pytest.approx(math.log(5))
    before = crates[0].__dict__["evidence"]
    checker.weights.read([("src", "crates")])  # built already: nothing read again
    assert crates[0].__dict__["evidence"] is before


def test_a_row_index_is_built_only_when_asked() -> None:
    ids = ["a/test/0", "a/test/1", "a/test/1"]
    index = _RowIndex(ids)
    assert "_rows" not in index.__dict__
    assert index["a/test/1"] == 2 and "a/test/2" not in index and len(index) == 2 and list(index) == ids[:2]


@pytest.mark.parametrize(
    ("child_language", "parent_language", "same"),
    [("en", "en", True), ("en", "fr", False), (None, None, False), ("en", None, False), (None, "en", False)],
)
def test_only_a_declared_equal_language_makes_a_same_language_copy(
    child_language: str | None, parent_language: str | None, same: bool
) -> None:
    # A same-language copy is probed by its text and reads no evidence; any other pair (an
    # undeclared language included) by the names a child in another script keeps, else by tokens.
    latin = JoinItem("s", "A", "What is the capital of France?", ["Paris", "Lyon"])
    other_script = JoinItem("s", "A", "法国的首都是哪里？", ["巴黎", "里昂"])
    assert probe_mode(latin, child_language, parent_language) == ("text" if same else "tokens")
    assert probe_mode(other_script, child_language, parent_language) == ("text" if same else "names")
    fresh = JoinItem("s", "A", "Which year, 1848 or 1850?", ["1848", "1850"])
    read_probe_evidence([fresh], child_language, parent_language)
    assert ("evidence" in fresh.__dict__) is not same
