"""Enriching a family's descriptors as an Apache Beam pipeline (the ``beam`` extra).

The pipeline, and where each step's work comes from::

    launcher:  FamilyRun.start        the spec, the lineage, the findings, the output names,
                                      the check that every output may be replaced (the
                                      local enrich_family's own first step)
               stage                  per descriptor file: the run with the lineage cut to
                                      its datasets (items, duplicates, edges whose child is
                                      one of them), one staging file each
    workers:   descriptor positions --Reshuffle--> enrich
                                      enrich_descriptor_file (enrich/family.py): the
                                      descriptor read and enriched, its items, lineage and
                                      findings tables built and written, into the staging
                                      folder
    launcher:  merge                  the first error, if any; else every staged file moved
                                      into the output folder, swapped in whole (atomic_folder)

What stays in the launching process, because it is family-wide: reading the lineage and
the findings (one read, then cut per descriptor), naming the outputs (a descriptor's stem
depends on every other descriptor's, :func:`~croissant_lineage.enrich.family.enrich_family`),
checking the outputs before anything is written, and writing the output folder (one
atomic swap, so nothing is in ``out`` unless every descriptor succeeded). Everything
else is per descriptor file and runs in the workers.

Workers read the descriptors (they must be reachable by every worker, as the data files
are for :func:`~croissant_lineage.beam.pipeline.link_beam`) and exchange file names
through the staging folder. Errors this library raises on purpose inside a worker are
written there as data and the one the local run would have met first (descriptor order)
is raised in the launching process, with the same code and message.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage._io import atomic_folder, atomic_write_bytes, note_input
from croissant_lineage.beam import staging
from croissant_lineage.beam.blocks import ErrorRecord, first_error
from croissant_lineage.beam.pipeline import (
    PipelineOptionsArg,
    beam_options,
    require_beam,
    run_pipeline,
)
from croissant_lineage.beam.staging import get, put
from croissant_lineage.enrich.family import (
    EnrichedDescriptor,
    FamilyEnrichResult,
    FamilyRun,
    enrich_descriptor_file,
)
from croissant_lineage.errors import LineageError
from croissant_lineage.lineage.model import Lineage

__all__ = ["enrich_family_beam"]

#: Staging names: a descriptor's input, its output folder, its result, its error.
_INPUT, _OUT, _DONE, _ERROR = "input-{:05d}.pkl", "out-{:05d}", "done-{:05d}.pkl", "error-{:05d}.pkl"
_ERRORS = "error-*.pkl"


def _rows(table: pa.Table, column: str, names: list[str]) -> pa.Table:
    """The rows of ``table`` whose ``column`` is one of ``names``, in table order."""
    return table.filter(pc.is_in(table[column], value_set=pa.array(sorted(set(names)), pa.string())))


def _cut(lin: Lineage, names: list[str]) -> Lineage:
    """The part of ``lin`` that enriching the descriptor of datasets ``names`` reads: their
    items (without raw records) and duplicate rows, and the edges whose child is one of
    them; the same tables :func:`~croissant_lineage.enrich.files.items_table` and
    :func:`~croissant_lineage.enrich.files.lineage_table` would select from the whole."""
    items = lin.items.drop_columns(["record"]) if "record" in lin.items.column_names else lin.items
    return Lineage(
        family=lin.family,
        items=_rows(items, "dataset", names),
        edges=_rows(lin.edges, "child_dataset", names),
        duplicates=_rows(lin.duplicates, "dataset", names),
        records=False,
    )


def _stage(run: FamilyRun, folder: Path) -> int:
    """One staging file per descriptor file: the run, cut to that descriptor."""
    for position, (desc_path, members) in enumerate(run.groups.items()):
        note_input(desc_path)  # read by a worker: the merge must still refuse to overwrite it
        part = FamilyRun(run.spec, _cut(run.lin, [d.name for d in members]), run.found, run.out, run.stamp,
                         rebase=run.rebase)
        part.groups = {desc_path: members}
        part.stems = {desc_path: run.stems[desc_path]}
        part.places = {desc_path: run.places[desc_path]}
        put(folder, _INPUT.format(position), part)
    return len(run.groups)


class _Work:
    """The worker step: enrich one descriptor file into the staging folder."""

    def __init__(self, staging: str):
        self.staging = staging

    def enrich(self, position: int) -> None:
        folder = Path(self.staging)
        run: FamilyRun = get(folder / _INPUT.format(position))
        ((desc_path, members),) = run.groups.items()
        run.write_to = folder / _OUT.format(position)
        run.write_to.mkdir(exist_ok=True)
        try:
            done = enrich_descriptor_file(run, desc_path, members, run.stems[desc_path])
        except LineageError as exc:
            put(folder, _ERROR.format(position), ErrorRecord.of((position,), exc))
            return
        put(folder, _DONE.format(position), done)


def _pipeline(work: _Work, n: int, options: Any, runner: Any) -> Any:
    beam = require_beam()
    p = beam.Pipeline(runner=runner, options=options)
    _ = (
        p
        | "descriptors" >> beam.Create(list(range(n)))
        | "spread descriptors" >> beam.Reshuffle()
        | "enrich" >> beam.Map(work.enrich)
    )
    return p


def _merge(run: FamilyRun, folder: Path, n: int) -> FamilyEnrichResult:
    """Raise the first error, else write the staged files into ``run.out`` in one swap."""
    err = first_error(get(p) for p in sorted(folder.glob(_ERRORS)))
    if err is not None:
        raise err
    written: list[EnrichedDescriptor] = [get(folder / _DONE.format(i)) for i in range(n)]
    with atomic_folder(run.out) as tmp:
        for i, done in enumerate(written):
            names = [*(Path(f).name for f in done.files.values()), Path(done.path).name]
            for name in names:
                _move(folder / _OUT.format(i) / name, tmp / name)
    return FamilyEnrichResult(str(run.out), written)


def _move(src: Path, dest: Path) -> None:
    """A staged file into the output's temporary folder: renamed where both are on one file
    system (no copy of the bytes), else copied (:func:`atomic_write_bytes`). Either way
    :func:`atomic_folder` checks it against the command's inputs and syncs it before the swap."""
    try:
        os.replace(src, dest)
    except OSError:  # another file system (EXDEV), or anything else: the copy reports it, coded
        atomic_write_bytes(dest, src.read_bytes())


def enrich_family_beam(
    lineage: Any,
    family_spec: Any,
    out_dir: str | Path | None,
    findings: Any = None,
    *,
    time: str | datetime | int | None = None,
    force: bool = False,
    pipeline_options: PipelineOptionsArg = None,
    staging_dir: str | Path | None = None,
    rebase: bool = False,
    data_dir: str | Path | None = None,
) -> FamilyEnrichResult:
    """:func:`~croissant_lineage.enrich.family.enrich_family` with a Beam pipeline: the
    same files, byte for byte, and the same result.

    Args:
        lineage: A :class:`~croissant_lineage.lineage.model.Lineage`, or its folder.
        family_spec: A :class:`~croissant_lineage.family.spec.FamilySpec`, or a name/path.
        out_dir: Output folder (created).
        findings: Findings, a findings file or several (see
            :func:`~croissant_lineage.enrich.family.enrich_family`); None for none.
        time: When (see :func:`~croissant_lineage.prov.vocab.resolve_time`).
        force: Replace files in ``out_dir`` that this library did not write.
        rebase: Rewrite the benchmark's relative paths to resolve from ``out_dir`` (recorded,
            undone by :func:`~croissant_lineage.enrich.marks.strip_enrichment`); ``in_place`` is
            not offered: the pipeline's output is one folder, written whole.
        data_dir: The family's data folder, where the originals' relative paths resolve.
        pipeline_options: Beam options (see :func:`~croissant_lineage.beam.pipeline.beam_options`);
            default: Beam's local Python runner, one worker process per core.
        staging_dir: Folder under which the run's staging folder is made (shared by the
            workers; default: the system's temporary folder); removed at the end.

    Returns:
        A :class:`~croissant_lineage.enrich.family.FamilyEnrichResult`.

    Raises:
        InputError: apache-beam is not installed.
        PipelineError: Beam failed (see :func:`~croissant_lineage.beam.pipeline.run_pipeline`);
            nothing is written to ``out_dir`` then.
        LineageError: any input problem, the one the local run would report; nothing
            is written to ``out_dir`` then.
    """
    options, runner = beam_options(pipeline_options)
    run = FamilyRun.start(lineage, family_spec, out_dir, findings, time=time, force=force,
                          rebase=rebase, data_dir=data_dir)
    with staging.folder("croissant-lineage-beam-enrich-", staging_dir) as folder:
        n = _stage(run, folder)
        run_pipeline(lambda: _pipeline(_Work(str(folder)), n, options, runner))
        return _merge(run, folder, n)
