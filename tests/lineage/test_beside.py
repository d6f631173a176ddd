"""A lineage folder's items file written beside its other files: same bytes with threads
or without, the step's failure raised in the caller, the caller's context in the step."""

from __future__ import annotations

import contextvars
import threading
from pathlib import Path

import pytest

from croissant_lineage.lineage import beside as beside_module
from croissant_lineage.lineage.beside import beside
from croissant_lineage.workflows import link

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy" / "family.json"
_MARK: contextvars.ContextVar[str] = contextvars.ContextVar("mark", default="unset")


def test_the_step_runs_on_its_own_thread_in_the_callers_context(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(beside_module.ENV, raising=False)
    monkeypatch.setattr(beside_module, "_cores", lambda: 2)
    seen: list[tuple[str, bool]] = []
    _MARK.set("caller")
    with beside(lambda: seen.append((_MARK.get(), threading.current_thread() is threading.main_thread())), 10):
        pass
    assert seen == [("caller", False)]


@pytest.mark.parametrize(("env", "rows"), [("1", 10), ("", beside_module.MAX_BESIDE_ROWS + 1)], ids=["one thread", "large"])
def test_one_thread_or_a_large_table_runs_the_step_first(monkeypatch: pytest.MonkeyPatch, env: str, rows: int) -> None:
    monkeypatch.setenv(beside_module.ENV, env)
    monkeypatch.setattr(beside_module, "_cores", lambda: 2)
    order: list[str] = []
    with beside(lambda: order.append("step"), rows):
        order.append("block")
    assert order == ["step", "block"]


def test_the_steps_failure_is_raised_after_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(beside_module.ENV, raising=False)
    monkeypatch.setattr(beside_module, "_cores", lambda: 2)
    done: list[str] = []

    def fail() -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"), beside(fail, 10):
        done.append("block")
    assert done == ["block"]


def test_written_folders_are_byte_identical_with_threads_or_without(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lineage = link(TOY)
    monkeypatch.setattr(beside_module, "_cores", lambda: 2)
    monkeypatch.setenv(beside_module.ENV, "1")
    lineage.write(tmp_path / "one", force=True)
    monkeypatch.setenv(beside_module.ENV, "2")
    lineage.write(tmp_path / "two", force=True)
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "two").iterdir()) and "items.parquet" in names
    for name in names:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name
