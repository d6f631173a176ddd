"""The streamed PROV writers against the rdflib oracle (``tests/oracles/prov_graph.py``).

N-Triples must be the very bytes the rdflib graph gave (its lines sorted); Turtle and
JSON-LD, written by this library since the streaming, must parse to the same graph.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import rdflib
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib.compare import isomorphic

import croissant_lineage.prov.stream as stream
from croissant_lineage.errors import InputError
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import (
    ACTIVITIES,
    EDGES_SCHEMA,
    ITEMS_BASE_SCHEMA,
)
from croissant_lineage.prov import (
    PROV_FILE_COMMENT,
    build_graph,
    is_prov_file,
    serialize,
    write_prov,
)
from croissant_lineage.prov.serialize import serialize_lineage
from croissant_lineage.prov.stream import SortedLines
from croissant_lineage.prov.terms import escape, iri, literal_value
from tests.oracles.prov_graph import build_graph_reference

FORMATS = ("nt", "turtle", "json-ld")


_RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def rdflib_nt(graph: rdflib.Graph) -> bytes:
    """What ``serialize(graph, "nt")`` wrote before the streaming: rdflib's lines, sorted, with
    the control characters rdflib leaves raw (ESC, NUL...) as ``\\uXXXX``, as the library writes them."""
    text = _RAW_CONTROL.sub(lambda m: b"\\u%04X" % m.group()[0], graph.serialize(format="nt", encoding="utf-8"))
    return b"".join(sorted(text.splitlines(keepends=True)))


def same_graph(data: bytes, fmt: str, expected: rdflib.Graph) -> bool:
    back = rdflib.Graph().parse(data=data.decode("utf-8"), format=fmt)
    if len(back) != len(expected):
        return False
    mine, theirs = _named_bnodes(back), _named_bnodes(expected)
    if mine is not None and theirs is not None:
        return mine == theirs
    return isomorphic(back, expected)


def _named_bnodes(graph: rdflib.Graph, rounds: int = 3) -> set[tuple[Any, Any, Any]] | None:
    """The graph's triples with each blank node named by what surrounds it (refined a few
    rounds, as colour refinement does), or None when two blank nodes get the same name.

    Two graphs whose names are all distinct and whose renamed triples are equal are
    isomorphic (each renaming is a bijection); this decides the large graphs that
    ``rdflib.compare.isomorphic`` takes tens of minutes on, and falls back to it otherwise.
    """
    bnodes = {t for triple in graph for t in triple if isinstance(t, rdflib.BNode)}
    names: dict[Any, str] = {b: "" for b in bnodes}

    def name(term: Any) -> Any:
        return ("_", names[term]) if isinstance(term, rdflib.BNode) else term

    for _ in range(rounds):
        around: dict[Any, list[str]] = {b: [] for b in bnodes}
        for s, p, o in graph:
            if s in around:
                around[s].append(f"out {p} {name(o)!r}")
            if o in around:
                around[o].append(f"in {p} {name(s)!r}")
        names = {b: hashlib.sha256("\n".join(sorted(v)).encode()).hexdigest() for b, v in around.items()}
    if len(set(names.values())) != len(names):
        return None
    return {(name(s), p, name(o)) for s, p, o in graph}


def finding(text: str = "x", name: str = "invented review", url: str | None = "https://example.org/review",
            evidence: tuple[str, ...] = ()) -> Finding:
    return Finding(
        item="toy-pro:101", target="key", kind="wrong_key", source=Source(name, url, "person"),
        proposed=text, evidence=list(evidence), status="submitted", status_date="2025-02-03",
    )


TRICKY = 'a "quoted" \\ back\\slash\nnew line\r\tTab \x00\x01\x1f\x7f é 中文 \u2028 \U0001F600 \\n'


def test_toy_nt_is_the_rdflib_bytes_and_other_formats_the_same_graph(toy_lineage: Lineage) -> None:
    found = [finding(TRICKY, name=TRICKY, evidence=(TRICKY, "second")), finding("y", url=None)]
    graph = build_graph_reference(toy_lineage, found, time="2025-01-01T00:00:00Z")
    assert set(build_graph(toy_lineage, found, time="2025-01-01T00:00:00Z")) == set(graph)  # the package's graph
    assert serialize_lineage(toy_lineage, found, fmt="nt", time="2025-01-01T00:00:00Z") == rdflib_nt(graph)
    for fmt in FORMATS:
        data = serialize_lineage(toy_lineage, found, fmt=fmt, time="2025-01-01T00:00:00Z")
        assert same_graph(data, fmt, graph), fmt


def test_write_prov_streams_the_same_bytes_whatever_the_chunk(
    toy_lineage_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tiny chunks (many runs, merged a few lines at a time) give the same file."""
    written = {}
    for chunk, block in ((None, None), (2_000, 7)):
        if chunk is not None:
            monkeypatch.setattr(stream, "CHUNK_BYTES", chunk)
            monkeypatch.setattr(stream, "BLOCK_LINES", block)
        for fmt in FORMATS:
            out = tmp_path / f"{chunk}.{fmt}"
            result = write_prov(toy_lineage_path, out, fmt=fmt, time=0)
            written[chunk, fmt] = out.read_bytes()
            assert is_prov_file(out) and result.triples == len(build_graph(Lineage.read(toy_lineage_path), time=0))
    for fmt in FORMATS:
        assert written[None, fmt] == written[2_000, fmt], fmt
    assert written[None, "nt"].startswith(PROV_FILE_COMMENT)


def test_sorted_lines_are_distinct_and_in_byte_order() -> None:
    lines = [f"<https://x/{i % 37}> <https://p> \"{'é' * (i % 3)}\" .\n" for i in range(2_000)]
    with SortedLines(chunk_bytes=3_000) as sorter:
        for start in range(0, len(lines), 300):
            sorter.add(pa.array([*lines[start:start + 300], None], pa.string()))
        out = list(sorter.lines())
    expected = sorted({line.encode() for line in lines})
    assert out == expected and sorter.count == len(expected)
    with SortedLines() as empty:
        assert list(empty.lines()) == [] and empty.count == 0


@pytest.mark.parametrize(
    "bad",
    ["https://example.org/a b", "https://example.org/a<b>", 'https://example.org/"q"', "https://example.org/a\tb",
     "https://example.org/{x}", "https://example.org/a\\b", "https://example.org/a^b|c`d"],
)
def test_an_iri_ntriples_cannot_hold_is_refused_with_a_code(
    bad: str, toy_lineage: Lineage, capfd: pytest.CaptureFixture[str]
) -> None:
    family = toy_lineage.family.to_dict()
    family["datasets"] = [dict(d, iri=bad) if d["name"] == "toy-base" else d for d in family["datasets"]]
    broken = Lineage(family=family, items=toy_lineage.items, edges=toy_lineage.edges)
    for fmt in FORMATS:
        with pytest.raises(InputError) as err:
            serialize_lineage(broken, fmt=fmt)
        assert err.value.code == "CL-E001" and "not an IRI" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(InputError):
        serialize_lineage(toy_lineage, [finding(url=bad)], fmt="nt")
    assert capfd.readouterr().err == ""  # refused before rdflib could warn


def test_a_text_utf8_cannot_encode_is_refused_with_a_code(toy_lineage: Lineage) -> None:
    with pytest.raises(InputError) as err:
        serialize_lineage(toy_lineage, [finding("lone \ud800 surrogate")], fmt="nt")
    assert err.value.code == "CL-E001"


def test_any_graph_round_trips_whatever_its_vocabulary() -> None:
    """serialize() of a graph outside the library's vocabulary: full IRIs as keys and types."""
    ex = rdflib.Namespace("https://example.org/v/")
    graph = rdflib.Graph()
    node = rdflib.BNode("n1")
    graph.add((ex.a, rdflib.RDF.type, ex.Thing))
    graph.add((ex.a, ex.odd, rdflib.Literal("x", datatype=ex.dt)))
    graph.add((ex.a, rdflib.URIRef("http://www.w3.org/ns/prov#a/b"), node))
    graph.add((node, ex.p, rdflib.Literal("y", lang="fr")))
    for fmt in FORMATS:
        assert same_graph(serialize(graph, fmt), fmt, graph), fmt


def test_terms() -> None:
    assert iri("https://example.org/a#b%20c") == "<https://example.org/a#b%20c>"
    assert escape('a"b\\c\nd\re\tf') == 'a\\"b\\\\c\\nd\\re\tf'
    assert literal_value('"a\\"b\\\\n\\n"@en') == ('a"b\\n\n', None, "en")
    assert literal_value('"4"^^<http://www.w3.org/2001/XMLSchema#integer>') == (
        "4", "http://www.w3.org/2001/XMLSchema#integer", None)


# --- property test: random small families -------------------------------------------

_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
_ident = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=8)
_DATASETS = {"a": "https://example.org/a", "b": "https://example.org/b#"}


@st.composite
def families(draw: Any) -> tuple[Lineage, list[Finding]]:
    """Two family datasets (``b`` derived from ``a``) and ``c`` outside the family."""
    activity = draw(st.sampled_from(sorted(ACTIVITIES)))
    family = {
        "name": "random",
        "datasets": [{"name": n, "iri": i} for n, i in _DATASETS.items()],
        "derivations": [{"child": "b", "parent": "a", "activity": activity, "note": draw(_text)}],
    }
    items = draw(st.lists(st.tuples(st.sampled_from("abc"), _ident), max_size=8))
    opt = st.none() | st.integers(0, 2**31 - 1)
    edges = draw(st.lists(st.fixed_dictionaries({
        "child_dataset": st.sampled_from("bc"), "child_item": _ident,
        "parent_dataset": st.just("a"), "parent_item": _ident,
        "activity": st.sampled_from(sorted(ACTIVITIES)), "method": _text,
        "score": st.floats(0, 100, allow_nan=False),
        "options_score": st.none() | st.floats(0, 100, allow_nan=False),
        "option_map": st.none() | st.lists(st.integers(-1, 12), max_size=5),
        "options_copied": opt, "options_added": opt, "options_dropped": opt,
        "key_inherited": st.none() | st.booleans(), "stem_changed": st.none() | st.booleans(),
        "ambiguous": st.none() | st.booleans(),
        "alternatives": st.none() | st.lists(_ident, max_size=3),
    }), max_size=6))
    lineage = Lineage(
        family=family,
        items=pa.Table.from_pylist([{"dataset": d, "item": i} for d, i in items], schema=ITEMS_BASE_SCHEMA),
        edges=pa.Table.from_pylist(edges, schema=EDGES_SCHEMA),
    )
    found = [
        Finding(item=f"{draw(st.sampled_from('ac'))}:{draw(_ident)}", target="key", kind="wrong_key",
                source=Source(draw(_ident), draw(st.none() | st.just("https://example.org/s")), "person"),
                proposed=draw(_text), evidence=draw(st.lists(_text, max_size=2)), status="submitted",
                status_date="2025-02-03")
        for _ in range(draw(st.integers(0, 2)))
    ]
    return lineage, found


@settings(max_examples=40)
@given(families(), st.booleans())
def test_random_families_give_the_reference_graph(case: tuple[Lineage, list[Finding]], items: bool) -> None:
    lineage, found = case
    graph = build_graph_reference(lineage, found, items=items, time=0)
    assert set(build_graph(lineage, found, items=items, time=0)) == set(graph)
    assert serialize_lineage(lineage, found, fmt="nt", items=items, time=0) == rdflib_nt(graph)
    for fmt in ("turtle", "json-ld"):
        assert same_graph(serialize_lineage(lineage, found, fmt=fmt, items=items, time=0), fmt, graph), fmt


# --- the real family -----------------------------------------------------------------


@pytest.mark.slow
def test_mmlu_sample_is_the_reference_graph(mmlu_lineage: Lineage) -> None:
    """A 10 % sample of the MMLU family (every tenth item and edge): N-Triples the rdflib
    bytes, Turtle and JSON-LD the same graph."""
    sample = Lineage(
        family=mmlu_lineage.family,
        items=mmlu_lineage.items.select(["dataset", "item"]).take(list(range(0, mmlu_lineage.items.num_rows, 10))),
        edges=mmlu_lineage.edges.take(list(range(0, mmlu_lineage.edges.num_rows, 10))),
    )
    graph = build_graph_reference(sample, time=0)
    assert len(graph) > 100_000
    assert serialize_lineage(sample, fmt="nt", time=0) == rdflib_nt(graph)
    for fmt in ("turtle", "json-ld"):
        assert same_graph(serialize_lineage(sample, fmt=fmt, time=0), fmt, graph), fmt
