"""A flag has one meaning across commands; renamed flags still work for a release."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from croissant_lineage.cli import build_parser, main, options
from croissant_lineage.cli.flags import DEPRECATED, MEANINGS, flag_problems, flag_table

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"


def test_every_flag_of_every_command_has_its_one_meaning() -> None:
    assert flag_problems(build_parser()) == []


def _with_command(declare: object) -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    p = sub.add_parser("extra")
    declare(p)  # type: ignore[operator]
    return parser


def test_a_shared_flag_declared_by_a_command_is_reported() -> None:
    parser = _with_command(lambda p: p.add_argument("--kind", nargs="+", help="only these kinds"))
    problems = flag_problems(parser)
    assert any(p.startswith("extra --kind: declared by the command") for p in problems)
    assert any(p.startswith("--kind: takes values differently") for p in problems)


def test_a_flag_with_no_listed_meaning_is_reported() -> None:
    parser = _with_command(lambda p: p.add_argument("--colour"))
    assert flag_problems(parser) == ["extra --colour: not listed in cli/flags.py MEANINGS"]


def test_a_one_command_flag_taken_by_a_second_command_is_reported() -> None:
    parser = _with_command(lambda p: p.add_argument("--svg", metavar="OUT"))
    assert sorted(p.split(":")[0] for p in flag_problems(parser)) == ["extra --svg", "relatives --svg"]


def test_the_table_lists_each_visible_flag_once_with_its_commands() -> None:
    rows = flag_table(build_parser())[2:]
    names = [r.split("|")[1].strip().strip("`") for r in rows]
    assert len(names) == len(set(names))
    assert "--syntax" in names and "--format" in names and "-q, --quiet" in names
    quiet = next(r for r in rows if r.startswith("| `-q, --quiet`"))
    assert quiet.rsplit("|", 2)[1].count(",") >= 15  # every command
    for old in DEPRECATED:  # hidden aliases are not listed under the command they left
        command, _, flag = old.rpartition(" ")
        row = next(r for r in rows if r.startswith(f"| `{flag}`"))
        assert command not in row.rsplit("|", 2)[1] and flag in MEANINGS


@pytest.mark.parametrize("argv", [["witnesses", "--archives", "."], ["apply", "--dataset", "toy-pro"],
                                  ["findings", "import", "errata"]])
def test_no_command_defaults_to_a_family(argv: list[str]) -> None:
    p = build_parser()
    args = p.parse_args([*argv, *(["--data-dir", "x"] if argv[0] == "witnesses" else []),
                         *(["--dataset", "d"] if argv[0] == "witnesses" else []),
                         *(["--findings", "f", "--out", "o"] if argv[0] == "apply" else []),
                         *(["--out", "o"] if argv[0] == "findings" else [])])
    assert args.family is None
    with pytest.raises(Exception) as err:
        options.family_of(args)
    assert getattr(err.value, "code", None) == "CL-E001"


def test_the_family_is_read_from_the_lineage_folder(tmp_path: Path) -> None:
    (tmp_path / "family.json").write_text(json.dumps({"name": "mmlu"}), encoding="utf-8")
    args = argparse.Namespace(family=None, lineage=str(tmp_path))
    assert options.family_of(args) == "mmlu"
    (tmp_path / "family.json").write_text(json.dumps({"name": "toy"}), encoding="utf-8")
    with pytest.raises(Exception) as err:
        options.family_of(args)
    assert getattr(err.value, "code", None) == "CL-E001"
    assert options.family_of(argparse.Namespace(family="toy.json", lineage=str(tmp_path))) == "toy.json"


def test_link_takes_the_family_as_argument_or_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = str(TOY / "family.json")
    assert main(["link", "--family", spec, "--out", str(tmp_path / "a"), "-q"]) == 0
    assert main(["link", spec, "--out", str(tmp_path / "b"), "-q"]) == 0
    assert (tmp_path / "a" / "edges.parquet").read_bytes() == (tmp_path / "b" / "edges.parquet").read_bytes()
    assert main(["link", spec, "--family", spec, "--out", str(tmp_path / "c")]) == 2
    assert main(["link", "--out", str(tmp_path / "d")]) == 2
    assert "CL-E001" in capsys.readouterr().err


def test_old_spellings_work_with_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lineage = tmp_path / "lineage"
    assert main(["link", str(TOY / "family.json"), "--out", str(lineage), "-q"]) == 0
    assert main(["prov", "--lineage", str(lineage), "--format", "nt", "--out", str(tmp_path / "a.nt"), "-q"]) == 0
    assert "--format is now --syntax" in capsys.readouterr().err
    assert main(["prov", "--lineage", str(lineage), "--syntax", "nt", "--out", str(tmp_path / "b.nt"), "-q"]) == 0
    assert (tmp_path / "a.nt").read_bytes() == (tmp_path / "b.nt").read_bytes()
    args = build_parser().parse_args(["describe", "d", "--version", "1.0"])
    assert args.dataset_version == "1.0"
    assert main(["validate", str(lineage), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["valid"] is True and "--json" in captured.err


def test_quiet_validate_prints_nothing_and_keeps_the_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lineage = tmp_path / "lineage"
    assert main(["link", str(TOY / "family.json"), "--out", str(lineage), "-q"]) == 0
    capsys.readouterr()
    assert main(["validate", str(lineage), "-q"]) == 0
    assert capsys.readouterr().out == ""


def test_discover_refuses_a_lineage_folder_it_did_not_write(tmp_path: Path) -> None:
    out = tmp_path / "found"
    (out / "lineage").mkdir(parents=True)
    (out / "lineage" / "notes.txt").write_text("mine", encoding="utf-8")
    argv = ["discover", "--family", str(TOY / "family.json"), "--out", str(out), "-q"]
    assert main(argv) == 2
    assert not (out / "discover.json").exists()
    assert (out / "lineage" / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert main([*argv, "--force"]) == 0
    assert (out / "discover.json").exists() and (out / "lineage" / "edges.parquet").exists()
    assert main(argv) == 0  # its own lineage folder is replaced


@pytest.mark.filterwarnings("default::DeprecationWarning")
def test_overwrite_is_a_deprecated_name_of_force(tmp_path: Path) -> None:
    from croissant_lineage.lineage.model import Lineage

    lineage = tmp_path / "lineage"
    assert main(["link", str(TOY / "family.json"), "--out", str(lineage), "-q"]) == 0
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "x.txt").write_text("x", encoding="utf-8")
    lin = Lineage.read(lineage)
    with pytest.warns(DeprecationWarning, match="force="):
        lin.write(foreign, overwrite=True)
    assert (foreign / "edges.parquet").exists()
