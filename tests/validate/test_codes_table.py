"""The validation codes (``validate.codes``): the table the docs print, selecting codes
by prefix, and each issue's declared severity."""

from __future__ import annotations

import importlib
import re

import pytest

from croissant_lineage.errors import InputError
from croissant_lineage.validate.codes import CODES, Code, codes_table, expand_selection, issue


def test_table_header_rows_and_escaped_pipes() -> None:
    lines = codes_table().split("\n")
    assert lines[:2] == ["| code | severity | meaning | fix |", "|---|---|---|---|"]
    assert len(lines) == 2 + len(CODES)
    first = CODES["CLV001"]
    assert lines[2] == f"| CLV001 | error | {first.title} | {first.fix} |"
    # every row has exactly four cells: a '|' inside a text is escaped, not a cell border
    for line, code in zip(lines[2:], CODES.values(), strict=True):
        cells = re.split(r"(?<!\\)\|", line)[1:-1]
        assert [c.strip() for c in cells][:2] == [code.code, code.severity]
        assert len(cells) == 4, line


def test_a_pipe_in_a_title_or_fix_is_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    codes = {"CLV999": Code("CLV999", "warning", "a | b", "c | d")}
    monkeypatch.setattr(importlib.import_module("croissant_lineage.validate.codes"), "CODES", codes)
    assert codes_table().split("\n")[2] == "| CLV999 | warning | a \\| b | c \\| d |"


def test_codes_are_well_formed_and_in_table_order() -> None:
    assert list(CODES) == sorted(CODES)
    for name, code in CODES.items():
        assert code.code == name and re.fullmatch(r"CLV\d{3}", name)
        assert code.severity in {"error", "warning"}
        assert code.title and code.fix
    assert CODES["CLV001"].severity == "error" and CODES["CLV102"].severity == "warning"


def test_selection_case_spaces_commas_and_empty_parts() -> None:
    assert expand_selection([" clv30 ", "CLV001"]) == {c for c in CODES if c.startswith("CLV30")} | {"CLV001"}
    # an empty part (a trailing comma, a blank) is skipped, the parts after it still count
    assert expand_selection(["CLV001,,CLV002", " , CLV003"]) == {"CLV001", "CLV002", "CLV003"}
    assert expand_selection(["", "CLV101"]) == {"CLV101"}
    assert expand_selection([]) == set()
    assert expand_selection(["clv7"]) == {"CLV701", "CLV702"}
    # a selection accumulates across entries; later entries do not replace earlier ones
    assert expand_selection(["CLV1", "CLV2"]) == {c for c in CODES if c[:4] in {"CLV1", "CLV2"}}


def test_selection_typo_is_a_coded_error_with_a_hint() -> None:
    with pytest.raises(InputError) as err:
        expand_selection(["CLV001", "clv99"])
    assert err.value.code == "CL-E001"
    assert err.value.message == "'CLV99' matches no validation code"
    assert err.value.hint == "see 'croissant-lineage validate --list-codes'"
    with pytest.raises(InputError, match="'X' matches no validation code"):
        expand_selection(["CLV001, x"])


def test_issue_takes_the_declared_severity() -> None:
    err = issue("CLV301", "edge names a missing item", "edges.parquet#row=3")
    assert (err.code, err.severity, err.message, err.where) == (
        "CLV301", "error", "edge names a missing item", "edges.parquet#row=3")
    assert issue("CLV404", "m", "w").severity == "warning"
    with pytest.raises(KeyError):
        issue("CLV999", "m", "w")
