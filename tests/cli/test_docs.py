"""Every CLI command is documented in the README or a documentation page and shows examples in its --help."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from croissant_lineage.cli import COMMANDS, build_parser

REPO = Path(__file__).resolve().parents[2]
#: The README and the guides (the generated command reference, docs/cli.md, is not counted).
DOCS = "\n".join(p.read_text(encoding="utf-8") for p in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
                 if p.name != "cli.md")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_is_in_the_guides(command: str) -> None:
    assert f"croissant-lineage {command}" in DOCS, command


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_has_examples(command: str) -> None:
    sub = _subparsers()[command]
    text = sub.format_help()
    assert "Example" in text and "croissant-lineage" in text.split("Example", 1)[1], command


def _option(sub: argparse.ArgumentParser, flag: str) -> argparse.Action | None:
    return next((a for a in sub._actions if flag in a.option_strings), None)


@pytest.mark.parametrize("command", COMMANDS)
def test_shared_options_mean_the_same_everywhere(command: str) -> None:
    """--findings takes several files and accumulates; --json, -q and --force are flags."""
    sub = _subparsers()[command]
    found = _option(sub, "--findings")
    if found is not None:
        assert found.nargs == "+" and isinstance(found, argparse._ExtendAction), command
    for flag in ("--json", "--quiet", "--force", "--allow-outside"):
        action = _option(sub, flag)
        assert action is None or isinstance(action, argparse._StoreTrueAction), (command, flag)
    for flag in ("--lineage", "--data-dir"):
        action = _option(sub, flag)
        assert action is None or action.metavar == "DIR", (command, flag)


def test_findings_given_twice_accumulate() -> None:
    args = build_parser().parse_args(
        ["report", "--lineage", "lin", "--findings", "a.json", "b.yaml", "--findings", "c.json"]
    )
    assert args.findings == ["a.json", "b.yaml", "c.json"]
