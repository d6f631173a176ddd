"""The hand-off rules of docs/architecture.md, checked on the code (AST: no module is imported).

* **typed hand-off**: a :class:`~croissant_lineage.lineage.model.Lineage` carries a typed
  family (:class:`~croissant_lineage.lineage.info.FamilyInfo`) and a typed link summary
  (:class:`~croissant_lineage.lineage.info.LinkSummary`); no public function, method or
  dataclass field of a stage below ``cli`` takes a ``dict[str, Any]`` (or ``Mapping[str, Any]``)
  for what crosses stages. The exceptions are listed below, each with its reason: JSON
  documents that *are* the input or output format (Croissant JSON-LD, a Hub card's YAML
  header), the family spec's own expression language, readers of JSON back into types, and
  result payloads whose ``to_dict`` is their JSON.
* **no (lineage, spec) pair**: no public function takes both a ``Lineage`` and a ``FamilySpec``
  (the exceptions, with their reason, below).
* **one kind per parameter**: no public parameter takes a union of two domain kinds
  (``str | Finding``, ``Table | Lineage``); a lineage in its forms and a family by spec,
  name or path are each one kind (the exceptions, with their reason, below).
* **one path to a Lineage**: only ``workflows`` (and ``beam``, which links per block and
  assembles through the same builder) calls the linker's family-level entry point
  (``link_family`` / ``assemble_lineage``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "croissant_lineage"

#: ``dict[str, Any]`` (or a Mapping of it) in an annotation.
UNTYPED = re.compile(r"\b(dict|Mapping|MutableMapping)\[str, Any\]")

#: Why a public ``dict[str, Any]`` parameter or field is not a stage hand-off, and where.
JUSTIFIED: dict[str, set[str]] = {
    "a Croissant JSON-LD document or node: the input format itself": {
        "croissant/describe.py:DescribeResult.descriptor", "validate/structure.py:check_structure.doc",
        "croissant/resources.py:resource_kind.node",
        "croissant/descriptor.py:FileNode.node", "croissant/descriptor.py:FieldNode.node",
        "croissant/descriptor.py:RecordSetNode.node", "croissant/descriptor.py:Descriptor.doc",
        "croissant/jsonld.py:local_context.extra", "croissant/jsonld.py:check_contexts.contexts",
        "croissant/jsonld.py:inline_contexts.contexts", "croissant/jsonld.py:to_graph.contexts",
        "croissant/jsonld.py:read_graph.contexts", "croissant/jsonld.py:context_object.doc",
        "croissant/jsonld.py:term_meaning.ctx", "croissant/mlc.py:run_mlcroissant.doc",
        "croissant/mlc.py:mlcroissant_issues.doc",
        "enrich/descriptor.py:ensure_context.doc", "enrich/descriptor.py:ensure_context.terms",
        "enrich/descriptor.py:add_values.node", "enrich/descriptor.py:add_values.values",
        "enrich/descriptor.py:used_descriptor.doc", "enrich/descriptor.py:enrich_descriptor.doc",
        "enrich/marks.py:seal.doc", "enrich/marks.py:note_rebased.doc", "enrich/marks.py:note_rebased.records",
        "enrich/marks.py:strip_enrichment.doc", "enrich/places.py:unloadable_record_sets.doc",
        "enrich/places.py:load_warning.doc", "enrich/places.py:rebase_urls.doc",
        "enrich/places.py:in_place_names.doc",
        "prov/graph.py:DatasetProv.derived_from", "prov/graph.py:DatasetProv.qualified",
        "prov/graph.py:DatasetProv.activities", "prov/graph.py:enrichment_node.used",
        "resolve.py:EnrichedSource.datasets",
        "hub/card.py:card_metadata.doc", "hub/repo_descriptor.py:descriptor_parquet.doc",
        "hub/repo_descriptor.py:for_repository.doc", "hub/tables.py:descriptor_findings.doc",
        "validate/card.py:descriptor_parents.doc", "validate/context.py:check_context.doc",
        "validate/croissant.py:check_with_mlcroissant.doc", "validate/detect.py:is_enriched.doc",
        "validate/files.py:FileCheck.for_node.node", "validate/files.py:check_files.doc",
    },
    "a Hub dataset card's YAML header or its configs: the output format": {
        "hub/card.py:merge_header.base", "hub/card.py:merge_header.ours", "hub/card.py:render_card.header",
        "hub/card.py:card_configs.header", "hub/repo_descriptor.py:config_paths.config",
        "hub/repo_descriptor.py:for_repository.configs",
    },
    "the family spec's role and filter expressions (its own small language, any JSON value)": {
        "family/spec.py:DatasetSpec.roles", "family/spec.py:DatasetSpec.where",
        "lineage/records_json.py:filter_where.where", "discovery/roles.py:RoleGuess.roles",
        "discovery/roles.py:infer_roles.overrides", "discovery/roles.py:guess_dataset.roles",
        "discovery/propose.py:discover.roles",
    },
    "a reader of JSON back into a type (its input is the JSON)": {
        "findings/model.py:Source.from_dict.d", "findings/model.py:Finding.from_dict.d",
        "lineage/info.py:DatasetInfo.from_dict.d", "lineage/info.py:DerivationInfo.from_dict.d",
        "lineage/info.py:FamilyInfo.from_dict.d", "lineage/info.py:DerivationCounts.from_dict.d",
        "lineage/info.py:ProposalCounts.from_dict.d", "lineage/info.py:LinkSummary.from_dict.d",
        "validate/github.py:github_annotations.report", "validate/github.py:github_summary.report",
    },
    "a result's JSON payload (what to_dict prints), or one raw record read from the data": {
        "discovery/proposal.py:Proposal.evidence", "discovery/proposal.py:Proposal.runner_up",
        "audits/translations/probe.py:Join.row", "lineage/graph.py:Relatives.documented",
        "lineage/graph.py:Relatives.findings", "discovery/family.py:Relation.counts",
        "discovery/family.py:FamilyDiscovery.choices", "discovery/family.py:FamilyDiscovery.index",
        "discovery/direction.py:direction.counts", "discovery/propose.py:Discovery.index",
        "linking/itemdiff.py:compare_items.old", "linking/itemdiff.py:compare_items.new",
        "render/_evidence.py:edge_evidence.edge", "render/html.py:html_table.rows",
    },
    "one derivation's link counts inside linking and beam, typed as DerivationCounts once assembled": {
        "linking/linker.py:assemble_lineage.stats", "beam/blocks.py:BlockPart.stats",
        "beam/blocks.py:merge_stats.parts",
    },
}

#: Public functions that take both a Lineage and a FamilySpec, and why.
LINEAGE_AND_SPEC: dict[str, str] = {
    "enrich/family.py:enrich_family": "the spec names the descriptor files to write (a lineage folder does not)",
    "beam/enrich.py:enrich_family_beam": "the same as enrich_family, one Beam step per descriptor file",
    "linking/linker.py:link_family": (
        "the builder: an update hands it the lineage linked before (kept), whose derivations it keeps, with the spec"),
    "findings/importers/errata.py:import_mmlu_pro_errata": (
        "not yet converted: loads its dataset's items from a family and a data folder when none are handed in"),
    "findings/importers/redux.py:import_redux": (
        "not yet converted: loads its dataset's items from a family and a data folder when none are handed in"),
}


def _modules() -> Iterator[tuple[str, ast.Module, set[str]]]:
    """Every module of a stage below ``cli`` with its public names (``__all__``)."""
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        if rel.parts[0] == "cli":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                try:
                    names = set(ast.literal_eval(node.value))
                except ValueError:  # a computed __all__ (the package's lazy one)
                    names = set()
        yield rel.as_posix(), tree, names


def _args(fn: ast.FunctionDef) -> list[ast.arg]:
    return [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]


def _public_signatures() -> Iterator[tuple[str, str, str]]:
    """``(module, qualified name.parameter or Class.field, annotation)`` of the public API."""
    for rel, tree, names in _modules():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name in names:
                for a in _args(node):
                    if a.annotation is not None:
                        yield rel, f"{node.name}.{a.arg}", ast.unparse(a.annotation)
            if isinstance(node, ast.ClassDef) and node.name in names:
                dataclass = any("dataclass" in ast.unparse(d) for d in node.decorator_list)
                for b in node.body:
                    if dataclass and isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name):
                        yield rel, f"{node.name}.{b.target.id}", ast.unparse(b.annotation)
                    if isinstance(b, ast.FunctionDef) and not b.name.startswith("_"):
                        for a in _args(b):
                            if a.annotation is not None:
                                yield rel, f"{node.name}.{b.name}.{a.arg}", ast.unparse(a.annotation)


def test_no_untyped_dict_crosses_stages() -> None:
    allowed = set().union(*JUSTIFIED.values())
    untyped = {f"{rel}:{name}" for rel, name, ann in _public_signatures() if UNTYPED.search(ann)}
    assert sorted(untyped - allowed) == [], "type it, or list it in JUSTIFIED with its reason"
    assert sorted(allowed - untyped) == [], "no longer untyped: drop it from JUSTIFIED"


def test_a_lineage_carries_a_typed_family_and_summary() -> None:
    fields = {name: ann for rel, name, ann in _public_signatures() if rel == "lineage/model.py"}
    assert fields["Lineage.family"] == "FamilyInfo"
    assert fields["Lineage.summary"] == "LinkSummary"


def test_no_public_function_takes_a_lineage_and_a_spec() -> None:
    pairs = set()
    for rel, tree, names in _modules():
        if rel == "workflows.py":  # the one place that turns a family and a lineage folder into a Lineage
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name in names:
                anns = " ".join(ast.unparse(a.annotation) for a in _args(node) if a.annotation is not None)
                lineage = re.search(r"\bLineage(Like)?\b", anns) or any(a.arg == "lineage" for a in _args(node))
                if lineage and "FamilySpec" in anns:
                    pairs.add(f"{rel}:{node.name}")
    assert sorted(pairs - set(LINEAGE_AND_SPEC)) == [], sorted(pairs - set(LINEAGE_AND_SPEC))


#: The linker's family-level entry points: building a whole Lineage.
BUILDERS = {"link_family", "assemble_lineage"}

#: Who may call them: workflows (loads, then links), beam (links per block, assembles through
#: the same builder), and the linker itself.
BUILDER_CALLERS = {"workflows.py", "beam/blocks.py", "linking/linker.py"}


def test_only_workflows_builds_a_linked_lineage() -> None:
    callers = set()
    for rel, tree, _names in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
                if name in BUILDERS:
                    callers.add(rel)
    assert callers <= BUILDER_CALLERS, sorted(callers - BUILDER_CALLERS)
    assert "workflows.py" in callers


def test_readers_use_the_family_and_summary_attributes() -> None:
    """No module reads a lineage's family or summary as a mapping (the deprecated form)."""
    untyped = re.compile(r"\.(family|summary)(\.get\(|\[)")
    found = [f"{p.relative_to(PKG)}:{n}" for p in sorted(PKG.rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if untyped.search(line) and "args." not in line and p.name != "info.py"]  # (info.py: the deprecated form)
    assert found == []


def test_the_mapping_reads_still_work_deprecated() -> None:
    import pytest

    from croissant_lineage.lineage.info import FamilyInfo, LinkSummary

    family = FamilyInfo.from_dict({"name": "f", "title": "", "datasets": [{"name": "a", "iri": "x"}], "derivations": []})
    with pytest.deprecated_call():
        assert family["datasets"][0]["iri"] == "x"
    with pytest.deprecated_call():
        assert LinkSummary(family="f", edges=3).get("edges") == 3


#: The domain kinds a parameter may take, by the names that spell them in annotations. A
#: parameter takes one kind: a union of two (``str | Finding``, ``Table | Lineage``) makes its
#: meaning depend on the value. A lineage in any of its forms (``LineageLike``: a Lineage, its
#: graph or its folder, converted by ``lineage.graph.as_lineage``) and a family by spec, name
#: or path (converted by ``family.spec.as_spec``) are each one kind.
KINDS: dict[str, str] = {
    "Lineage": "lineage", "LineageGraph": "lineage", "LineageLike": "lineage",
    "FamilySpec": "family", "FamilyInfo": "family", "DatasetSpec": "dataset",
    "Finding": "finding", "Queue": "queue", "Descriptor": "descriptor",
    "Table": "table", "pa.Table": "table", "pd.DataFrame": "frame",
}

#: Kinds a name or path may stand for (each with its one conversion): a string or a path
#: beside them is their reference, not a second kind.
BY_NAME = {"lineage", "family", "descriptor"}

#: The plain spellings of a name or a path.
TEXT = {"str", "Path", "os.PathLike", "PathLike", "os.PathLike[str]", "PathLike[str]"}

#: Public parameters that take a union of two kinds, and why.
TWO_KINDS: dict[str, str] = {}


def _members(annotation: str) -> set[str]:
    """The members of a union annotation (``A | B | None``, ``Union[A, B]``, ``Optional[A]``)."""
    tree = ast.parse(annotation, mode="eval").body
    out: set[str] = set()

    def walk(node: ast.expr) -> None:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            walk(node.left)
            walk(node.right)
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Union", "Optional", "typing.Union"):
            for item in node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]:
                walk(item)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted forward reference
            walk(ast.parse(node.value, mode="eval").body)
        else:
            out.add(ast.unparse(node))

    walk(tree)
    return out - {"None"}


def _kinds(annotation: str) -> set[str]:
    """The domain kinds of ``annotation``'s union, a name or path beside a kind that has none
    counted as a kind of its own (``text``)."""
    members = _members(annotation)
    kinds = {KINDS[m] for m in members if m in KINDS}
    if members & TEXT and kinds and not kinds & BY_NAME:
        kinds.add("text")
    return kinds


def test_a_parameter_takes_one_kind() -> None:
    two = {f"{rel}:{name}" for rel, name, ann in _public_signatures()
           if name.count(".") and len(_kinds(ann)) > 1}
    assert sorted(two - set(TWO_KINDS)) == [], "split the function (one per kind), or list it in TWO_KINDS with its reason"
    assert sorted(set(TWO_KINDS) - two) == [], "takes one kind now: drop it from TWO_KINDS"


def test_the_kind_check_sees_the_unions_it_refuses() -> None:
    assert _kinds("str | Finding") == {"text", "finding"}
    assert _kinds("pa.Table | Lineage") == {"table", "lineage"}
    assert _kinds("Lineage | LineageGraph | str | Path | None") == {"lineage"}
    assert _kinds("FamilySpec | str | Path") == {"family"}
    assert _kinds("Optional[Union[Finding, 'Lineage']]") == {"finding", "lineage"}
    assert _kinds("str | None") == set() and _kinds("Sequence[Finding]") == set()
