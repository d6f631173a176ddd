"""The pre-commit hook (.pre-commit-hooks.yaml at the root) with the real ``pre-commit``.

``pre-commit try-repo THIS_REPO croissant-lineage-validate --all-files`` in a temporary git
repository: it passes on a good descriptor and fails on a broken one. pre-commit builds its own
virtualenv and pip-installs this repository into it. The virtualenv sees the test's site-packages
(``VIRTUALENV_SYSTEM_SITE_PACKAGES``), so the dependencies already installed are not downloaded
again. Measured on this 2-core machine under a load average of about 13: one hook install 1 min 6 s,
this test 2 min 28 s; a fully isolated hook install (every dependency downloaded) 5 min 23 s.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOY_BASE = REPO / "examples" / "toy" / "toy-base"

pytestmark = pytest.mark.slow


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.org", "-c", "user.name=t", *args],
                   cwd=repo, check=True, capture_output=True)


def _snapshot(dest: Path) -> Path:
    """This checkout's files (tracked and new, as they are now) committed in a fresh repository.

    try-repo on a checkout with uncommitted changes makes a new shadow commit, hence a new
    environment, on every call; one fixed commit lets the second call reuse the first's.
    """
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                            check=True, capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)
    _git(dest, "init", "-q", ".")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-qm", "snapshot")
    return dest


def _try_repo(repo: Path, home: Path, hooks: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), VIRTUALENV_SYSTEM_SITE_PACKAGES="true")
    env.pop("PYTHONPATH", None)  # the hook runs what pre-commit installed, not this checkout
    return subprocess.run(
        ["pre-commit", "try-repo", str(hooks), "croissant-lineage-validate", "--all-files"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=900,
    )


def test_try_repo_passes_on_good_files_and_fails_on_a_broken_descriptor(tmp_path: Path) -> None:
    if shutil.which("pre-commit") is None:
        pytest.fail("pre-commit is not installed (pip install -e '.[test]')")
    bench = tmp_path / "bench"
    shutil.copytree(TOY_BASE, bench / "good")
    _git(bench, "init", "-q", ".")
    _git(bench, "add", "-A")
    _git(bench, "commit", "-qm", "good")
    home = tmp_path / "pre-commit-home"
    hooks = _snapshot(tmp_path / "croissant-lineage")

    good = _try_repo(bench, home, hooks)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "croissant-lineage validate" in good.stdout and "Passed" in good.stdout

    doc = json.loads((TOY_BASE / "croissant.json").read_text(encoding="utf-8"))
    doc["dcat:keyword"] = "benchmark"  # the dcat prefix is not declared in @context
    (bench / "broken").mkdir()
    (bench / "broken" / "croissant.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    _git(bench, "add", "-A")
    _git(bench, "commit", "-qm", "broken")

    bad = _try_repo(bench, home, hooks)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout and "CLV201" in bad.stdout
