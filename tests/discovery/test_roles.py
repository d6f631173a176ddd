"""Role inference: each role's guess from names and values, overrides and refusals."""

from __future__ import annotations

from croissant_lineage.discovery.roles import infer_roles

STEMS = [f"Which planet of system {i} has the shortest year of all?" for i in range(6)]


def test_lettered_columns_letter_key_and_subject() -> None:
    cols = {
        "sample_id": [f"s{i}" for i in range(6)],
        "subject": ["astro"] * 6,
        "question": STEMS,
        "option_a": ["a"] * 6, "option_b": ["b"] * 6, "option_c": ["c"] * 6, "option_d": ["d"] * 6,
        "answer": list("ABCDAB"),
    }
    g = infer_roles(cols)
    assert g.ok
    assert g.roles == {
        "id": "sample_id", "subject": "subject", "stem": "question",
        "options": ["option_a", "option_b", "option_c", "option_d"], "key": "answer",
    }
    assert g.key_format == "letter"


def test_list_options_index_key_row_id_and_unnamed_stem() -> None:
    cols = {"body": STEMS, "choices": [["x", "y", "z"]] * 6, "label": [0, 1, 2, 0, 1, 2], "tag": ["t"] * 6}
    g = infer_roles(cols)
    assert g.roles["stem"] == "body"
    assert g.roles["options"] == "choices"
    assert (g.roles["key"], g.key_format) == ("label", "index")
    assert g.roles["id"] == "{_row}"


def test_text_list_options_and_text_key() -> None:
    cols = {"question": STEMS, "choices": ["['red', 'blue']"] * 6, "answer": ["red", "blue"] * 3}
    g = infer_roles(cols)
    assert g.roles["options"] == {"field": "choices", "parse": "python_list"}
    assert g.key_format == "text"


def test_key_out_of_range_is_not_an_index() -> None:
    cols = {"question": STEMS, "choices": [["x", "y"]] * 6, "answer": [0, 1, 5, 0, 1, 0]}
    g = infer_roles(cols)
    assert not g.ok
    assert g.refused is not None and g.refused.startswith("options but no key")


def test_refuses_without_a_stem() -> None:
    g = infer_roles({"x": [1, 2, 3], "label": ["a", "b", "a"]})
    assert not g.ok and g.roles == {}
    assert g.refused is not None and g.refused.startswith("no stem")


def test_override_is_kept_and_not_reguessed() -> None:
    cols = {"question": STEMS, "context": [s + " (long context text)" for s in STEMS], "answer_text": ["a"] * 6}
    g = infer_roles(cols, {"stem": "context"})
    assert g.roles["stem"] == "context"
    assert g.reasons["stem"] == "given by the user"
    assert "options" not in g.roles  # no options: no key needed
