"""Offline JSON-LD: remote contexts come from local copies or fail with a code, never a fetch."""

from __future__ import annotations

import copy
import json
import urllib.request
from typing import Any

import pytest
import rdflib
from rdflib.compare import isomorphic

from croissant_lineage.croissant import jsonld
from croissant_lineage.croissant.jsonld import inline_contexts, local_context, to_graph
from croissant_lineage.errors import DescriptorError

DOC: dict[str, Any] = {
    "@type": "sc:Dataset",
    "name": "tiny",
    "conformsTo": "http://mlcommons.org/croissant/1.1",
    "recordSet": [{"@type": "cr:RecordSet", "@id": "default", "name": "default"}],
}


@pytest.fixture(autouse=True)
def _no_fetch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a URL fails the test (besides the session's network guard)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"network fetch attempted: {args[:1]}")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    import rdflib.plugins.shared.jsonld.context as ctx_mod

    monkeypatch.setattr(ctx_mod, "source_to_json", refuse)


def _inline(doc: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out["@context"] = local_context("http://mlcommons.org/croissant/1.1")
    return out


@pytest.mark.parametrize(
    "url",
    [
        "http://mlcommons.org/croissant/1.1",
        "https://mlcommons.org/croissant/1.1/context.jsonld",
    ],
)
def test_remote_context_resolves_from_local_copy(url: str) -> None:
    doc = {"@context": url, **DOC}
    graph = to_graph(doc)
    assert isomorphic(graph, to_graph(_inline(DOC)))
    assert (rdflib.URIRef(jsonld.DEFAULT_BASE + "default"), rdflib.RDF.type,
            rdflib.URIRef("http://mlcommons.org/croissant/RecordSet")) in graph


def test_unknown_remote_context_is_a_coded_error() -> None:
    with pytest.raises(DescriptorError) as err:
        to_graph({"@context": "https://example.org/unknown-context.jsonld", **DOC})
    assert err.value.code == "CL-E002"


def test_unknown_import_and_nested_contexts_are_refused() -> None:
    with pytest.raises(DescriptorError):
        to_graph({"@context": {"@import": "https://example.org/x.jsonld"}, **DOC})
    nested = {"@context": {"sc": "https://schema.org/"}, "@type": "sc:Dataset",
              "sc:hasPart": {"@context": "https://example.org/y.jsonld", "sc:name": "x"}}
    with pytest.raises(DescriptorError):
        to_graph(nested)


def test_lists_imports_and_scoped_contexts_are_inlined() -> None:
    extra = {"https://example.org/prov.jsonld": {"@context": {"prov": "http://www.w3.org/ns/prov#"}}}
    doc = {
        "@context": [
            "http://mlcommons.org/croissant/1.1",
            {"@import": "https://example.org/prov.jsonld", "x": {"@id": "sc:x", "@context": "https://example.org/prov.jsonld"}},
        ],
        **DOC,
        "prov:wasDerivedFrom": {"@id": "https://example.org/parent"},
    }
    out = inline_contexts(doc, contexts=extra)
    assert "https://example.org" not in json.dumps(out["@context"])
    graph = to_graph(doc, contexts=extra)
    derived = list(graph.objects(None, rdflib.URIRef("http://www.w3.org/ns/prov#wasDerivedFrom")))
    assert derived == [rdflib.URIRef("https://example.org/parent")]
    assert doc["@context"][0] == "http://mlcommons.org/croissant/1.1"  # input untouched


def test_base_is_explicit_and_location_independent() -> None:
    doc = _inline(DOC)
    a = to_graph(doc, base="https://example.org/ds/")
    assert (rdflib.URIRef("https://example.org/ds/default"), rdflib.RDF.type, None) in a
    assert isomorphic(to_graph(doc), to_graph(doc))


def test_local_context_is_a_fresh_copy() -> None:
    ctx = local_context("http://mlcommons.org/croissant/1.1")
    ctx["cr"] = "changed"
    assert local_context("http://mlcommons.org/croissant/1.1")["cr"] == "http://mlcommons.org/croissant/"


def test_packaged_context_matches_mlcroissant() -> None:
    from mlcroissant._src.core.context import Context, CroissantVersion
    from mlcroissant._src.core.rdf import make_context

    for version in (CroissantVersion.V_1_0, CroissantVersion.V_1_1):
        expected = make_context(Context(conforms_to=version))
        ours = local_context(version.value)
        ours.pop("annotation", None)  # Croissant 1.1 term mlcroissant 1.1.1 leaves out
        assert ours == expected


def test_invalid_json_ld_is_a_descriptor_error() -> None:
    with pytest.raises(DescriptorError) as err:
        to_graph({"@context": 5, "@id": "x"})
    assert err.value.code == "CL-E002"
    with pytest.raises(DescriptorError):
        to_graph({"@context": "http://mlcommons.org/croissant/1.1", "@id": "x", "name": float("nan")})
