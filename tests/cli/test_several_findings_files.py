"""``--findings FILE...`` in enrich and prov: findings split over several files (or given with
the flag twice) write the same bytes as one file holding them all."""

from __future__ import annotations

from pathlib import Path

import pytest

from croissant_lineage.cli import main
from croissant_lineage.findings.files import load_findings, save_findings

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    folder = tmp_path_factory.mktemp("findings")
    found = list(load_findings([TOY / "findings.yaml"]))
    assert len(found) >= 2
    whole, a, b = folder / "all.json", folder / "a.json", folder / "b.json"
    save_findings(found, whole)
    save_findings(found[: len(found) // 2], a)
    save_findings(found[len(found) // 2 :], b)
    return whole, a, b


def _bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_prov_reads_every_findings_file(toy_lineage_path: Path, split: tuple[Path, Path, Path], tmp_path: Path) -> None:
    whole, a, b = split
    common = ["prov", "--lineage", str(toy_lineage_path), "--syntax", "nt", "--time", "2025-01-01T00:00:00Z", "-q"]
    assert main([*common, "--findings", str(whole), "--out", str(tmp_path / "one.nt")]) == 0
    assert main([*common, "--findings", str(a), str(b), "--out", str(tmp_path / "two.nt")]) == 0
    assert main([*common, "--findings", str(a), "--findings", str(b), "--out", str(tmp_path / "twice.nt")]) == 0
    one = (tmp_path / "one.nt").read_bytes()
    assert b"Finding" in one
    assert (tmp_path / "two.nt").read_bytes() == one == (tmp_path / "twice.nt").read_bytes()


def test_enrich_reads_every_findings_file(toy_lineage_path: Path, split: tuple[Path, Path, Path], tmp_path: Path) -> None:
    whole, a, b = split
    common = ["enrich", "--family", str(TOY / "family.json"), "--lineage", str(toy_lineage_path),
              "--time", "2025-01-01T00:00:00Z", "-q"]
    assert main([*common, "--findings", str(whole), "--out", str(tmp_path / "one")]) == 0
    assert main([*common, "--findings", str(a), str(b), "--out", str(tmp_path / "two")]) == 0
    one = _bytes(tmp_path / "one")
    assert any(name.endswith(".findings.parquet") for name in one)
    assert _bytes(tmp_path / "two") == one
