"""1. Whole-family link against mlcroissant's ``records()`` and a raw pyarrow read.

* **link**: :func:`croissant_lineage.workflows.link` from the family spec (descriptors in)
  plus :meth:`Lineage.write` (items, edges, duplicates, unmatched written as Parquet).
* **mlcroissant**: ``mlcroissant.Dataset`` built from the same descriptors (with the
  same data folder), every record of the same RecordSet iterated. mlcroissant cannot
  read some datasets (Arrow IPC files, headerless CSV, files mixing delimiters): they
  are found by trying, listed, and compared like with like (link restricted to the
  datasets mlcroissant reads) as well as whole family against what it can read.
* **pyarrow**: the same data files read with pyarrow's own readers (CSV with the
  delimiter of the first line, JSON Lines, Parquet, Arrow IPC), nothing else.
* **pyarrow read + plain write** (1b's baseline): that read, then the tables of the lineage
  folder link wrote (read back beforehand, outside the timing) written with a plain
  ``pq.write_table`` each, in the same run: what reading the inputs and writing the same
  outputs cost with no linking at all.
* **parts of link** (not targets): loading every dataset's items alone (read, clean, roles,
  the records' JSON: ``load_items_packed``) and writing the linked lineage folder alone (bytes
  fixed by the golden hashes), each against the same pyarrow read: what (b) cannot go under.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from pathlib import Path
from typing import Any

from common import Report, Stat, Target, interleaved

from croissant_lineage.croissant.descriptor import read_descriptor
from croissant_lineage.family.spec import FamilySpec
from croissant_lineage.lineage.items import load_items_packed
from croissant_lineage.workflows import link


def subset(spec: FamilySpec, names: list[str]) -> FamilySpec:
    """The family restricted to ``names`` (derivations with both ends kept)."""
    keep = set(names)
    return dataclasses.replace(
        spec,
        datasets={n: d for n, d in spec.datasets.items() if n in keep},
        derivations=tuple(d for d in spec.derivations if d.child in keep and d.parent in keep),
    )


def _base_dir(spec: FamilySpec, name: str, data_dir: Path | None) -> Path:
    ds = spec.datasets[name]
    assert ds.descriptor is not None
    return Path(data_dir) if (ds.files_relative_to_data_dir and data_dir) else ds.descriptor.parent


def _quiet_mlcroissant() -> None:
    for name in ("absl", "mlcroissant"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        from absl import logging as absl_logging

        absl_logging.set_verbosity(absl_logging.ERROR)
    except ImportError:  # pragma: no cover
        pass


def mlcroissant_records(spec: FamilySpec, names: list[str], data_dir: Path | None) -> int:
    """Iterate every record of each dataset with mlcroissant; returns the record count."""
    import mlcroissant as mlc
    from etils import epath
    from mlcroissant._src.core.context import Context
    from mlcroissant._src.structure_graph.nodes.metadata import Metadata

    n = 0
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # mlcroissant logs a warning per file a split regex skips
    try:
        for name in names:
            ds = spec.datasets[name]
            assert ds.descriptor is not None
            doc = json.loads(ds.descriptor.read_text(encoding="utf-8"))
            ctx = Context(folder=epath.Path(_base_dir(spec, name, data_dir)))
            dataset = mlc.Dataset.from_metadata(Metadata.from_json(ctx=ctx, json_=doc))
            for _ in dataset.records(ds.record_set):
                n += 1
    finally:
        root.setLevel(level)
    return n


def mlcroissant_readable(spec: FamilySpec, data_dir: Path | None) -> tuple[list[str], dict[str, str]]:
    """Datasets mlcroissant reads to the end, and why the others fail."""
    _quiet_mlcroissant()
    ok, failed = [], {}
    for name, ds in spec.datasets.items():
        if not ds.has_items:
            continue
        try:
            mlcroissant_records(spec, [name], data_dir)
            ok.append(name)
        except Exception as exc:  # mlcroissant raises many kinds; we only report them
            cause = exc.__cause__ or exc.__context__ or exc
            failed[name] = f"{type(exc).__name__}: {str(cause).splitlines()[0][:120] if str(cause) else ''}"
    return ok, failed


def data_files(spec: FamilySpec, names: list[str], data_dir: Path | None) -> list[tuple[Path, str, list[str] | None]]:
    """(path, encodingFormat, headerless CSV columns) of every file the datasets read."""
    out = []
    for name in names:
        ds = spec.datasets[name]
        assert ds.descriptor is not None
        base = Path(data_dir) if (ds.files_relative_to_data_dir and data_dir) else None
        desc = read_descriptor(ds.descriptor, base_dir=base)
        rs = desc.record_set(ds.record_set)
        files = desc.files()
        for fid in sorted({f.source_file for f in rs.fields.values() if f.source_file}):
            node = files[fid]
            cols = node.node.get("cl:csvColumns")
            for path in desc.local_paths(fid):
                out.append((path, node.encoding_format, cols if isinstance(cols, list) else None))
    return out


def pyarrow_read(files: list[tuple[Path, str, list[str] | None]]) -> int:
    """Read the files with pyarrow alone; returns the row count."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.ipc as ipc
    import pyarrow.json as pjson
    import pyarrow.parquet as pq

    n = 0
    for path, fmt, cols in files:
        fmt = fmt.split(";")[0].strip()
        if fmt in ("text/csv", "text/tab-separated-values"):
            with path.open("rb") as fh:
                first = fh.readline()
            delim = max((b",", b";", b"\t"), key=first.count).decode()
            table = pcsv.read_csv(
                path,
                read_options=pcsv.ReadOptions(column_names=cols) if cols else None,
                parse_options=pcsv.ParseOptions(delimiter=delim, newlines_in_values=True),
                convert_options=pcsv.ConvertOptions(check_utf8=False),
            )
        elif "json" in fmt:
            table = pjson.read_json(path)
        elif "parquet" in fmt:
            table = pq.read_table(path)
        else:
            with pa.memory_map(str(path)) as src:
                try:
                    table = ipc.open_stream(src).read_all()
                except pa.ArrowInvalid:
                    src.seek(0)
                    table = ipc.open_file(src).read_all()
        n += table.num_rows
    return n


def lineage_tables(folder: Path) -> dict[str, Any]:
    """The Parquet tables of a lineage folder, read back whole (file name -> table)."""
    import pyarrow.parquet as pq

    return {p.name: pq.read_table(p) for p in sorted(folder.glob("*.parquet"))}


def plain_write(tables: dict[str, Any], folder: Path) -> int:
    """Write ``tables`` with a plain ``pq.write_table`` each (pyarrow's defaults); returns the rows."""
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        pq.write_table(table, folder / name)
    return sum(t.num_rows for t in tables.values())


def run(report: Report, spec: FamilySpec, data_dir: Path | None, runs: int, work: Path) -> dict[str, Any]:
    """Measure section 1; returns what later sections reuse (the lineage folder)."""
    key = "link"
    report.section(key, "1. Whole-family link (descriptors in, items + edges written)")
    names = [n for n, d in spec.datasets.items() if d.has_items]
    readable, failed = mlcroissant_readable(spec, data_dir)
    report.line(f"  datasets with item data: {len(names)}")
    report.line(f"  mlcroissant reads {len(readable)}: {', '.join(readable)}")
    for name, why in failed.items():
        report.line(f"  mlcroissant cannot read {name}: {why}")
    report.put(key, "datasets", names)
    report.put(key, "mlcroissant_readable", readable)
    report.put(key, "mlcroissant_failed", failed)
    same = subset(spec, readable)
    all_files = data_files(spec, names, data_dir)
    same_files = data_files(spec, readable, data_dir)
    lineage_dir = work / "lineage"
    scratch = work / "scratch-lineage"

    def link_all() -> int:
        lin = link(spec, data_dir=data_dir)
        lin.write(lineage_dir, force=True)
        return int(lin.items.num_rows)

    def link_same() -> int:
        lin = link(same, data_dir=data_dir)
        lin.write(scratch, force=True)
        return int(lin.items.num_rows)

    items = link_all()  # warm-up: imports (pandas through pyarrow) and file cache
    same_items = link_same()
    held = {"lineage": link(spec, data_dir=data_dir)}  # what "writing alone" writes

    def write_all() -> int:
        held["lineage"].write(scratch, force=True)
        return int(held["lineage"].items.num_rows)

    def load_all() -> int:
        return sum(load_items_packed(spec.datasets[n], data_dir=data_dir)[0].num_rows for n in names)
    pyarrow_read(all_files)
    outputs = lineage_tables(lineage_dir)  # what link wrote: the plain write's input
    plain_dir = work / "plain-write"
    n_outputs = len(outputs)

    def read_and_write() -> int:
        return pyarrow_read(all_files) + plain_write(outputs, plain_dir)

    report.line(f"  items: {items:,} (whole family), {same_items:,} (datasets mlcroissant reads); "
                f"files: {len(all_files)} ({sum(p.stat().st_size for p, _, _ in all_files) / 1e6:.1f} MB)")
    measures = {
        "link_all": link_all,
        "link_same": link_same,
        "pyarrow_all": lambda: pyarrow_read(all_files),
        "pyarrow_all_write": read_and_write,
        "pyarrow_same": lambda: pyarrow_read(same_files),
        "load_all": load_all,
        "write_all": write_all,
    }
    if readable:
        measures["mlcroissant_same"] = lambda: mlcroissant_records(spec, readable, data_dir)
    stats = interleaved(measures, runs)
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.rmtree(plain_dir, ignore_errors=True)
    held.clear()
    outputs.clear()
    labels = {
        "link_all": f"link, whole family ({len(names)} datasets)",
        "link_same": f"link, the {len(readable)} datasets mlcroissant reads",
        "mlcroissant_same": f"mlcroissant records(), the same {len(readable)} datasets",
        "pyarrow_all": f"pyarrow read, whole family ({len(all_files)} files)",
        "pyarrow_all_write": f"pyarrow read + plain write ({n_outputs} tables)",
        "pyarrow_same": f"pyarrow read, the {len(readable)} datasets' files",
        "load_all": "part of link: loading the items, whole family",
        "write_all": "part of link: writing the lineage folder",
    }
    report.header()
    for name, stat in stats.items():
        report.time_row(labels[name], stat)
    report.put(key, "times", {k: s.to_dict() for k, s in stats.items()})

    def ratio(a: Stat, b: Stat) -> tuple[float, float]:
        return a.median_wall / b.median_wall, a.median_cpu / b.median_cpu

    ratios: dict[str, Any] = {}
    report.line("  ratios (wall, cpu):")
    if readable:
        r = ratio(stats["link_same"], stats["mlcroissant_same"])
        ratios["link_same_over_mlcroissant"] = r
        report.ratio_row("(a) link / mlcroissant, same datasets", *r,
                         target=Target("1a link / mlcroissant (same datasets)", r[0], "<=", 0.1))
        r = ratio(stats["link_all"], stats["mlcroissant_same"])
        ratios["link_all_over_mlcroissant"] = r
        report.ratio_row("(a') link whole family / mlcroissant on what it reads", *r)
    r = ratio(stats["link_all"], stats["pyarrow_all_write"])
    ratios["link_all_over_pyarrow_write"] = r
    report.ratio_row("(b) link + write / (pyarrow read + plain write)", *r,
                     target=Target("1b link + write / (pyarrow read + plain write)", r[0], "<=", 3.0))
    r = ratio(stats["link_all"], stats["pyarrow_all"])
    ratios["link_all_over_pyarrow"] = r
    report.ratio_row("(b0) link + write / pyarrow read alone", *r)
    r = ratio(stats["link_same"], stats["pyarrow_same"])
    ratios["link_same_over_pyarrow"] = r
    report.ratio_row("(b') link / pyarrow read, same datasets", *r)
    # Parts of (b): what loading (read, clean, roles, the records' JSON) and writing (fixed
    # bytes: the golden hashes) alone cost against the same read.
    for part in ("load_all", "write_all"):
        r = ratio(stats[part], stats["pyarrow_all"])
        ratios[f"{part}_over_pyarrow"] = r
        report.ratio_row(f"(b'') {labels[part].removeprefix('part of link: ')} / pyarrow read", *r)
    report.put(key, "ratios", ratios)
    report.put(key, "items", items)
    return {"lineage_dir": lineage_dir, "items": items}


__all__ = [
    "data_files", "lineage_tables", "mlcroissant_readable", "mlcroissant_records", "plain_write", "pyarrow_read",
    "run", "subset",
]
