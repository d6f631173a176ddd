"""Where link + write of a family spends its CPU: a cProfile summary, or per-step CPU times.

Usage::

    python benchmarks/profile_link.py [FAMILY] [--data-dir DIR] [--datasets A,B,...] [--steps] [--top N]

``FAMILY`` is a family spec (a bundled name such as ``mmlu``, or a path; default ``mmlu``).
Without ``--steps``: ``cProfile`` on the CPU clock (``time.process_time``) around
``link(FAMILY)`` + ``Lineage.write``, printed as the top ``N`` functions by cumulative and by
self time (what ``benchmarks/profiles/link-mmlu-<commit>.txt`` hold; cProfile inflates
per-call Python work, so read shares, not seconds). With ``--steps``: no profiler; the
linker's steps are wrapped and their CPU seconds printed as one JSON line (nested steps
overlap), with the link and write totals: compare fresh processes, interleaved. With
``--sampled``: no tracing profiler; ``py-spy`` (``pip install py-spy``) samples a second
link + write (the first warms imports and the file cache) and the shares of the samples are
printed per function, inclusive and self: what the time is spent on without cProfile's
per-call inflation (what ``benchmarks/profiles/link-mmlu-<commit>-sampled.txt`` hold).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

STEPS = ("load_items_packed", "match_text", "id_matches", "check_index_matches", "edges_table",
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
    ap.add_argument("--sampled", action="store_true", help="py-spy's sample shares of a second link + write")
    ap.add_argument("--rate", type=int, default=200, help="py-spy samples per second (default 200)")
    ap.add_argument("--datasets", default=None,
                    help="link only these datasets of the family (comma-separated; derivations with both ends "
                         "kept), e.g. the 12 that section 1's 1a compares with mlcroissant")
    ap.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)  # what --sampled runs under py-spy
    args = ap.parse_args(argv)
    if args.sampled:  # (the child run under py-spy cuts the family itself)
        return _sampled(args)
    family = _family(args.family, args.datasets)
    if args.plain:
        from croissant_lineage.linking import linker

        _warm_up(linker, family, args.data_dir)
        _measured(linker, family, args.data_dir)
        return 0
    from croissant_lineage.linking import linker

    totals: dict[str, float] = {}
    profiler = None
    from croissant_lineage import workflows

    if args.steps:
        _wrap_steps(linker, totals)
        _wrap_steps(workflows, totals)  # loading the items is the workflow's step
    else:
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()

    with tempfile.TemporaryDirectory() as out:
        t0 = time.process_time()
        lineage = workflows.link(family, data_dir=args.data_dir)
        t1 = time.process_time()
        lineage.write(out, force=True)
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


def _family(name_or_path: str, datasets: str | None) -> Any:
    """The family to link: the spec itself, or cut to ``datasets`` (:func:`bench_link.subset`)."""
    if not datasets:
        return name_or_path
    from bench_link import subset

    from croissant_lineage.family.spec import load_family

    spec = load_family(name_or_path)
    names = [n.strip() for n in datasets.split(",") if n.strip()]
    unknown = sorted(set(names) - set(spec.datasets))
    if unknown:
        raise SystemExit(f"--datasets: not in family {spec.name}: {', '.join(unknown)}")
    return subset(spec, names)


def _warm_up(linker: Any, family: Any, data_dir: str | None) -> None:
    """Link + write once: imports, caches and the file cache (samples left out)."""
    _link_and_write(linker, family, data_dir)


def _measured(linker: Any, family: Any, data_dir: str | None) -> None:
    """Link + write once (the frame :func:`_sampled` keeps)."""
    _link_and_write(linker, family, data_dir)


def _link_and_write(linker: Any, family: Any, data_dir: str | None) -> None:
    from croissant_lineage import workflows

    with tempfile.TemporaryDirectory() as out:
        workflows.link(family, data_dir=data_dir).write(out, force=True)


#: The frame of a sampled stack that says it is the measured (second) link.
MEASURED = f"_measured ({Path(__file__).name}"


def _sampled(args: argparse.Namespace) -> int:
    """Run the plain link + write under py-spy and print the shares of the second one's samples."""
    spy = shutil.which("py-spy")
    if spy is None:
        print("py-spy is not installed (python3 -m pip install py-spy)", file=sys.stderr)
        return 2
    cmd = [sys.executable, __file__, args.family, "--plain"] + (["--data-dir", args.data_dir] if args.data_dir else [])
    cmd += ["--datasets", args.datasets] if args.datasets else []
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.txt"
        subprocess.run([spy, "record", "-r", str(args.rate), "-f", "raw", "-o", str(raw), "--", *cmd], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lines = raw.read_text(encoding="utf-8").splitlines()
    print(summarise(lines, args.top))
    return 0


def summarise(lines: Iterable[str], top: int) -> str:
    """Shares of py-spy's raw samples (``frame;frame;... count``) whose stack holds the
    measured link: per function, inclusive (``function (file)``: once per sample however often
    it recurs) and self (the innermost frame, ``function (file:line)``), largest first."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for line in lines:
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not count.isdigit() or not any(_short(f).startswith(MEASURED) for f in frames):
            continue
        n = int(count)
        total += n
        inclusive.update({_function(f): n for f in dict.fromkeys(frames)})
        own[_short(frames[-1])] += n
    if not total:
        return "no sample of the measured link (was it too short for the sampling rate?)"
    out = [f"{total} samples of the measured link + write", "", "inclusive %  function (file)"]
    out += [f"{100 * v / total:11.1f}  {k}" for k, v in inclusive.most_common(top)]
    out += ["", "     self %  function (file:line)"]
    out += [f"{100 * v / total:11.1f}  {k}" for k, v in own.most_common(top)]
    return "\n".join(out)


def _short(frame: str) -> str:
    """``func (/long/path/mod.py:12)`` -> ``func (mod.py:12)``."""
    name, _, where = frame.partition(" (")
    return f"{name} ({where.rsplit('/', 1)[-1]}" if where else name


def _function(frame: str) -> str:
    """A frame without its line number: ``func (mod.py)``."""
    short = _short(frame)
    return short.rsplit(":", 1)[0] + ")" if short.endswith(")") and ":" in short else short


if __name__ == "__main__":
    sys.exit(main())
