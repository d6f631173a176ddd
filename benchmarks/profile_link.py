"""Where link + write of a family spends its CPU: a cProfile summary, or per-step CPU times.

Usage::

    python benchmarks/profile_link.py [FAMILY] [--data-dir DIR] [--steps] [--top N]

``FAMILY`` is a family spec (a bundled name such as ``mmlu``, or a path; default ``mmlu``).
Without ``--steps``: ``cProfile`` on the CPU clock (``time.process_time``) around
``link(FAMILY)`` + ``Lineage.write``, printed as the top ``N`` functions by cumulative and by
self time (what ``benchmarks/profiles/link-mmlu-<commit>.txt`` hold; cProfile inflates
per-call Python work, so read shares, not seconds). With ``--steps``: no profiler; the
linker's steps are wrapped and their CPU seconds printed as one JSON line (nested steps
overlap), with the link and write totals: compare fresh processes, interleaved.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

STEPS = ("load_items_packed", "match_text", "match_id", "check_index_matches", "edges_table",
         "side_duplicates", "assemble_lineage")


def _wrap_steps(module: Any, totals: dict[str, float]) -> None:
    """Replace each of :data:`STEPS` that ``module`` has by a wrapper adding its CPU time."""
    for name in STEPS:
        fn = getattr(module, name, None)
        if fn is None:
            continue

        def timed(*a: Any, _fn: Callable[..., Any] = fn, _name: str = name, **k: Any) -> Any:
            t0 = time.process_time()
            try:
                return _fn(*a, **k)
            finally:
                totals[_name] = totals.get(_name, 0.0) + time.process_time() - t0

        setattr(module, name, timed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("family", nargs="?", default="mmlu")
    ap.add_argument("--data-dir", default=None, help="the data folder (default: the library's own lookup)")
    ap.add_argument("--steps", action="store_true", help="per-step CPU seconds as JSON, no profiler")
    ap.add_argument("--top", type=int, default=45, help="functions listed per ordering (default 45)")
    args = ap.parse_args(argv)
    from croissant_lineage.linking import linker

    totals: dict[str, float] = {}
    profiler = None
    if args.steps:
        _wrap_steps(linker, totals)
    else:
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
    with tempfile.TemporaryDirectory() as out:
        t0 = time.process_time()
        lineage = linker.link(args.family, data_dir=args.data_dir)
        t1 = time.process_time()
        lineage.write(out, overwrite=True)
        t2 = time.process_time()
    if profiler is not None:
        profiler.disable()
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text)
        stats.sort_stats("cumulative").print_stats(args.top)
        stats.sort_stats("tottime").print_stats(args.top)
        print(text.getvalue())
        return 0
    print(json.dumps({"link": round(t1 - t0, 2), "write": round(t2 - t1, 2),
                      "steps": {k: round(v, 2) for k, v in sorted(totals.items())}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
