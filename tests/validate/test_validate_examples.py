"""The CI examples: the GitHub Actions workflow (through action.yml) and the pre-commit hook run ``validate``
with the exit status CI needs (as far as they run here: their commands, on a repository
laid out like a benchmark's)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from croissant_lineage.cli import main
from tests.validate_helpers import VALIDATE_FIXTURES, build_lineage

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.fixture
def bench_repo(tmp_path: Path, monkeypatch) -> Path:
    """A benchmark repository: descriptor, data, card, findings and a lineage folder."""
    clean = VALIDATE_FIXTURES / "clean"
    for name in ("croissant.json", "README.md", "findings.yaml"):
        shutil.copy(clean / name, tmp_path / name)
    shutil.copytree(clean / "data", tmp_path / "data")
    build_lineage(json.loads((clean / "lineage.json").read_text("utf-8")), tmp_path / "lineage")
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "other.yml").write_text("on: push\n", "utf-8")  # hidden: skipped
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _break_findings(repo: Path) -> None:
    text = (repo / "findings.yaml").read_text("utf-8")
    (repo / "findings.yaml").write_text(text.replace("status: proposed", "status: fixed", 1), "utf-8")


def _action_step() -> dict:
    wf = yaml.safe_load((EXAMPLES / "github-actions" / "validate.yml").read_text("utf-8"))
    job = wf["jobs"]["validate"]
    assert job["timeout-minutes"] <= 30
    (step,) = [s for s in job["steps"] if s.get("uses", "").startswith("OWNER/croissant-lineage@")]
    return step


def test_workflow_runs_validate_with_ci_exit_status(bench_repo: Path, tmp_path_factory):
    from tests.test_action import ACTION, run_action

    inputs = _action_step()["with"]
    assert set(inputs) <= set(ACTION["inputs"])
    assert run_action(bench_repo, inputs, tmp_path_factory.mktemp("good"))[0] == 0
    _break_findings(bench_repo)
    assert run_action(bench_repo, inputs, tmp_path_factory.mktemp("bad"))[0] == 1


def test_workflow_uses_pinned_actions():
    wf = yaml.safe_load((EXAMPLES / "github-actions" / "validate.yml").read_text("utf-8"))
    uses = [s["uses"] for s in wf["jobs"]["validate"]["steps"] if "uses" in s]
    assert uses and all(re.fullmatch(r"(actions|OWNER)/[\w-]+@v[\d.]+", u) for u in uses)


def test_pre_commit_hook(bench_repo: Path, capsys):
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))
    (hook,) = hooks
    assert hook["id"] == "croissant-lineage-validate" and hook["language"] == "python"
    assert hook["pass_filenames"] is False
    script, *rest = shlex.split(hook["entry"])
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    assert scripts[script] == "croissant_lineage.cli:main"
    pattern = re.compile(hook["files"])
    assert all(pattern.search(p) for p in ("croissant.json", "lineage/edges.parquet", "findings.yaml", "README.md"))
    assert not pattern.search("train.py")
    assert main([*rest, *hook["args"]]) == 0
    _break_findings(bench_repo)
    assert main([*rest, *hook["args"]]) == 1
    capsys.readouterr()


def test_documented_local_hook_args(bench_repo: Path, capsys):
    note = (EXAMPLES / "pre-commit.md").read_text("utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", note, re.S)
    local = yaml.safe_load(blocks[-1])["repos"][0]["hooks"][0]
    assert main([*shlex.split(local["entry"])[1:], *local["args"]]) == 0
    remote = yaml.safe_load(blocks[0])["repos"][0]["hooks"][0]
    assert main(["validate", *remote["args"]]) == 0
    capsys.readouterr()
