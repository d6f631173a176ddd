"""Every flag of the command line with its one meaning, and the check that keeps it so.

:data:`MEANINGS` lists each flag name once with what it means in every command that takes
it. A flag that two or more commands take is declared by a function of
:mod:`croissant_lineage.cli.options` (which records the declaration: :func:`declared`);
a flag that one command takes may be declared by the command, but its name is listed here,
so a second command cannot give it another meaning. :func:`flag_problems` reports every
breach and :func:`flag_table` is the table of ``docs/cli.md`` (both read the parser
itself); ``tests/cli/test_flags.py`` runs the first, ``docs/gen_cli.py`` writes the second.

Renamed flags keep their old spelling for a release as a hidden alias that prints a
one-line note (:data:`DEPRECATED`): hidden aliases are neither listed nor checked.
"""

from __future__ import annotations

import argparse
import weakref
from collections.abc import Iterator

__all__ = ["DEPRECATED", "MEANINGS", "declared", "flag_problems", "flag_table", "parsers", "record"]

#: Flag name -> its one meaning. Shared flags first, then those one command takes.
MEANINGS: dict[str, str] = {
    # shared: declared in cli/options.py
    "--allow-outside": "let the descriptors' file URLs point outside their base folder",
    "--beam-option": "a Beam pipeline option for --runner beam (KEY=VALUE), repeatable",
    "--data-dir": "the folder the descriptors' file URLs resolve against (shipped families)",
    "--dataset": "a dataset of the family, by its name in the spec and the lineage: the one the "
    "command works on",
    "--family": "the benchmark family: a built-in family name or a family spec file",
    "--findings": "findings files (JSON or YAML), read in order; repeatable",
    "--force": "replace an existing output the command would otherwise refuse to replace (never an input)",
    "--item": "an item, by ref (dataset:item) or by id in the command's dataset",
    "--json": "print the result as JSON (its to_dict()) instead of text",
    "--kind": "a finding kind (one per flag; repeatable where the command filters by kind)",
    "--lineage": "a lineage folder written by 'croissant-lineage link'",
    "--out": "where the command writes: a file or a folder, as the command's help says",
    "--quiet": "no progress bars and no summaries (errors are still printed)",
    "-q": "short for --quiet",
    "--runner": "where the command's work runs: here (local) or as an Apache Beam pipeline (beam)",
    "--time": "the time recorded for the provenance activities written, ISO 8601 "
    "(default: SOURCE_DATE_EPOCH, else none)",
    # the program
    "--debug": "show tracebacks on errors",
    "--version": "print the program's version and exit",
    # one command each
    "--activity": "enrich: what made the dataset from its parents",
    "--against": "discover: the reference corpus (families, specs, descriptors or lineage folders)",
    "--all": "validate: list every issue (default: at most 50 per code and file)",
    "--archives": "witnesses: the folder of *.zip prediction archives",
    "--base-card": "publish: the repository's current dataset card (README.md)",
    "--cite-as": "describe: how to cite the dataset (citeAs)",
    "--config": "describe: the config of files not in a config sub-folder",
    "--csv-columns": "describe: the column names of headerless CSV files",
    "--dataset-version": "describe: the dataset's version",
    "--date": "describe: the dataset's datePublished",
    "--derived-from": "enrich: a parent dataset (URL or descriptor path), repeatable",
    "--description": "describe: the dataset's description",
    "--dry-run": "publish: write the files and print the operations only (the default)",
    "--expand": "route: one line per row (every version, every translation)",
    "--file-field": "describe: a field taken from each file's name by a regex, repeatable",
    "--folder": "findings import errata: the errata folder",
    "--from-hub": "publish: read the repository's current card from the Hub",
    "--ignore": "validate: codes or prefixes not to report",
    "--in-place": "enrich --family: write each enriched descriptor beside its data under this name",
    "--include": "describe: the data files to describe (globs)",
    "--index": "discover: where the corpus index is saved and reused",
    "--key-format": "discover: the key format when --roles sets the key",
    "--license": "describe: the dataset's license",
    "--list-codes": "validate: print the table of codes and exit",
    "--metadata-only": "validate: do not check that local files match the descriptor (CLV701)",
    "--name": "describe: the dataset's name",
    "--no-items": "prov: leave out items that have no derivation triples",
    "--note": "enrich: what the derivation did, in words",
    "--option": "route: the questioned option, by letter",
    "--proposed": "route: the proposed answer of the ad-hoc finding",
    "--rebase-urls": "enrich --family --out: rewrite relative file URLs to resolve from --out",
    "--relative-to": "describe: the folder the descriptor will sit in",
    "--repo-id": "publish: the Hugging Face dataset repository",
    "--roles": "discover: role overrides in the family spec's syntax, as JSON",
    "--select": "validate: report only these codes or prefixes",
    "--split": "describe: the split of files whose path names none",
    "--status": "findings list: only findings with this status (repeatable)",
    "--strict": "validate: count warnings as errors",
    "--subjects": "translations: also print the per-subject table",
    "--summary": "validate: also append the report as Markdown to this file",
    "--svg": "relatives: also draw the item and its relatives to this file",
    "--syntax": "prov: the syntax of the file written (turtle, json-ld, nt: RDF; provjson: W3C PROV-JSON)",
    "--format": "validate: the form of the printed report (text or github annotations)",
    "--target": "route: what an ad-hoc finding on the item questions",
    "--texts": "publish: publish the items' stems and options",
    "--threshold": "discover: the minimum stem score 0-100 of a candidate",
    "--token": "publish: the Hub token (default: $HF_TOKEN)",
    "--update": "link: re-link only the derivations a spec adds to the lineage in --out (the whole family when anything else changed)",
    "--upload": "publish: commit the files to the repository",
    "--url": "describe: the dataset's URL",
    "--validate": "enrich: check with mlcroissant that the output has no more issues than the input",
}

#: Old flag spelling -> the flag that replaced it (hidden aliases, for one release).
DEPRECATED: dict[str, str] = {
    "prov --format": "--syntax",
    "describe --version": "--dataset-version",
}

_DECLARED: weakref.WeakKeyDictionary[argparse.Action, str] = weakref.WeakKeyDictionary()


def record(action: argparse.Action) -> argparse.Action:
    """Mark ``action`` as declared by :mod:`croissant_lineage.cli.options` (returns it)."""
    _DECLARED[action] = action.option_strings[-1]
    return action


def declared(action: argparse.Action) -> bool:
    """Whether ``action`` was declared by :mod:`croissant_lineage.cli.options`."""
    return action in _DECLARED


def parsers(parser: argparse.ArgumentParser, name: str = "") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """``(command, parser)`` for ``parser`` and every sub-command under it (an alias once)."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: list[argparse.ArgumentParser] = []
            for sub_name, sub in action.choices.items():
                if all(sub is not s for s in seen):
                    seen.append(sub)
                    yield from parsers(sub, f"{name} {sub_name}".strip())


def _flags(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.Action]]:
    """``(command, flag, action)`` of every visible flag (not -h/--help, not hidden aliases)."""
    for command, p in parsers(parser):
        for action in p._actions:
            if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                continue
            for flag in action.option_strings:
                yield command or "croissant-lineage", flag, action


def _shape(action: argparse.Action) -> tuple[object, ...]:
    """How a flag takes its values (a store and an append both take one value per flag)."""
    return (action.nargs, action.type, action.const)


def flag_problems(parser: argparse.ArgumentParser) -> list[str]:
    """Every flag that has no meaning listed, or two shapes, or that two commands take
    without declaring it through :mod:`croissant_lineage.cli.options` (empty: none)."""
    problems: list[str] = []
    by_flag: dict[str, list[tuple[str, argparse.Action]]] = {}
    for command, flag, action in _flags(parser):
        by_flag.setdefault(flag, []).append((command, action))
        if flag not in MEANINGS:
            problems.append(f"{command} {flag}: not listed in cli/flags.py MEANINGS")
    for flag, uses in sorted(by_flag.items()):
        commands = sorted({c for c, _ in uses})
        if len(commands) > 1:
            for command, action in uses:
                if not declared(action) and command != "croissant-lineage":
                    problems.append(f"{command} {flag}: declared by the command, but {', '.join(commands)} "
                                    "take it: declare it once in cli/options.py")
        if len({_shape(a) for _, a in uses}) > 1:
            problems.append(f"{flag}: takes values differently in {', '.join(commands)}")
    return problems


def flag_table(parser: argparse.ArgumentParser) -> list[str]:
    """The Markdown table of flags: name, its one meaning, the commands that take it."""
    by_flag: dict[str, list[str]] = {}
    for command, flag, action in _flags(parser):
        name = ", ".join(action.option_strings) if flag == action.option_strings[-1] else None
        if name is None:
            continue
        used = by_flag.setdefault(name, [])
        if command not in used:
            used.append(command)
    rows = ["| flag | meaning | commands |", "| --- | --- | --- |"]
    for name in sorted(by_flag, key=lambda n: n.split(", ")[-1].lstrip("-").lower()):
        meaning = MEANINGS[name.split(", ")[-1]]
        rows.append(f"| `{name}` | {meaning} | {', '.join(by_flag[name])} |")
    return rows
