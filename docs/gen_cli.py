"""Write docs/cli.md, the command reference, from the CLI's argument parser.

``python3 docs/gen_cli.py`` rewrites it; ``tests/test_readme.py`` fails when it is out of date
(``python3 docs/gen_cli.py --check`` does the same check). The help is formatted 100 columns
wide whatever the terminal, so the file is the same everywhere.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "cli.md"
WIDTH = "100"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Sub-commands by name, each once (an alias names the same parser: the first name wins)."""
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if all(sub is not seen for seen in out.values()):
                    out[name] = sub
    return out


def _sections(parser: argparse.ArgumentParser, heading: str, level: int) -> list[str]:
    out = [f"{'#' * level} `{heading}`", "", "```text", parser.format_help().rstrip(), "```", ""]
    for name, sub in _subcommands(parser).items():
        out += _sections(sub, f"{heading} {name}", level + 1)
    return out


def render() -> str:
    """The Markdown of the command reference."""
    sys.path.insert(0, str(ROOT))
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        from croissant_lineage.cli import build_parser
        from croissant_lineage.cli.flags import flag_table

        parser = build_parser()
        lines = [
            "# Command reference",
            "",
            "Generated from the argument parser by `python3 docs/gen_cli.py` (a test keeps it in "
            "sync). Every command also answers `--help`.",
            "",
            "```text",
            parser.format_help().rstrip(),
            "```",
            "",
            "## Flags",
            "",
            "A flag has one meaning in every command that takes it (`croissant_lineage/cli/flags.py` "
            "lists them; a test fails when a flag is given a second meaning). Where a command writes a "
            "file the metavar of `--out` is `FILE`, a folder `DIR`, either `PATH`.",
            "",
            *flag_table(parser),
            "",
        ]
        for name, sub in _subcommands(parser).items():
            lines += _sections(sub, f"croissant-lineage {name}", 2)
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("docs/cli.md is up to date" if same else "docs/cli.md is out of date: python3 docs/gen_cli.py")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
