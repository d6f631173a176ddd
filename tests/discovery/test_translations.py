"""Discovering a translation's parent without a model: ids, positions, tokens, and the check."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from croissant_lineage.discovery.propose import discover
from croissant_lineage.discovery.roles import infer_roles
from croissant_lineage.discovery.translations import discover_translation, translation_edges
from croissant_lineage.lineage.schema import ITEMS_BASE_SCHEMA
from croissant_lineage.testing.synthetic import generate_family

# English parents whose numbers, formulas and names survive translation.
PARENT = [
    ("algebra/test/0", "algebra", "Find the degree of the extension Q(sqrt(2), sqrt(3)) over Q.", ["0", "4", "2", "6"], "B"),
    ("algebra/test/1", "algebra", "How many elements has the group Z_12 x Z_18?", ["216", "30", "6", "12"], "A"),
    ("algebra/test/2", "algebra", "In 1905 Einstein wrote how many papers about 3 topics?", ["4", "5", "7", "9"], "A"),
    ("history/test/0", "history", "Which treaty did NATO sign in 1949 with 12 members?", ["Paris", "London", "Rome", "Berlin"], "C"),
    ("history/test/1", "history", "What happened in 1789 in France to 600 deputies?", ["a", "b", "c", "d"], "D"),
]
# Their Spanish translations, same ids: the numbers and names stay.
CHILD = [
    ("algebra/test/0", "algebra", "Encuentre el grado de la extensión Q(sqrt(2), sqrt(3)) sobre Q.", ["0", "4", "2", "6"], "B"),
    ("algebra/test/1", "algebra", "¿Cuántos elementos tiene el grupo Z_12 x Z_18?", ["216", "30", "6", "12"], "A"),
    ("algebra/test/2", "algebra", "¿En 1905 Einstein escribió cuántos artículos sobre 3 temas?", ["4", "5", "7", "9"], "A"),
    ("history/test/0", "history", "¿Qué tratado firmó la NATO en 1949 con 12 miembros?", ["París", "Londres", "Roma", "Berlín"], "C"),
    ("history/test/1", "history", "¿Qué pasó en 1789 en Francia a 600 diputados?", ["a", "b", "c", "d"], "D"),
]


def _table(dataset: str, rows: list[tuple]) -> pa.Table:
    cols: dict[str, list] = {f.name: [] for f in ITEMS_BASE_SCHEMA}
    for k, (item, subject, stem, options, key) in enumerate(rows):
        for name, value in zip(("dataset", "item", "subject", "stem", "options", "key", "source_file", "source_row", "record"),
                               (dataset, item, subject, stem, options, key, "f", k, "{}"), strict=True):
            cols[name].append(value)
    return pa.table(cols, schema=ITEMS_BASE_SCHEMA)


def _renamed(rows: list[tuple], ids: list[str]) -> list[tuple]:
    return [(i, *r[1:]) for i, r in zip(ids, rows, strict=True)]


def test_shared_ids_pair_and_the_tokens_agree() -> None:
    best, _ = discover_translation("es", _table("es", CHILD), {"en": _table("en", PARENT)})
    assert best is not None and best.how == "ids" and best.parent == "en"
    assert sorted((i, j) for i, j, _ in best.pairs) == [(k, k) for k in range(5)]
    assert best.counts["evidence_agrees"] == 5 and best.counts["evidence_disagrees"] == 0
    edges, counts = translation_edges("es", _table("es", CHILD), _table("en", PARENT), best)
    assert edges.column("parent_item").to_pylist() == [r[0] for r in PARENT]
    assert counts["paired_by"] == "ids"


def test_ids_that_join_different_questions_are_not_proposed() -> None:
    # the same ids, but each child translates the NEXT parent: the numbers disagree
    shifted = _renamed(CHILD[1:] + CHILD[:1], [r[0] for r in CHILD])
    best, tried = discover_translation("es", _table("es", shifted), {"en": _table("en", PARENT)})
    assert tried[0].how == "ids" and not tried[0].supported
    assert tried[0].counts["evidence_disagrees"] >= 4
    # the tokens then find the true pairs (child k translates parent k + 1), not the ids' ones
    assert best is not None and best.how == "tokens"
    assert {(i, j) for i, j, _ in best.pairs} <= {(k, (k + 1) % 5) for k in range(5)}


def test_positions_pair_ids_that_end_in_the_row_within_the_subject() -> None:
    # MMMLU-style ids: subject/ID, where ID is the parent's row in the subject
    child = _renamed(CHILD, ["algebra/0", "algebra/1", "algebra/2", "history/0", "history/1"])
    best, _ = discover_translation("zh", _table("zh", child), {"en": _table("en", PARENT)})
    assert best is not None and best.how == "positions"
    assert sorted((i, j) for i, j, _ in best.pairs) == [(k, k) for k in range(5)]


def _numbered(lang: str, subject: str, n: int, first: int) -> list[tuple]:
    """``n`` items of ``subject`` whose numbers survive translation; item k's key is
    ``"ABCD"[k % 4]`` and its id ends in ``first + k``."""
    text = {"en": "What is {a} plus {b} in the year {c}?", "es": "¿Cuánto es {a} más {b} en el año {c}?"}[lang]
    return [(f"{subject}/test/{first + k}", subject, text.format(a=100 + 7 * k, b=13 * k + 3, c=1700 + k),
             [str(1000 + 10 * k + o) for o in range(4)], "ABCD"[k % 4]) for k in range(n)]


def test_row_shifted_ids_are_relinked_by_the_shift() -> None:
    # subject "h": the child's id k translates the parent's row k - 2 (MMMLU's high_school_world_history)
    parent = _numbered("en", "a", 40, 0) + _numbered("en", "h", 10, 0)
    child = _numbered("es", "a", 40, 0) + [(f"h/test/{k + 2}", *r[1:]) for k, r in enumerate(_numbered("es", "h", 8, 0))]
    best, _ = discover_translation("es", _table("es", child), {"en": _table("en", parent)}, {"es": "es", "en": "en"})
    assert best is not None and best.how == "ids" and best.counts["evidence_disagrees"] == 8
    edges, counts = translation_edges("es", _table("es", child), _table("en", parent), best, {"es": "es", "en": "en"})
    got = dict(zip(edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist(), strict=True))
    assert all(got[f"h/test/{k + 2}"] == f"h/test/{k}" for k in range(8))
    assert all(got[f"a/test/{k}"] == f"a/test/{k}" for k in range(40))
    assert counts["relinked_by_shift"] == 8


def test_tokens_pair_when_nothing_else_joins() -> None:
    child = _renamed(CHILD[::-1], [f"row-{k}" for k in range(5)])  # reversed order, opaque ids
    best, _ = discover_translation("es", _table("es", child), {"en": _table("en", PARENT)})
    assert best is not None and best.how == "tokens"
    pairs = {i: j for i, j, _ in best.pairs}
    assert all(pairs[i] == 4 - i for i in pairs)  # every pair it makes is right
    assert len(pairs) >= 4


def test_tokens_refuse_a_tie() -> None:
    # two parents with the same numbers and names: neither is chosen
    parent = [*PARENT, ("algebra/test/3", "algebra", "Find the degree of Q(sqrt(2), sqrt(3)) again.", ["0", "4", "2", "6"], "C")]
    child = _renamed(CHILD[:1], ["row-0"])
    best, tried = discover_translation("es", _table("es", child), {"en": _table("en", parent)})
    assert best is None and not any(m.how == "tokens" for m in tried)


def test_id_within_subject_is_guessed() -> None:
    columns = {
        "ID": [0, 1, 0, 1], "Subject": ["a", "a", "b", "b"], "Question": [f"Which of these statements about case {k} is true?" for k in range(4)],
        "A": ["1", "2", "3", "4"], "B": ["5", "6", "7", "8"], "Answer": ["A", "B", "A", "B"], "_file": ["f"] * 4, "_row": [0, 1, 2, 3],
    }
    guess = infer_roles(columns)
    assert guess.roles["id"] == "{Subject}/{ID}"
    columns["_file"] = ["f", "f", "g", "g"]
    columns["_row"] = [0, 1, 0, 1]
    del columns["ID"]
    assert infer_roles(columns).roles["id"] == "{_file}/{_row}"


def test_synthetic_translations_are_discovered(tmp_path: Path) -> None:
    fam = generate_family(tmp_path / "syn", items=400)
    doc = json.loads((fam.folder / "family.json").read_text())
    base = [dict(d, descriptor=str((fam.folder / d["descriptor"]).resolve())) for d in doc["datasets"] if d["name"] == "syn-base"]
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps({"name": "c", "datasets": base, "derivations": []}))
    result = discover([fam.folder / "syn-xx" / "croissant.json"], [corpus], out=tmp_path / "out")
    (p,) = result.proposals
    assert (p.child, p.parent, p.activity, p.evidence["paired_by"]) == ("syn-xx", "syn-base", "translation", "ids")
    assert p.linked == fam.datasets["syn-xx"]
    fragment = json.loads((tmp_path / "out" / "family-fragment.json").read_text())
    assert fragment["derivations"][0]["link"] == {"by": "id"}
    assert "paired by ids" in str(result)


@pytest.mark.slow
def test_mmmlu_zh_cn_found_by_positions(shared_data: Path, tmp_path: Path) -> None:
    from croissant_lineage.family.shipped import builtin_family_path

    desc = builtin_family_path("mmlu").parent / "descriptors"
    spec = json.loads(builtin_family_path("mmlu").read_text())
    mmlu = [dict(d, descriptor=str((builtin_family_path("mmlu").parent / d["descriptor"]).resolve()))
            for d in spec["datasets"] if d["name"] == "mmlu"]
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps({"name": "c", "datasets": mmlu, "derivations": []}))
    result = discover([desc / "mmmlu-zh-cn.json"], [corpus], data_dir=shared_data)
    (p,) = result.proposals
    assert (p.parent, p.activity, p.evidence["paired_by"]) == ("mmlu", "translation", "positions")
    assert p.linked == 600
    assert p.evidence["evidence_agrees"] > 10 * p.evidence["evidence_disagrees"]
    # high_school_world_history's IDs are shifted by 2-3 rows: re-linked as link re-links them
    assert p.evidence["relinked_by_shift"] == 10
    fragment = result.fragment()
    assert fragment["derivations"][0]["link"] == {"by": "index"}
