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
from croissant_lineage.cli.flags import MEANINGS, record
from croissant_lineage.errors import InputError

__all__ = [
    "MEANINGS",
    "allow_outside",
    "beam_options",
    "data_dir",
    "dataset",
    "declared_inputs",
    "declared_outputs",
    "example_epilog",
    "family",
    "family_of",
    "family_positional",
    "findings",
    "force",
    "item",
    "json_output",
    "kind",
    "lineage",
    "missing_input",
    "out",
    "print_json",
    "print_result",
    "quiet",
    "renamed",
    "runner",
    "show_progress",
    "time",
]

_FAMILY_HELP = "a built-in family name or a family spec file"


def family(parser: argparse.ArgumentParser, *, required: bool = False, from_lineage: bool = False) -> None:
    """``--family NAME``: a benchmark family, by built-in name or spec file. No command has
    a default family; with ``from_lineage`` the command reads it from ``--lineage``
    (:func:`family_of`) when the flag is not given."""
    suffix = " (default: the family the --lineage folder was linked from)" if from_lineage else ""
    record(parser.add_argument("--family", metavar="NAME", required=required, help=_FAMILY_HELP + suffix))


def family_positional(parser: argparse.ArgumentParser) -> None:
    """``[FAMILY]``: the family as the command's first argument (``link``), or ``--family``."""
    parser.add_argument("family_arg", nargs="?", metavar="FAMILY", help=_FAMILY_HELP + " (or --family NAME)")
    family(parser)


def family_of(args: argparse.Namespace) -> str:
    """The family a command works on: ``--family`` (or ``FAMILY``), else the built-in family
    the ``--lineage`` folder was linked from (its ``family.json`` holds the name).

    Raises:
        InputError: neither is given, both name a family, or the lineage's family is not
            a built-in one (its spec file must then be named).
    """
    given = getattr(args, "family", None)
    positional = getattr(args, "family_arg", None)
    if given and positional:
        raise InputError("the family is named twice: give FAMILY or --family NAME, not both")
    if given or positional:
        return str(given or positional)
    folder = getattr(args, "lineage", None)
    if not folder:
        raise InputError("no family: give --family NAME (a built-in family or a spec file)"
                         + (" or --lineage DIR" if hasattr(args, "lineage") else ""))
    from croissant_lineage._io import read_json  # here: the other options load no stage
    from croissant_lineage.family.shipped import builtin_families

    name = read_json(Path(folder) / "family.json").get("name")
    if name not in builtin_families():
        raise InputError(f"the lineage's family {name!r} is not a built-in family",
                         path=Path(folder) / "family.json", hint="name its spec file with --family")
    return str(name)


def data_dir(parser: argparse.ArgumentParser, *, required: bool = False, default: str | None = None) -> None:
    """``--data-dir DIR``: the folder the descriptors' file URLs resolve against."""
    suffix = f" (default: {default})" if default else ""
    record(parser.add_argument(
        "--data-dir",
        metavar="DIR",
        required=required,
        default=default,
        help="folder the descriptors' file URLs resolve against (shipped families)" + suffix,
    ))


def lineage(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """``--lineage DIR``: a lineage folder written by ``croissant-lineage link``."""
    record(parser.add_argument(
        "--lineage",
        metavar="DIR",
        required=required,
        help="lineage folder written by 'croissant-lineage link'",
    ))


def findings(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """``--findings FILE...``: findings files, read in order; given twice, the lists add up."""
    record(parser.add_argument(
        "--findings",
        nargs="+",
        action="extend",
        metavar="FILE",
        required=required,
        help="findings files (JSON or YAML), read in order; repeatable",
    ))


def json_output(parser: argparse.ArgumentParser) -> None:
    """``--json``: print the result's ``to_dict()`` as JSON instead of its text."""
    record(parser.add_argument("--json", action="store_true", help="print the result as JSON"))


def quiet(parser: argparse.ArgumentParser) -> None:
    """``-q/--quiet``: no progress bars and no summary."""
    record(parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars or summaries"))


def force(parser: argparse.ArgumentParser) -> None:
    """``--force``: replace an existing output the command would otherwise leave alone."""
    record(parser.add_argument(
        "--force",
        action="store_true",
        help="replace an existing output that the command would otherwise refuse to replace "
        "(never an input)",
    ))


def out(parser: argparse.ArgumentParser, what: str, *, required: bool = True, metavar: str = "PATH") -> None:
    """``--out PATH``: where the command writes; ``what`` says which file or folder (and
    ``metavar``: ``FILE``, ``DIR`` or ``PATH`` when either)."""
    record(parser.add_argument("--out", metavar=metavar, required=required, help=what))


def allow_outside(parser: argparse.ArgumentParser) -> None:
    """``--allow-outside``: let file URLs point outside the descriptor's base folder."""
    record(parser.add_argument(
        "--allow-outside", action="store_true", help="allow file URLs outside the base folder"
    ))


def runner(parser: argparse.ArgumentParser, what: str) -> None:
    """``--runner {local,beam}`` and ``--beam-option KEY=VALUE``: where the command's work runs
    (``what``: what runs, e.g. ``link``); read them back with :func:`beam_options`."""
    from croissant_lineage.workflows import RUNNERS  # here: the other options load no stage

    record(parser.add_argument(
        "--runner", choices=RUNNERS, default="local",
        help=f"where to {what}: here (local, the default) or as an Apache Beam pipeline (beam: needs "
        "pip install 'croissant-lineage[beam]'; Beam's local Python runner unless --beam-option names another)",
    ))
    record(parser.add_argument(
        "--beam-option", action="append", default=[], type=_beam_option, metavar="KEY=VALUE",
        help="a Beam pipeline option for --runner beam, repeatable (runner=DataflowRunner, "
        "direct_num_workers=2, direct_running_mode=in_memory ...)",
    ))


def dataset(parser: argparse.ArgumentParser, what: str, *, required: bool = False,
            default: str | None = None) -> None:
    """``--dataset NAME``: the dataset of the family the command works on (``what``: how)."""
    record(parser.add_argument("--dataset", metavar="NAME", required=required, default=default, help=what))


def time(parser: argparse.ArgumentParser) -> None:
    """``--time ISO``: the time recorded for the provenance activities the command writes."""
    record(parser.add_argument(
        "--time", metavar="ISO",
        help="time recorded for the provenance activities written, ISO 8601 (default: SOURCE_DATE_EPOCH, "
        "else none)",
    ))


def kind(parser: argparse.ArgumentParser, what: str, *, repeatable: bool = False, default: str | None = None) -> None:
    """``--kind KIND``: a finding kind, one per flag (``repeatable``: given again, the kinds add up)."""
    from croissant_lineage.findings.model import KINDS  # here: the other options load no stage

    record(parser.add_argument("--kind", metavar="KIND", choices=KINDS, default=default,
                               action="append" if repeatable else "store", help=what))


def item(parser: argparse.ArgumentParser, what: str) -> None:
    """``--item REF``: an item, by ref (``dataset:item``) or by id in the command's dataset."""
    record(parser.add_argument("--item", metavar="REF", help=what))


class _Renamed(argparse.Action):
    """A flag's old spelling: stores into the new flag's destination with a one-line note."""

    def __init__(self, option_strings: list[str], dest: str, new: str = "", **kwargs: Any) -> None:
        self.new = new
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"croissant-lineage: note: {option_string} is now {self.new} (the old name goes in the next "
              "release)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def renamed(parser: argparse.ArgumentParser, old: str, new: str, dest: str, **kwargs: Any) -> None:
    """The hidden old spelling ``old`` of the flag ``new`` (listed in :data:`flags.DEPRECATED`)."""
    parser.add_argument(old, action=_Renamed, dest=dest, new=new, **kwargs)


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
_INPUT_ARGS = ("lineage", "findings", "family", "family_arg", "descriptor", "descriptors", "paths", "files",
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
            if p.is_file() or (name not in ("family", "family_arg") and p.is_dir()):
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
