"""Bad input from strangers: a coded error, one line, no traceback, nothing changed.

Every entry of ``tests/badinput/`` (one kind of bad input each; see its README) goes
through the public function that reads it and through the CLI command that reads it.
Each run asserts the error code (``CL-E...``; ``CLV...`` and exit status 1 for
``validate``), exit status 2, exactly one line on stderr without a traceback (and a
traceback with ``--debug``), and that no file changed: the whole temporary tree the case
runs in is hashed before and after, so a partial output, a stray temporary file or a
touched input fails the test.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage.audits.witnesses.archives import iter_archive
from croissant_lineage.cli import main
from croissant_lineage.croissant.describe import describe
from croissant_lineage.croissant.limits import MAX_CELL_BYTES, MAX_FIELD_CHARS, MAX_LINE_BYTES
from croissant_lineage.enrich import enrich_file
from croissant_lineage.errors import LineageError
from croissant_lineage.findings.files import load_findings
from croissant_lineage.lineage.graph import LineageGraph, relatives_of
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import EDGES_SCHEMA
from croissant_lineage.resolve import resolve
from croissant_lineage.validate import validate
from croissant_lineage.workflows import link, witness_family
from tests.helpers import items_table

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parent / "badinput"
TOY = REPO / "examples" / "toy"


# --- harness -------------------------------------------------------------------------


def tree_digest(root: Path) -> dict[str, str]:
    """Path -> digest of every entry under ``root`` (files by content, links by target)."""
    out: dict[str, str] = {}
    for dirpath, dirs, files in os.walk(root):
        for name in sorted(dirs + files):
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            elif p.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture()
def corpus(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A private copy of the corpus (symlinks kept as links), with the generated cases.

    ``csv_giant_line`` (a CSV line longer than the field cap, 16 MiB) is too large for git
    and is written here, only for the tests that use it.
    """
    dst = tmp_path / "badinput"
    shutil.copytree(CORPUS, dst, symlinks=True, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    if "csv_giant" in request.node.name:
        giant = dst / "csv_giant_line"
        shutil.copytree(dst / "_good", giant)
        with (giant / "data.csv").open("a", encoding="utf-8") as fh:
            fh.write("9,glorbs," + "x" * (MAX_FIELD_CHARS + 1) + ",1,2,3,4,A\n")
    if "parquet_giant_cell" in request.node.name:
        giant_parquet_cell(dst / "_good", dst / "parquet_giant_cell", MAX_CELL_BYTES + 1)
    if "jsonl_giant_line" in request.node.name:
        giant_jsonl_line(dst / "_good", dst / "jsonl_giant_line", MAX_LINE_BYTES + 1)
    lineage_folder(json.loads((dst / "lineage_cycle.json").read_text()), dst / "lineage_cycle")
    return dst


def _retyped(good: Path, dst: Path, data: str, encoding: str) -> None:
    """``good``'s setup copied to ``dst`` with its data file named ``data``, of ``encoding``."""
    shutil.copytree(good, dst)
    (dst / "data.csv").unlink()
    desc = json.loads((dst / "croissant.json").read_text())
    desc["distribution"][0].update(contentUrl=data, encodingFormat=encoding)
    (dst / "croissant.json").write_text(json.dumps(desc, indent=2))


def giant_parquet_cell(good: Path, dst: Path, size: int) -> None:
    """``parquet_giant_cell``: the good setup as Parquet, the second stem ``size`` bytes
    long (a few KB on disk: one repeated byte compresses away)."""
    _retyped(good, dst, "data.parquet", "application/x-parquet")
    rows = [dict(zip(["id", "subject", "question", "A", "B", "C", "D", "answer"], r, strict=True)) for r in (
        ["1", "glorbs", "Short?", "3", "4", "5", "6", "C"], ["2", "glorbs", "x" * size, "a", "b", "c", "d", "A"])]
    pq.write_table(pa.Table.from_pylist(rows), dst / "data.parquet", compression="zstd")


def giant_jsonl_line(good: Path, dst: Path, size: int) -> None:
    """``jsonl_giant_line``: the good setup as JSON Lines, the second line over ``size`` bytes."""
    _retyped(good, dst, "data.jsonl", "application/jsonlines")
    first = {"id": "1", "subject": "glorbs", "question": "Short?", "A": "3", "B": "4", "C": "5", "D": "6", "answer": "C"}
    with (dst / "data.jsonl").open("w", encoding="utf-8") as fh:
        fh.write(json.dumps(first) + "\n")
        fh.write(json.dumps({**first, "id": "2", "question": "x" * size}) + "\n")


def lineage_folder(spec: dict[str, Any], out: Path) -> Path:
    """Write a lineage folder whose edges are ``spec['edges']`` (child ds, item, parent ds, item)."""
    items = pa.concat_tables(
        [items_table(ds, [{"item": it, "stem": f"Invented stem {ds} {it}?", "options": ["x", "y"], "key": "A"}])
         for ds, it in spec["items"]]
    )
    rows: dict[str, list[Any]] = {f.name: [] for f in EDGES_SCHEMA}
    for cd, ci, pd_, pi in spec["edges"]:
        given = dict((
            ("child_dataset", cd), ("child_item", ci), ("parent_dataset", pd_), ("parent_item", pi),
            ("activity", "snapshot"), ("method", "id"), ("score", 100.0), ("options_score", 100.0),
            ("option_map", [0, 1]), ("options_copied", 2), ("options_added", 0), ("options_dropped", 0),
            ("key_inherited", True), ("stem_changed", False), ("ambiguous", False), ("alternatives", []),
            ("text_repaired", False),
        ))
        for name in rows:  # (the others, such as the content statuses, null)
            rows[name].append(given.get(name))
    family = {"name": "cycle", "datasets": [{"name": d} for d in sorted({d for d, _ in spec["items"]})], "derivations": []}
    return Lineage(family, items, pa.table(rows, schema=EDGES_SCHEMA), summary={"family": "cycle"}).write(out)


@dataclass(frozen=True)
class Case:
    """One bad input: how the library and the CLI are pointed at it, and what they must say.

    Attributes:
        entry: Corpus entry (file or folder under tests/badinput).
        code: The LineageError code expected.
        names: File name the error must name (``LineageError.path``).
        api: Calls the public function on the entry (given the entry's path).
        argv: CLI arguments (given the entry's path and a fresh output path).
    """

    entry: str
    code: str
    names: str
    api: Callable[[Path], Any]
    argv: Callable[[Path, Path], list[str]]

    def __str__(self) -> str:
        return self.entry


def _spec(p: Path) -> Path:
    return p / "family.json" if (p / "family.json").exists() else p / "family.yaml"


def _link_case(entry: str, code: str, names: str) -> Case:
    return Case(entry, code, names, lambda p: link(_spec(p / entry)),
                lambda p, out: ["link", str(_spec(p / entry)), "--out", str(out), "--quiet"])


def _descriptor_case(entry: str, code: str, resolve_code: str) -> list[Case]:
    """A bad descriptor: through link (its family), enrich and resolve."""
    desc = f"{entry}/croissant.json"
    parent = "https://example.org/parent"
    return [
        _link_case(entry, code, "croissant.json"),
        Case(f"{entry}[enrich]", code, "croissant.json",
             lambda p: enrich_file(p / desc, p.parent / "out.json", derived_from=[parent]),
             lambda p, out: ["enrich", str(p / desc), "--derived-from", parent, "--out", str(out)]),
        Case(f"{entry}[resolve]", resolve_code, "croissant.json",
             lambda p: resolve("bad:1", p / desc),
             lambda p, out: ["resolve", "bad:1", str(p / desc)]),
    ]


def _csv_case(entry: str, code: str) -> list[Case]:
    """A CSV defect: through link (its descriptor) and through describe (the bare file)."""
    return [
        _link_case(entry, code, "data.csv"),
        Case(f"{entry}[describe]", code, "data.csv",
             lambda p: describe(p / entry),
             lambda p, out: ["describe", str(p / entry), "--include", "data.csv", "--out", str(out)]),
    ]


def _findings_case(entry: str, code: str) -> Case:
    return Case(entry, code, entry, lambda p: load_findings(p / entry),
                lambda p, out: ["findings", "list", str(p / entry)])


def _archive_case(entry: str, code: str) -> list[Case]:
    zip_name = "model_outputs_x_5shots.zip"
    return [
        Case(entry, code, zip_name, lambda p: list(iter_archive(p / entry / zip_name)),
             lambda p, out: ["witnesses", "--archives", str(p / entry), "--family", str(TOY / "family.json"),
                             "--dataset", "toy-pro", "--data-dir", str(TOY)]),
        Case(f"{entry}[witness_family]", code, zip_name,
             lambda p: witness_family(TOY / "family.json", archives_dir=p / entry, data_dir=TOY, dataset="toy-pro"),
             lambda p, out: ["witnesses", "--archives", str(p / entry), "--family", str(TOY / "family.json"),
                             "--dataset", "toy-pro", "--data-dir", str(TOY), "--json"]),
    ]


CASES: list[Case] = [
    # descriptors
    *_descriptor_case("descriptor_invalid_json", "CL-E001", "CL-E001"),
    *_descriptor_case("descriptor_empty", "CL-E001", "CL-E001"),
    *_descriptor_case("descriptor_not_croissant", "CL-E002", "CL-E001"),
    *_descriptor_case("descriptor_json_list", "CL-E002", "CL-E001"),
    *_descriptor_case("descriptor_deep_nesting", "CL-E001", "CL-E001"),
    *_descriptor_case("descriptor_nan", "CL-E001", "CL-E001"),
    *_descriptor_case("descriptor_duplicate_key", "CL-E001", "CL-E001"),
    _link_case("descriptor_recordset_missing", "CL-E002", "croissant.json"),
    _link_case("descriptor_field_missing", "CL-E003", "croissant.json"),
    _link_case("descriptor_column_missing", "CL-E004", "data.csv"),
    # file URLs that leave the descriptor's folder
    _link_case("contenturl_parent", "CL-E006", "croissant.json"),
    _link_case("contenturl_absolute", "CL-E006", "croissant.json"),
    _link_case("contenturl_symlink", "CL-E006", "croissant.json"),
    _link_case("contenturl_fileset_glob_outside", "CL-E006", "croissant.json"),
    _link_case("contenturl_fileset_glob_root", "CL-E006", "croissant.json"),
    # data files
    *_csv_case("csv_empty", "CL-E001"),
    *_csv_case("csv_mixed_delimiters", "CL-E004"),
    *_csv_case("csv_utf16", "CL-E001"),
    *_csv_case("csv_ragged", "CL-E004"),
    *_csv_case("csv_nul_bytes", "CL-E001"),
    *_csv_case("csv_unclosed_quote", "CL-E004"),
    *_csv_case("csv_binary", "CL-E001"),
    *_csv_case("csv_giant_line", "CL-E008"),
    _link_case("jsonl_deep_nesting", "CL-E004", "data.jsonl"),
    _link_case("jsonl_giant_line", "CL-E008", "data.jsonl"),
    _link_case("parquet_giant_cell", "CL-E008", "data.parquet"),
    _link_case("key_index_negative", "CL-E004", "croissant.json"),
    _link_case("key_index_fraction", "CL-E004", "croissant.json"),
    _link_case("key_index_huge", "CL-E004", "croissant.json"),
    _link_case("jsonl_deep_first_line", "CL-E004", "data.jsonl"),
    _link_case("duplicate_ids", "CL-E004", "croissant.json"),
    # family specs
    _link_case("family_cycle", "CL-E003", "family.json"),
    _link_case("family_invalid_json", "CL-E001", "family.json"),
    _link_case("family_empty", "CL-E001", "family.json"),
    _link_case("family_duplicate_key", "CL-E001", "family.json"),
    _link_case("family_not_a_spec", "CL-E003", "family.json"),
    _link_case("family_descriptor_nul", "CL-E003", "family.json"),
    _link_case("family_yaml_tag", "CL-E001", "family.yaml"),
    _link_case("family_yaml_alias_bomb", "CL-E001", "family.yaml"),
    # findings files
    _findings_case("findings_unknown_field.json", "CL-E005"),
    _findings_case("findings_unknown_status.json", "CL-E005"),
    _findings_case("findings_yaml_tag.yaml", "CL-E005"),
    _findings_case("findings_yaml_alias_bomb.yaml", "CL-E001"),
    _findings_case("findings_deep_nesting.json", "CL-E001"),
    _findings_case("findings_empty.yaml", "CL-E001"),
    _findings_case("findings_invalid.json", "CL-E001"),
    _findings_case("findings_duplicate_key.json", "CL-E001"),
    _findings_case("findings_not_a_list.yaml", "CL-E005"),
    # lineage folders
    Case("lineage_not_parquet", "CL-E001", "items.parquet", lambda p: Lineage.read(p / "lineage_not_parquet"),
         lambda p, out: ["relatives", "bad:1", "--lineage", str(p / "lineage_not_parquet")]),
    # prediction archives
    *_archive_case("archive_not_zip", "CL-E001"),
    *_archive_case("archive_two_files", "CL-E001"),
    *_archive_case("archive_bomb", "CL-E008"),
    *_archive_case("archive_traversal", "CL-E006"),
    *_archive_case("archive_truncated", "CL-E001"),
    *_archive_case("archive_deep_nesting", "CL-E001"),
]


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def with_timeout(fn: Callable[[], Any], seconds: float = 20.0) -> Any:
    """Run ``fn`` in a thread; fail (instead of hanging the suite) if it does not finish."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"did not finish within {seconds} s (a hang on bad input)")
    if "error" in box:
        raise box["error"]
    return box.get("value")


# --- every corpus entry has a case -------------------------------------------------


def test_corpus_entries_all_have_cases() -> None:
    used = {c.entry.split("[")[0] for c in CASES} | {e for e, _ in VALIDATION}
    generated = {"csv_giant_line", "jsonl_giant_line", "parquet_giant_cell", "lineage_cycle"}  # written by the ``corpus`` fixture
    others = {"_good", "_outside", "archive_wrong_shape", "lineage_cycle.json", "make_corpus.py", "README.md"}
    tests = {p.name for p in CORPUS.glob("test_*.py")}  # the read-side tests sit beside the corpus
    assert {p.name for p in CORPUS.iterdir() if p.name != "__pycache__"} - tests == (used - generated) | others


def test_good_control_links(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The setup every case shares is valid: only each case's one defect fails it."""
    assert link(corpus / "_good" / "family.json").items.num_rows == 3
    status, _, err = run_cli(["link", str(corpus / "_good" / "family.json"), "--out", str(corpus / "out"), "-q"], capsys)
    assert status == 0 and err == ""


# --- the public function -------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=str)
def test_public_function_raises_its_code(case: Case, corpus: Path) -> None:
    before = tree_digest(corpus)
    with pytest.raises(LineageError) as info:
        with_timeout(lambda: case.api(corpus))
    err = info.value
    assert err.code == case.code, str(err)
    assert err.path is not None and Path(err.path).name == case.names, str(err)
    assert "\n" not in str(err)
    assert tree_digest(corpus) == before


# --- the CLI -------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=str)
def test_cli_exits_2_with_one_line_and_writes_nothing(case: Case, corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = corpus.parent / "out"
    before = tree_digest(corpus.parent)
    status, _, err = with_timeout(lambda: run_cli(case.argv(corpus, out), capsys))
    assert status == 2, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert case.code in err and "Traceback" not in err
    assert tree_digest(corpus.parent) == before  # no output, no temporary file, no input touched


@pytest.mark.parametrize("case", CASES[::4], ids=str)
def test_cli_debug_shows_the_traceback(case: Case, corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = with_timeout(lambda: run_cli(["--debug", *case.argv(corpus, corpus.parent / "out")], capsys))
    assert status == 2
    assert err.startswith("Traceback") and case.code in err.splitlines()[-1]


@pytest.mark.parametrize("entry", ["contenturl_symlink", "contenturl_fileset_glob_outside"])
def test_outside_paths_are_read_when_allowed(entry: str, corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert link(corpus / entry / "family.json", allow_outside=True).items.num_rows == 3
    out = corpus.parent / "out"
    status, _, err = run_cli(["link", str(corpus / entry / "family.json"), "--out", str(out), "--allow-outside", "-q"], capsys)
    assert status == 0, err
    assert Lineage.read(out).items.num_rows == 3


def test_real_process_one_line_no_traceback(corpus: Path) -> None:
    """The installed entry point (not only ``main``) prints one line and exits 2."""
    proc = subprocess.run(
        [sys.executable, "-m", "croissant_lineage", "link", str(corpus / "csv_ragged" / "family.json"),
         "--out", str(corpus.parent / "out")],
        capture_output=True, text=True, timeout=60, cwd=REPO,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "CL-E004" in proc.stderr and "Traceback" not in proc.stderr
    assert not (corpus.parent / "out").exists()


# --- records of the wrong shape are counted, not fatal --------------------------------


def test_archive_records_of_the_wrong_shape_are_counted(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = witness_family(TOY / "family.json", archives_dir=corpus / "archive_wrong_shape", data_dir=TOY, dataset="toy-pro")
    (row,) = report.admission.rows
    assert (row.records, row.malformed, row.admitted) == (8, 6, 0)
    status, out, _ = run_cli(["witnesses", "--archives", str(corpus / "archive_wrong_shape"), "--family",
                                str(TOY / "family.json"), "--dataset", "toy-pro", "--data-dir", str(TOY), "--json"], capsys)
    assert status == 0 and json.loads(out)["summary"]["malformed"] == 6


# --- validate: exit 1 with a CLV code ------------------------------------------------

#: Corpus entry (relative path) -> CLV code validate must report.
VALIDATION: list[tuple[str, str]] = [
    ("descriptor_invalid_json", "CLV001"),
    ("descriptor_not_croissant", "CLV107"),
    ("family_cycle", "CLV303"),
    ("lineage_cycle", "CLV303"),
    ("lineage_not_parquet", "CLV306"),
    ("findings_unknown_field.json", "CLV401"),
    ("findings_unknown_status.json", "CLV402"),
    ("findings_yaml_tag.yaml", "CLV001"),
    ("findings_yaml_alias_bomb.yaml", "CLV001"),
    ("findings_deep_nesting.json", "CLV001"),
    ("descriptor_deep_nesting", "CLV001"),
    ("descriptor_nan", "CLV001"),
    ("descriptor_duplicate_key", "CLV001"),
    ("family_duplicate_key", "CLV001"),
    ("findings_duplicate_key.json", "CLV001"),
    ("family_descriptor_nul", "CLV501"),
]

_VALIDATE_TARGET = {
    "descriptor_invalid_json": "descriptor_invalid_json/croissant.json",
    "descriptor_not_croissant": "descriptor_not_croissant/croissant.json",
    "descriptor_deep_nesting": "descriptor_deep_nesting/croissant.json",
    "descriptor_nan": "descriptor_nan/croissant.json",
    "descriptor_duplicate_key": "descriptor_duplicate_key/croissant.json",
    "family_duplicate_key": "family_duplicate_key/family.json",
    "family_cycle": "family_cycle/family.json",
    "family_descriptor_nul": "family_descriptor_nul/family.json",
}


@pytest.mark.parametrize(("entry", "code"), VALIDATION)
def test_validate_reports_the_code_and_exits_1(entry: str, code: str, corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = corpus / _VALIDATE_TARGET.get(entry, entry)
    before = tree_digest(corpus)
    report = with_timeout(lambda: validate([target]))
    assert not report.valid and code in {i.code for i in report.issues}
    status, _, err = with_timeout(lambda: run_cli(["validate", str(target)], capsys))
    assert status == 1 and "Traceback" not in err
    assert tree_digest(corpus) == before


# --- lineage cycles: queries end --------------------------------------------------------


def test_graph_queries_on_a_cyclic_lineage_terminate(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    graph = LineageGraph(Lineage.read(corpus / "lineage_cycle"))
    fam = with_timeout(lambda: relatives_of(graph, "a:1"), 10)
    assert [r.ref for r in fam.ancestors] == ["b:1"]
    assert sorted(r.ref for r in fam.descendants) == ["b:1", "c:1"]
    assert "a:1" not in {r.ref for r in (*fam.ancestors, *fam.descendants)}
    status, out, _ = with_timeout(lambda: run_cli(["relatives", "a:1", "--lineage", str(corpus / "lineage_cycle"), "--json"], capsys))
    assert status == 0 and json.loads(out)["ancestors"][0]["ref"] == "b:1"


# --- outputs: no input overwritten, no foreign output replaced ------------------------


@pytest.fixture()
def toy_copy(tmp_path: Path) -> Path:
    """The toy family, its lineage (ours) and a findings file, in a private folder."""
    root = tmp_path / "work"
    shutil.copytree(TOY, root / "toy", ignore=shutil.ignore_patterns("*.py"))
    link(root / "toy" / "family.json").write(root / "lineage")
    finding = {"id": "F-1", "item": "toy-pro:101", "target": "key", "kind": "wrong_key", "proposed": "Sable",
               "source": {"name": "tester", "kind": "manual"}, "evidence": ["counted"],
               "status": "confirmed_fixed", "status_date": "2024-01-01"}
    (root / "findings.json").write_text(json.dumps({"findings": [finding]}))
    (root / "notes").mkdir()
    (root / "notes" / "mine.txt").write_text("a file this library did not write\n")
    shutil.copy(CORPUS / "_good" / "croissant.json", root / "notes" / "croissant.json")  # hand-written: no marker
    return root


def _apply(w: Path) -> list[str]:
    return ["apply", "--dataset", "toy-pro", "--findings", str(w / "findings.json"), "--lineage", str(w / "lineage")]


#: Command lines (given the work folder of ``toy_copy``) that must stop with CL-E007.
REFUSALS: dict[str, Callable[[Path], list[str]]] = {
    "link-into-foreign-folder": lambda w: ["link", str(w / "toy" / "family.json"), "--out", str(w / "notes"), "-q"],
    "link-into-its-inputs-folder": lambda w: ["link", str(w / "toy" / "family.json"), "--out", str(w / "toy"), "-q"],
    "link-onto-an-input-file": lambda w: ["link", str(w / "toy" / "family.json"), "--out", str(w / "toy" / "family.json")],
    "describe-onto-its-input-csv": lambda w: ["describe", str(w / "toy" / "toy-redux"), "--out",
                                              str(w / "toy" / "toy-redux" / "toy_redux.csv")],
    "describe-onto-a-foreign-file": lambda w: ["describe", str(w / "toy" / "toy-redux"), "--out", str(w / "notes" / "mine.txt")],
    "describe-onto-a-hand-written-descriptor": lambda w: ["describe", str(w / "toy" / "toy-redux"), "--out",
                                                          str(w / "notes" / "croissant.json")],
    "apply-onto-its-input-even-forced": lambda w: [*_apply(w), "--out", str(w / "findings.json"), "--force"],
    "apply-onto-a-foreign-file": lambda w: [*_apply(w), "--out", str(w / "notes" / "mine.txt")],
    "publish-into-a-foreign-folder": lambda w: ["publish", str(w / "toy" / "toy-pro" / "croissant.json"), "--lineage",
                                                str(w / "lineage"), "--out", str(w / "notes"), "--repo-id",
                                                "example/toy-pro", "--dry-run"],
}


@pytest.mark.parametrize("name", REFUSALS)
def test_no_command_replaces_an_input_or_a_foreign_output(name: str, toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree_digest(toy_copy)
    status, _, err = run_cli(REFUSALS[name](toy_copy), capsys)
    assert status == 2 and "CL-E007" in err and err.count("\n") == 1, err
    assert tree_digest(toy_copy) == before


def test_own_outputs_are_refreshed_without_a_flag(toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Outputs carrying the library's marker may be replaced: a lineage folder, a descriptor."""
    assert run_cli(["link", str(toy_copy / "toy" / "family.json"), "--out", str(toy_copy / "lineage"), "-q"], capsys)[0] == 0
    out = toy_copy / "redux.json"
    argv = ["describe", str(toy_copy / "toy" / "toy-redux"), "--out", str(out), "-q"]
    assert run_cli(argv, capsys)[0] == 0 and run_cli(argv, capsys)[0] == 0


def test_family_svg_does_not_replace_a_foreign_file(toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = toy_copy / "toy" / "toy-redux" / "toy_redux.csv"
    before = tree_digest(toy_copy)
    status, _, err = run_cli(["relatives", "toy-pro:101", "--lineage", str(toy_copy / "lineage"), "--svg", str(target)], capsys)
    assert status == 2 and "CL-E007" in err
    assert tree_digest(toy_copy) == before


#: Writers (enrich, prov): a foreign --out is refused unless ours or --force.
FOREIGN_OUTPUT_GAPS: dict[str, Callable[[Path], list[str]]] = {
    "enrich-onto-a-foreign-file": lambda w: ["enrich", str(w / "toy" / "toy-pro" / "croissant.json"), "--derived-from",
                                             "https://example.org/parent", "--out", str(w / "notes" / "mine.txt")],
    "enrich-family-over-a-hand-written-descriptor": lambda w: ["enrich", "--family", str(w / "toy" / "family.json"),
                                                               "--lineage", str(w / "lineage"), "--out", str(w / "notes"), "-q"],
    "prov-onto-a-foreign-file": lambda w: ["prov", "--lineage", str(w / "lineage"), "--out", str(w / "notes" / "mine.txt"), "-q"],
}


@pytest.mark.parametrize("name", FOREIGN_OUTPUT_GAPS)
def test_enrich_and_prov_do_not_replace_a_foreign_output(name: str, toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (toy_copy / "notes" / "toy-pro.json").write_text('{"hand": "written"}\n')  # where enrich --family writes
    before = tree_digest(toy_copy)
    status, _, err = run_cli(FOREIGN_OUTPUT_GAPS[name](toy_copy), capsys)
    assert status == 2 and "CL-E007" in err, err
    assert tree_digest(toy_copy) == before


# --- enriched descriptors from strangers: cycles and file URLs -----------------------


def _cyclic_toy(tmp_path: Path) -> tuple[Path, str]:
    """The toy family enriched from a lineage with one edge reversed (a two-item cycle)."""
    from croissant_lineage.enrich import enrich_family

    lineage = link(TOY / "family.json")
    edge = lineage.edges.slice(0, 1).to_pylist()[0]
    back = {**edge, "child_dataset": edge["parent_dataset"], "child_item": edge["parent_item"],
            "parent_dataset": edge["child_dataset"], "parent_item": edge["child_item"]}
    lineage.edges = pa.concat_tables([lineage.edges, pa.Table.from_pylist([back], schema=lineage.edges.schema)])
    enrich_family(lineage, TOY / "family.json", tmp_path / "enriched")
    return tmp_path / "enriched", f"{edge['child_dataset']}:{edge['child_item']}"


def test_resolve_on_a_cyclic_enriched_family_ends(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, ref = _cyclic_toy(tmp_path)
    fam = with_timeout(lambda: resolve(ref, folder), 20)
    parent = fam.ancestors[0].ref
    assert [a.ref for a in fam.ancestors] == [parent] and parent in {d.ref for d in fam.descendants}
    assert ref not in {r.ref for r in (*fam.ancestors, *fam.descendants)}
    status, _, _ = with_timeout(lambda: run_cli(["resolve", ref, str(folder), "--json"], capsys))
    assert status == 0


def test_validate_flags_a_cycle_in_enriched_lineage(tmp_path: Path) -> None:
    folder, _ = _cyclic_toy(tmp_path)
    report = validate([folder])
    assert "CLV303" in {i.code for i in report.issues} and not report.valid


def test_resolve_refuses_lineage_files_outside_the_descriptors_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from croissant_lineage.enrich import enrich_family

    out = tmp_path / "enriched"
    enrich_family(link(TOY / "family.json"), TOY / "family.json", out)
    desc = out / "toy-pro.json"
    doc = json.loads(desc.read_text())
    urls = [n for n in doc["distribution"] if str(n.get("contentUrl", "")).endswith(".parquet")]
    assert urls
    for node in urls:
        node["contentUrl"] = "../../../../../../etc/passwd"
    desc.write_text(json.dumps(doc))
    before = tree_digest(tmp_path)
    with pytest.raises(LineageError) as info:
        resolve("toy-pro:101", desc)
    assert info.value.code == "CL-E006"
    status, _, err = run_cli(["resolve", "toy-pro:101", str(desc)], capsys)
    assert status == 2 and "CL-E006" in err and err.count("\n") == 1
    assert tree_digest(tmp_path) == before


# --- the same bad findings files and lineage folders through every command reading them --


@pytest.fixture(scope="module")
def toy_lineage_dir(toy_lineage_path: Path) -> Path:
    return toy_lineage_path


_FINDINGS_ENTRIES = [(c.entry, c.code) for c in CASES if c.entry.startswith("findings_")]
_READERS: dict[str, Callable[[str, str, Path], list[str]]] = {
    "route": lambda lin, fnd, out: ["route", "toy-pro:101", "--lineage", lin, "--findings", fnd],
    "report": lambda lin, fnd, out: ["report", "--lineage", lin, "--findings", fnd],
    "apply": lambda lin, fnd, out: ["apply", "--dataset", "toy-pro", "--lineage", lin, "--findings", fnd, "--out", str(out)],
    "witnesses": lambda lin, fnd, out: ["witnesses", "--archives", str(out.parent), "--family", str(TOY / "family.json"),
                                        "--dataset", "toy-pro", "--data-dir", str(TOY), "--findings", fnd, "--lineage", lin],
}


@pytest.mark.parametrize("command", _READERS)
@pytest.mark.parametrize(("entry", "code"), _FINDINGS_ENTRIES)
def test_bad_findings_through_every_command(entry: str, code: str, command: str, corpus: Path, toy_lineage_dir: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    before = tree_digest(corpus.parent)
    argv = _READERS[command](str(toy_lineage_dir), str(corpus / entry), corpus.parent / "out.csv")
    status, _, err = with_timeout(lambda: run_cli(argv, capsys))
    assert status == 2 and code in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert tree_digest(corpus.parent) == before


@pytest.mark.parametrize("command", ["relatives", "route", "report", "apply", "prov", "enrich", "publish", "findings-import"])
def test_a_broken_lineage_folder_through_every_command(command: str, corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lin, out = str(corpus / "lineage_not_parquet"), corpus.parent / "out"
    good_findings = str(corpus.parent / "ok.json")
    Path(good_findings).write_text('{"findings": []}')
    argv = {
        "relatives": ["relatives", "bad:1", "--lineage", lin],
        "route": ["route", "bad:1", "--lineage", lin],
        "report": ["report", "--lineage", lin, "--findings", good_findings],
        "apply": ["apply", "--dataset", "bad", "--lineage", lin, "--findings", good_findings, "--out", str(out)],
        "prov": ["prov", "--lineage", lin, "--out", str(out)],
        "enrich": ["enrich", "--family", str(corpus / "_good" / "family.json"), "--lineage", lin, "--out", str(out)],
        "publish": ["publish", str(corpus / "_good" / "croissant.json"), "--lineage", lin, "--out", str(out),
                    "--repo-id", "example/bad", "--dry-run"],
        "findings-import": ["findings", "import", "errata", "--lineage", lin, "--out", str(out)],
    }[command]
    before = tree_digest(corpus.parent)
    status, _, err = with_timeout(lambda: run_cli(argv, capsys))
    assert status == 2 and "CL-E001" in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert "lineage_not_parquet" in err  # the broken folder is what stopped it
    assert tree_digest(corpus.parent) == before


@pytest.mark.parametrize(
    ("command", "damage", "code"),
    [
        ("translations", ("toy-fr", "test.jsonl", b'{"sample_id": "astronomy/test/0", "question": \n'), "CL-E004"),
        ("history", ("toy-pro-v2", "test-00000-of-00001.parquet", b"not a Parquet file\n"), "CL-E004"),
        ("history", ("toy-pro", "test.jsonl", b"\xff\xfe{\x00}\x00"), "CL-E001"),
    ],
)
def test_snapshot_and_translation_commands_on_damaged_data(command: str, damage: tuple[str, str, bytes], code: str,
                                                           toy_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, name, data = damage
    (toy_copy / "toy" / folder / name).write_bytes(data)
    before = tree_digest(toy_copy)
    status, _, err = run_cli([command, "--family", str(toy_copy / "toy" / "family.json")], capsys)
    assert status == 2 and code in err and err.count("\n") == 1, err
    assert tree_digest(toy_copy) == before


def test_translations_of_a_family_without_translations_is_an_empty_report(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(["translations", "--family", str(corpus / "_good" / "family.json"), "--json"], capsys)
    assert status == 0, err
    assert json.loads(out)["totals"] == []  # was an AttributeError traceback (items None)
