"""The options the commands share, each declared once, with one meaning everywhere.

A command adds a shared option by calling its function here (``options.lineage(p,
required=True)``); the flag, its metavar, its action and what it means are fixed here.
What a command may choose is only whether the option is required and, where the
commands differ, its default. So ``--findings`` takes several files in every command
(and accumulates when given twice), ``--json`` prints the result's ``to_dict()`` and
``-q`` silences summaries and progress bars everywhere.

The output helpers (:func:`print_json`, :func:`example_epilog`, :func:`show_progress`)
live here too: they are the only text the CLI produces itself.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from croissant_lineage._results import inert, inert_json

__all__ = [
    "allow_outside",
    "beam_options",
    "data_dir",
    "declared_inputs",
    "declared_outputs",
    "example_epilog",
    "family",
    "family_positional",
    "findings",
    "force",
    "json_output",
    "lineage",
    "missing_input",
    "out",
    "print_json",
    "print_result",
    "quiet",
    "runner",
    "show_progress",
]

_FAMILY_HELP = "a built-in family name (mmlu) or a family spec file"


def family(parser: argparse.ArgumentParser, *, required: bool = False, default: str | None = None) -> None:
    """``--family NAME``: a benchmark family, by built-in name or spec file."""
    suffix = f" (default: {default})" if default else ""
    parser.add_argument(
        "--family", metavar="NAME", required=required, default=default, help=_FAMILY_HELP + suffix
    )


def family_positional(parser: argparse.ArgumentParser) -> None:
    """``FAMILY``: the family as the command's first argument (``link``)."""
    parser.add_argument("family", metavar="FAMILY", help=_FAMILY_HELP)


def data_dir(parser: argparse.ArgumentParser, *, required: bool = False, default: str | None = None) -> None:
    """``--data-dir DIR``: the folder the descriptors' file URLs resolve against."""
    suffix = f" (default: {default})" if default else ""
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        required=required,
        default=default,
        help="folder the descriptors' file URLs resolve against (shipped families)" + suffix,
    )


def lineage(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """``--lineage DIR``: a lineage folder written by ``croissant-lineage link``."""
    parser.add_argument(
        "--lineage",
        metavar="DIR",
        required=required,
        help="lineage folder written by 'croissant-lineage link'",
    )


def findings(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """``--findings FILE...``: findings files, read in order; given twice, the lists add up."""
    parser.add_argument(
        "--findings",
        nargs="+",
        action="extend",
        metavar="FILE",
        required=required,
        help="findings files (JSON or YAML), read in order; repeatable",
    )


def json_output(parser: argparse.ArgumentParser) -> None:
    """``--json``: print the result's ``to_dict()`` as JSON instead of its text."""
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def quiet(parser: argparse.ArgumentParser) -> None:
    """``-q/--quiet``: no progress bars and no summary."""
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars or summaries")


def force(parser: argparse.ArgumentParser) -> None:
    """``--force``: replace an existing output the command would otherwise leave alone."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace an existing output that the command would otherwise refuse to replace "
        "(never an input)",
    )


def out(parser: argparse.ArgumentParser, what: str, *, required: bool = True) -> None:
    """``--out PATH``: where the command writes; ``what`` says which file or folder."""
    parser.add_argument("--out", metavar="PATH", required=required, help=what)


def allow_outside(parser: argparse.ArgumentParser) -> None:
    """``--allow-outside``: let file URLs point outside the descriptor's base folder."""
    parser.add_argument(
        "--allow-outside", action="store_true", help="allow file URLs outside the base folder"
    )


def runner(parser: argparse.ArgumentParser, what: str) -> None:
    """``--runner {local,beam}`` and ``--beam-option KEY=VALUE``: where the command's work runs
    (``what``: what runs, e.g. ``link``); read them back with :func:`beam_options`."""
    from croissant_lineage.workflows import RUNNERS  # here: the other options load no stage

    parser.add_argument(
        "--runner", choices=RUNNERS, default="local",
        help=f"where to {what}: here (local, the default) or as an Apache Beam pipeline (beam: needs "
        "pip install 'croissant-lineage[beam]'; Beam's local Python runner unless --beam-option names another)",
    )
    parser.add_argument(
        "--beam-option", action="append", default=[], type=_beam_option, metavar="KEY=VALUE",
        help="a Beam pipeline option for --runner beam, repeatable (runner=DataflowRunner, "
        "direct_num_workers=2, direct_running_mode=in_memory ...)",
    )


def _beam_option(text: str) -> str:
    if "=" not in text or text.startswith("="):
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return text.removeprefix("--")


def beam_options(args: argparse.Namespace) -> list[str]:
    """The ``--beam-option`` values as Beam's command-line flags (``--KEY=VALUE``)."""
    return [f"--{option}" for option in args.beam_option]


#: The arguments (``args`` attribute names) that name files or folders a command reads.
#: A folder given as ``--lineage`` is read whole: every file in it is an input. Files
#: found through them (a spec's descriptors, the descriptors' data files) are recorded
#: as they are read (:func:`croissant_lineage._io.note_input`).
_INPUT_ARGS = ("lineage", "findings", "family", "descriptor", "descriptors", "paths", "files",
               "base_card", "derived_from", "archives")


def declared_inputs(args: argparse.Namespace) -> list[Path]:
    """The files and folders a command's arguments name as its inputs (that exist locally)."""
    found: list[Path] = []
    for name in _INPUT_ARGS:
        value = getattr(args, name, None)
        for v in value if isinstance(value, list) else [value]:
            if not isinstance(v, str) or not v:
                continue
            p = Path(v)
            # --family names a spec file, or a built-in family (read, and so recorded, when loaded)
            if p.is_file() or (name != "family" and p.is_dir()):
                found.append(p)
    return found


#: Arguments that name local files or folders only (never a built-in name, a Hub id or a
#: URL): each must exist before a command starts. ``--family`` and ``--against`` may name
#: a built-in family; their readers say when neither exists.
_PATH_ONLY_ARGS = ("lineage", "findings", "descriptor", "descriptors", "paths", "files", "base_card",
                   "archives", "folder", "data_dir")


def missing_input(args: argparse.Namespace) -> Path | None:
    """The first local input the arguments name that does not exist (None: all do)."""
    for name in _PATH_ONLY_ARGS:
        value = getattr(args, name, None)
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and v and not Path(v).exists():
                return Path(v)
    return None


def declared_outputs(args: argparse.Namespace) -> list[Path]:
    """The files and folders a command's arguments name as its outputs (``--out``, ``--svg``)."""
    return [Path(v) for v in (getattr(args, "out", None), getattr(args, "svg", None)) if isinstance(v, str) and v]


def example_epilog(*examples: str) -> str:
    """An ``Examples:`` block for a command's ``--help``."""
    return "Examples:\n" + "\n".join(f"  {e}" for e in examples)


def show_progress(args: argparse.Namespace) -> bool:
    """Progress bars only when not ``--quiet`` and stderr is a terminal."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def print_result(args: argparse.Namespace, result: Any) -> None:
    """Print ``result.to_dict()`` as JSON with ``--json``, else ``str(result)`` unless ``--quiet``."""
    if getattr(args, "json", False):
        print_json(result.to_dict())
    elif not getattr(args, "quiet", False):
        print(inert(str(result)))


def print_json(obj: Any) -> None:
    """Print ``obj`` as deterministic JSON on stdout (control characters escaped: :func:`inert_json`)."""
    sys.stdout.write(inert_json(json.dumps(obj, indent=2, ensure_ascii=False, sort_keys=False)) + "\n")
