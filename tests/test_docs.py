"""Every CLI command is documented in the README and shows examples in its --help."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from croissant_lineage.cli import COMMANDS, build_parser

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_is_in_the_readme(command: str) -> None:
    assert f"croissant-lineage {command}" in README, command


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_has_examples(command: str) -> None:
    sub = _subparsers()[command]
    text = sub.format_help()
    assert "Example" in text and "croissant-lineage" in text.split("Example", 1)[1], command
