"""Linking a family as an Apache Beam pipeline (the ``beam`` extra).

The pipeline, and where each step's work comes from::

    dataset positions --Reshuffle--> plan        the dataset's shards (shards.plan_shards)
                      --Reshuffle--> load        one shard read (shards.read_shard: this library's
                                                 reader), its rows keyed by derivation and block
                                                 (blocks.block_rows) and by stem bucket
                                                 (blocks.stem_buckets), one staging file per key
                      --GroupByKey-> link block  link_derivation on the block (blocks.link_block),
                                                 or the duplicate groups of one stem bucket
                                                 (side_duplicates)
    after the run:                   merge       blocks.merge_lineage, in the launching process

No worker holds a whole dataset (unless it is one shard): a block's and a stem bucket's
rows come from every shard, in shard order, each row's place in its dataset carried as
``(shard, row in shard)``. Workers exchange file names, not rows: each shard's items,
each block's rows and each result go to a staging folder that the workers and the
launching process share (a local temporary folder for Beam's local runner). Errors the
library raises on purpose inside a worker are written there as data and raised in the
launching process, the one the local linker would have met first (an error met reading a
shard is re-derived by reading that dataset whole there, since a shard's row numbers are
its own), so that ``--runner beam`` fails with the same coded one-line error as the local
linker. When the record types the reader inferred differ between a dataset's shards
(JSON Lines values), the whole reading would have typed them otherwise: the run is made
again with that dataset read whole. Nothing is written to the lineage folder before the
merge, which writes it whole (:meth:`~croissant_lineage.lineage.model.Lineage.write`).

Datasets are read with the library's own reader (through
:func:`~croissant_lineage.lineage.items.load_items`), not with ``mlcroissant.ReadFromCroissant``: see the README section "Past one machine: Beam".
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.beam import staging
from croissant_lineage.beam.blocks import (
    BlockPart,
    ErrorRecord,
    block_rows,
    first_error,
    link_block,
    merge_lineage,
    spec_error,
    stem_buckets,
)
from croissant_lineage.beam.shards import SHARD_BYTES, SHARD_ROWS, Shard, plan_shards, read_shard
from croissant_lineage.beam.staging import get, put
from croissant_lineage.errors import DataError, InputError, LineageError, PipelineError
from croissant_lineage.family.spec import DatasetSpec, FamilySpec, as_spec
from croissant_lineage.lineage.items import load_items
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import ITEMS_SCHEMA
from croissant_lineage.linking.duplicates import DuplicateGroup, side_duplicates
from croissant_lineage.linking.sides import Side

if TYPE_CHECKING:
    from apache_beam.options.pipeline_options import PipelineOptions

__all__ = ["DEFAULT_OPTIONS", "PipelineOptionsArg", "beam_options", "link_beam", "require_beam", "run_pipeline"]

#: What ``pipeline_options`` may be: Beam's ``PipelineOptions``, ``{name: value}``, or
#: command-line flags (``["--direct_num_workers=2"]``).
PipelineOptionsArg: TypeAlias = "Mapping[str, Any] | Sequence[str] | PipelineOptions | None"

#: Options used unless given: Beam's in-process Python runner, one worker process per core.
DEFAULT_OPTIONS: dict[str, Any] = {"direct_running_mode": "multi_processing", "direct_num_workers": 0}

#: Staging file names.
_ITEMS, _DUP_PIECE = "items-{:05d}-{:05d}.pkl", "duppiece-{:05d}-{:03d}-{:05d}.pkl"
_DUPS, _PART, _ERROR = "dups-{:05d}-{:03d}.pkl", "part-{:05d}-{}.pkl", "error-{}.pkl"

#: A row's place in its dataset, as a sort key: ``shard << _SHARD_SHIFT | row in shard``.
_SHARD_SHIFT = 32


def require_beam() -> Any:
    """The ``apache_beam`` module.

    Raises:
        InputError: apache-beam is not installed (the error names the extra).
    """
    try:
        import apache_beam
    except ImportError:
        raise InputError(
            "--runner beam needs apache-beam, which is not installed",
            hint="pip install 'croissant-lineage[beam]'",
        ) from None
    return apache_beam


def beam_options(pipeline_options: PipelineOptionsArg = None) -> tuple[PipelineOptions, Any]:
    """Beam's options and the runner to use.

    Args:
        pipeline_options: See :data:`PipelineOptionsArg`. Values given override
            :data:`DEFAULT_OPTIONS`.

    Returns:
        ``(options, runner)``: the runner named by the ``runner`` option, or, when none is
        named, Beam's in-process Python runner (``FnApiRunner``), never one that fetches
        a binary or a container at start (Beam's ``DirectRunner`` may hand a pipeline to
        Prism).

    Raises:
        InputError: apache-beam is not installed.
    """
    require_beam()
    from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner

    if isinstance(pipeline_options, PipelineOptions):
        options = pipeline_options  # the caller's own object: used as it is
    else:
        given = _flags(pipeline_options) if isinstance(pipeline_options, Mapping) else list(pipeline_options or ())
        options = PipelineOptions([*_flags(DEFAULT_OPTIONS), *given])  # a later flag wins
    runner = options.view_as(StandardOptions).runner
    return options, (runner if runner else FnApiRunner())


def run_pipeline(build: Callable[[], Any]) -> None:
    """Build a Beam pipeline with ``build()`` and run it to the end.

    Raises:
        LineageError: one the library raised on purpose, as it is.
        PipelineError: anything else Beam raised, building (a type check, an option) or
            running (a worker that died); the one line names Beam's exception, which
            stays chained as the cause (the CLI prints it under ``--debug``).
    """
    try:
        build().run().wait_until_finish()
    except LineageError:
        raise
    except Exception as exc:
        lines = str(exc).strip().splitlines()
        first = lines[0] if lines else ""
        first = first if len(first) <= 300 else first[:297] + "..."
        raise PipelineError(
            f"the Beam pipeline failed: {type(exc).__name__}: {first}".rstrip(": "),
            hint="--debug shows Beam's traceback",
        ) from exc


def _flags(options: Mapping[str, Any]) -> list[str]:
    """``{name: value}`` as Beam's command-line flags (``True``: the bare flag; a list: repeated)."""
    flags: list[str] = []
    for name, value in options.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        flags.extend(f"--{name}" if v is True else f"--{name}={v}" for v in values if v is not None and v is not False)
    return flags


def _staging_name(key: str) -> str:
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:20]


class _Work:
    """What every step needs: the spec, where data resolves, the staging folder, and how
    datasets are cut into shards."""

    def __init__(
        self,
        spec: FamilySpec,
        data_dir: str | None,
        allow_outside: bool,
        staging: str,
        *,
        whole: frozenset[int] = frozenset(),
        shard_bytes: int = SHARD_BYTES,
        shard_rows: int = SHARD_ROWS,
    ):
        self.spec = spec
        self.data_dir = data_dir
        self.allow_outside = allow_outside
        self.staging = staging
        self.whole = whole
        self.shard_bytes = shard_bytes
        self.shard_rows = shard_rows

    def dataset(self, position: int) -> DatasetSpec:
        """The dataset at ``position`` among those with items."""
        return [d for d in self.spec.datasets.values() if d.has_items][position]

    def plan(self, position: int) -> list[Shard]:
        """The shards of one dataset (one ``"whole"`` shard for those in :attr:`whole`)."""
        if position in self.whole:
            return [Shard(position, 0, "whole")]
        return plan_shards(self.dataset(position), position, data_dir=self.data_dir, allow_outside=self.allow_outside,
                           shard_bytes=self.shard_bytes, shard_rows=self.shard_rows)

    def load(self, shard: Shard) -> Iterator[tuple[tuple[str, int, Any], tuple[str, int, str]]]:
        """Read one shard; write its items; yield its rows' staging files keyed by
        ``("link", derivation, block)`` and ``("dups", dataset, stem bucket)``."""
        folder = Path(self.staging)
        ds = self.dataset(shard.dataset)
        try:
            table, schema = read_shard(ds, shard, data_dir=self.data_dir, allow_outside=self.allow_outside)
        except LineageError as exc:
            name = _ERROR.format(f"0-{shard.dataset:05d}-{shard.index:05d}")
            put(folder, name, ErrorRecord.of((0, shard.dataset, shard.index), exc))
            return
        side = Side(table)
        put(folder, _ITEMS.format(shard.dataset, shard.index), (table, schema))
        yield from self._dup_pieces(folder, shard, side)
        for k, deriv in enumerate(self.spec.item_derivations()):
            for role, name in (("child", deriv.child), ("parent", deriv.parent)):
                if name == ds.name:
                    yield from self._blocks(folder, k, shard, side, role)

    def _dup_pieces(
        self, folder: Path, shard: Shard, side: Side
    ) -> Iterator[tuple[tuple[str, int, Any], tuple[str, int, str]]]:
        """The shard's rows with a normalised stem, by stem bucket (duplicate groups never
        cross one), without their records (finding duplicates does not read them)."""
        table = side.table.set_column(
            side.table.schema.get_field_index("record"), "record", pa.nulls(len(side), pa.string())
        )
        for bucket, rows in stem_buckets(side.norm_stems).items():
            name = _DUP_PIECE.format(shard.dataset, bucket, shard.index)
            put(folder, name, table.take(rows))
            yield ("dups", shard.dataset, bucket), ("dup", shard.index, name)

    def _blocks(
        self, folder: Path, k: int, shard: Shard, side: Side, role: str
    ) -> Iterator[tuple[tuple[str, int, Any], tuple[str, int, str]]]:
        deriv = self.spec.item_derivations()[k]
        try:
            blocks = block_rows(deriv, side, role)
        except LineageError as exc:
            exc = spec_error(self.spec, exc)
            put(folder, _ERROR.format(f"1-{k:05d}-{role}"), ErrorRecord.of((1, k, "", role), exc))
            return
        base = shard.index << _SHARD_SHIFT  # a row's place in the dataset: (shard, row in shard)
        for key, rows in blocks.items():
            name = f"{role}-{k:05d}-{_staging_name(key)}-{shard.index:05d}.pkl"
            put(folder, name, (side.table.take(rows), [base + r for r in rows]))
            yield ("link", k, key), (role, shard.index, name)

    def link(self, element: tuple[tuple[str, int, Any], Iterable[tuple[str, int, str]]]) -> None:
        """Link one block, ``(("link", derivation, block), [(role, shard, file), ...])``, or
        find the duplicate groups of one stem bucket, ``(("dups", dataset, bucket), ...)``.

        The files are the grouped values of a ``GroupByKey``: an iterable, read once."""
        (tag, k, key), files = element
        folder = Path(self.staging)
        got: dict[str, list[tuple[int, str]]] = {}
        for role, index, name in files:
            got.setdefault(role, []).append((index, name))
        if tag == "dups":
            ds = self.dataset(k)
            side = Side(pa.concat_tables([get(folder / n) for _, n in sorted(got["dup"])]).combine_chunks())
            put(folder, _DUPS.format(k, key), side_duplicates(ds.name, side))
            return
        if "child" not in got:  # parents with no child in the block: nothing to link
            return
        pieces = [get(folder / n) for _, n in sorted(got["child"])]
        child = pa.concat_tables([t for t, _ in pieces]).combine_chunks()
        rows = [r for _, rs in pieces for r in rs]
        parents = [get(folder / n)[0] for _, n in sorted(got.get("parent", []))]
        parent = pa.concat_tables(parents).combine_chunks() if parents else ITEMS_SCHEMA.empty_table()
        try:
            part = link_block(self.spec, k, child, rows, parent)
        except LineageError as exc:
            put(folder, _ERROR.format(f"1-{k:05d}-{_staging_name(key)}"), ErrorRecord.of((1, k, key, ""), exc))
            return
        put(folder, _PART.format(k, _staging_name(key)), part)

    def reread_error(self, position: int, recorded: LineageError | None) -> LineageError:
        """The error the local linker meets loading dataset ``position``: a shard's error
        may name the shard's rows, and some (repeated ids across shards) show only in the
        whole dataset, so the dataset is read whole here, in the launching process."""
        try:
            load_items(self.dataset(position), data_dir=self.data_dir, allow_outside=self.allow_outside)
        except LineageError as exc:
            return exc
        return recorded or DataError(f"dataset {self.dataset(position).name!r}: its shards disagree")


def _pipeline(work: _Work, n_datasets: int, options: PipelineOptions, runner: Any) -> Any:
    beam = require_beam()
    p = beam.Pipeline(runner=runner, options=options)
    _ = (
        p
        | "datasets" >> beam.Create(list(range(n_datasets)))
        | "spread datasets" >> beam.Reshuffle()
        | "plan shards" >> beam.FlatMap(work.plan)
        | "spread shards" >> beam.Reshuffle()
        | "load" >> beam.FlatMap(work.load)
        | "by block" >> beam.GroupByKey()
        | "link block" >> beam.Map(work.link)
    )
    return p


def _dataset_items(work: _Work, folder: Path, position: int, errors: Sequence[ErrorRecord]) -> tuple[pa.Table, bool]:
    """One dataset's items from its shards, and whether its shards' record schemas agree.

    Raises:
        LineageError: the error the local linker meets loading it.
    """
    mine = [e for e in errors if e.order[:2] == (0, position)]
    if mine:
        raise work.reread_error(position, first_error(mine))
    pieces = [get(p) for p in sorted(folder.glob(f"items-{position:05d}-*.pkl"))]
    schemas = [s for _, s in pieces if s is not None]
    agree = all(s.equals(schemas[0]) for s in schemas[1:])
    table = pa.concat_tables([t for t, _ in pieces]).combine_chunks()
    if len(pieces) > 1 and pc.count_distinct(table.column("item")).as_py() != table.num_rows:
        raise work.reread_error(position, None)  # an id repeated across shards
    return table, agree


def _collect(work: _Work, folder: Path, n_datasets: int) -> Lineage | set[int]:
    """The merge: the staged results as one :class:`Lineage` (or the first error), or the
    datasets to read whole (their shards' record schemas disagree) in a second run."""
    errors = [get(p) for p in sorted(folder.glob(_ERROR.format("*")))]
    items: list[pa.Table] = []
    disagree: set[int] = set()
    for i in range(n_datasets):
        table, agree = _dataset_items(work, folder, i, errors)
        items.append(table)
        if not agree:
            disagree.add(i)
    if disagree:
        return disagree
    err = first_error(e for e in errors if e.order[0] == 1)
    if err is not None:
        raise err
    found: list[DuplicateGroup] = []
    for path in sorted(folder.glob("dups-*.pkl")):
        found.extend(get(path))
    parts: dict[int, list[BlockPart]] = {}
    for path in sorted(folder.glob("part-*.pkl")):
        parts.setdefault(int(path.name.split("-")[1]), []).append(get(path))
    return merge_lineage(work.spec, items, parts, found)


def link_beam(
    family: FamilySpec | str | Path,
    *,
    data_dir: str | Path | None = None,
    allow_outside: bool = False,
    pipeline_options: PipelineOptionsArg = None,
    staging_dir: str | Path | None = None,
    shard_bytes: int = SHARD_BYTES,
    shard_rows: int = SHARD_ROWS,
) -> Lineage:
    """Link a family with a Beam pipeline; the same :class:`Lineage` as the local linker.

    Args:
        family: A :class:`FamilySpec`, a built-in family name (``"mmlu"``) or a spec path.
        data_dir: Folder the shipped descriptors' file URLs resolve against (it, the
            descriptors and the data files must be readable by every worker).
        allow_outside: Allow descriptor file URLs that leave their base folder.
        pipeline_options: Beam options (see :func:`beam_options`); default: Beam's local
            Python runner, one worker process per core.
        staging_dir: Folder under which the run's staging folder is made (it must be
            shared by the workers; default: the system's temporary folder). The staging
            folder is removed at the end, whatever happens.
        shard_bytes: Largest shard of a text data file, in bytes (see
            :mod:`croissant_lineage.beam.shards`).
        shard_rows: Most rows of a Parquet shard.

    Returns:
        The :class:`Lineage`, equal to the local linker's.

    Raises:
        InputError: apache-beam is not installed.
        PipelineError: Beam failed (see :func:`run_pipeline`).
        LineageError: any input problem, the one the local linker would report.
    """
    options, runner = beam_options(pipeline_options)
    spec = as_spec(family)
    n = sum(1 for d in spec.datasets.values() if d.has_items)
    whole: set[int] = set()
    while True:  # at most twice: a second run reads whole the datasets whose shards disagree
        with staging.folder("croissant-lineage-beam-", staging_dir) as folder:
            work = _Work(spec, None if data_dir is None else str(data_dir), allow_outside, str(folder),
                         whole=frozenset(whole), shard_bytes=shard_bytes, shard_rows=shard_rows)
            run_pipeline(lambda: _pipeline(work, n, options, runner))  # noqa: B023 (called here)
            got = _collect(work, folder, n)
        if isinstance(got, Lineage):
            return got
        whole |= got
