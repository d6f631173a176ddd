"""Hostile input on the write side and the output side.

Every case is invented and runs in a private copy of the toy family. A command never
writes to one of its own inputs, even with ``--force`` (one guard in ``_io``, not a
check per command), never replaces a non-regular file and never reads one as data;
printed text cannot steer a terminal; HTML and the dataset card link only http(s)
URLs; pictures stay small and well-formed whatever their texts hold; CSV cells cannot
become spreadsheet formulas; a full disk or a read-only file system is one coded line.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from croissant_lineage import _io
from croissant_lineage._results import inert, inert_json, is_uri, link_url
from croissant_lineage.errors import InputError, OutputExistsError, SpecError
from croissant_lineage.family.spec import load_family
from croissant_lineage.hub.publish import check_repo_id, md_text
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.render.html import findings_html
from croissant_lineage.render.picture import family_picture
from croissant_lineage.workflows import link
from tests.test_badinput import CORPUS, run_cli, toy_copy, tree_digest, with_timeout

__all__ = ["toy_copy"]  # the fixture, shared with tests/test_badinput.py

HOSTILE_ID = "=HYPERLINK(\"http://x\")\x1b]0;pwned\x07\x1b[2J\r\nforged line\u202e101"
#: Findings files refuse white space in item ids (schemas/finding.schema.json): one without.
FORMULA_ID = "@SUM(1+1)\x1b]0;pwned\x07\x1b[2J\u202e102"


def _apply(w: Path) -> list[str]:
    return ["apply", "--dataset", "toy-pro", "--findings", str(w / "findings.json"), "--lineage", str(w / "lineage")]


def _apply_family(w: Path) -> list[str]:
    """apply reading the dataset itself (without --lineage it reads the spec, descriptor and data)."""
    return ["apply", "--dataset", "toy-pro", "--findings", str(w / "findings.json"), "--family", str(w / "toy" / "family.json")]


def _enrich_one(w: Path) -> list[str]:
    return ["enrich", str(w / "toy" / "toy-pro" / "croissant.json"), "--derived-from", str(w / "toy" / "toy-base" / "croissant.json")]


#: (command line, the input it names as --out): each must stop with CL-E007 even with --force.
ONTO_INPUTS: dict[str, Callable[[Path], tuple[list[str], Path]]] = {
    "apply-onto-data-file": lambda w: (_apply_family(w), w / "toy" / "toy-pro" / "test.jsonl"),
    "apply-onto-descriptor": lambda w: (_apply_family(w), w / "toy" / "toy-pro" / "croissant.json"),
    "apply-onto-family-spec": lambda w: (_apply_family(w), w / "toy" / "family.json"),
    "apply-onto-lineage-family": lambda w: (_apply(w), w / "lineage" / "family.json"),
    "apply-onto-edges": lambda w: (_apply(w), w / "lineage" / "edges.parquet"),
    "apply-onto-summary": lambda w: (_apply(w), w / "lineage" / "summary.json"),
    "prov-onto-summary": lambda w: (["prov", "--lineage", str(w / "lineage")], w / "lineage" / "summary.json"),
    "prov-onto-findings": lambda w: (["prov", "--lineage", str(w / "lineage"), "--findings", str(w / "findings.json")],
                                     w / "findings.json"),
    "relatives-svg-onto-edges": lambda w: (["relatives", "toy-pro:101", "--lineage", str(w / "lineage"), "--svg"],
                                           w / "lineage" / "edges.parquet"),
    "describe-onto-its-data": lambda w: (["describe", str(w / "toy" / "toy-redux")], w / "toy" / "toy-redux" / "toy_redux.csv"),
    "enrich-onto-its-descriptor": lambda w: (_enrich_one(w), w / "toy" / "toy-pro" / "croissant.json"),
    "enrich-onto-its-parent": lambda w: (_enrich_one(w), w / "toy" / "toy-base" / "croissant.json"),
    "link-onto-its-spec-folder": lambda w: (["link", str(w / "toy" / "family.json")], w / "toy"),
}


@pytest.mark.parametrize("name", ONTO_INPUTS)
def test_no_command_writes_to_its_input_even_forced(name: str, toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, target = ONTO_INPUTS[name](toy_copy)
    argv = [*argv, str(target)] if argv[-1] == "--svg" else [*argv, "--out", str(target)]
    before = tree_digest(toy_copy)
    status, _, err = run_cli([*argv, "--force"], capsys)
    assert status == 2 and "CL-E007" in err and err.count("\n") == 1, err
    assert "--force" not in err and "overwrite" not in err  # the hint never points at destroying an input
    assert tree_digest(toy_copy) == before


def test_an_input_reached_through_a_symlink_or_a_hard_link_is_an_input(toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (toy_copy / "via-symlink.jsonl").symlink_to(toy_copy / "toy" / "toy-pro" / "test.jsonl")
    os.link(toy_copy / "toy" / "toy-pro" / "croissant.json", toy_copy / "via-hardlink.json")
    before = tree_digest(toy_copy)
    for out in ("via-symlink.jsonl", "via-hardlink.json"):
        status, _, err = run_cli([*_apply_family(toy_copy), "--out", str(toy_copy / out), "--force"], capsys)
        assert status == 2 and "CL-E007" in err, err
    assert tree_digest(toy_copy) == before


def test_findings_import_refuses_its_own_inputs_after_reading_them(toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The guard is not a list of flags: a file found through the family is an input too."""
    with _io.input_guard([toy_copy / "findings.json"]):
        Lineage.read(toy_copy / "lineage")
        load_family(toy_copy / "toy" / "family.json")
        for p in (toy_copy / "lineage" / "items.parquet", toy_copy / "toy" / "family.json", toy_copy / "findings.json"):
            with pytest.raises(OutputExistsError) as err:
                _io.atomic_write_bytes(p, b"x")
            assert err.value.code == "CL-E007"
        _io.atomic_write_bytes(toy_copy / "new.txt", b"x")  # anything else is written
    _io.atomic_write_bytes(toy_copy / "lineage" / "notes.txt", b"x")  # outside the guard: no command, no inputs


def test_a_folder_swap_never_replaces_an_input_inside_it(toy_copy: Path) -> None:
    lin = link(toy_copy / "toy" / "family.json")
    target = toy_copy / "toy"  # holds the spec, family.json, which a lineage folder also writes
    before = tree_digest(toy_copy)
    with _io.input_guard([toy_copy / "toy" / "family.json"]), pytest.raises(OutputExistsError):
        lin.write(target, force=True)
    assert tree_digest(toy_copy) == before
    assert not [p for p in toy_copy.iterdir() if p.name.startswith(".toy.")]  # no temporary folder left


# --- rule 3: only regular files are written or read as data ---------------------------


def _specials(tmp: Path) -> dict[str, Path]:
    fifo = tmp / "a.fifo"
    os.mkfifo(fifo)
    link_ = tmp / "a.link"
    (tmp / "target.txt").write_text("keep\n")
    link_.symlink_to(tmp / "target.txt")
    out = {"fifo": fifo, "symlink": link_}
    if os.geteuid() == 0:  # a private null device (as root, --force must not replace /dev/null either)
        dev = tmp / "null.dev"
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        out["device"] = dev
    return out


def test_force_never_replaces_a_fifo_a_device_or_a_symlink(toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    specials = _specials(toy_copy / "notes")
    for kind, path in specials.items():
        for argv in ([*_apply(toy_copy), "--out", str(path)], ["prov", "--lineage", str(toy_copy / "lineage"), "--out", str(path)],
                     ["relatives", "toy-pro:101", "--lineage", str(toy_copy / "lineage"), "--svg", str(path)]):
            status, _, err = run_cli([*argv, "--force"], capsys)
            assert status == 2 and "CL-E007" in err and "--force" not in err, (kind, err)
    assert stat.S_ISFIFO(specials["fifo"].lstat().st_mode) and specials["symlink"].is_symlink()
    assert (toy_copy / "notes" / "target.txt").read_text() == "keep\n"
    if "device" in specials:
        assert stat.S_ISCHR(specials["device"].lstat().st_mode)


def test_a_fifo_as_content_url_is_refused_not_waited_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "fifo_contenturl"
    shutil.copytree(CORPUS / "_good", case)
    data = next(p for p in case.iterdir() if p.suffix == ".csv")
    data.unlink()
    os.mkfifo(data)
    status, _, err = with_timeout(lambda: run_cli(["link", str(case / "family.json"), "--out", str(tmp_path / "out")], capsys))
    assert status == 2 and "CL-E001" in err and "FIFO" in err, err
    with pytest.raises(InputError):
        _io.read_text(data)


# --- rules 7, 9, 14: hostile item ids through the terminal, the SVG and CSV -------------


@pytest.fixture()
def hostile(toy_copy: Path) -> Path:
    """The toy copy with toy-pro items 101 and 102 renamed to ids full of escapes, relinked."""
    data = toy_copy / "toy" / "toy-pro" / "test.jsonl"
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    for r in rows:
        r["question_id"] = {101: HOSTILE_ID, 102: FORMULA_ID}.get(r["question_id"], str(r["question_id"]))
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    shutil.rmtree(toy_copy / "lineage")
    link(toy_copy / "toy" / "family.json").write(toy_copy / "lineage")
    return toy_copy


def _steering(text: str) -> list[str]:
    return re.findall(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text)


def test_printed_text_is_inert(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = f"toy-pro:{HOSTILE_ID}"
    status, out, err = run_cli(["relatives", ref, "--lineage", str(hostile / "lineage")], capsys)
    assert status == 0 and not _steering(out) and "forged line" in out, out
    assert not any(line.startswith("forged line") for line in out.splitlines())  # no forged line
    status, out, _ = run_cli(["route", ref, "--lineage", str(hostile / "lineage")], capsys)
    assert status == 0 and not _steering(out)
    finding = {"id": "F-1", "item": f"toy-pro:{FORMULA_ID}", "target": "key", "kind": "wrong_key", "proposed": "B",
               "source": {"name": "evil\x1b]0;title\x07\nforged", "kind": "manual"}, "evidence": ["x"], "status": "proposed"}
    (hostile / "evil.json").write_text(json.dumps({"findings": [finding]}))
    status, out, _ = run_cli(["findings", "list", str(hostile / "evil.json")], capsys)
    assert status == 0 and not _steering(out) and len(out.splitlines()) == 1, out
    status, _, err = run_cli(["relatives", "toy-pro:\x1b[2Jnope\nforged", "--lineage", str(hostile / "lineage")], capsys)
    assert status == 2 and not _steering(err) and err.count("\n") == 1, err


def test_inert_escapes_every_steering_character() -> None:
    assert inert("a\x1b[31mb\x07\x9b\r\u202e\tc\nd") == "a\\x1b[31mb\\x07\\x9b\\x0d\\u202e\tc\nd"
    assert inert("a\nb", lines=False) == "a\\nb"
    assert inert("\u0627\u200f\u00e9\u4e2d") == "\u0627\u200f\u00e9\u4e2d"  # scripts and marks stay
    text = json.dumps({"id": "x\x9b\x7f\u202e\x1b"}, ensure_ascii=False)
    assert not _steering(inert_json(text)) and json.loads(inert_json(text)) == json.loads(text)


def test_svg_with_control_characters_in_ids_is_well_formed(hostile: Path) -> None:
    lin = Lineage.read(hostile / "lineage")
    svg = family_picture(lin, f"toy-pro:{HOSTILE_ID}").to_svg()
    ET.fromstring(svg)  # parses: no control character reached the XML
    assert "forged line" in svg


def test_a_huge_stem_draws_a_small_picture(toy_copy: Path) -> None:
    lin = Lineage.read(toy_copy / "lineage")
    idx = lin.items.column_names.index("stem")
    stems = lin.items.column("stem").to_pylist()
    row = [f"{d}:{i}" for d, i in zip(lin.items.column("dataset").to_pylist(), lin.items.column("item").to_pylist(),
                                      strict=True)].index("toy-pro:105")
    stems[row] = "word " * 1_000_000 + "x" * 5_000_000  # 10 MB
    items = lin.items.set_column(idx, lin.items.schema.field(idx), pa.array(stems, pa.string()))
    big = Lineage(lin.family, items, lin.edges, lin.duplicates, lin.unmatched, lin.summary)
    svg = with_timeout(lambda: family_picture(big, "toy-pro:105").to_svg(), 60)
    assert len(svg) < 200_000 and "word word" in svg


def test_csv_outputs_neutralise_formulas(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = pa.table({"item": ["=1+2", "+cmd", "-2+3", "@SUM(A1)", "\tx", "plain", None], "key": [1, -2, 3, 4, 5, 6, 7]})
    lines = _io.csv_bytes(table).decode().splitlines()
    assert lines[1:] == ['"\'=1+2",1', '"\'+cmd",-2', '"\'-2+3",3', '"\'@SUM(A1)",4', '"\'\tx",5', '"plain",6', ',7']
    finding = {"id": "F-1", "item": f"toy-pro:{FORMULA_ID}", "target": "key", "kind": "wrong_key", "proposed": "1",
               "source": {"name": "t", "kind": "manual"}, "evidence": ["x"], "status": "confirmed_fixed", "status_date": "2024-01-01"}
    (hostile / "findings.json").write_text(json.dumps({"findings": [finding]}))
    out = hostile / "keys.csv"
    status, _, err = run_cli([*_apply(hostile), "--out", str(out)], capsys)
    assert status == 0, err
    cells = [c for line in out.read_text().splitlines() for c in line.split(",")]
    assert not [c for c in cells if c.strip('"').startswith(("=", "+", "@"))], cells


# --- rule 8: links --------------------------------------------------------------------


def test_only_http_urls_become_links() -> None:
    assert [link_url(u) for u in ("https://a.org/x", "http://a.org", "javascript:alert(1)", "data:text/html,x",
                                  "file:///etc/passwd", "//a.org", "https://", "https://a.org/\nx")] == [
        "https://a.org/x", "http://a.org", None, None, None, None, None, None]
    from croissant_lineage.findings.model import Finding

    doc = {"id": "F-1", "item": "toy-pro:1", "target": "key", "kind": "wrong_key", "source":
           {"name": "<b>evil</b>", "kind": "manual", "url": "javascript:alert(1)"}, "evidence": ["x"], "status": "proposed"}
    html = findings_html([Finding.from_dict(doc)])
    assert "javascript:" not in html.split("href")[0] and 'href="javascript' not in html and "<b>evil" not in html


def test_spec_iris_are_uris_and_card_titles_are_text(tmp_path: Path) -> None:
    spec = json.loads((CORPUS / "_good" / "family.json").read_text())
    spec["datasets"][0]["iri"] = "not a uri at all"
    bad = tmp_path / "family.json"
    shutil.copytree(CORPUS / "_good", tmp_path, dirs_exist_ok=True)
    bad.write_text(json.dumps(spec))
    with pytest.raises(SpecError) as err:
        load_family(bad)
    assert "uri" in str(err.value)
    assert is_uri("urn:example:x") and not is_uri("a b:c")
    assert md_text("[x](javascript:alert(1)) <img src=x> | cell") == "\\[x\\](javascript:alert(1)) \\<img src=x\\> \\| cell"


@pytest.mark.parametrize("repo_id", ["org/na me", "org/a--b", "../x", "org/name/extra", "org/" + "n" * 100, "org/x.."])
def test_repo_ids_are_checked_as_the_hub_checks_them(repo_id: str) -> None:
    with pytest.raises(InputError):
        check_repo_id(repo_id)


# --- rule 10: disk full, read-only file system ------------------------------------------


def _fail_fsync(code: int) -> Callable[..., Any]:
    def fsync(fd: int) -> None:
        raise OSError(code, os.strerror(code))

    return fsync


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_disk_full_or_read_only_is_one_coded_line(code: int, toy_copy: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_io.atomic.os, "fsync", _fail_fsync(code))
    before = tree_digest(toy_copy)
    for argv in (["link", str(toy_copy / "toy" / "family.json"), "--out", str(toy_copy / "lineage2")],
                 [*_apply(toy_copy), "--out", str(toy_copy / "keys.parquet")],
                 ["enrich", "--family", str(toy_copy / "toy" / "family.json"), "--lineage", str(toy_copy / "lineage"),
                  "--out", str(toy_copy / "enriched"), "-q"]):
        status, _, err = run_cli(argv, capsys)
        assert status == 2 and "CL-E010" in err and err.count("\n") == 1, err
    assert tree_digest(toy_copy) == before  # no partial file or folder, no temporary left


def test_publish_dry_run_on_a_full_disk_leaves_no_partial_folder(toy_copy: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    enriched = toy_copy / "enriched"
    assert run_cli(["enrich", "--family", str(toy_copy / "toy" / "family.json"), "--lineage", str(toy_copy / "lineage"),
                    "--out", str(enriched), "-q"], capsys)[0] == 0
    argv = ["publish", str(enriched / "toy-pro.json"), "--lineage", str(toy_copy / "lineage"), "--out",
            str(toy_copy / "repo"), "--repo-id", "example/toy-pro", "--dry-run",
            "--base-card", str(Path(__file__).parent / "fixtures" / "hub" / "toy-pro-card.md")]
    calls = {"n": 0}
    real = os.fsync

    def fsync(fd: int) -> None:  # the third file finds the disk full
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)

    monkeypatch.setattr(_io.atomic.os, "fsync", fsync)
    before = tree_digest(toy_copy)
    status, _, err = run_cli(argv, capsys)
    assert status == 2 and "CL-E010" in err and err.count("\n") == 1, err
    assert tree_digest(toy_copy) == before and not (toy_copy / "repo").exists()
    monkeypatch.setattr(_io.atomic.os, "fsync", real)
    assert run_cli(argv, capsys)[0] == 0 and (toy_copy / "repo" / "README.md").exists()
