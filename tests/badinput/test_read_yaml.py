"""findings YAML is read with libyaml's C loader, under a size cap."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from croissant_lineage import _io
from croissant_lineage.cli import main
from croissant_lineage.errors import LineageError
from croissant_lineage.findings import files
from croissant_lineage.findings.files import load_findings

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy" / "findings.yaml"


def test_the_c_loader_is_used_where_pyyaml_has_it() -> None:
    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML built without libyaml")
    assert _io._YAML_LOADER is _io._CSafeLoader


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, "{a: " * 50_000 + "1" + "}" * 50_000])
def test_a_100000_deep_yaml_is_one_coded_line_not_a_crash(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """yaml.CSafeLoader composes in C without a recursion check: this input crashed the process."""
    path = tmp_path / "findings.yaml"
    path.write_text(text)
    assert main(["findings", "list", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "CL-E001" in err


def test_c_and_python_loaders_read_the_same_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = load_findings(TOY)
    monkeypatch.setattr(_io.reads, "_YAML_LOADER", yaml.SafeLoader)
    assert load_findings(TOY) == fast


def test_a_findings_yaml_over_the_cap_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "findings.yaml"
    big.write_bytes(TOY.read_bytes())
    monkeypatch.setattr(files, "MAX_YAML_BYTES", big.stat().st_size - 1)
    read: list[Path] = []
    monkeypatch.setattr(files, "read_text", lambda p: read.append(p) or ("", "utf-8"))
    with pytest.raises(LineageError) as info:
        load_findings(big)
    assert info.value.code == "CL-E008" and read == []
    assert main(["findings", "list", str(big)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "CL-E008" in err
    monkeypatch.undo()
    monkeypatch.setattr(files, "MAX_YAML_BYTES", big.stat().st_size)
    assert load_findings(big)  # at the cap: read


def test_yaml_text_over_the_character_cap_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_io.reads, "MAX_YAML_CHARS", 10)
    with pytest.raises(_io.YAMLLimitError):
        _io.load_yaml("a: 1\nb: 2\nc: 3\n")
    assert _io.load_yaml("a: 1") == {"a": 1}
