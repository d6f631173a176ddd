"""The GitHub Action (action.yml at the root) run step by step here, on a benchmark-like repo.

Its ``run:`` steps are executed as GitHub would (``bash -eo pipefail``, inputs and ``github``
expressions substituted, ``$GITHUB_OUTPUT`` and ``$GITHUB_STEP_SUMMARY`` files), except two that
need the network: ``actions/setup-python`` (the test's Python is used) and the ``install`` step
(replaced by this checkout: ``PYTHONPATH`` and the installed ``croissant-lineage`` script).
The annotation format itself is tested as code in tests/validate/test_github.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
TOY_BASE = REPO / "examples" / "toy" / "toy-base"
_EXPR = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


def _lookup(context: dict[str, Any], term: str) -> str:
    value: Any = context
    for part in term.strip().split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return str(value)


def _evaluate(text: str, context: dict[str, Any]) -> str:
    """``${{ a.b || c.d }}`` as GitHub evaluates it for these simple expressions."""

    def one(match: re.Match[str]) -> str:
        values = [_lookup(context, t) for t in match.group(1).split("||")]
        return next((v for v in values if v), "")

    return _EXPR.sub(one, text)


def _outputs(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return dict(line.split("=", 1) for line in lines if "=" in line)


def run_action(workspace: Path, inputs: dict[str, str], tmp: Path) -> tuple[int, str, str]:
    """Run the Action's steps in ``workspace``; returns (exit status, stdout, summary)."""
    declared = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    context: dict[str, Any] = {
        "inputs": {**declared, **inputs},
        "github": {"server_url": "https://github.com", "action_repository": "OWNER/croissant-lineage",
                   "action_ref": "v0"},
        "steps": {},
    }
    summary = tmp / "summary.md"
    stdout, status = "", 0
    for step in ACTION["runs"]["steps"]:
        if "uses" in step or step.get("id") == "install":
            continue  # network: setup-python and the pip install from git (this checkout is used)
        out_file = tmp / f"{step['id']}.out"
        env = dict(os.environ, GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(out_file),
                   RUNNER_TEMP=str(tmp), PYTHONPATH=str(REPO))
        env.update({k: _evaluate(str(v), context) for k, v in step.get("env", {}).items()})
        assert step["shell"] == "bash"
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                               _evaluate(step["run"], context)],
                              cwd=workspace, env=env, capture_output=True, text=True)
        context["steps"][step["id"]] = {"outputs": _outputs(out_file)}
        stdout += proc.stdout
        status = proc.returncode
        if status:
            break
    return status, stdout, summary.read_text(encoding="utf-8") if summary.exists() else ""


@pytest.fixture
def benchmark_repo(tmp_path: Path) -> Path:
    """A benchmark repository: a good descriptor with its data, and a broken one."""
    repo = tmp_path / "bench"
    shutil.copytree(TOY_BASE, repo / "good")
    doc = json.loads((TOY_BASE / "croissant.json").read_text(encoding="utf-8"))
    doc["dcat:keyword"] = "benchmark"  # the dcat prefix is not declared in @context
    shutil.copytree(TOY_BASE, repo / "broken")  # its data too: the one defect is the descriptor's
    (repo / "broken" / "croissant.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return repo


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_good_descriptor_passes(benchmark_repo: Path, tmp_path: Path) -> None:
    status, stdout, summary = run_action(benchmark_repo, {"paths": "good"}, tmp_path)
    assert status == 0, stdout
    assert "::error" not in stdout
    assert "valid: 0 errors" in summary
    assert _outputs(tmp_path / "validate.out") == {"status": "0"}


def test_broken_descriptor_fails_with_an_annotation_on_its_line(benchmark_repo: Path, tmp_path: Path) -> None:
    status, stdout, summary = run_action(benchmark_repo, {"paths": "good broken"}, tmp_path)
    assert status == 1
    assert _outputs(tmp_path / "validate.out") == {"status": "1"}
    line = _line_of(benchmark_repo / "broken" / "croissant.json", '"dcat:keyword"')
    expected = f"::error file=broken/croissant.json,line={line},title=CLV201 "
    assert any(a.startswith(expected) for a in stdout.splitlines()), stdout
    assert "good/" not in stdout  # the good descriptor is annotated nowhere
    assert "**invalid**" in summary and "| CLV201 | error | `broken/croissant.json#" in summary


def test_ignore_input_reaches_validate(benchmark_repo: Path, tmp_path: Path) -> None:
    status, stdout, _ = run_action(benchmark_repo, {"paths": "broken", "ignore": "CLV201"}, tmp_path)
    assert "CLV201" not in stdout
    assert status == 0, stdout


def test_install_step_installs_from_this_repository_at_the_ref() -> None:
    (install,) = [s for s in ACTION["runs"]["steps"] if s.get("id") == "install"]
    context = {"inputs": {"version": ""}, "github": {
        "server_url": "https://github.com", "action_repository": "o/croissant-lineage", "action_ref": "v1"}}
    env = {k: _evaluate(str(v), context) for k, v in install["env"].items()}
    assert env["CL_REF"] == "v1"
    context["inputs"]["version"] = "abc123"
    assert _evaluate(install["env"]["CL_REF"], context) == "abc123"
    assert 'git+${CL_SERVER}/${CL_REPO}@${CL_REF}' in install["run"]


def _install_command(context: dict[str, Any], tmp: Path) -> list[str]:
    """The arguments the Action's install step gives ``python`` (a stub that records them)."""
    (step,) = [s for s in ACTION["runs"]["steps"] if s.get("id") == "install"]
    stub = tmp / "bin"
    stub.mkdir()
    (stub / "python").write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$CL_ARGS"\n', encoding="utf-8")
    (stub / "python").chmod(0o755)
    env = dict(os.environ, PATH=f"{stub}{os.pathsep}{os.environ['PATH']}", CL_ARGS=str(tmp / "args"))
    env.update({k: _evaluate(str(v), context) for k, v in step.get("env", {}).items()})
    subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _evaluate(step["run"], context)],
                   env=env, check=True)
    return (tmp / "args").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("version", ["", "v9.9.9"])
def test_install_from_a_repository_at_a_ref(version: str, tmp_path: Path) -> None:
    context = {"inputs": {"version": version}, "github": {
        "server_url": "https://github.com", "action_repository": "someone/croissant-lineage",
        "action_ref": "v0.1.0", "action_path": "/runner/_actions/someone/croissant-lineage/v0.1.0"}}
    args = _install_command(context, tmp_path)
    ref = version or "v0.1.0"
    assert args[-1] == f"croissant-lineage @ git+https://github.com/someone/croissant-lineage@{ref}"


def test_uses_dot_installs_the_checkout(tmp_path: Path) -> None:
    # `uses: ./`: GitHub leaves action_repository and action_ref empty, action_path the folder
    context = {"inputs": {"version": ""}, "github": {
        "server_url": "https://github.com", "action_repository": "", "action_ref": "",
        "action_path": str(REPO)}}
    assert _install_command(context, tmp_path)[-1] == str(REPO)
