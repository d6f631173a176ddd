"""Enriching a whole family: every descriptor with its lineage at every level.

:func:`enrich_family` writes each descriptor of a family spec, enriched, with its lineage
files beside it (:mod:`croissant_lineage.enrich.files`), following the rules of
:mod:`croissant_lineage.enrich.descriptor`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from croissant_lineage._io import (
    atomic_folder,
    atomic_write_json,
    read_json,
)
from croissant_lineage._results import Result
from croissant_lineage.croissant.descriptor import (
    Descriptor,
    check_croissant,
    ensure_replaceable,
)
from croissant_lineage.croissant.namespaces import CL_NS, CROISSANT_NS, PROV_NS, SCHEMA_NS
from croissant_lineage.enrich.descriptor import (
    CROISSANT_TERMS,
    add_values,
    ensure_context,
    used_descriptor,
)
from croissant_lineage.enrich.files import (
    RECORD_SETS,
    WRITTEN_KINDS,
    is_lineage_file,
    items_table,
    lineage_table,
    record_set_node,
    write_files,
)
from croissant_lineage.enrich.marks import (
    is_our_descriptor,
    is_ours,
    note_rebased,
    seal,
    strip_enrichment,
)
from croissant_lineage.enrich.places import EnrichWarning, in_place_names, load_warning, rebase_urls
from croissant_lineage.errors import DescriptorError, InputError, OutputExistsError
from croissant_lineage.family.spec import FamilySpec, as_spec
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.parquet import findings_table
from croissant_lineage.lineage.graph import LineageLike, as_lineage
from croissant_lineage.lineage.info import DatasetInfo, DerivationInfo, FamilyInfo
from croissant_lineage.lineage.model import Lineage, items_without_records
from croissant_lineage.prov.graph import (
    derivation_activities,
    enrichment_node,
    family_dataset_node,
    family_iri_of,
)
from croissant_lineage.prov.vocab import (
    MARK,
    PROV_CONTEXT,
    activity_iri,
    code,
    derivation_class,
    derivation_iri,
    enrichment_iri,
    resolve_time,
    schema_node_iri,
)

__all__ = [
    "DERIVED_ROLES", "FAMILY_TERMS", "EnrichedDescriptor", "FamilyEnrichResult", "FamilyRun",
    "enrich_descriptor_file", "enrich_family",
]


#: Everything the family enrichment's nodes need from @context.
FAMILY_TERMS: dict[str, Any] = {"@vocab": SCHEMA_NS, **PROV_CONTEXT, **CROISSANT_TERMS}


#: Family roles whose fields derive field by field (ids are each dataset's own).
DERIVED_ROLES = ("subject", "stem", "options", "key")


@dataclass(frozen=True)
class EnrichedDescriptor:
    """One descriptor written by :func:`enrich_family`.

    Attributes:
        path: The enriched descriptor.
        datasets: The family datasets it holds.
        files: File kind (``items``, ``lineage``, ``findings``) -> data file written beside it.
        items, edges, findings: Rows in its items, lineage and findings files.
        warning: ``CL-W001`` when some of its benchmark's own RecordSets do not load from
            where it was written (see :mod:`croissant_lineage.enrich.places`), else None.
    """

    path: str
    datasets: list[str]
    files: dict[str, str]
    items: int
    edges: int
    findings: int
    warning: EnrichWarning | None = None


@dataclass(frozen=True)
class FamilyEnrichResult(Result):
    """What :func:`enrich_family` wrote.

    Attributes:
        out_dir: The output folder; None when each descriptor was written beside its data
            (``in_place``).
        descriptors: One entry per enriched descriptor, in family order.
    """

    out_dir: str | None
    descriptors: list[EnrichedDescriptor]

    @property
    def warnings(self) -> list[EnrichWarning]:
        """The descriptors' coded warnings, in family order (``CL-W001``: a copy that does
        not load its benchmark's own RecordSets from where it was written)."""
        return [d.warning for d in self.descriptors if d.warning is not None]

    @property
    def edges(self) -> int:
        """Edges written over all lineage files (= the lineage's edges among these datasets)."""
        return sum(d.edges for d in self.descriptors)

    def to_dict(self) -> dict[str, Any]:
        return {
            "out_dir": self.out_dir,
            "edges": self.edges,
            "descriptors": [
                {
                    "path": d.path,
                    "datasets": d.datasets,
                    "files": d.files,
                    "items": d.items,
                    "edges": d.edges,
                    "findings": d.findings,
                }
                for d in self.descriptors
            ],
            "warnings": [w.to_dict() for w in self.warnings],
        }


def _role_fields(expr: Any) -> list[str]:
    """Field names behind a role expression; none for templates (``{subject}/{_row}``)."""
    if isinstance(expr, str):
        return [] if "{" in expr else [expr]
    if isinstance(expr, list):
        return [e for e in expr if isinstance(e, str)]
    if isinstance(expr, dict) and isinstance(expr.get("field"), str):
        return [expr["field"]]
    return []


def _find_record_set(doc: dict[str, Any], name: str, path: Path) -> dict[str, Any]:
    for node in Descriptor(path, doc, path.parent).record_set_nodes(full_iri=True):
        if not is_ours(node) and name in (node.get("@id"), node.get("name")):
            return node
    raise DescriptorError(f"no RecordSet {name!r}", path=path, hint="check the family spec's record_set")


def _find_field(rs: dict[str, Any], name: str) -> dict[str, Any] | None:
    rs_id = rs.get("@id") or rs.get("name")
    for node in rs.get("field") or []:
        if (
            isinstance(node, dict)
            and not is_ours(node)
            and (node.get("@id") in (name, f"{rs_id}/{name}") or node.get("name") == name)
        ):
            return node
    return None


def _qualified(
    family: str, child_label: str, parent_label: str, parent_iri: str, activity: str, aid: str
) -> dict[str, Any]:
    return {
        "@index": MARK,
        "@id": derivation_iri(family, parent_label, child_label),
        "@type": derivation_class(activity),
        "prov:entity": {"@id": parent_iri},
        "prov:hadActivity": {"@id": aid},
    }


def _schema_level(
    rs: dict[str, Any], child: Any, parent: Any, activity: str, path: Path, family: str, aid: str
) -> None:
    """RecordSet- and Field-level derivations of ``child`` (a DatasetSpec) from ``parent``
    (IRIs minted under ``family``; ``aid``: the activity of the dataset-level derivation)."""
    rs_iri = schema_node_iri(parent.iri, parent.record_set)
    _add_derived_from(rs, [rs_iri], path)
    add_values(
        rs,
        "prov:qualifiedDerivation",
        [_qualified(family, f"{child.name}/{child.record_set}", f"{parent.name}/{parent.record_set}",
                    rs_iri, activity, aid)],
        iri=PROV_NS + "qualifiedDerivation",
        path=path,
    )
    for role in DERIVED_ROLES:
        mine, theirs = _role_fields(child.roles.get(role)), _role_fields(parent.roles.get(role))
        if not mine or not theirs:
            continue
        for cf in mine:
            fnode = _find_field(rs, cf)
            if fnode is None:
                continue
            iris = [schema_node_iri(parent.iri, f"{parent.record_set}/{pf}") for pf in theirs]
            _add_derived_from(fnode, iris, path)
            add_values(
                fnode,
                "prov:qualifiedDerivation",
                [
                    _qualified(family, f"{child.name}/{child.record_set}/{cf}",
                               f"{parent.name}/{parent.record_set}/{pf}", i, activity, aid)
                    for pf, i in zip(theirs, iris, strict=True)
                ],
                iri=PROV_NS + "qualifiedDerivation",
                path=path,
            )


def _add_derived_from(node: dict[str, Any], iris: Sequence[str], path: Path) -> None:
    """Add marked ``prov:wasDerivedFrom`` references to ``iris`` (see :func:`add_values`)."""
    add_values(node, "prov:wasDerivedFrom", [{"@index": MARK, "@id": i} for i in iris],
               iri=PROV_NS + "wasDerivedFrom", path=path)


def _annotation(rs: dict[str, Any]) -> dict[str, Any]:
    rs_id = rs.get("@id") or rs.get("name")
    return {
        "@index": MARK,
        "@type": "cr:Field",
        "@id": f"{rs_id}/cl_was_derived_from",
        "name": "cl_was_derived_from",
        "description": "Value-level provenance (PROV-O): the item each record was derived from, "
        "as an IRI. The values are in the lineage RecordSet (lineage/parent_iri), one per "
        "edge whose child is the record's item.",
        "equivalentProperty": "prov:wasDerivedFrom",
        "dataType": "sc:URL",
        "source": {"field": {"@id": "lineage/parent_iri"}},
    }


def _load_findings_arg(findings: Any) -> list[Any]:
    """Findings given as objects, one findings file, or several (read in order by
    :func:`~croissant_lineage.findings.model.load_findings`); None for none."""
    if findings is None:
        return []
    if isinstance(findings, (str, Path)):
        return list(load_findings(findings))
    given = list(findings)
    if given and all(isinstance(f, (str, Path)) for f in given):
        return list(load_findings(given))
    return given


def enrich_family(
    lineage: LineageLike,
    family_spec: Any,
    out_dir: str | Path | None,
    findings: Any = None,
    *,
    time: str | datetime | int | None = None,
    force: bool = False,
    progress: bool = False,
    in_place: str | None = None,
    rebase: bool = False,
    data_dir: str | Path | None = None,
) -> FamilyEnrichResult:
    """Write a family's enriched descriptors and their lineage files into ``out_dir``
    (or, ``in_place``, each beside its data).

    For each descriptor of the family spec that holds item data, writes
    ``<stem>.json`` (the descriptor, enriched; ``<stem>`` is its dataset's name, or
    the descriptor's file stem when it holds several datasets) and beside it ``<stem>.items.parquet``,
    ``<stem>.lineage.parquet`` and ``<stem>.findings.parquet``, declared as the
    RecordSets ``lineage_items``, ``lineage`` and ``findings`` (see
    :mod:`croissant_lineage.enrich.files`). The descriptor gains:

    * dataset level: ``prov:wasDerivedFrom`` the parent datasets and
      ``prov:wasGeneratedBy`` their activities and the enrichment activity; one
      ``cl:familyDataset`` node per family dataset (its IRI, qualified derivations with
      activity, link method and threshold; documented-coverage children);
    * RecordSet and Field level: the items RecordSet and its subject, stem, options and
      key fields ``prov:wasDerivedFrom`` the parent's (with qualified derivations
      naming the activity);
    * value level: an ``annotation`` field on the items RecordSet whose
      ``equivalentProperty`` is ``prov:wasDerivedFrom``, and the ``lineage`` RecordSet
      that mlcroissant's ``records()`` reads.

    Where the benchmark's own data loads from (see :mod:`croissant_lineage.enrich.places`):
    a copy in ``out_dir`` keeps the original's relative paths (the same bytes on every
    machine), so its benchmark RecordSets load only if their files resolve from
    ``out_dir``; when they do not, its entry carries the warning ``CL-W001``. ``rebase``
    rewrites those paths to resolve from ``out_dir`` (recorded, so that
    :func:`~croissant_lineage.enrich.marks.strip_enrichment` restores the original);
    ``in_place`` writes each copy beside its data instead.

    Args:
        lineage: A :class:`~croissant_lineage.lineage.model.Lineage`, or its folder.
        family_spec: A :class:`~croissant_lineage.family.spec.FamilySpec`, or a name/path.
        out_dir: Output folder (created).
        findings: Findings (``Finding`` objects), a findings file, or several findings
            files (a sequence of paths, read in order as :func:`~croissant_lineage.findings.model.load_findings`
            reads them: a later file's status updates apply to earlier findings); None for none.
        time: When (see :func:`~croissant_lineage.prov.vocab.resolve_time`).
        force: Replace files in ``out_dir`` that this library did not write.
        progress: Show a progress bar over the descriptors (tqdm).
        in_place: Write each enriched descriptor beside its data under this file name
            (``{stem}`` stands for its dataset's name; its lineage files are named after
            it, see :func:`~croissant_lineage.enrich.places.in_place_names`) instead of
            into ``out_dir`` (then None). The folder is the original descriptor's, or
            ``data_dir`` for a dataset whose files resolve against the data folder.
        rebase: Rewrite the benchmark's relative ``contentUrl`` / ``includes`` to resolve
            from ``out_dir``.
        data_dir: The data folder (``files_relative_to_data_dir`` datasets; needed by
            ``in_place`` and ``rebase`` for them).

    Returns:
        A :class:`FamilyEnrichResult`.

    Raises:
        InputError, DescriptorError, SpecError: unreadable inputs or conflicts.
        OutputExistsError: an output file exists and was not written by this library
            (a descriptor without its marks, a Parquet file without its columns), and
            not ``force``; checked before anything is written.
    """
    run = FamilyRun.start(lineage, family_spec, out_dir, findings, time=time, force=force,
                          in_place=in_place, rebase=rebase, data_dir=data_dir)
    groups = tqdm(run.groups.items(), desc="enrich", unit="descriptor", disable=not progress)
    if in_place is not None:  # each file written atomically beside its data, all checked first
        written = [enrich_descriptor_file(run, p, members, run.stems[p]) for p, members in groups]
        return FamilyEnrichResult(None, written)
    with atomic_folder(run.out) as run.write_to:  # a killed run leaves the old folder or the new one
        written = [enrich_descriptor_file(run, p, members, run.stems[p]) for p, members in groups]
    return FamilyEnrichResult(str(run.out), written)


@dataclass(frozen=True)
class Place:
    """Where one enriched descriptor is written.

    Attributes:
        folder: Its folder (the output folder, or beside its data).
        name: Its file name.
        files: File kind -> the name of its lineage file there.
        base: The folder the original's relative paths resolve against (None: the data
            folder, not given).
        original: The original descriptor.
    """

    folder: Path
    name: str
    files: dict[str, str]
    base: Path | None
    original: Path


@dataclass
class FamilyRun:
    """The inputs every descriptor of one :func:`enrich_family` call shares.

    Attributes:
        spec, lin, found: The family spec, its lineage and the findings.
        out: The output folder.
        stamp: The time recorded (see :func:`~croissant_lineage.prov.vocab.resolve_time`).
        groups: The family's datasets by the descriptor that holds them, in family order.
        stems: Output file stem per descriptor.
        places: Where each descriptor is written (:class:`Place`).
        in_place: Each descriptor is written beside its data (not into ``out``).
        rebase: The benchmark's relative paths are rewritten to resolve from ``out``.
        family: The family's IRI (activities and derivations are named under it).
        write_to: Where :func:`enrich_descriptor_file` writes (set by the caller: the
            temporary folder swapped in as ``out`` at the end).
    """

    spec: FamilySpec
    lin: Lineage
    found: list[Any]
    out: Path
    stamp: str | None
    groups: dict[Path, list[Any]] = field(default_factory=dict)
    stems: dict[Path, str] = field(default_factory=dict)
    places: dict[Path, Place] = field(default_factory=dict)
    in_place: bool = False
    rebase: bool = False
    write_to: Path = field(init=False)
    info: dict[str, DatasetInfo] = field(init=False)
    iris: dict[str, str] = field(init=False)
    derivations: tuple[DerivationInfo, ...] = field(init=False)
    family: str = field(init=False)

    def __post_init__(self) -> None:
        self.family = family_iri_of(self.lin.family)
        self.info = {d.name: d for d in self.lin.family.datasets}
        self.iris = self.lin.family.iris()
        self.derivations = self.lin.family.derivations

    @classmethod
    def start(
        cls, lineage: Any, family_spec: Any, out_dir: str | Path | None, findings: Any = None, *,
        time: str | datetime | int | None = None, force: bool = False,
        in_place: str | None = None, rebase: bool = False, data_dir: str | Path | None = None,
    ) -> FamilyRun:
        """Read the inputs of :func:`enrich_family` (same arguments), name the outputs and
        check, before anything is written, that they may be replaced."""
        if (in_place is None) == (out_dir is None):
            raise InputError("give an output folder or in_place NAME (one of them)")
        if in_place is not None and rebase:
            raise InputError("--rebase-urls applies to copies written into --out, not --in-place")
        spec = as_spec(family_spec, "family_spec")
        lin = as_lineage(lineage, records=False)  # enrich never reads records
        out = Path(out_dir) if out_dir is not None else Path()
        run = cls(spec, lin, _load_findings_arg(findings), out, resolve_time(time),
                  in_place=in_place is not None, rebase=rebase)
        run.groups = _descriptor_groups(spec)
        run.stems = _output_stems(run.groups)
        data = Path(data_dir) if data_dir is not None else None
        run.places = {p: _place(p, ms, run.stems[p], out, in_place, data, need_base=rebase or in_place is not None)
                      for p, ms in run.groups.items()}
        _check_outputs(out, run.places.values(), force, in_place=in_place is not None)
        return run


def _place(desc: Path, members: Sequence[Any], stem: str, out: Path, in_place: str | None,
           data_dir: Path | None, *, need_base: bool) -> Place:
    """Where the descriptor ``desc`` (holding ``members``) is written."""
    base = data_dir if any(m.files_relative_to_data_dir for m in members) else desc.parent
    if base is None and need_base:
        raise InputError("its files resolve against the data folder: give --data-dir DIR",
                         path=desc, hint="--in-place and --rebase-urls need to know where the data is")
    if in_place is None:
        return Place(out, f"{stem}.json", {kind: f"{stem}.{kind}.parquet" for kind in WRITTEN_KINDS}, base, desc)
    assert base is not None
    name, files = in_place_names(read_json(desc), in_place, stem, WRITTEN_KINDS)
    return Place(base, name, files, base, desc)


def _descriptor_groups(spec: FamilySpec) -> dict[Path, list[Any]]:
    """The family's datasets by the descriptor that holds them, in family order."""
    groups: dict[Path, list[Any]] = {}
    for d in spec.datasets.values():
        if d.descriptor is not None:
            groups.setdefault(d.descriptor, []).append(d)
    return groups


def _check_outputs(out: Path, places: Iterable[Place], force: bool, *, in_place: bool = False) -> None:
    """Refuse before writing anything: ``out`` is a file, two descriptors would be written
    to one file, or an output is not ours (unless forced)."""
    if not in_place and out.exists() and not out.is_dir():
        raise OutputExistsError("exists and is not a folder", path=out, hint="give a folder for --family outputs")
    seen: set[Path] = set()
    for place in places:
        target = (place.folder / place.name).resolve()
        if target in seen:
            raise InputError("two descriptors of the family would be written to one file", path=target,
                             hint="put {stem} in the --in-place name")
        seen.add(target)
        if target == place.original.resolve() and not force:  # even one this library wrote
            raise OutputExistsError("is the original descriptor", path=target,
                                    hint="give the enriched copy another name, or --force")
        ensure_replaceable(place.folder / place.name, force=force, ours=is_our_descriptor)
        for kind, name in place.files.items():
            ensure_replaceable(place.folder / name, force=force, ours=partial(is_lineage_file, kind=kind))


def _add_schema_level(run: FamilyRun, doc_out: dict[str, Any], members: Sequence[Any], desc_path: Path) -> None:
    """The value-level annotation and the RecordSet/Field derivations of each member dataset."""
    aids = derivation_activities(run.family, run.derivations, run.iris)
    for d in members:
        if d.record_set is None:
            continue
        rs = _find_record_set(doc_out, d.record_set, desc_path)
        add_values(rs, "annotation", [_annotation(rs)], iri=CROISSANT_NS + "annotation", path=desc_path)
        for r in run.spec.derivations:
            parent = run.spec.datasets.get(r.parent)
            if r.child == d.name and parent is not None and parent.has_items and parent.record_set:
                aid = aids.get((d.name, r.parent)) or activity_iri(run.family, r.activity, r.parent, d.name)
                _schema_level(rs, d, parent, r.activity, desc_path, run.family, aid)


def _add_dataset_level(
    run: FamilyRun, doc_out: dict[str, Any], names: Sequence[str], used: list[dict[str, Any]],
    added_terms: list[str], desc_path: Path, stem: str,
) -> None:
    """Dataset-level PROV: parents, their activities, the enrichment (named by the output
    file stem), the family datasets."""
    iris = run.iris
    family_nodes = [
        family_dataset_node(run.info[n], run.derivations, iris, family=run.family) for n in names if n in run.info
    ]
    parents = [r for r in run.derivations if r.child in names and r.parent in iris]
    parent_refs = list(dict.fromkeys(iris[r.parent] for r in parents))
    enrichment = enrichment_node(
        iri=enrichment_iri(run.family, stem, run.stamp), time=run.stamp, used=used, added_context_terms=added_terms
    )
    _add_derived_from(doc_out, parent_refs, desc_path)
    aids = derivation_activities(run.family, run.derivations, iris)
    generated = [{"@index": MARK, "@id": aid} for aid in dict.fromkeys(aids[(r.child, r.parent)] for r in parents)]
    add_values(doc_out, "prov:wasGeneratedBy", [*generated, enrichment], iri=PROV_NS + "wasGeneratedBy", path=desc_path)
    add_values(doc_out, "cl:familyDataset", family_nodes, iri=CL_NS + "familyDataset", path=desc_path)


def enrich_descriptor_file(run: FamilyRun, desc_path: Path, members: Sequence[Any], stem: str) -> EnrichedDescriptor:
    """Enrich one descriptor of the family and write it with its lineage files into ``run.write_to``.

    Args:
        run: The shared inputs (:meth:`FamilyRun.start`), ``write_to`` set.
        desc_path: The descriptor (a key of ``run.groups``).
        members: Its family datasets.
        stem: Its output file stem.

    Returns:
        What was written, with paths as they will be in ``run.out``.
    """
    names = [d.name for d in members]
    doc = read_json(desc_path)
    check_croissant(doc, desc_path)
    base = strip_enrichment(doc)
    doc_out = copy.deepcopy(base)
    place = run.places[desc_path]
    write_to = place.folder if run.in_place else run.write_to
    added_terms = ensure_context(doc_out, FAMILY_TERMS, path=desc_path)
    rebased = rebase_urls(doc_out, place.base, place.folder) if run.rebase and place.base is not None else []
    file_nodes, files, counts = write_files(write_to, place.files, {
        "items": lambda: items_table(items_without_records(run.lin), run.lin.duplicates, run.iris, names),
        "lineage": lambda: lineage_table(run.lin.edges, run.iris, names),
        "findings": lambda: findings_table(run.found, run.iris, names),
    })
    rs_nodes = [
        record_set_node(rs_id, f"cl-{rs_spec.kind}-file", MARK)
        for rs_id, rs_spec in RECORD_SETS.items()
    ]
    _check_free_ids(doc_out, [n["@id"] for n in file_nodes + rs_nodes], desc_path)
    add_values(doc_out, "distribution", file_nodes, iri=SCHEMA_NS + "distribution", path=desc_path)
    _add_schema_level(run, doc_out, members, desc_path)
    add_values(doc_out, "recordSet", rs_nodes, iri=CROISSANT_NS + "recordSet", path=desc_path)
    used = [used_descriptor(base), _used_lineage(run.lin, names, counts["lineage"])]
    if run.found:
        used.append({"@type": ["prov:Entity", "cl:FindingsSet"], "cl:findings": counts["findings"]})
    _add_dataset_level(run, doc_out, names, used, added_terms, desc_path, stem)
    seal(doc_out, base)
    note_rebased(doc_out, rebased)
    target = place.folder / place.name
    atomic_write_json(write_to / target.name, doc_out)
    return EnrichedDescriptor(
        str(target),
        names,
        {k: str(place.folder / v) for k, v in files.items()},
        counts["items"],
        counts["lineage"],
        counts["findings"],
        load_warning(doc_out, place.folder, target, rebased=run.rebase, base=place.base),
    )


def _output_stems(groups: Mapping[Path, Sequence[Any]]) -> dict[Path, str]:
    """Output file stem per descriptor: its dataset's name, or (several datasets) its own
    file stem, prefixed with its folder's name when that is not unique."""
    stems: dict[Path, str] = {}
    for path, members in groups.items():
        stems[path] = members[0].name if len(members) == 1 else path.stem
    taken: dict[str, int] = {}
    for s in stems.values():
        taken[s] = taken.get(s, 0) + 1
    for path, s in list(stems.items()):
        if taken[s] > 1 or (len(groups[path]) > 1 and any(
            s == m.name for ms in groups.values() for m in ms
        )):
            stems[path] = f"{path.parent.name}-{s}"
    if len(set(stems.values())) < len(stems):
        raise InputError("descriptors of the family give clashing output names", hint="rename them")
    return stems


def _used_lineage(lin: Lineage, names: Sequence[str], edges: int) -> dict[str, Any]:
    node: dict[str, Any] = {"@type": ["prov:Entity", "cl:Lineage"], "cl:edges": edges}
    if lin.family != FamilyInfo():  # a family.json with its name
        node["sc:name"] = code(lin.family.name)
    return node


def _check_free_ids(doc: dict[str, Any], ids: Sequence[str], path: Path) -> None:
    desc = Descriptor(path, doc, path.parent)
    taken: set[str] = set()
    for node in desc.distribution_nodes(full_iri=True) + desc.record_set_nodes(full_iri=True):
        taken.update(v for v in (node.get("@id"), node.get("name")) if isinstance(v, str))
    clash = sorted(set(ids) & taken)
    if clash:
        raise DescriptorError(
            f"the descriptor already has {clash[0]!r}, which the enrichment needs",
            path=path,
            hint="rename that RecordSet or FileObject",
        )
