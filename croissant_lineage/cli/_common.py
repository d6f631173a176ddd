"""Helpers shared by the CLI commands: output and progress options."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["add_quiet", "example_epilog", "print_json", "show_progress"]


def example_epilog(*examples: str) -> str:
    """An ``Example:`` block for a command's ``--help``."""
    return "Examples:\n" + "\n".join(f"  {e}" for e in examples)


def add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars or summaries")


def show_progress(args: argparse.Namespace) -> bool:
    """Progress bars only when not ``--quiet`` and stderr is a terminal."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def print_json(obj: Any) -> None:
    """Print ``obj`` as deterministic JSON on stdout."""
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False, sort_keys=False) + "\n")
