"""Entry points that start from a family (a name, a spec file or a spec) and a data folder.

The audits (:mod:`croissant_lineage.audits`) take a linked family, a
:class:`~croissant_lineage.lineage.model.Lineage`, and never link. The functions here are
the only ones that load data and link for them: each reads the lineage folder it is given,
or loads the datasets it needs and links them once (only the derivations the audit uses),
then calls the audit. They are what the CLI commands call.

Example:
    >>> import croissant_lineage as cl
    >>> report = cl.snapshot_history("mmlu", data_dir="data", item="3011")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa
from tqdm.auto import tqdm

from croissant_lineage._io import probing_outputs, read_json
from croissant_lineage._results import Result
from croissant_lineage.audits.history import (
    HistoryReport,
    Snapshot,
    chain_snapshots,
    history,
    needs_joins,
    resolve_chain,
)
from croissant_lineage.audits.translations import (
    JOIN_METHODS,
    TRANSLATION_ACTIVITIES,
    TranslationReport,
    verify_translations,
)
from croissant_lineage.audits.witnesses import WitnessReport, witness_lineage
from croissant_lineage.audits.witnesses.archives import ArchiveLimits, list_archives
from croissant_lineage.beam.enrich import enrich_family_beam
from croissant_lineage.beam.pipeline import link_beam
from croissant_lineage.enrich.family import FamilyEnrichResult
from croissant_lineage.enrich.family import enrich_family as _enrich_here
from croissant_lineage.errors import ArgumentError, InputError
from croissant_lineage.family.spec import DatasetSpec, Derivation, FamilySpec, as_spec
from croissant_lineage.findings.files import load_findings
from croissant_lineage.lineage.graph import LineageLike, as_lineage, check_lineage_arg
from croissant_lineage.lineage.info import INPUTS_FILE, LinkInputs, family_info
from croissant_lineage.lineage.inputs import UPDATE_NOTICE, link_inputs, plan_update, touched_by
from croissant_lineage.lineage.items import load_items, load_items_packed
from croissant_lineage.lineage.kept import KeptFolder
from croissant_lineage.lineage.model import Lineage, is_lineage_folder, release_memory
from croissant_lineage.lineage.packed_records import PackedRecords
from croissant_lineage.linking.linker import link_family
from croissant_lineage.linking.threads import load_threads, threaded_map

__all__ = [
    "RUNNERS",
    "LinkResult",
    "compare_family_snapshots",
    "enrich_family",
    "link",
    "load_datasets",
    "snapshot_history",
    "verify_family_translations",
    "witness_family",
    "write_lineage",
]

def _link_some(
    spec: FamilySpec,
    derivations: Sequence[Derivation],
    names: Iterable[str],
    *,
    data_dir: str | Path | None,
    allow_outside: bool,
) -> Lineage:
    """Load the items of ``names`` and link ``derivations`` among them, once: the same
    builder (:func:`~croissant_lineage.linking.linker.link_family`), so the same shape, as a
    whole family's link."""
    order = list(dict.fromkeys(names))
    tables = {n: load_items(spec.dataset(n), data_dir=data_dir, allow_outside=allow_outside) for n in order}
    return link_family(spec, tables, derivations=derivations)


def _with_spec(lineage: Lineage, spec: FamilySpec) -> Lineage:
    """``lineage`` carrying the family of ``spec`` (what the audit reads of the family: a
    lineage folder's ``family.json`` lacks the link rules' fields)."""
    return replace(lineage, family=family_info(spec))


def _snapshot_lineage(
    spec: FamilySpec, dataset: str | None, lineage: LineageLike | None, data_dir: str | Path | None, allow_outside: bool
) -> Lineage:
    """The given lineage, or the chain's snapshots loaded and their text joins linked; its
    family the spec's."""
    chain = resolve_chain(family_info(spec), dataset)
    if lineage is not None:
        return _with_spec(as_lineage(lineage), spec)
    names = [chain[0].parent, *(d.child for d in chain)]
    joined = {(d.child, d.parent) for d in chain if needs_joins(d)}
    derivations = [d for d in spec.derivations if (d.child, d.parent) in joined]
    return _link_some(spec, derivations, names, data_dir=data_dir, allow_outside=allow_outside)


def load_datasets(
    family: FamilySpec | str | Path,
    datasets: Sequence[str],
    *,
    data_dir: str | Path | None = None,
    allow_outside: bool = False,
) -> Lineage:
    """Some datasets of a family loaded, not linked: a :class:`Lineage` of their items (no
    edges), built by the same builder as a linked family, so of the same shape.

    Args:
        family: A :class:`FamilySpec`, a built-in family name (``"mmlu"``) or a spec path.
        datasets: The datasets' names.
        data_dir: Folder the descriptors' file URLs resolve against (required for a
            family whose files are relative to one, as the shipped ``mmlu`` family's are).
        allow_outside: Allow descriptor file URLs that leave their base folder.

    Returns:
        The :class:`Lineage`; its items in the order of ``datasets``.

    Raises:
        ArgumentError: ``datasets`` is one string, not a collection of names.
        SpecError: unknown family or dataset.
        InputError, DataError: a dataset cannot be loaded.
    """
    if isinstance(datasets, str):
        raise ArgumentError(
            "datasets must be a collection of dataset names, not one string",
            hint=f"load_datasets(family, [{datasets!r}])",
        )
    return _link_some(as_spec(family), (), datasets, data_dir=data_dir, allow_outside=allow_outside)


def compare_family_snapshots(
    family: FamilySpec | str | Path,
    *,
    data_dir: str | Path | None = None,
    dataset: str | None = None,
    lineage: LineageLike | None = None,
    allow_outside: bool = False,
) -> list[Snapshot]:
    """The snapshots of a family's chain, ready for :func:`~croissant_lineage.audits.history.item_history`.

    Args:
        family: A :class:`FamilySpec`, a built-in family name (``"mmlu"``) or a spec path.
        data_dir: Folder the descriptors' file URLs resolve against.
        dataset: Any snapshot of the chain (default: the family's longest chain).
        lineage: A :class:`Lineage` or a lineage folder: its items are used (no data is
            read) and its edges join snapshots linked by text; without it the snapshots
            are loaded and such derivations linked here.
        allow_outside: Allow descriptor file URLs that leave their base folder.

    Returns:
        The :class:`Snapshot` s, oldest first, each with its ``joins`` to the previous one.

    Raises:
        SpecError: unknown dataset, or it has no other snapshot.
        LineageError: inputs that cannot be read (a lineage without a snapshot's items).
    """
    spec = as_spec(family)
    lin = _snapshot_lineage(spec, dataset, lineage, data_dir, allow_outside)
    return chain_snapshots(lin, dataset=dataset)


def snapshot_history(
    family: FamilySpec | str | Path,
    *,
    data_dir: str | Path | None = None,
    dataset: str | None = None,
    item: str | None = None,
    lineage: LineageLike | None = None,
    allow_outside: bool = False,
) -> HistoryReport:
    """Compare every consecutive pair of a family's snapshots and trace one item.

    Args:
        family: A :class:`FamilySpec`, a built-in family name (``"mmlu"``) or a spec path.
        data_dir: Folder the descriptors' file URLs resolve against.
        dataset: Any snapshot of the chain (default: the family's longest chain,
            ``mmlu-pro`` for MMLU).
        item: An item id (or ref) to trace, see :func:`~croissant_lineage.audits.history.item_history`.
        lineage: A :class:`Lineage` or a lineage folder whose items and edges are used
            (MMLU 2020 -> Hub release is joined by text); without it the snapshots are
            loaded and such derivations linked here.
        allow_outside: Allow descriptor file URLs that leave their base folder.

    Returns:
        A :class:`HistoryReport`.

    Raises:
        SpecError: unknown dataset, or it has no other snapshot.
        InputError: the item is in none of the snapshots.
        LineageError: inputs that cannot be read (a lineage without a snapshot's items).
    """
    spec = as_spec(family)
    lin = _snapshot_lineage(spec, dataset, lineage, data_dir, allow_outside)
    return history(lin, dataset=dataset, item=item)


def verify_family_translations(
    family: FamilySpec | str | Path,
    *,
    data_dir: str | Path | None = None,
    lineage: LineageLike | None = None,
    allow_outside: bool = False,
) -> TranslationReport:
    """Verify a family's translations, from a lineage or by linking just those joins.

    Args:
        family: A :class:`FamilySpec`, a built-in family name (``"mmlu"``) or a spec path.
        data_dir: Folder the descriptors' file URLs resolve against.
        lineage: A :class:`Lineage` or a lineage folder; when given it is used as is and
            nothing is linked.
        allow_outside: Allow descriptor file URLs that leave their base folder.

    Returns:
        A :class:`TranslationReport` (see :func:`~croissant_lineage.audits.translations.verify_joins`).

    Raises:
        LineageError: inputs that cannot be read.
    """
    if lineage is not None:
        return verify_translations(as_lineage(lineage))
    spec = as_spec(family)
    derivs = [
        d for d in spec.item_derivations()
        if d.activity in TRANSLATION_ACTIVITIES and d.link is not None and d.link.by in JOIN_METHODS
    ]
    names = sorted({d.child for d in derivs} | {d.parent for d in derivs})
    lin = _link_some(spec, derivs, names, data_dir=data_dir, allow_outside=allow_outside)
    return verify_translations(lin)


def witness_family(
    family: str | Path | FamilySpec,
    *,
    archives_dir: str | Path,
    data_dir: str | Path,
    dataset: str,
    findings: str | Path | Sequence[str | Path] | None = None,
    lineage: LineageLike | None = None,
    limits: ArchiveLimits | None = None,
    progress: bool = False,
    allow_outside: bool = False,
) -> WitnessReport:
    """Witness a family's snapshot with the archives of a folder and findings files.

    Findings on the snapshot's own items are used directly; findings on other datasets
    are routed through the lineage (``lineage``, a folder written by
    ``croissant-lineage link``), or, when none is given, through the family linked now
    (slower). Without such findings only the snapshot's items are loaded.

    Args:
        family: A family spec, its built-in name (``mmlu``) or its file.
        archives_dir: Folder of ``*.zip`` prediction archives.
        data_dir: The data folder the family's descriptors resolve against.
        dataset: The snapshot dataset of the family to judge (its items are what the
            archives' records must match).
        findings: Findings file(s); without them the report has the admission only.
        lineage: A :class:`Lineage` or a lineage folder, used to route findings on
            other datasets.
        limits: Size limits for reading archives.
        progress: Show a progress bar over the archives.
        allow_outside: Let the descriptors' file URLs point outside their base folder.

    Returns:
        The :class:`WitnessReport`.

    Raises:
        SpecError: unknown family or dataset.
        InputError, UnsafePathError, SizeLimitError, DataError, FindingsError: unreadable
            or refused inputs.
    """
    if lineage is not None:
        check_lineage_arg(lineage)  # read below only when findings need it
    spec = as_spec(family)
    snapshot = load_datasets(spec, [dataset], data_dir=data_dir, allow_outside=allow_outside)
    archives = list_archives(archives_dir)
    found = load_findings(findings) if findings is not None else None
    lin = snapshot
    if found is not None and any(f.item.partition(":")[0] != dataset for f in found):
        lin = as_lineage(lineage) if lineage is not None else link(spec, data_dir=Path(data_dir), allow_outside=allow_outside)
    return witness_lineage(lin, archives, dataset=dataset, findings=found, limits=limits, progress=progress)


@dataclass(frozen=True)
class LinkResult(Result):
    """A family linked and its lineage folder written (what ``croissant-lineage link`` does).

    Attributes:
        lineage: The linked family.
        path: The lineage folder written.
    """

    lineage: Lineage
    path: Path
    #: For ``update``: the derivations linked, or why the whole family was linked (the
    #: notice ``CL-W003 ...``); None for a full link.
    update: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The lineage's summary (counts per derivation and method; ``summary.json``)."""
        return self.lineage.summary.to_dict()


#: Where :func:`link` runs: ``local`` (this process) or ``beam`` (an Apache Beam pipeline).
RUNNERS = ("local", "beam")


def _on_beam(runner: str) -> bool:
    """Whether ``runner`` is ``beam`` (else ``local``).

    Raises:
        InputError: neither.
    """
    if runner not in RUNNERS:
        raise InputError(f"unknown runner {runner!r}", hint=f"use one of: {', '.join(RUNNERS)}")
    return runner == "beam"


def link(
    family: FamilySpec | str | Path,
    *,
    data_dir: str | Path | None = None,
    progress: bool = False,
    allow_outside: bool = False,
    runner: str = "local",
    pipeline_options: Any = None,
) -> Lineage:
    """Load every dataset of a family and link their items, here or as a Beam pipeline.

    Args:
        family: A :class:`FamilySpec`, a built-in family name (``"mmlu"``) or a spec path.
        data_dir: Folder the shipped descriptors' file URLs resolve against.
        progress: Show progress bars (local runner).
        allow_outside: Allow descriptor file URLs that leave their base folder.
        runner: ``"local"`` (:func:`croissant_lineage.linking.linker.link_family`) or ``"beam"``
            (:func:`croissant_lineage.beam.pipeline.link_beam`, the ``beam`` extra): the
            same lineage either way.
        pipeline_options: Beam options for ``runner="beam"``: ``{name: value}``, flags or
            ``PipelineOptions`` (default: Beam's local Python runner, a process per core).

    Returns:
        The :class:`Lineage` (items of every dataset, edges, duplicates, unmatched,
        summary).

    Raises:
        InputError: an unknown runner, or ``beam`` without apache-beam installed.
        LineageError: any input problem (missing files, bad descriptor, bad spec).
    """
    spec = as_spec(family)
    if _on_beam(runner):
        return link_beam(spec, data_dir=data_dir, allow_outside=allow_outside, pipeline_options=pipeline_options)
    with_items = [d for d in spec.datasets.values() if d.has_items]
    tables: dict[str, pa.Table] = {}
    records: dict[str, PackedRecords] = {}  # the raw records, compressed until written
    with tqdm(total=len(with_items), desc="load", unit="dataset", disable=not progress) as bar:

        def load(ds: DatasetSpec) -> tuple[pa.Table, PackedRecords]:
            out = load_items_packed(ds, data_dir=data_dir, allow_outside=allow_outside)
            bar.update()
            return out

        # datasets load on threads (CROISSANT_LINEAGE_THREADS), kept in spec order; the first
        # alone, and the rest one at a time when the family looks large (load_threads)
        loaded = [load(ds) for ds in with_items[:1]]
        threads = load_threads(loaded[0][0].num_rows, len(with_items)) if loaded else 1
        loaded += threaded_map(load, with_items[1:], threads=threads)
        for ds, (table, packed) in zip(with_items, loaded, strict=True):
            tables[ds.name], records[ds.name] = table, packed
    release_memory()
    return link_family(spec, tables, records=records, progress=progress)


def write_lineage(
    family: FamilySpec | str | Path,
    out: str | Path,
    *,
    data_dir: str | Path | None = None,
    allow_outside: bool = False,
    force: bool = False,
    progress: bool = False,
    runner: str = "local",
    pipeline_options: Any = None,
    update: bool = False,
) -> LinkResult:
    """Link every dataset of ``family`` and write the lineage folder ``out``.

    Args:
        family: A :class:`FamilySpec`, a built-in family name (``"mmlu"``) or a spec path.
        out: The lineage folder to write (created if missing).
        data_dir: Folder the shipped descriptors' file URLs resolve against.
        allow_outside: Allow descriptor file URLs that leave their base folder.
        force: Write into a non-empty folder this library did not write.
        progress: Show progress bars.
        runner: Where to link, ``"local"`` or ``"beam"`` (see :func:`link`); the folder
            is the same either way, and nothing is written to it unless linking succeeds.
        pipeline_options: Beam options for ``runner="beam"`` (see :func:`link`).
        update: ``out`` holds a lineage of an earlier version of the spec: when the spec
            only adds datasets and derivations, link only the derivations it adds (the
            rest is read from ``out``), else the whole family (``LinkResult.update``
            says which); the folder is the same as a full link's either way.

    Returns:
        The :class:`LinkResult`: the lineage and the folder written.

    Raises:
        LineageError: any input problem; ``OutputExistsError`` when ``out`` holds other
            files and ``force`` is false.
    """
    spec = as_spec(family)
    inputs = link_inputs(spec, data_dir=data_dir, allow_outside=allow_outside)
    note = None
    if update:
        got = _update(spec, Path(out), inputs, data_dir=data_dir, allow_outside=allow_outside, progress=progress)
        if not isinstance(got, str):
            lineage, linked = got
            return LinkResult(lineage, lineage.write(out, force=True, inputs=inputs), "linked: " + (
                ", ".join(f"{d.child} <- {d.parent}" for d in linked) or "nothing new"))
        note = f"{UPDATE_NOTICE} linking the whole family: {got}"
    lineage = link(
        spec, data_dir=data_dir, progress=progress, allow_outside=allow_outside,
        runner=runner, pipeline_options=pipeline_options,
    )
    return LinkResult(lineage, lineage.write(out, force=force or update, inputs=inputs), note)


def _update(spec: FamilySpec, out: Path, inputs: LinkInputs, *, data_dir: str | Path | None,
            allow_outside: bool, progress: bool) -> tuple[Lineage, Sequence[Derivation]] | str:
    """The lineage of ``spec`` from the one in ``out`` and the derivations the spec adds,
    or why the whole family must be linked (see :mod:`croissant_lineage.lineage.inputs`)."""
    # (the folder read is the output this run replaces, read before it is: not an input; its
    # items are read only in part: those the new derivations link against, without their
    # records, and the others' ids; the rest is copied from its items file as the new one is written)
    with probing_outputs():
        if not is_lineage_folder(out) or not (out / INPUTS_FILE).is_file():
            return f"{out} holds no lineage written with {INPUTS_FILE}"
        plan = plan_update(LinkInputs.from_dict(read_json(out / INPUTS_FILE)), spec, inputs)
        if isinstance(plan, str):
            return plan
        try:
            kept = KeptFolder(out)
        except ValueError as exc:  # (an items file that does not hold its summary's counts)
            return str(exc)
        names = [*touched_by(plan), *plan.load]
        tables = {n: kept.items_of(n) for n in names if n not in plan.load}
        records = {n: kept.records_of(n) for n in tables}
    packed: dict[str, PackedRecords] = dict(records)
    for n in plan.load:
        tables[n], packed[n] = load_items_packed(spec.dataset(n), data_dir=data_dir, allow_outside=allow_outside)
    tables = {n: tables[n] for n in dict.fromkeys(names)}
    try:
        lineage = link_family(spec, tables, records=packed, derivations=plan.derivations, progress=progress,
                              kept=kept)
    except ValueError as exc:  # (tables that do not hold their summary's counts)
        return str(exc)
    return lineage, plan.derivations


def enrich_family(
    lineage: LineageLike,
    family_spec: FamilySpec | str | Path,
    out_dir: str | Path | None,
    findings: Any = None,
    *,
    time: Any = None,
    force: bool = False,
    progress: bool = False,
    runner: str = "local",
    pipeline_options: Any = None,
    in_place: str | None = None,
    rebase: bool = False,
    data_dir: str | Path | None = None,
) -> FamilyEnrichResult:
    """Write a family's enriched descriptors and their lineage files, here or as a Beam pipeline.

    Args:
        lineage: A :class:`~croissant_lineage.lineage.model.Lineage`, or its folder.
        family_spec: A :class:`~croissant_lineage.family.spec.FamilySpec`, or a name/path.
        out_dir: Output folder (created).
        findings: Findings, a findings file or several (see
            :func:`croissant_lineage.enrich.family.enrich_family`); None for none.
        time: When (see :func:`~croissant_lineage.prov.vocab.resolve_time`).
        force: Replace files in ``out_dir`` that this library did not write.
        progress: Show a progress bar over the descriptors (local runner only).
        in_place: Write each enriched descriptor beside its data under this name (local runner).
        rebase: Rewrite the benchmark's relative paths to resolve from ``out_dir``.
        data_dir: The family's data folder, where the originals' relative paths resolve.
        runner: ``"local"`` (:func:`croissant_lineage.enrich.family.enrich_family`) or
            ``"beam"`` (:func:`croissant_lineage.beam.enrich.enrich_family_beam`, the ``beam``
            extra: one step per descriptor file): the same files either way.
        pipeline_options: Beam options for ``runner="beam"`` (see :func:`link`).

    Returns:
        A :class:`~croissant_lineage.enrich.family.FamilyEnrichResult`.

    Raises:
        InputError: an unknown runner, or ``beam`` without apache-beam installed.
        LineageError: any input problem; nothing is written to ``out_dir`` then.
    """
    if _on_beam(runner):
        if in_place is not None:
            raise InputError("--in-place runs with the local runner only", hint="drop --runner beam")
        return enrich_family_beam(lineage, family_spec, out_dir, findings, time=time, force=force,
                                  pipeline_options=pipeline_options, rebase=rebase, data_dir=data_dir)
    return _enrich_here(lineage, family_spec, out_dir, findings, time=time, force=force, progress=progress,
                        in_place=in_place, rebase=rebase, data_dir=data_dir)
