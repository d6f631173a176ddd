"""2. Fuzzy stem matching against difflib, pair by pair, on the same candidate pairs.

The candidate pairs are exactly those the linker scores: a link of the family runs with
``linking.match.stem_ratios`` wrapped, which records every block (the children left after
exact matching against all parents of their block). Then:

* **rapidfuzz**: the recorded ``stem_ratios`` calls are replayed as the linker makes them
  (RapidFuzz ``cdist`` of ``LCSseq.similarity``, one thread, on the texts cut of the
  block's common prefix and suffix: the same scores as ``cdist`` with ``fuzz.ratio``),
  timed over several runs;
* **difflib**: ``difflib.SequenceMatcher(None, a, b).ratio()`` for every pair, as ad-hoc
  audit scripts do (timed once: it is slow); and the same with ``autojunk=False``.
  By default difflib treats characters that make up more than 1 % of a text of 200
  characters or more as junk, which wrecks the score of long stems (an edited
  250-character stem scores 48 against its source instead of 97); ad-hoc scripts
  rarely turn that off, so both are measured;
* **same links**: the link runs again with each difflib variant's matrices (x100) in
  place of rapidfuzz's, and the child -> parent pairs chosen are compared with the
  real run's.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
from common import Report, Stat, Target, interleaved, timed

from croissant_lineage import workflows as linking
from croissant_lineage.family.spec import FamilySpec
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.linking import match as matching


def _record(spec: FamilySpec, data_dir: Path | None) -> tuple[list[tuple[list[str], list[str], dict[str, Any]]], Lineage]:
    calls: list[tuple[list[str], list[str], dict[str, Any]]] = []
    real = matching.stem_ratios

    def spy(queries: Any, choices: Any, **kw: Any) -> Any:
        calls.append((list(queries), list(choices), dict(kw)))
        return real(queries, choices, **kw)

    with mock.patch.object(matching, "stem_ratios", spy):
        lineage = linking.link(spec, data_dir=data_dir)
    return calls, lineage


def _difflib_matrix(queries: list[str], choices: list[str], autojunk: bool) -> np.ndarray:
    out = np.empty((len(queries), len(choices)), dtype=np.float32)
    for r, a in enumerate(queries):
        row = out[r]
        for c, b in enumerate(choices):
            row[c] = difflib.SequenceMatcher(None, a, b, autojunk=autojunk).ratio() * 100.0
    return out


#: The difflib variants measured: name -> autojunk.
VARIANTS = {"difflib": True, "difflib_nojunk": False}


def _links(lineage: Lineage) -> dict[tuple[str, str], tuple[str, str]]:
    e = lineage.edges
    cols = [e.column(c).to_pylist() for c in ("child_dataset", "child_item", "parent_dataset", "parent_item")]
    return {(cd, ci): (pd_, pi) for cd, ci, pd_, pi in zip(*cols, strict=True)}


def run(report: Report, spec: FamilySpec, data_dir: Path | None, runs: int) -> None:
    key = "fuzzy"
    report.section(key, "2. Fuzzy matching: rapidfuzz (linker's stem_ratios) vs difflib pair by pair (same pairs)")
    calls, lineage = _record(spec, data_dir)
    pairs = sum(len(q) * len(c) for q, c, _ in calls)
    queries = sum(len(q) for q, _, _ in calls)
    report.line(f"  blocks scored: {len(calls)}, children scored: {queries:,}, candidate pairs: {pairs:,}")
    report.put(key, "blocks", len(calls))
    report.put(key, "pairs", pairs)
    if not pairs:
        report.line("  no candidate pairs (every child matched exactly): nothing to compare")
        return

    def rapidfuzz_all() -> None:
        for q, c, kw in calls:
            matching.stem_ratios(q, c, **kw)

    stats = interleaved({"rapidfuzz": rapidfuzz_all}, runs)
    matrices: dict[str, list[np.ndarray]] = {}
    for name, autojunk in VARIANTS.items():
        mats, w, c = timed(lambda aj=autojunk: [_difflib_matrix(q, ch, aj) for q, ch, _ in calls])
        matrices[name] = mats
        stats[name] = Stat(name, [w], [c])
    labels = {
        "rapidfuzz": "rapidfuzz (the linker's stem_ratios, 1 thread)",
        "difflib": "difflib SequenceMatcher.ratio, pair by pair (1 run)",
        "difflib_nojunk": "difflib, autojunk=False, pair by pair (1 run)",
    }
    report.header()
    for name, stat in stats.items():
        report.time_row(labels[name], stat)
    per_pair = {k: s.median_cpu / pairs * 1e6 for k, s in stats.items()}
    report.line("  per pair (cpu): " + ", ".join(f"{k} {v:.2f} us" for k, v in per_pair.items()))
    ours = _links(lineage)
    report.line(f"  links chosen with rapidfuzz: {len(ours):,}")
    report.line("  ratios (wall, cpu):")
    differing: dict[str, list[list[str]]] = {}
    speedups: dict[str, tuple[float, float]] = {}
    for name in VARIANTS:
        replay, expected = iter(matrices[name]), iter(calls)

        def difflib_cdist(queries: Any, choices: Any, replay: Any = replay, expected: Any = expected, **kw: Any) -> Any:
            q, ch, _ = next(expected)
            assert list(queries) == q and list(choices) == ch, "the link scored other pairs the second time"
            return next(replay)

        with mock.patch.object(matching, "stem_ratios", difflib_cdist):
            theirs = _links(linking.link(spec, data_dir=data_dir))
        differ = sorted(k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k))
        differing[name] = [list(k) for k in differ]
        speedup = (stats[name].median_wall / stats["rapidfuzz"].median_wall,
                   stats[name].median_cpu / stats["rapidfuzz"].median_cpu)
        speedups[name] = speedup
        report.ratio_row(f"speed-up of rapidfuzz over {name}", *speedup,
                         target=Target(f"2 fuzzy speed-up over {name}", speedup[0], ">=", 100.0))
        report.line(f"    links chosen with {name}: {len(theirs):,}; {len(differ)} differ from rapidfuzz's"
                    + (f" (e.g. {differ[:3]})" if differ else ""))
        report.targets.append(Target(f"2 same links as {name} (links that differ)", float(len(differ)), "==", 0.0))
    report.put(key, "times", {k: s.to_dict() for k, s in stats.items()})
    report.put(key, "per_pair_us_cpu", per_pair)
    report.put(key, "speedup", speedups)
    report.put(key, "links", len(ours))
    report.put(key, "links_differing", differing)
