"""The guide pages' bash blocks marked ``readme-test: guide`` run as written, each page's in one
empty folder in page order, with ``croissant-lineage`` this tree's; a ``text`` block right after
a command block is what it prints (``...`` stands for any run of lines)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from tests.golden import readme

REPO = Path(__file__).resolve().parents[1]
_SHOWN = re.compile(r"<!--\s*readme-test:\s*guide\s*-->\s*\n```bash\n(?P<body>.*?)```\s*\n(?:```text\n(?P<out>.*?)```)?", re.S)


def guide_pages() -> dict[str, list[tuple[str, str | None]]]:
    """Page -> its guide blocks in order, each (bash body, the output shown or None)."""
    pages: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for path in sorted((REPO / "docs").glob("*.md")):
        for m in _SHOWN.finditer(path.read_text(encoding="utf-8")):
            pages[path.relative_to(REPO).as_posix()].append((m["body"], m["out"]))
    return dict(pages)


def matches(shown: str, printed: str) -> bool:
    """Whether ``printed`` is ``shown`` line by line, each ``...`` line standing for any run of lines."""
    want = shown.rstrip("\n").split("\n")
    got = printed.rstrip("\n").split("\n")

    def from_(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i] == "...":
            return any(from_(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and got[j].rstrip() == want[i].rstrip() and from_(i + 1, j + 1)

    return from_(0, 0)


def test_matches_elides_runs_of_lines() -> None:
    assert matches("a\nb\n", "a\nb\n")
    assert matches("a\n...\nd\n", "a\nb\nc\nd\n")
    assert matches("...\nc\n...\n", "a\nb\nc\nd\n")
    assert not matches("a\nd\n", "a\nb\nd\n")
    assert not matches("a\n...\nx\n", "a\nb\nc\n")


def test_the_byo_guide_has_its_blocks() -> None:
    blocks = guide_pages()["docs/byo-family.md"]
    commands = " ".join(body for body, _ in blocks)
    for step in ("croissant-lineage describe", "croissant-lineage link", "croissant-lineage route", "family.json"):
        assert step in commands
    assert {b.group for b in readme.all_blocks() if b.page == "docs/byo-family.md"} == {"guide"}


@pytest.mark.parametrize("page", sorted(guide_pages()))
def test_the_guide_runs_as_written(page: str, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "croissant-lineage"
    tool.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m croissant_lineage "$@"\n', encoding="utf-8")
    tool.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "PYTHONPATH": str(REPO), "HOME": str(tmp_path),
           "SOURCE_DATE_EPOCH": "1700000000", "HF_HUB_OFFLINE": "1", "LC_ALL": os.environ.get("LC_ALL", "C.UTF-8")}
    for n, (body, shown) in enumerate(guide_pages()[page]):
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", body], cwd=work, capture_output=True, text=True,
                              env=env, check=False)
        assert done.returncode == 0, f"{page} block {n}: {done.stderr[-2000:]}"
        if shown is not None:
            assert matches(shown, done.stdout), f"{page} block {n} printed:\n{done.stdout}"
