"""A run killed at any moment leaves each output folder old, new, or refused; never a mix.

``croissant-lineage link`` and ``croissant-lineage enrich --family`` on the toy family
are killed with SIGKILL while they replace an existing output folder, at 20 moments
each: half-way through writing a file, after a temporary file is complete but before
it is renamed, just after a rename, just before and just after the folder swap,
between the two renames of the swap where ``renameat2`` is missing, and at timed
moments after the first write starts. Afterwards the folder holds exactly the old
run's files or exactly the new run's, or it is absent and every reader refuses it
(``Lineage.read``, ``validate``, ``resolve``); a re-run then completes the job. The
only other thing a kill leaves is a hidden ``.NAME.*.tmp`` / ``.NAME.*.old`` folder
beside the output. A large atomic write is killed the same way.

The kills run in one helper process (``python -m tests.test_kill``) that imports the
library once and forks a child per kill, so the file stays modest (measured: 38 s of CPU,
2.5 min wall on a shared 2-core machine, for the 44 kills and the checks after them); the
parent sends SIGKILL to the child from outside, as a user or a CI runner would.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "examples" / "toy" / "family.json"
TOY_FINDINGS = REPO / "examples" / "toy" / "findings.yaml"
OLD_FAMILY = Path(__file__).resolve().parent / "badinput" / "_good" / "family.json"
LINEAGE_FILES = [
    "items.parquet", "edges.parquet", "duplicates.parquet", "unmatched.parquet", "index.parquet", "family.json", "summary.json",
    "inputs.json",
]
BIG = 32 * 1024 * 1024

#: (kind, n): where the child stops for the kill; n counts files written (1-based) or,
#: for "timed", the seconds the parent waits after the first write. 20 moments per command.
POINTS: list[tuple[str, float]] = [
    ("mid-write", 1), ("mid-write", 2), ("mid-write", 4), ("mid-write", 6),
    ("before-replace", 1), ("before-replace", 3), ("before-replace", 5), ("before-replace", 6),
    ("after-replace", 2), ("after-replace", 6),
    ("before-swap", 0), ("after-exchange", 0), ("between-renames", 0), ("before-cleanup", 0),
    ("timed", 0.0), ("timed", 0.002), ("timed", 0.005), ("timed", 0.01), ("timed", 0.03), ("timed", 0.1),
]


# --- the helper process ------------------------------------------------------------


def _patch_swap(kind: str, stop: Any) -> None:
    """Stop at the folder swap's steps (see :func:`croissant_lineage._io.atomic_folder`)."""
    import shutil as sh

    from croissant_lineage import _io

    real_swap, real_exchange, real_rename, real_rmtree = _io.atomic._swap_in, _io.atomic._exchange, os.rename, sh.rmtree

    def swap_in(tmp: Path, dest: Path) -> None:
        if kind == "before-swap":
            stop()
        real_swap(tmp, dest)

    def exchange(a: Path, b: Path) -> bool:
        if kind == "between-renames":
            return False  # as on a system without renameat2
        done = bool(real_exchange(a, b))
        if kind == "after-exchange":
            stop()
        return done

    renames = {"n": 0}

    def rename(src: Any, dst: Any) -> None:
        real_rename(src, dst)
        renames["n"] += 1
        if kind == "between-renames" and renames["n"] == 1:
            stop()

    def rmtree(path: Any, *a: Any, **k: Any) -> None:
        if kind == "before-cleanup":
            stop()
        real_rmtree(path, *a, **k)

    _io.atomic._swap_in = swap_in  # type: ignore[assignment]
    _io.atomic._exchange = exchange  # type: ignore[assignment]
    _io.atomic.os.rename = rename  # type: ignore[assignment]
    _io.atomic.shutil.rmtree = rmtree  # type: ignore[assignment]


def _child(kind: str, n: float, argv: list[str], ready: int) -> None:
    """Runs in the forked child: patch the atomic writer's steps, run the CLI."""
    from croissant_lineage import _io
    from croissant_lineage.cli import main

    counts = {"write": 0, "replace": 0}
    real_replace, real_fdopen = os.replace, os.fdopen

    def stop() -> None:
        os.write(ready, b"x")
        time.sleep(60)  # killed here

    def replace(src: Any, dst: Any) -> None:
        counts["replace"] += 1
        if kind == "before-replace" and counts["replace"] == n:
            stop()
        real_replace(src, dst)
        if kind == "after-replace" and counts["replace"] == n:
            stop()

    class HalfWriter:
        """A file whose n-th write stops half-way (data flushed to the temporary file)."""

        def __init__(self, fh: Any):
            self.fh = fh

        def __enter__(self) -> HalfWriter:
            return self

        def __exit__(self, *exc: Any) -> None:
            self.fh.close()

        def write(self, data: bytes) -> int:
            counts["write"] += 1
            if kind == "timed" and counts["write"] == 1:
                os.write(ready, b"x")  # the parent kills after its delay; go on writing
            if kind == "mid-write" and counts["write"] == n:
                self.fh.write(data[: len(data) // 2])
                self.fh.flush()
                stop()
            return int(self.fh.write(data))

        def __getattr__(self, name: str) -> Any:
            return getattr(self.fh, name)

    _io.atomic.os.replace = replace  # type: ignore[assignment]
    _io.atomic.os.fdopen = lambda *a, **k: HalfWriter(real_fdopen(*a, **k))  # type: ignore[assignment]
    _patch_swap(kind, stop)
    if argv[0] == "big":
        _io.atomic_write_bytes(argv[1], b"n" * BIG)
    else:
        main(argv)
    os.write(ready, b"d")  # finished without being stopped


def _helper(config: dict[str, Any]) -> list[dict[str, Any]]:
    """Fork one child per kill point; kill it from here; report how each ended."""
    import croissant_lineage.cli  # import once, before forking
    import croissant_lineage.enrich
    import croissant_lineage.linking.linker  # noqa: F401

    results = []
    for job in config["jobs"]:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os.close(r)
            try:
                _child(job["kind"], job["n"], job["argv"], w)
            finally:
                os._exit(0)
        os.close(w)
        got = os.read(r, 1)
        if job["kind"] == "timed":
            time.sleep(job["n"])
        if got == b"x":
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(r)
        results.append({**job, "killed": os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL})
    return results


def run_helper(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.test_kill", json.dumps({"jobs": jobs})],
        capture_output=True, text=True, timeout=300, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return list(json.loads(proc.stdout.strip().splitlines()[-1]))


# --- the tests -----------------------------------------------------------------------


def _files(folder: Path) -> dict[str, bytes] | None:
    """The folder's files by relative path (None when the folder is absent)."""
    if not folder.exists():
        return None
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _kill_jobs(tmp_path: Path, old_dir: Path, argv: list[str]) -> list[dict[str, Any]]:
    jobs = []
    for i, (kind, n) in enumerate(POINTS):
        out = tmp_path / "runs" / f"run{i}"
        shutil.copytree(old_dir, out)
        jobs.append({"kind": kind, "n": n, "argv": [*argv, "--out", str(out), "-q"], "out": str(out)})
    return jobs


def _judge(results: list[dict[str, Any]], old: dict[str, bytes], new: dict[str, bytes]) -> dict[str, list[str]]:
    """Each killed folder is old, new or absent (never a mix); the hidden leftovers are ours."""
    states: dict[str, list[str]] = {"old": [], "new": [], "absent": []}
    for job in results:
        out = Path(job["out"])
        where = f"{job['kind']} {job['n']}"
        assert job["killed"] or job["kind"] == "timed", where  # the chosen moments were reached
        files = _files(out)
        state = "absent" if files is None else "old" if files == old else "new" if files == new else "MIX"
        assert state != "MIX", f"{where}: the folder mixes two runs: {sorted(files or {})}"
        states[state].append(where)
    runs = Path(results[0]["out"]).parent
    names = {Path(j["out"]).name for j in results}
    for p in runs.iterdir():
        ours = p.name in names or any(p.name.startswith(f".{n}.") and p.name.endswith((".tmp", ".old", ".lock")) for n in names)
        assert ours, p.name
    # The kills landed on both sides of the swap, and in its gap without renameat2.
    assert states["old"] and states["new"] and states["absent"] == ["between-renames 0"], states
    assert {"before-swap 0", "mid-write 6", "before-replace 6"} <= set(states["old"]), states
    assert {"after-exchange 0", "before-cleanup 0"} <= set(states["new"]), states
    return states


@pytest.mark.slow  # 11-15 s: 20 kills, each a fresh run
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_killed_link_leaves_the_old_folder_the_new_one_or_none(tmp_path: Path) -> None:
    from croissant_lineage.errors import InputError
    from croissant_lineage.lineage.model import Lineage
    from croissant_lineage.workflows import write_lineage

    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    write_lineage(OLD_FAMILY, old_dir)  # a different family: every file differs from the new one
    toy = write_lineage(TOY, new_dir).lineage  # (as the command writes it: with its inputs.json)
    old, new = _files(old_dir), _files(new_dir)
    assert old is not None and new is not None and sorted(old) == sorted(new) == sorted(LINEAGE_FILES)
    assert sum(old[f] != new[f] for f in LINEAGE_FILES) >= 5

    results = run_helper(_kill_jobs(tmp_path, old_dir, ["link", str(TOY)]))
    _judge(results, old, new)
    for job in results:
        out = Path(job["out"])
        if not out.exists():
            with pytest.raises(InputError):
                Lineage.read(out)  # refused, never read as a lineage
        write_lineage(TOY, out)  # a re-run completes the job
        assert _files(out) == new, job
    toy.write(out)  # written without what the link read: the earlier run's inputs.json is not kept
    assert "inputs.json" not in (_files(out) or {})


@pytest.mark.slow  # 11-15 s: 20 kills, each a fresh run
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_killed_enrich_family_leaves_the_old_folder_the_new_one_or_none(tmp_path: Path) -> None:
    from croissant_lineage.cli import main
    from croissant_lineage.workflows import link

    lineage = tmp_path / "lineage"
    link(TOY).write(lineage)
    base = ["enrich", "--family", str(TOY), "--lineage", str(lineage)]
    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    assert main([*base, "--time", "2001-01-01T00:00:00Z", "--out", str(old_dir), "-q"]) == 0
    new_argv = [*base, "--findings", str(TOY_FINDINGS), "--time", "2024-01-01T00:00:00Z"]
    assert main([*new_argv, "--out", str(new_dir), "-q"]) == 0
    old, new = _files(old_dir), _files(new_dir)
    assert old is not None and new is not None and sorted(old) == sorted(new)
    differ = [f for f in old if old[f] != new[f]]
    assert len(differ) >= 6, differ  # every descriptor and some findings tables differ

    results = run_helper(_kill_jobs(tmp_path, old_dir, new_argv))
    _judge(results, old, new)
    for job in results:
        out = Path(job["out"])
        if not out.exists():  # refused by validate and resolve
            assert main(["validate", str(out)]) != 0
            assert main(["resolve", "toy-pro:105", str(out)]) == 2
        assert main([*new_argv, "--out", str(out), "-q"]) == 0  # a re-run completes the job
        assert _files(out) == new, job


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_killed_large_atomic_write_keeps_the_old_file(tmp_path: Path) -> None:
    old = b"old content\n" * 1000
    points = [("mid-write", 1), ("before-replace", 1), ("timed", 0.0), ("timed", 0.02)]
    jobs = []
    for i, (kind, n) in enumerate(points):
        folder = tmp_path / f"w{i}"
        folder.mkdir()
        (folder / "big.bin").write_bytes(old)
        jobs.append({"kind": kind, "n": n, "argv": ["big", str(folder / "big.bin")]})
    for job in run_helper(jobs):
        target = Path(job["argv"][1])
        data = target.read_bytes()
        if job["kind"] != "timed":
            assert job["killed"] and data == old, job
        else:  # killed while writing (old file) or, if the write won the race, complete
            assert data == old or data == b"n" * BIG, job
        for p in target.parent.iterdir():
            assert p == target or (p.name.startswith(".big.bin.") and p.name.endswith((".tmp", ".lock"))), p


if __name__ == "__main__":
    print(json.dumps(_helper(json.loads(sys.argv[1]))))
