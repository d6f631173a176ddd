"""Findings as a Parquet table: one schema for enrich, resolve, publish and validate."""

from __future__ import annotations

import pyarrow as pa
import pytest

from croissant_lineage.enrich.files import FILE_KINDS, RECORD_SETS
from croissant_lineage.errors import FindingsError
from croissant_lineage.findings.model import Finding, Source, StatusChange
from croissant_lineage.findings.parquet import (
    FINDINGS_SCHEMA,
    findings_entries,
    findings_from_table,
    findings_table,
)

IRIS = {"toy-pro": "https://example.org/toy/pro"}


def _findings() -> list[Finding]:
    src = Source("invented review", "https://example.org/review", "person", "toy-redux:astronomy/0")
    return [
        Finding(item="toy-base:astronomy/test/0", target="stem", kind="other", source=Source("x")),
        Finding(item="toy-pro:101", target="option", option_index=2, kind="multiple_correct_answers",
                source=src, proposed="Sable", answers=["Sable", "Rondo"], label="expert",
                related=["toy-pro:102"], evidence=["counted twice"], status="rejected",
                status_date="2024-02-01", status_reason="one answer is enough",
                history=[StatusChange("submitted", "2024-01-01")]),
        Finding(item="toy-pro:105", target="key", kind="wrong_key", source=Source("y"), status="no_response",
                status_date="2024-03-01"),
    ]


def test_round_trip_keeps_every_field_and_the_order() -> None:
    found = _findings()
    table = findings_table(found, IRIS)
    assert table.schema == FINDINGS_SCHEMA
    assert table.column("dataset").to_pylist() == ["toy-base", "toy-pro", "toy-pro"]
    assert table.column("item_iri").to_pylist() == [None, f"{IRIS['toy-pro']}#101", f"{IRIS['toy-pro']}#105"]
    assert findings_entries(table) == [f.to_dict() for f in found]
    assert findings_from_table(table) == found
    reversed_rows = table.take(pa.array([2, 1, 0]))
    assert findings_from_table(reversed_rows) == found  # by position, not row order


def test_dataset_filter_keeps_positions_of_the_whole_list() -> None:
    table = findings_table(_findings(), IRIS, datasets=["toy-pro"])
    assert table.column("id").to_pylist() == [f.id for f in _findings()[1:]]
    assert table.column("position").to_pylist() == [1, 2]
    assert findings_table(_findings(), datasets=[]).num_rows == 0


def test_reader_takes_tables_without_the_optional_columns() -> None:
    table = findings_table(_findings()).drop(["dataset", "item_iri", "position"])
    assert findings_from_table(table) == _findings()
    with pytest.raises(KeyError):
        findings_entries(table.drop(["status"]))


def test_reader_raises_the_finding_rules() -> None:
    rows = findings_table(_findings()[:1]).to_pylist()
    rows[0]["status"] = "rejected"  # without a reason
    with pytest.raises(FindingsError):
        findings_from_table(pa.Table.from_pylist(rows, schema=FINDINGS_SCHEMA))


def test_enrichment_declares_the_same_table() -> None:
    assert FILE_KINDS["findings"] is FINDINGS_SCHEMA and RECORD_SETS["findings"].schema is FINDINGS_SCHEMA
