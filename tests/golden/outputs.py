"""Golden outputs: the content of every file the main jobs write, kept across refactors.

The README's own blocks are the main jobs (``tests/golden/readme.py`` parses them), run
through the installed ``croissant-lineage`` command in a fresh folder laid out as a clone
(the folder is the repository, ``../shared/data`` the real data), so a documented command
that fails fails the golden test, and nothing is run twice:

* ``toy``: the README's quick start (``examples/toy/run.sh out/toy``): the files it writes
  and its printed output;
* ``mmlu``: the README's real-data blocks as written (link, findings import, relatives --svg,
  route, report, witnesses, enrich, validate, resolve and the Python block), then the
  golden-only steps :data:`MMLU_EXTRA` (route and report as JSON, prov as N-Triples,
  publish --dry-run of enriched MMLU-Pro).

Each file is recorded by its content (``tests/golden/content.py``: tables as schema and rows,
JSON as canonical leaves, SVG as its element structure and texts), not by bytes that a library
version decides. ``python3 -m tests.golden.outputs [toy|mmlu ...]`` rewrites
``output_hashes.json``; a deliberate output change regenerates it in a commit that says why.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import croissant_lineage
from tests.golden import content, readme

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
HASHES = HERE / "output_hashes.json"
EPOCH = "1700000000"


#: Where the package is installed from (an editable install: the checkout). Printed paths of
#: files shipped in the package (``validate`` lists the family spec) depend on it.
INSTALLED = Path(croissant_lineage.__file__).resolve().parent.parent


def _env() -> dict[str, str]:
    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH, COLUMNS="100", NO_COLOR="1")
    env.pop("HF_TOKEN", None)
    return env


def _run(args: list[str], cwd: Path, log: list[str], *, shown: str, where: str = "") -> None:
    """Run one step; its printed output goes to ``log`` under ``shown`` (no line numbers, so
    that editing the README elsewhere leaves the hashes alone; ``where`` is for errors only)."""
    proc = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(
            f"{where}{shown} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr}"
        )
    log.append(f"$ {shown}\n{proc.stdout}")


def _clone_layout(tmp: Path, data_dir: Path | None) -> Path:
    """``tmp/repo`` (returned; ``examples/`` links to this repository's) beside ``tmp/shared/data``."""
    work = tmp / "repo"
    work.mkdir()
    (work / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    if data_dir is not None:
        (tmp / "shared").mkdir()
        (tmp / "shared" / "data").symlink_to(data_dir.resolve(), target_is_directory=True)
    return work


def run_readme(name: str, work: Path, log: list[str]) -> None:
    """Run the README blocks of group ``name`` in ``work``, in order, as written."""
    for block in readme.group(name):
        where = f"{block.where}: "
        if block.lang == "python":
            _run([sys.executable, "-c", block.python_script()], work, log,
                 shown="python (README block)", where=where)
            continue
        for command in block.commands():
            _run(["bash", "-eo", "pipefail", "-c", command], work, log, shown=command, where=where)


#: Real-family steps the golden test runs after the README's blocks (same work folder).
MMLU_EXTRA = (
    "croissant-lineage route mmlu-pro:3542 --lineage lineage --findings redux.json --json",
    "croissant-lineage report --lineage lineage --findings redux.json errata.json --json",
    "croissant-lineage prov --lineage lineage --findings errata.json --syntax nt --out mmlu.nt --quiet",
    "croissant-lineage publish enriched/mmlu-pro.json --lineage lineage --out hub "
    "--repo-id TIGER-Lab/MMLU-Pro --findings errata.json --base-card REPO/tests/fixtures/hub/mmlu-pro-card.md",
)


@contextmanager
def toy_tree(runs: int = 1) -> Iterator[Path]:
    """Everything the README's quick start writes, plus its printed output (``stdout.txt``).

    ``runs``: how many times the blocks run, one after the other in the same folder (a second
    run replaces the first one's outputs, as a person running the README twice would); the
    printed output kept is the last run's."""
    with tempfile.TemporaryDirectory() as tmp:
        work = _clone_layout(Path(tmp), None)
        log: list[str] = []
        for _ in range(runs):
            log.clear()
            run_readme("toy", work, log)
        out = work / "out" / "toy"
        (out / "stdout.txt").write_text("\n".join(log).replace(str(work), "REPO"))
        yield out


@contextmanager
def mmlu_tree(data_dir: Path, runs: int = 1) -> Iterator[Path]:
    """What the README's real-data blocks and :data:`MMLU_EXTRA` write, in their work folder
    (the blocks run ``runs`` times in that folder, as in :func:`toy_tree`)."""
    with tempfile.TemporaryDirectory() as tmp:
        work = _clone_layout(Path(tmp), data_dir)
        log: list[str] = []
        for _ in range(runs):
            log.clear()
            run_readme("mmlu", work, log)
        for command in MMLU_EXTRA:
            _run(command.replace("REPO/", f"{REPO}/").split(), work, log, shown=command)
        text = "\n".join(log).replace(str(work), "REPO").replace(str(data_dir.resolve()), "DATA")
        text = text.replace(str(INSTALLED), "INSTALLED")  # the shipped family spec's path, wherever the package sits
        (work / "stdout.txt").write_text(text.replace(str(Path(tmp)), "CLONE_PARENT"))
        yield work


def tree(name: str, data_dir: Path) -> contextlib.AbstractContextManager[Path]:
    """The output folder of golden group ``name`` (``toy`` or ``mmlu``), built anew."""
    return toy_tree() if name == "toy" else mmlu_tree(data_dir)


def main(argv: list[str]) -> int:
    which = argv or ["toy", "mmlu"]
    current = json.loads(HASHES.read_text()) if HASHES.exists() else {}
    data_dir = Path(os.environ.get("CROISSANT_LINEAGE_DATA", REPO.parent / "shared" / "data"))
    for name in which:
        with tree(name, data_dir) as root:
            current[name] = content.tree_digests(root)
        print(f"{name}: {len(current[name])} files")
    HASHES.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
