"""4. Enrich of the whole family against writing the same JSON with ``json.dump``.

* **enrich**: :func:`croissant_lineage.enrich.family.enrich_family` from the linked lineage
  (in memory) and the family spec: every enriched descriptor and its items, lineage and
  findings Parquet files, written atomically;
* **json.dump**: the enriched descriptors it wrote, already in memory as dicts, dumped
  with ``json.dump`` (indent 2) to as many files;
* **json.dump + Parquet**: the same, plus the same Parquet tables (in memory) written
  with ``pyarrow.parquet.write_table``: every byte enrich writes, written plainly.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from common import Report, Target, interleaved

from croissant_lineage.family.spec import FamilySpec
from croissant_lineage.lineage.model import Lineage


def unavailable() -> str | None:
    """Why enrich cannot be measured in this checkout, or None when it can."""
    try:
        from croissant_lineage.enrich import enrich_family  # noqa: F401
    except Exception as exc:  # absent, or a module mid-edit in a shared checkout
        return f"{type(exc).__name__}: {exc}"
    return None


def run(report: Report, spec: FamilySpec, lineage_dir: Path, runs: int, work: Path) -> Path | None:
    """Measure section 4; returns the enriched folder (None when enrich is absent)."""
    key = "enrich"
    report.section(key, "4. Enrich of the whole family vs json.dump and a plain write of the same files")
    why = unavailable()
    if why is not None:
        report.line(f"  SKIPPED: croissant_lineage.enrich.family.enrich_family cannot be imported ({why})")
        report.put(key, "skipped", why)
        return None
    import pyarrow.parquet as pq

    from croissant_lineage.enrich import enrich_family

    lineage = Lineage.read(lineage_dir)
    out = work / "enriched"
    result = enrich_family(lineage, spec, out)  # warm-up, and what the baselines write
    docs = [json.loads(Path(d.path).read_text(encoding="utf-8")) for d in result.descriptors]
    tables = [
        pq.read_table(Path(d.path).parent / name)
        for d in result.descriptors
        for name in d.files.values()
    ]
    json_bytes = sum(Path(d.path).stat().st_size for d in result.descriptors)
    report.line(f"  {len(docs)} enriched descriptors ({json_bytes / 1e6:.2f} MB of JSON), "
                f"{len(tables)} Parquet files ({sum(t.num_rows for t in tables):,} rows)")
    plain = work / "plain-json"
    plain.mkdir(parents=True, exist_ok=True)

    def dump_json() -> None:
        for i, doc in enumerate(docs):
            with (plain / f"{i}.json").open("w", encoding="utf-8") as fh:
                json.dump(doc, fh, indent=2, ensure_ascii=False)

    def dump_all() -> None:
        dump_json()
        for i, table in enumerate(tables):
            pq.write_table(table, plain / f"{i}.parquet", compression="zstd")

    def enrich() -> Any:
        return enrich_family(lineage, spec, out)

    load_before = os.getloadavg()
    stats = interleaved({"enrich": enrich, "json_dump": dump_json, "json_dump_parquet": dump_all}, runs)
    load_after = os.getloadavg()
    report.line(f"  load average before / after these runs: {load_before[0]:.1f} / {load_after[0]:.1f}")
    shutil.rmtree(plain, ignore_errors=True)
    report.header()
    report.time_row("enrich_family (descriptors + items/lineage/findings files)", stats["enrich"])
    report.time_row("json.dump of the same descriptors", stats["json_dump"])
    report.time_row("json.dump + pyarrow write_table of the same files", stats["json_dump_parquet"])
    r1 = (stats["enrich"].median_wall / stats["json_dump"].median_wall,
          stats["enrich"].median_cpu / stats["json_dump"].median_cpu)
    r2 = (stats["enrich"].median_wall / stats["json_dump_parquet"].median_wall,
          stats["enrich"].median_cpu / stats["json_dump_parquet"].median_cpu)
    report.line("  ratios (wall, cpu):")
    report.ratio_row("enrich / json.dump of the same JSON", *r1)
    report.ratio_row("enrich / plain write of the same JSON and Parquet", *r2,
                     target=Target("4 enrich / plain write of the same files", r2[0], "<=", 3.0))
    report.put(key, "times", {k: s.to_dict() for k, s in stats.items()})
    report.put(key, "ratios", {"over_json_dump": r1, "over_plain_write": r2})
    report.put(key, "load_average", {"before": load_before, "after": load_after})
    return out
