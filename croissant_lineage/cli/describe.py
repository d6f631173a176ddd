"""``croissant-lineage describe``: write a Croissant 1.1 descriptor for a data folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.croissant.describe import DescribeOptions, describe_folder
from croissant_lineage.errors import InputError

__all__ = ["register"]

_DESCRIPTION = """\
Describe the data files of FOLDER (CSV, TSV, JSON Lines, JSON, Parquet, Arrow) in a
Croissant 1.1 descriptor shaped like the ones the Hugging Face Hub generates: a FileSet
per config, a {config}_splits RecordSet, and a RecordSet per config with a split field
and one field per column. Sub-folders are configs (or splits, when named train,
validation, test, dev or val); a file's split comes from its path
(test-00000-of-00001.parquet, test.jsonl, abstract_algebra_test.csv).
Files of one config with different columns become one config per set of columns
({config}-{label}; the output says which), so that every RecordSet reads; --include
describes some files only. mlcroissant 1.1.1 validates the result with no error.

The descriptor is written atomically. An existing file is replaced only when this tool
wrote it (it carries "cl:generatedBy": "croissant-lineage") or with --force; otherwise
the command stops with CL-E007 and exit status 2, and nothing is written."""


def _file_fields(values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        name, sep, regex = value.partition("=")
        if not sep or not name or not regex:
            raise InputError(
                f"--file-field {value!r} is not NAME=REGEX",
                hint="e.g. --file-field 'subject=^(.+)_test\\.csv$'",
            )
        out[name] = regex
    return out


def _run(args: argparse.Namespace) -> int:
    options = DescribeOptions(
        name=args.name,
        description=args.description,
        url=args.url,
        license=args.license,
        version=args.dataset_version,
        date_published=args.date,
        cite_as=args.cite_as,
        include=list(args.include or []),
        csv_columns=[c.strip() for c in args.csv_columns.split(",")] if args.csv_columns else None,
        file_fields=_file_fields(args.file_field or []),
        relative_to=Path(args.relative_to) if args.relative_to else None,
        config=args.config,
        split=args.split,
    )
    result = describe_folder(args.folder, options, out=args.out, force=args.force)
    print_result(args, result)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "describe",
        help="write a Croissant 1.1 descriptor for a local benchmark folder",
        description=_DESCRIPTION,
        epilog=example_epilog(
            "croissant-lineage describe data/my-bench --name my-bench --license MIT",
            "croissant-lineage describe ../shared/data/mmlu --relative-to ../shared/data "
            "--out mmlu-2020.json --include 'test/*.csv' --csv-columns question,A,B,C,D,answer "
            "--file-field 'subject=^(.+)_test\\.csv$' --split test",
            "croissant-lineage describe data/my-bench --out data/my-bench/croissant.json "
            "--force --json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("folder", metavar="FOLDER", help="folder holding the data files")
    options.out(
        p,
        "descriptor file to write (default: croissant.json in --relative-to, else in FOLDER)",
        required=False,
        metavar="FILE",
    )
    p.add_argument("--name", help="dataset name (default: the folder name)")
    p.add_argument("--description", help="dataset description")
    p.add_argument("--url", help="dataset URL (Hub or repository page)")
    p.add_argument("--license", help="license (SPDX id or URL)")
    p.add_argument("--dataset-version", metavar="VERSION", help="dataset version")
    options.renamed(p, "--version", "--dataset-version", "dataset_version")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="datePublished")
    p.add_argument("--cite-as", metavar="TEXT", help="citeAs: how to cite the dataset (e.g. BibTeX)")
    p.add_argument(
        "--include",
        nargs="+",
        action="extend",
        metavar="GLOB",
        help="data files to describe, relative to FOLDER; Croissant glob semantics "
        "(fnmatch: * also crosses /). Default: every data file",
    )
    p.add_argument(
        "--csv-columns",
        metavar="A,B,C",
        help="column names of headerless CSV files (stored as cl:csvColumns; mlcroissant "
        "cannot read such files, croissant-lineage can)",
    )
    p.add_argument(
        "--file-field",
        action="append",
        metavar="NAME=REGEX",
        help="add a field taken from each file's name by REGEX (first group); repeatable",
    )
    p.add_argument(
        "--split",
        default="train",
        help="split of files whose path names none (default: train)",
    )
    p.add_argument(
        "--config",
        default="default",
        help="config of files not in a config sub-folder (default: default)",
    )
    p.add_argument(
        "--relative-to",
        metavar="DIR",
        help="folder the descriptor will sit in; file globs are written relative to it "
        "(default: the --out folder, else FOLDER)",
    )
    options.force(p)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)
