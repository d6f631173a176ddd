"""The file system under hostile input: nothing outside the given folders, no dataset file replaced.

Every case runs in a private copy of the toy family (``toy_copy``) or of the bad-input
corpus. A command lists, opens or stats nothing outside the folders it was given (an audit
hook records ``open``, ``os.listdir`` and ``os.scandir``); never replaces a file of a
dataset its inputs name, read or not, ``--force`` or not; replaces an output it wrote
before and refuses any other without ``--force``; and says what stopped it in one coded
line (exit 2).
"""

from __future__ import annotations

import errno
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage import _io
from croissant_lineage.errors import OutputExistsError
from croissant_lineage.prov.terms import escape, literal_value
from tests.test_badinput import CORPUS, run_cli, toy_copy, tree_digest, with_timeout

__all__ = ["toy_copy"]

# --- an audit hook: what a command opens or lists ----------------------------------------

_SEEN: list[str] | None = None


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if _SEEN is None or event not in ("open", "os.listdir", "os.scandir"):
        return
    target = args[0] if args else None
    if isinstance(target, (str, bytes, os.PathLike)):
        _SEEN.append(os.fsdecode(target))


sys.addaudithook(_hook)  # cannot be removed: it records only inside ``_watching``

#: Where the interpreter and its packages live: imports and codecs open files there.
_RUNTIME = tuple({str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, *sys.path) if p and Path(p).is_dir()})


@contextmanager
def _watching() -> Iterator[list[str]]:
    global _SEEN
    seen: list[str] = []
    _SEEN = seen
    try:
        yield seen
    finally:
        _SEEN = None


def _outside(seen: list[str], allowed: list[Path]) -> list[str]:
    roots = [str(p.resolve()) for p in allowed]
    out = []
    for raw in seen:
        p = os.path.abspath(raw)
        if any(p == r or p.startswith(r + os.sep) for r in roots):
            continue
        if p.startswith(_RUNTIME) or p.startswith(("/proc/self", "/dev/null", "/etc/localtime", "/usr/share/zoneinfo")):
            continue
        out.append(p)
    return out


@pytest.mark.parametrize("command", ["validate", "link"])
def test_a_glob_from_the_root_is_refused_before_any_listing(command: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "case"
    for name in ("croissant.json", "data.csv", "family.json"):
        (case / name).parent.mkdir(exist_ok=True)
        (case / name).write_bytes((CORPUS / "contenturl_fileset_glob_root" / name).read_bytes())
    argv = {"validate": ["validate", str(case / "croissant.json"), str(case / "family.json")],
            "link": ["link", str(case / "family.json"), "--out", str(tmp_path / "out")]}[command]
    run_cli(argv, capsys)  # imports done, so what is recorded next is the command's own doing
    with _watching() as seen:
        status, out, err = with_timeout(lambda: run_cli(argv, capsys), 30)
    if command == "validate":
        # outside the folder: a warning, and an error as data mlcroissant cannot read, never a walk
        assert status == 1 and "CLV702" in out and "CLV701" in out, out + err
    else:
        assert status == 2 and "CL-E006" in err and err.count("\n") == 1, err
    assert _outside(seen, [tmp_path]) == []


# --- no dataset file replaced -----------------------------------------------------------


def _errata(w: Path) -> Path:
    folder = w / "errata"
    folder.mkdir(exist_ok=True)
    (folder / "problem_ids.json").write_text('{"answer_format_wrong": [1]}')
    (folder / "README.md").write_text("# errata (not written by this library)\n")
    return folder


#: (command line given the work folder): each would replace a dataset's file its run never reads.
ONTO_DATASETS: dict[str, Callable[[Path], list[str]]] = {
    "apply-lineage-onto-data": lambda w: ["apply", "--dataset", "toy-pro", "--findings", str(w / "findings.json"),
                                          "--lineage", str(w / "lineage"), "--out", str(w / "toy/toy-pro/test.jsonl")],
    "enrich-onto-data": lambda w: ["enrich", str(w / "toy/toy-pro/croissant.json"), "--derived-from",
                                   str(w / "toy/toy-base/croissant.json"), "--out", str(w / "toy/toy-pro/test.jsonl")],
    "enrich-onto-a-sibling-dataset": lambda w: ["enrich", str(w / "toy/toy-pro/croissant.json"), "--derived-from",
                                                str(w / "toy/toy-base/croissant.json"),
                                                "--out", str(w / "toy/toy-fr/test.jsonl")],
    "publish-onto-dataset-folder": lambda w: ["publish", str(w / "toy/toy-pro/croissant.json"), "--lineage",
                                              str(w / "lineage"), "--repo-id", "example/toy", "--dataset", "toy-pro",
                                              "--dry-run", "--out", str(w / "toy/toy-pro")],
    "link-onto-dataset-folder": lambda w: ["link", str(w / "toy/family.json"), "--out", str(w / "toy/toy-fr")],
    "errata-onto-its-source-readme": lambda w: ["findings", "import", "errata", "--folder", str(_errata(w)),
                                                "--lineage", str(w / "lineage"), "--family", str(w / "toy/family.json"),
                                                "--out", str(w / "errata/README.md")],
}


@pytest.mark.parametrize("name", ONTO_DATASETS)
def test_no_dataset_file_is_replaced_even_forced(name: str, toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ONTO_DATASETS[name](toy_copy)
    before = tree_digest(toy_copy)
    status, _, err = run_cli([*argv, "--force"], capsys)
    assert status == 2 and "CL-E007" in err and err.count("\n") == 1, err
    assert tree_digest(toy_copy) == before


def test_the_guard_covers_every_file_of_a_named_dataset(toy_copy: Path) -> None:
    from croissant_lineage.family.spec import load_family

    with _io.input_guard():
        load_family(toy_copy / "toy" / "family.json")  # names the datasets; reads none of their files
        for rel in ("toy-base/test/astronomy_test.csv", "toy-pro-v2/test-00000-of-00001.parquet", "toy-fr/test.jsonl"):
            with pytest.raises(OutputExistsError) as err:
                _io.atomic_write_bytes(toy_copy / "toy" / rel, b"x")
            assert err.value.code == "CL-E007"
        _io.atomic_write_bytes(toy_copy / "toy" / "toy-fr" / "notes.txt", b"x")  # a new file beside them is fine


@pytest.mark.parametrize("where", [".", ".."])
def test_a_folder_output_never_is_or_holds_the_working_folder(where: str, toy_copy: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(toy_copy / "notes")
    before = tree_digest(toy_copy)
    status, _, err = run_cli(["link", str(toy_copy / "toy" / "family.json"), "--out", where, "--force", "-q"], capsys)
    assert status == 2 and "CL-E007" in err and err.count("\n") == 1, err
    assert tree_digest(toy_copy) == before


# --- one rule for outputs: its own replaced, a foreign one refused ------------------------


def _writers(w: Path) -> dict[str, tuple[list[str], Path]]:
    lin, fam = str(w / "lineage"), str(w / "toy" / "family.json")
    pro, base = str(w / "toy/toy-pro/croissant.json"), str(w / "toy/toy-base/croissant.json")
    out = w / "out"
    data = w / "described"
    if not data.exists():
        data.mkdir()
        (data / "items.csv").write_text("id,question\n1,Which colour?\n")
    return {
        "link": (["link", fam, "-q", "--out"], out / "lineage"),
        "relatives-svg": (["relatives", "toy-pro:101", "--lineage", lin, "--svg"], out / "r.svg"),
        "enrich": (["enrich", pro, "--derived-from", base, "--out"], out / "e.json"),
        "enrich-family": (["enrich", "--family", fam, "--lineage", lin, "-q", "--out"], out / "enriched"),
        "prov": (["prov", "--lineage", lin, "--out"], out / "p.ttl"),
        "describe": (["describe", str(data), "--out"], data / "croissant.json"),
        "apply": (["apply", "--dataset", "toy-pro", "--findings", str(w / "findings.json"), "--lineage", lin,
                   "--out"], out / "keys.csv"),
        "findings-import": (["findings", "import", "errata", "--folder", str(_errata(w)), "--lineage", lin,
                             "--family", fam, "--out"], out / "errata.json"),
        "publish": (["publish", str(w / "out" / "e.json"), "--lineage", lin, "--repo-id", "example/toy",
                     "--dataset", "toy-pro", "--base-card", str(CARD), "--dry-run", "--out"], out / "hub"),
    }


#: The toy repository's card, as publish needs it to keep the repository's own configs.
CARD = Path(__file__).resolve().parent / "fixtures" / "hub" / "toy-pro-card.md"


@pytest.mark.parametrize("name", ["link", "relatives-svg", "enrich", "enrich-family", "prov", "describe", "apply",
                                  "findings-import", "publish"])
def test_every_writer_replaces_its_own_output_and_refuses_a_foreign_one(name: str, toy_copy: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    writers = _writers(toy_copy)
    if name == "publish":  # publishes the enriched descriptor
        argv, target = writers["enrich"]
        assert run_cli([*argv, str(target)], capsys)[0] == 0
    argv, target = writers[name]
    for run in (1, 2):
        status, _, err = run_cli([*argv, str(target)], capsys)
        assert status == 0, (run, err)
    foreign = target.with_name("foreign" + target.suffix)
    if target.suffix:
        foreign.write_text("a file this library did not write\n")
    else:  # a folder: holding a file of a name the command writes (enrich keeps any other file)
        foreign.mkdir()
        (foreign / ("toy-pro.json" if name == "enrich-family" else "mine.txt")).write_text("not written here\n")
    before = tree_digest(toy_copy)
    status, _, err = run_cli([*argv, str(foreign)], capsys)
    assert status == 2 and "CL-E007" in err and err.count("\n") == 1, err
    assert tree_digest(toy_copy) == before
    if name != "describe":  # (describe would read the foreign JSON file as data of its folder)
        assert run_cli([*argv, str(foreign), "--force"], capsys)[0] == 0  # --force replaces what is not a dataset's


# --- tracebacks turned into coded errors -----------------------------------------------


def test_a_busy_mount_point_as_out_is_one_coded_line(toy_copy: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["link", str(toy_copy / "toy" / "family.json"), "--out", str(toy_copy / "mnt"), "-q"]
    assert run_cli(argv, capsys)[0] == 0

    def busy(a: Path, b: Path) -> bool:
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(b))

    monkeypatch.setattr(_io.atomic, "_exchange", busy)
    before = tree_digest(toy_copy / "mnt")
    status, _, err = run_cli(argv, capsys)
    assert status == 2 and "CL-E010" in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert tree_digest(toy_copy / "mnt") == before
    assert not [p for p in toy_copy.iterdir() if p.name.startswith(".mnt.")]


def test_a_parquet_column_named_twice_is_a_data_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "dup"
    case.mkdir()
    (case / "family.json").write_bytes((CORPUS / "_good" / "family.json").read_bytes())
    desc = json.loads((CORPUS / "_good" / "croissant.json").read_text())
    desc["distribution"][0].update(contentUrl="data.parquet", encodingFormat="application/x-parquet")
    (case / "croissant.json").write_text(json.dumps(desc))
    cols = {"id": ["1"], "subject": ["s"], "question": ["q?"], "A": ["a"], "B": ["b"], "C": ["c"], "D": ["d"],
            "answer": ["A"]}
    table = pa.table([pa.array(v) for v in cols.values()] + [pa.array(["again?"])], names=[*cols, "question"])
    pq.write_table(table, case / "data.parquet")
    before = tree_digest(tmp_path)
    status, _, err = run_cli(["link", str(case / "family.json"), "--out", str(tmp_path / "out")], capsys)
    assert status == 2 and "CL-E004" in err and "data.parquet" in err and err.count("\n") == 1, err
    assert tree_digest(tmp_path) == before


# --- the small ones ---------------------------------------------------------------------


def test_a_second_run_into_a_locked_output_says_so(toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = toy_copy / "lin"
    before = tree_digest(toy_copy)
    with _io.output_lock(out):  # another run holds it
        _io.lock._HELD.discard(out.parent.resolve() / out.name)  # as if held by another process
        status, _, err = run_cli(["link", str(toy_copy / "toy" / "family.json"), "--out", str(out), "-q"], capsys)
        _io.lock._HELD.add(out.parent.resolve() / out.name)
    assert status == 2 and "CL-E010" in err and err.count("\n") == 1, err
    assert tree_digest(toy_copy) == before


def test_what_a_killed_run_left_is_cleaned_on_the_next_run(toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (toy_copy / ".lin.k3x.tmp").mkdir()
    (toy_copy / ".lin.k3x.tmp" / "items.parquet").write_bytes(b"half")
    (toy_copy / ".lin.a1b.tmp").write_bytes(b"half a file")
    assert run_cli(["link", str(toy_copy / "toy" / "family.json"), "--out", str(toy_copy / "lin"), "-q"], capsys)[0] == 0
    assert not [p.name for p in toy_copy.iterdir() if p.name.startswith(".lin.")]


def test_argparse_errors_show_escapes_inert(capsys: pytest.CaptureFixture[str]) -> None:
    hostile = "\x1b]0;pwned\x07\x1b[2J"
    for argv in (["link", "x", "--out", "y", "--bogus", hostile], [hostile]):
        with pytest.raises(SystemExit) as exc:
            run_cli(argv, capsys)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and "\x1b" not in err and "\x07" not in err and "\\x1b" in err


def test_prov_literals_carry_no_raw_control_character() -> None:
    text = "stem\x1b[2J\x00 \x7f tab\there \\u0041 \"quoted\"\nnext"
    escaped = escape(text)
    assert not any((ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F for c in escaped)
    assert literal_value(f'"{escaped}"')[0] == text  # JSON-LD gets the text back


def test_prov_turtle_of_hostile_texts_is_inert(toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = json.loads((toy_copy / "lineage" / "family.json").read_text())
    spec["datasets"][0]["title"] = "Toy \x1b]0;pwned\x07\x1b[2J\x00 base"
    (toy_copy / "lineage" / "family.json").write_text(json.dumps(spec))
    for fmt, name in (("turtle", "p.ttl"), ("nt", "p.nt")):
        status, _, err = run_cli(["prov", "--lineage", str(toy_copy / "lineage"), "--format", fmt,
                                  "--out", str(toy_copy / name)], capsys)
        assert status == 0, err
        data = (toy_copy / name).read_bytes()
        assert b"\x1b" not in data and b"\x00" not in data and b"\x07" not in data and b"\\u001B" in data


def test_validate_and_relatives_agree_on_a_folder_with_only_items(toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    only = toy_copy / "only-items"
    only.mkdir()
    (only / "items.parquet").write_bytes((toy_copy / "lineage" / "items.parquet").read_bytes())
    status, out, _ = run_cli(["validate", str(only)], capsys)
    assert status == 1 and "CLV306" in out
    status, _, err = run_cli(["relatives", "toy-pro:101", "--lineage", str(only)], capsys)
    assert status == 2 and "CL-E001" in err

