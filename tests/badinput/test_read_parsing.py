"""Parsing bad input: one coded line and exit 2, never a traceback.

A NUL byte in ``contentUrl`` / ``includes``, a JSON list nested 100,000 deep (descriptor,
family spec, findings), an IRI rdflib refuses to write. (The corrupt Parquet page is in
``test_read_tables.py``, deep YAML in ``test_read_yaml.py``.)
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import rdflib

from croissant_lineage.cli import main
from croissant_lineage.errors import LineageError
from croissant_lineage.prov.serialize import serialize

GOOD = Path(__file__).resolve().parent / "_good"


def _one_line(capsys: pytest.CaptureFixture[str], code: str) -> None:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and code in err and "Traceback" not in err, err


@pytest.mark.parametrize("where", ["contentUrl", "includes"])
def test_a_nul_byte_in_a_file_url(where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "case"
    shutil.copytree(GOOD, folder)
    doc = json.loads((folder / "croissant.json").read_text())
    if where == "contentUrl":
        doc["distribution"][0]["contentUrl"] = "data\u0000.csv"
    else:
        doc["distribution"][0] = {"@type": "cr:FileSet", "@id": "data", "name": "data",
                                  "includes": "*\u0000.csv", "encodingFormat": "text/csv"}
    (folder / "croissant.json").write_text(json.dumps(doc))
    assert main(["link", str(folder / "family.json"), "--out", str(tmp_path / "out"), "-q"]) == 2
    _one_line(capsys, "CL-E002")


@pytest.mark.parametrize("name", ["croissant.json", "family.json", "findings.json"])
def test_a_json_list_100000_deep(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    path.write_text("[" * 100_000 + "]" * 100_000)
    argv = {
        "croissant.json": ["enrich", str(path), "--derived-from", "https://example.org/p", "--out", str(tmp_path / "o.json")],
        "family.json": ["link", str(path), "--out", str(tmp_path / "out"), "-q"],
        "findings.json": ["findings", "list", str(path)],
    }[name]
    assert main(argv) == 2
    _one_line(capsys, "CL-E001")


def test_an_iri_rdflib_refuses_is_a_coded_error() -> None:
    graph = rdflib.Graph()
    graph.add((rdflib.URIRef("https://example.org/a b<c>"), rdflib.RDF.type, rdflib.URIRef("https://example.org/T")))
    for fmt in ("turtle", "nt"):
        with pytest.raises(LineageError) as info:
            serialize(graph, fmt)
        assert info.value.code == "CL-E001"
