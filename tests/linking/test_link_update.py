"""``link --update``: only the derivations a spec adds are linked; the folder is a full link's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from croissant_lineage.lineage.info import INPUTS_FILE
from croissant_lineage.lineage.inputs import UPDATE_NOTICE
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.workflows import write_lineage
from tests.helpers import toy_spec_without as _toy

REPO = Path(__file__).resolve().parents[2]



def _same_tables(a: Path, b: Path) -> None:
    x, y = Lineage.read(a), Lineage.read(b)
    for name in ("items", "edges", "duplicates", "unmatched"):
        assert getattr(x, name).equals(getattr(y, name)), name
    assert x.summary == y.summary and x.family == y.family
    assert json.loads((a / INPUTS_FILE).read_text()) == json.loads((b / INPUTS_FILE).read_text())


@pytest.mark.parametrize("added", ["toy-pro-v2", "toy-fr", "toy-redux"])
def test_adding_a_dataset_links_its_derivation_only(tmp_path: Path, added: str) -> None:
    full = write_lineage(_toy(tmp_path), tmp_path / "full")
    out = tmp_path / "out"
    write_lineage(_toy(tmp_path, added, "minus.json"), out)
    got = write_lineage(_toy(tmp_path), out, update=True)
    assert got.update is not None and not got.update.startswith(UPDATE_NOTICE)
    assert [p.split(" <- ")[0] for p in got.update.removeprefix("linked: ").split(", ")] == [added]
    _same_tables(out, full.path)


def test_nothing_new_links_nothing(tmp_path: Path) -> None:
    out = write_lineage(_toy(tmp_path), tmp_path / "out").path
    got = write_lineage(_toy(tmp_path), out, update=True)
    assert got.update == "linked: nothing new"
    _same_tables(out, write_lineage(_toy(tmp_path), tmp_path / "full").path)


def _changed_rule(tmp_path: Path) -> None:
    spec = _toy(tmp_path)
    doc = json.loads(spec.read_text())
    for d in doc["derivations"]:
        if d["child"] == "toy-redux":
            d.setdefault("link", {})["threshold"] = 99
    spec.write_text(json.dumps(doc))


def _changed_data(tmp_path: Path) -> None:
    data = sorted(p for p in (tmp_path / "toy" / "toy-base").rglob("*") if p.is_file() and p.suffix != ".json")[0]
    data.write_bytes(data.read_bytes().replace(b"?", b"?  ", 1))


def _touched_only(tmp_path: Path) -> None:
    for p in (tmp_path / "toy").rglob("*"):
        if p.is_file():
            os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 10**9))


def test_a_moved_and_touched_copy_is_the_same_input(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_lineage(_toy(tmp_path, "toy-pro-v2", "minus.json"), out)
    _touched_only(tmp_path)
    shutil.move(tmp_path / "toy", tmp_path / "moved")
    got = write_lineage(tmp_path / "moved" / "family.json", out, update=True)
    assert got.update == "linked: toy-pro-v2 <- toy-pro"


@pytest.mark.parametrize("change", [_changed_rule, _changed_data])
def test_any_other_change_links_the_whole_family_with_a_notice(tmp_path: Path, change) -> None:
    out = tmp_path / "out"
    write_lineage(_toy(tmp_path, "toy-pro-v2", "minus.json"), out)
    change(tmp_path)
    got = write_lineage(_toy(tmp_path), out, update=True)
    assert got.update is not None and got.update.startswith(UPDATE_NOTICE)
    _same_tables(out, write_lineage(_toy(tmp_path), tmp_path / "full").path)


def test_a_folder_without_inputs_is_linked_whole(tmp_path: Path) -> None:
    out = write_lineage(_toy(tmp_path, "toy-fr", "minus.json"), tmp_path / "out").path
    (out / INPUTS_FILE).unlink()
    got = write_lineage(_toy(tmp_path), out, update=True)
    assert got.update is not None and got.update.startswith(UPDATE_NOTICE)


def test_cli_update_says_what_it_linked(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_lineage(_toy(tmp_path, "toy-pro-v2", "minus.json"), out)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-m", "croissant_lineage", "link", str(_toy(tmp_path)), "--out", str(out),
                          "--update", "--json"], capture_output=True, text=True, env=env, check=False)
    assert run.returncode == 0, run.stderr
    assert "linked: toy-pro-v2 <- toy-pro" in run.stderr
    assert json.loads(run.stdout) == Lineage.read(out).summary.to_dict()


def test_mmlu_minus_a_snapshot_updated_is_the_full_link(shared_data: Path, mmlu_lineage_dir: Path, tmp_path: Path) -> None:
    from croissant_lineage.family.spec import builtin_family_path

    spec = builtin_family_path("mmlu")
    assert spec is not None
    doc = json.loads(spec.read_text())
    for d in doc["datasets"]:  # (the copy beside the tests: descriptors by absolute path)
        if d.get("descriptor") and "://" not in d["descriptor"]:
            d["descriptor"] = str((spec.parent / d["descriptor"]).resolve())
    snap = "mmlu-pro@2025-10-01"
    doc["datasets"] = [d for d in doc["datasets"] if d["name"] != snap]
    doc["derivations"] = [d for d in doc["derivations"] if snap not in (d["child"], d["parent"])]
    minus = tmp_path / "minus.json"
    minus.write_text(json.dumps(doc))
    out = tmp_path / "out"
    write_lineage(minus, out, data_dir=shared_data)
    got = write_lineage("mmlu", out, data_dir=shared_data, update=True)
    assert got.update == f"linked: {snap} <- mmlu-pro@2025-08-03"
    x, y = Lineage.read(out), Lineage.read(mmlu_lineage_dir)
    for name in ("items", "edges", "duplicates", "unmatched"):
        assert getattr(x, name).equals(getattr(y, name)), name
    assert x.summary == y.summary and x.family == y.family
