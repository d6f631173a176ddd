"""Property-based tests (Hypothesis): invariants hold and only the library's errors escape.

The profile comes from ``tests/conftest.py``: ``ci`` (default, 60 derandomised examples
per test) or ``long`` by hand (``HYPOTHESIS_PROFILE=long python3 -m pytest tests/test_fuzz.py``).
"""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import pytest
import rdflib
import yaml
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from croissant_lineage._io import dumps_json, load_yaml, loads_json
from croissant_lineage.croissant.jsonld import PROV_NS, to_graph
from croissant_lineage.croissant.tables import read_table
from croissant_lineage.enrich import enrich_descriptor, strip_enrichment
from croissant_lineage.errors import LineageError
from croissant_lineage.family.spec import Derivation, LinkRule
from croissant_lineage.findings.files import findings_from_document, load_findings
from croissant_lineage.linking.linker import link_derivation
from croissant_lineage.linking.normalize import normalize_option, normalize_stem
from croissant_lineage.linking.options import diff_options
from tests.helpers import items_table

# Text that exercises the normaliser: quotes, dashes, odd spaces, digits, fractions,
# dates and clock times as spreadsheets damage them, plus any Unicode at all.
_TRICKY = st.sampled_from(
    ["\u2019", "\u201c", "\u2014", "\u00a0", "\u0085", "\u200b", "\u00d5", "\u2212", " ", "\t", "\n", ".", ",",
     "/", ":", "-", "$", "0", "1", "2", "9", "1.0/2", "1:04", "$1,000", "2-Jan", "\uff21", "\u00df", "\u01f0",
     "\u0130", "\ufb01", "\u2167", "\u00bd"]
)
TEXT = st.one_of(st.text(), st.lists(st.one_of(_TRICKY, st.text(max_size=3)), max_size=12).map("".join))
#: Options from a small alphabet, so that collisions, near-copies and permutations are common.
OPTION = st.one_of(st.text(alphabet="ab .1/,:", max_size=6), st.sampled_from(["1/2", "1.0/2", "2-Jan", "$1,000", "$1000", "A.", "a"]))
OPTIONS = st.lists(OPTION, max_size=8)


# --- the normaliser ---------------------------------------------------------------


@given(TEXT)
def test_normalize_stem_is_idempotent_and_total(text: str) -> None:
    key = normalize_stem(text)
    assert isinstance(key, str)
    assert normalize_stem(key) == key
    assert key == key.strip() and "  " not in key


@given(TEXT)
@example("a. .")  # found by hand: trailing dots and spaces were stripped one layer per call
@example("2-Jan.")  # found by the long profile: the date repair ran before the trailing dot went
@example("1/2.0.")
def test_normalize_option_is_idempotent_and_total(text: str) -> None:
    key = normalize_option(text)
    assert normalize_option(key) == key


@given(TEXT)
def test_normalize_ignores_case_and_spacing(text: str) -> None:
    assert normalize_stem(f"  {text.upper()}\n ") == normalize_stem(text.upper())


# --- option diff ------------------------------------------------------------------


@given(OPTIONS, OPTIONS)
def test_option_diff_is_a_partial_injection_with_consistent_counts(child: list[str], parent: list[str]) -> None:
    d = diff_options(child, parent)
    assert len(d.option_map) == len(child)
    used = [j for j in d.option_map if j >= 0]
    assert all(-1 <= j < len(parent) for j in d.option_map)
    assert len(used) == len(set(used))  # each parent option is copied at most once
    assert d.copied == len(used)
    assert d.copied + d.added == len(child)
    assert d.copied + d.dropped == len(parent)
    assert 0.0 <= d.score <= 100.0


@given(OPTIONS)
def test_option_diff_of_a_list_with_itself_is_the_identity(options: list[str]) -> None:
    d = diff_options(options, options)
    assert d.option_map == tuple(range(len(options)))
    assert (d.copied, d.added, d.dropped, d.score) == (len(options), 0, 0, 100.0)
    for k in range(len(options)):
        assert d.key_inherited(k, k) is True


@given(st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=5), min_size=1, max_size=8, unique=True), st.data())
def test_option_diff_follows_a_permutation(options: list[str], data: st.DataObject) -> None:
    order = data.draw(st.permutations(range(len(options))))
    d = diff_options([options[i] for i in order], options)
    assert d.option_map == tuple(order)


@given(OPTIONS, OPTIONS)
def test_option_diff_matches_normalised_copies_exactly(extra: list[str], parent: list[str]) -> None:
    """Options copied with formatting damage still pair with their parent options."""
    assume(len({normalize_option(p) for p in parent}) == len(parent))
    # an extra option equal to a parent option is itself a copy, and an exact one wins
    assume(not {normalize_option(e) for e in extra} & {normalize_option(p) for p in parent})
    damaged = [f" {p.upper()}  " for p in parent]
    d = diff_options(damaged + extra, parent)
    assert d.option_map[: len(parent)] == tuple(range(len(parent)))


# --- matching ---------------------------------------------------------------------

SUBJECTS = ["alpha", "beta", "gamma"]
WORDS = ["glorb", "wibble", "sprocket", "quill", "tarn", "moss", "river", "seven", "blue", "north"]
STEM = st.lists(st.sampled_from(WORDS), min_size=1, max_size=7).map(lambda ws: " ".join(ws) + "?")
ITEM = st.fixed_dictionaries({"subject": st.sampled_from(SUBJECTS), "stem": STEM, "options": st.lists(st.sampled_from(WORDS), min_size=0, max_size=4)})


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ITEM, min_size=1, max_size=12), st.lists(ITEM, max_size=8), st.data())
def test_links_stay_in_their_block_and_exact_copies_link(parents: list[dict], others: list[dict], data: st.DataObject) -> None:
    copies = data.draw(st.lists(st.sampled_from(range(len(parents))), max_size=6))
    children = [dict(parents[j]) for j in copies] + others
    ptable = items_table("p", [{**p, "item": f"p{n}", "key": "A"} for n, p in enumerate(parents)])
    ctable = items_table("c", [{**c, "item": f"c{n}", "key": "A"} for n, c in enumerate(children)])
    deriv = Derivation("c", "p", "option_expansion", LinkRule(by="text", threshold=85.0))
    edges, unmatched, stats = link_derivation(deriv, ctable, ptable)
    subject = {f"p{n}": p["subject"] for n, p in enumerate(parents)} | {f"c{n}": c["subject"] for n, c in enumerate(children)}
    stem = {f"p{n}": p["stem"] for n, p in enumerate(parents)} | {f"c{n}": c["stem"] for n, c in enumerate(children)}
    pairs = list(zip(edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist(), strict=True))
    # One edge per linked child; linked + unmatched = every child.
    assert len({c for c, _ in pairs}) == len(pairs)
    assert len(pairs) + unmatched.num_rows == len(children) == stats["selected"]
    # Never across blocks (subjects).
    for c, p in pairs:
        assert subject[c] == subject[p]
    # Scores on the 0-100 scale; fuzzy links at or above the threshold.
    for method, score in zip(edges.column("method").to_pylist(), edges.column("score").to_pylist(), strict=True):
        assert 0.0 <= score <= 100.0
        assert method != "fuzzy" or score >= 85.0
    # An exact copy links to its parent (or to a parent with the same stem and options).
    linked = dict(pairs)
    for n, j in enumerate(copies):
        c = f"c{n}"
        assert c in linked, f"exact copy of p{j} left unmatched"
        p = linked[c]
        assert (subject[p], normalize_stem(stem[p])) == (subject[f"p{j}"], normalize_stem(parents[j]["stem"]))


# --- parsers: only the library's errors escape -----------------------------------

JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4),
    max_leaves=20,
)
_GOOD_FINDING = {"id": "F-1", "item": "bad:1", "target": "key", "kind": "wrong_key", "proposed": "4",
                 "source": {"name": "tester", "kind": "manual"}, "evidence": ["counted"], "status": "proposed"}
_FIELDS = [*_GOOD_FINDING, "option_index", "status_date", "status_reason", "history", "related", "unknown"]


@given(JSON_VALUE)
def test_findings_parser_raises_only_lineage_errors_on_any_document(doc: Any) -> None:
    for document in (doc, {"findings": [doc]}, {"findings": [_GOOD_FINDING, doc]}):
        with contextlib.suppress(LineageError):
            findings_from_document(document)


@given(st.lists(st.tuples(st.sampled_from(_FIELDS), JSON_VALUE), max_size=4), st.lists(st.sampled_from(_FIELDS), max_size=2))
def test_findings_parser_on_mutated_findings(changes: list[tuple[str, Any]], dropped: list[str]) -> None:
    entry = dict(_GOOD_FINDING) | dict(changes)
    for name in dropped:
        entry.pop(name, None)
    try:
        found = findings_from_document({"findings": [entry]})
    except LineageError as exc:
        assert exc.code in ("CL-E005", "CL-E001")
    else:
        assert len(found) == 1 and found[0].id == entry.get("id", found[0].id)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=200), TEXT.map(lambda t: t.encode("utf-8"))), st.sampled_from([".json", ".yaml"]))
def test_findings_files_of_any_bytes(tmp_path: Path, raw: bytes, suffix: str) -> None:
    path = tmp_path / f"f{suffix}"
    path.write_bytes(raw)
    with contextlib.suppress(LineageError):
        load_findings(path)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=300), st.lists(st.lists(TEXT, max_size=4), max_size=5).map(
    lambda rows: "\n".join(",".join(r) for r in rows).encode("utf-8"))))
@example(b"\r\x01")  # found by the long profile: a bare CR in the first line broke delimiter sniffing
def test_csv_of_any_bytes_reads_or_raises_a_coded_error(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "data.csv"
    path.write_bytes(raw)
    try:
        table = read_table(path, "text/csv")
    except LineageError:
        return
    assert table.num_rows >= 0


@given(TEXT)
def test_untrusted_yaml_and_json_loaders(text: str) -> None:
    with contextlib.suppress(yaml.YAMLError):
        load_yaml(text)
    with contextlib.suppress(json.JSONDecodeError):
        loads_json(text)


@pytest.mark.parametrize("depth", [10, 900, 5000, 50_000])
def test_nesting_depth_never_escapes_as_recursion_error(depth: int) -> None:
    text = "[" * depth + "]" * depth
    for load, error in ((load_yaml, yaml.YAMLError), (loads_json, json.JSONDecodeError)):
        with contextlib.suppress(error):
            load(text)


def test_csv_with_bare_carriage_returns_reads(tmp_path: Path) -> None:
    """Old Mac files end rows with a bare CR; they read like any other CSV."""
    path = tmp_path / "mac.csv"
    path.write_bytes(b"id;q\r1;one\r2;two\r")
    assert read_table(path, "text/csv").to_pylist() == [{"id": "1", "q": "one"}, {"id": "2", "q": "two"}]


# --- enrichment round trip -----------------------------------------------------------

_BASE_DESCRIPTOR = json.loads((Path(__file__).resolve().parent / "badinput" / "_good" / "croissant.json").read_text())
_CONTEXTS = st.sampled_from([
    _BASE_DESCRIPTOR["@context"],
    ["http://mlcommons.org/croissant/1.1", {"x": "https://example.org/x#"}],
    {**_BASE_DESCRIPTOR["@context"], "prov": "http://www.w3.org/ns/prov#"},
    "http://mlcommons.org/croissant/1.1",
])
_PRIOR_PROV = st.sampled_from([None, {"@id": "https://example.org/old"}, [{"@id": "https://example.org/old"}], "https://example.org/old", []])
_PARENTS = st.lists(st.sampled_from(["https://example.org/a", "https://huggingface.co/datasets/cais/mmlu",
                                     "http://example.org/p?q=1&r=2"]), min_size=1, max_size=3, unique=True)
_EXTRA_KEYS = st.text(alphabet="abcdefxyz:_", min_size=1, max_size=8).filter(lambda k: k not in _BASE_DESCRIPTOR)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(_CONTEXTS, _PRIOR_PROV, st.dictionaries(_EXTRA_KEYS, JSON_VALUE, max_size=3), _PARENTS,
       st.sampled_from(["copy", "filter", "translation", "snapshot"]), st.sampled_from([None, "2024-01-02T03:04:05Z"]))
def test_enrichment_is_idempotent_and_keeps_the_original(
    context: Any, prior: Any, extra: dict[str, Any], parents: list[str], activity: str, time: str | None
) -> None:
    doc = {**copy.deepcopy(_BASE_DESCRIPTOR), "@context": copy.deepcopy(context), **copy.deepcopy(extra)}
    if prior is not None:
        doc["prov:wasDerivedFrom"] = copy.deepcopy(prior)
    original = copy.deepcopy(doc)
    try:
        once = enrich_descriptor(doc, derived_from=parents, activity=activity, time=time)
    except LineageError as exc:
        assert exc.code in ("CL-E001", "CL-E002")
        event(f"refused {exc.code}")
        return
    event("enriched")
    assert doc == original  # the input is not modified
    twice = enrich_descriptor(once, derived_from=parents, activity=activity, time=time)
    assert twice == once and dumps_json(twice) == dumps_json(once)
    assert strip_enrichment(once) == original
    assert list(once)[: len(original)] == list(original)  # additions come after the input's own keys
    for key, value in original.items():
        if key == "@context" and isinstance(value, dict):
            assert all(once[key][k] == v for k, v in value.items())
        elif key == "@context" and isinstance(value, list):
            assert once[key][: len(value) - 1] == value[:-1]
        elif isinstance(value, list) and value:
            assert once[key][: len(value)] == value
        else:
            assert once[key] == value, key
    if not extra:  # a clean descriptor: its graph (offline) says it derives from each parent
        graph = to_graph(once)
        derived = {str(o) for o in graph.objects(None, rdflib.URIRef(PROV_NS + "wasDerivedFrom"))}
        assert set(parents) <= derived
