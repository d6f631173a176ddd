"""Mutation testing of the core modules with mutmut 3, one module at a time.

``python3 -m tests.mutation.run [STAGE|MODULE ...] [--max-children N]`` copies the
repository into a scratch folder per module, points ``[tool.mutmut]`` at that module and
its fast tests (``-m "not slow and not realdata"``), runs ``mutmut run`` there and writes
the score per module into ``tests/mutation/scores.json`` (merged with the modules already
there). Targets are stage names (``linking``, ``findings`` ...), module paths, or ``all``;
``--changed BASE`` takes the core modules changed since a git revision (for CI), with
``--max-mutants N`` leaving out the modules whose last recorded run had more than N mutants
(too slow for CI: they are run by hand) and ``--fail-under P`` exiting 1 when a module run
scores under P %.

Score = mutants killed (or timed out, or caught by the type check) / mutants checked,
leaving out the equivalent mutants listed, with why, in ``tests/mutation/equivalent.json``.
mutmut does not mutate decorated functions (``@lru_cache``, ``@property``): their lines
count for nothing here, and the boundary tests cover them by hand.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SCORES = HERE / "scores.json"
EQUIVALENT = HERE / "equivalent.json"

#: Core module -> the fast tests that exercise it (the stage's test folder first).
MODULES: dict[str, list[str]] = {
    "croissant_lineage/linking/normalize.py": ["tests/linking/test_normalize.py", "tests/linking/test_boundaries.py",
                                               "tests/linking/test_link_rules.py",
                                               "tests/linking/test_normalize_rules.py"],
    "croissant_lineage/linking/duplicates.py": ["tests/linking", "tests/lineage"],
    "croissant_lineage/linking/options.py": ["tests/linking"],
    "croissant_lineage/linking/match.py": ["tests/linking"],
    "croissant_lineage/linking/itemdiff.py": ["tests/linking", "tests/findings/test_carry.py",
                                              "tests/findings/test_boundaries_carry.py", "tests/audits/test_history.py"],
    "croissant_lineage/lineage/graph.py": ["tests/lineage", "tests/linking/test_toy_family.py"],
    "croissant_lineage/findings/routing.py": ["tests/findings"],
    "croissant_lineage/findings/corrections.py": ["tests/findings"],
    "croissant_lineage/findings/carry.py": ["tests/findings"],
    "croissant_lineage/enrich/marks.py": ["tests/enrich"],
    "croissant_lineage/resolve.py": ["tests/resolve"],
    "croissant_lineage/validate/codes.py": ["tests/validate"],
}
KILLED = {"killed", "timeout", "caught by type check"}
#: Files at the repository root that fast tests read (tests/validate: the Action and the hook).
ROOT_FILES = ("action.yml", ".pre-commit-hooks.yaml")
#: Fast tests that run the package in a subprocess (through action.yml): mutmut's stats run
#: records which tests call which function from inside the test process, and the child
#: process, importing the trampolined package without that recorder, exits 1.
DESELECT = ("tests/validate/test_validate_examples.py::test_workflow_runs_validate_with_ci_exit_status",)


def _targets(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names or ["all"]:
        if name == "all":
            out += list(MODULES)
        elif name in MODULES:
            out.append(name)
        else:
            hits = [m for m in MODULES if m.split("/")[1].removesuffix(".py") == name]
            if not hits:
                sys.exit(f"unknown stage or module: {name} (known: {', '.join(MODULES)})")
            out += hits
    return list(dict.fromkeys(out))


def changed_modules(base: str) -> list[str]:
    """The core modules (:data:`MODULES`) that differ from git revision ``base``."""
    out = subprocess.run(
        ["git", "diff", "--name-only", base, "--", *MODULES], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    return [m for m in MODULES if m in out]


def _config(module: str) -> str:
    tests = MODULES[module]
    lines = [
        "[tool.mutmut]",
        'source_paths = ["croissant_lineage"]',
        f"only_mutate = {json.dumps([module])}",
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
        f"also_copy = {json.dumps(['tests', 'examples', *ROOT_FILES])}",
        "pytest_add_cli_args = "
        + json.dumps(["-m", "not slow and not realdata", "-p", "no:cacheprovider", "-q",
                      *(f"--deselect={t}" for t in DESELECT)]),
        # A forked runner whose parent ran the tests would hand every mutant warm lru_caches
        # (normalize_stem ...), hiding mutants of the functions behind them.
        'process_isolation = "forkserver"',
        'forkserver_warmup = "collect"',
    ]
    return "\n".join(lines) + "\n\n"


def _scratch(module: str, root: Path) -> Path:
    work = root / module.replace("/", "_").removesuffix(".py")
    if work.exists():
        shutil.rmtree(work)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "mutants", ".mypy_cache", ".ruff_cache")
    for name in ("croissant_lineage", "tests", "examples"):
        shutil.copytree(REPO / name, work / name, ignore=ignore)
    for name in ROOT_FILES:
        shutil.copy2(REPO / name, work / name)
    text = (REPO / "pyproject.toml").read_text()
    text = re.sub(r"\[tool\.mutmut\]\n.*?(?=^\[)", lambda _: _config(module), text, flags=re.S | re.M)
    (work / "pyproject.toml").write_text(text)
    return work


def _status_names() -> dict[int | None, str]:
    from mutmut.stats import status_by_exit_code

    return dict(status_by_exit_code)


def score_of(module: str, work: Path, equivalent: dict[str, str]) -> dict:
    """Counts by status, survivors and the score of one module's finished run."""
    meta = json.loads((work / "mutants" / f"{module}.meta").read_text())
    names = _status_names()
    status = {k: names.get(v, f"exit {v}") for k, v in sorted(meta["exit_code_by_key"].items())}
    counts = Counter(status.values())
    equiv = sorted(k for k in status if k in equivalent)
    checked = [k for k, s in status.items() if s not in {"not checked", "skipped"} and k not in equivalent]
    killed = sum(status[k] in KILLED for k in checked)
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"),
        "mutants": len(status),
        "by_status": dict(sorted(counts.items())),
        "equivalent": len(equiv),
        "checked_non_equivalent": len(checked),
        "killed": killed,
        "score": round(100.0 * killed / len(checked), 1) if checked else None,
        "survivors": sorted(k for k in checked if status[k] not in KILLED),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("targets", nargs="*", help="stage names, module paths or 'all' (default)")
    ap.add_argument("--max-children", type=int, default=1, help="parallel mutant runs (default 1)")
    ap.add_argument("--workdir", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "croissant-lineage-mutation")
    ap.add_argument("--scores", type=Path, default=SCORES)
    ap.add_argument("--changed", metavar="BASE", help="only the core modules changed since git revision BASE (CI)")
    ap.add_argument("--max-mutants", type=int, metavar="N",
                    help="leave out modules whose recorded run (--scores) had more than N mutants")
    ap.add_argument("--fail-under", type=float, metavar="P", help="exit 1 if a module run scores under P %%")
    ap.add_argument("--rescore", action="store_true",
                    help="do not run mutmut: score the finished runs in --workdir again (after editing equivalent.json)")
    args = ap.parse_args(argv)
    mutmut = shutil.which("mutmut")
    if mutmut is None:
        sys.exit("mutmut is not installed: python3 -m pip install 'mutmut>=3.3'")
    equivalent = json.loads(EQUIVALENT.read_text()) if EQUIVALENT.exists() else {}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # import the mutants, not the repo
    env.setdefault("CROISSANT_LINEAGE_DATA", str(REPO.parent / "shared" / "data"))
    targets = changed_modules(args.changed) if args.changed else _targets(args.targets)
    if args.max_mutants is not None:
        targets = _small_enough(targets, args.max_mutants)
    if not targets:
        print("no core module to mutate")
    failed = []
    for module in targets:
        work = args.workdir / module.replace("/", "_").removesuffix(".py")
        if not args.rescore:
            work = _scratch(module, args.workdir)
            print(f"== {module} (in {work})", flush=True)
            proc = subprocess.run([mutmut, "run", "--max-children", str(args.max_children)], cwd=work, env=env)
            if proc.returncode != 0:
                print(f"mutmut failed on {module} ({proc.returncode})", file=sys.stderr)
                continue
        s = score_of(module, work, equivalent.get(module, {}))
        # re-read before writing: runs on other modules may have written in the meantime
        scores = json.loads(args.scores.read_text()) if args.scores.exists() else {}
        scores[module] = s
        print(f"{module}: {s['killed']}/{s['checked_non_equivalent']} killed = {s['score']}% "
              f"({s['equivalent']} equivalent; {len(s['survivors'])} survivors)", flush=True)
        args.scores.write_text(json.dumps(dict(sorted(scores.items())), indent=1, sort_keys=True) + "\n")
        if args.fail_under is not None and (s["score"] is None or s["score"] < args.fail_under):
            failed.append(module)
    if failed:
        print(f"mutation score under {args.fail_under}%: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _small_enough(modules: list[str], limit: int) -> list[str]:
    """``modules`` whose last recorded full run (:data:`SCORES`) had at most ``limit`` mutants."""
    recorded = json.loads(SCORES.read_text()) if SCORES.exists() else {}
    keep = []
    for module in modules:
        count = recorded.get(module, {}).get("mutants")
        if count is not None and count > limit:
            print(f"{module}: {count} mutants at its last full run, over --max-mutants {limit}: run it by hand")
        else:
            keep.append(module)
    return keep


if __name__ == "__main__":
    raise SystemExit(main())
