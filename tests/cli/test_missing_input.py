"""A missing input is a coded error before any work, in every command: exit 2, one line
naming CL-E001, and nothing written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from croissant_lineage.cli import main
from croissant_lineage.errors import InputError

TOY = "toy"

#: One invocation per command (and ``findings`` subcommand), each naming ``{missing}`` as an
#: input and ``{out}`` as its output where it writes one.
CASES = {
    "apply": ["apply", "--lineage", "{missing}", "--findings", "{missing}", "--dataset", "d", "--out", "{out}"],
    "describe": ["describe", "{missing}", "--out", "{out}"],
    "discover": ["discover", "{missing}", "--against", TOY, "--out", "{out}"],
    "discover --data-dir": ["discover", "--family", TOY, "--data-dir", "{missing}", "--out", "{out}"],
    "enrich": ["enrich", "{missing}", "--lineage", "{missing}", "--out", "{out}"],
    "family": ["family", "a:b", "--lineage", "{missing}"],
    "findings list": ["findings", "list", "{missing}"],
    "history": ["history", "--family", TOY, "--lineage", "{missing}"],
    "link": ["link", TOY, "--data-dir", "{missing}", "--out", "{out}"],
    "prov": ["prov", "--lineage", "{missing}", "--out", "{out}"],
    "publish": ["publish", "{missing}", "--lineage", "{missing}", "--repo-id", "org/name", "--dry-run", "--out", "{out}"],
    "relatives": ["relatives", "a:b", "--lineage", "{missing}"],
    "report": ["report", "--lineage", "{missing}", "--findings", "{missing}"],
    "resolve": ["resolve", "a:b", "{missing}"],
    "route": ["route", "a:b", "--lineage", "{missing}"],
    "translations": ["translations", "--family", TOY, "--lineage", "{missing}"],
    "validate": ["validate", "{missing}"],
    "witnesses": ["witnesses", "--archives", "{missing}", "--data-dir", "{missing}", "--dataset", "toy-pro"],
}


def test_every_command_has_a_case() -> None:
    from croissant_lineage.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(sub.choices) <= {c.split()[0] for c in CASES}


@pytest.mark.parametrize("case", sorted(CASES))
def test_missing_input_is_a_coded_error_and_nothing_is_written(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = [a.format(missing=str(tmp_path / "no-such-input"), out=str(tmp_path / "out")) for a in CASES[case]]
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse refused the arguments themselves
        pytest.fail(f"{case}: arguments refused ({exc.code}): fix the case")
    err = capsys.readouterr().err.strip()
    assert status == 2, (case, err)
    assert "CL-E001" in err and len(err.splitlines()) == 1, err
    assert os.listdir(tmp_path) == [], case


def test_discover_in_python_refuses_a_missing_descriptor(tmp_path: Path) -> None:
    from croissant_lineage.discovery.propose import discover

    with pytest.raises(InputError) as info:
        discover([tmp_path / "missing.json"], [TOY], out=tmp_path / "found")
    assert info.value.code == "CL-E001"
    assert not (tmp_path / "found").exists()
