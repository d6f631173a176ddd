"""The ``croissant-lineage`` command line: a thin shell over the library.

Each command lives in its own module here with a ``register(subparsers)`` function
that adds its parser and sets ``func``; ``func(args)`` calls one public library
function and renders the result. Errors of the library (:class:`LineageError`) print
one line and exit with status 2; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence
from contextlib import ExitStack
from typing import NoReturn

from croissant_lineage._io import input_guard, output_lock
from croissant_lineage._results import inert
from croissant_lineage._version import __version__
from croissant_lineage.cli.options import declared_inputs, declared_outputs, missing_input
from croissant_lineage.errors import InputError, LineageError

__all__ = ["COMMANDS", "build_parser", "main"]

#: Command modules, in the order ``--help`` lists them.
COMMANDS = (
    "describe",
    "link",
    "discover",
    "relatives",
    "witnesses",
    "validate",
    "publish",
    "history",
    "translations",
    "findings",
    "route",
    "apply",
    "report",
    "enrich",
    "prov",
    "resolve",
)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose error line shows what it quotes from the command line inert
    (an unknown argument full of terminal escapes cannot steer the terminal)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {inert(message, lines=False)}\n")


def build_parser(commands: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    """The argument parser of ``commands`` (all by default: ``--help`` and the docs test).

    ``main`` builds only the command it runs, so a command imports only the modules it uses."""
    parser = _Parser(
        prog="croissant-lineage",
        description="Item-level lineage, audit findings and PROV-O provenance for benchmarks "
        "described with Croissant.",
        epilog="Run 'croissant-lineage COMMAND --help' for a command's options and examples.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in commands:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def _commands_of(argv: Sequence[str]) -> Sequence[str]:
    """The one command ``argv`` runs (its first word after the global flags), or all of them
    when it names none (``--help``, a typo: argparse then lists every command)."""
    words = [a for a in argv if a not in ("--debug",)]
    return (words[0],) if words and words[0] in COMMANDS else COMMANDS


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 validation failed, 2 error)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_commands_of(argv))
    args = parser.parse_args(argv)
    try:
        missing = missing_input(args)
        if missing is not None:  # before any work: nothing read, nothing written
            raise InputError("input not found", path=missing, hint="check the path")
        with input_guard(declared_inputs(args)), ExitStack() as held:  # no command writes to what it reads
            for out in declared_outputs(args):  # one run at a time per output: a second one says so
                held.enter_context(output_lock(out))
            status = args.func(args)
        sys.stdout.flush()  # inside the try: a closed pipe is reported here, not at exit
    except LineageError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"croissant-lineage: error: {inert(str(exc), lines=False)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("croissant-lineage: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as other Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    return int(status or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
