"""A write killed at any moment leaves each file either as it was or complete and new.

``croissant-lineage link`` on the toy family is killed with SIGKILL while it replaces an
existing lineage folder: at chosen moments (half-way through writing a file, after a
temporary file is complete but before it is renamed, just after a rename) and at timed
moments after the first write starts. A large atomic write is killed the same way.
Each file is then byte-identical to the old one or to the complete new one; the only
other thing a kill leaves is a hidden ``.NAME.*.tmp`` beside its target.

The kills run in one helper process (``python -m tests.test_kill``) that imports the
library once and forks a child per kill, so the test stays fast; the parent sends
SIGKILL to the child from outside, as a user or a CI runner would.
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
OLD_FAMILY = Path(__file__).resolve().parent / "badinput" / "_good" / "family.json"
LINEAGE_FILES = ["items.parquet", "edges.parquet", "duplicates.parquet", "unmatched.parquet", "family.json", "summary.json"]
BIG = 32 * 1024 * 1024

#: (kind, n): where the child stops for the kill; n counts files written (1-based).
POINTS: list[tuple[str, float]] = [
    ("mid-write", 1), ("mid-write", 2), ("mid-write", 6),
    ("before-replace", 1), ("before-replace", 3), ("before-replace", 5), ("before-replace", 6),
    ("after-replace", 2), ("after-replace", 4),
    ("timed", 0.0), ("timed", 0.003), ("timed", 0.01), ("timed", 0.03),
]


# --- the helper process ------------------------------------------------------------


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

    _io.os.replace = replace  # type: ignore[assignment]
    _io.os.fdopen = lambda *a, **k: HalfWriter(real_fdopen(*a, **k))  # type: ignore[assignment]
    if argv[0] == "big":
        _io.atomic_write_bytes(argv[1], b"n" * BIG)
    else:
        main(argv)
    os.write(ready, b"d")  # finished without being stopped


def _helper(config: dict[str, Any]) -> list[dict[str, Any]]:
    """Fork one child per kill point; kill it from here; report how each ended."""
    import croissant_lineage.cli  # noqa: F401  (import once, before forking)

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
        capture_output=True, text=True, timeout=120, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return list(json.loads(proc.stdout.strip().splitlines()[-1]))


# --- the tests -----------------------------------------------------------------------


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.startswith(".")}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_killed_link_leaves_old_or_complete_new_files(tmp_path: Path) -> None:
    from croissant_lineage.lineage.model import Lineage
    from croissant_lineage.linking.linker import link

    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    link(OLD_FAMILY).write(old_dir)  # a different family: every file differs from the new one
    toy = link(TOY)
    toy.write(new_dir)
    old, new = _files(old_dir), _files(new_dir)
    assert sorted(old) == sorted(new) == sorted(LINEAGE_FILES)
    assert sum(old[f] != new[f] for f in LINEAGE_FILES) >= 5

    jobs = []
    for i, (kind, n) in enumerate(POINTS):
        out = tmp_path / f"run{i}"
        shutil.copytree(old_dir, out)
        jobs.append({"kind": kind, "n": n, "argv": ["link", str(TOY), "--out", str(out), "-q"], "out": str(out)})
    results = run_helper(jobs)

    killed_states = set()
    for job in results:
        out = Path(job["out"])
        where = f"{job['kind']} {job['n']}"
        assert job["killed"] or job["kind"] == "timed", where  # the chosen moments were reached
        files = _files(out)
        assert sorted(files) == sorted(LINEAGE_FILES), where
        state = []
        for name in LINEAGE_FILES:
            assert files[name] in (old[name], new[name]), f"{where}: {name} is torn"
            state.append("new" if files[name] == new[name] and files[name] != old[name] else "old")
        killed_states.add(tuple(state))
        leftovers = [p.name for p in out.iterdir() if p.name.startswith(".")]
        assert all(p.endswith(".tmp") and any(p.startswith(f".{f}.") for f in LINEAGE_FILES) for p in leftovers), where
        # Every file is a whole file: the folder reads, and a re-run completes the job.
        Lineage.read(out)
        toy.write(out)
        assert _files(out) == new, where
    # The kills landed at different moments: all-old, partly new.
    assert ("old",) * 6 in killed_states and len(killed_states) >= 4


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
            assert p == target or (p.name.startswith(".big.bin.") and p.name.endswith(".tmp")), p


if __name__ == "__main__":
    print(json.dumps(_helper(json.loads(sys.argv[1]))))
