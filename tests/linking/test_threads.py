"""Threads in a link: results in order, the caller's context in every task, the same
lineage with threads as without (``CROISSANT_LINEAGE_THREADS``)."""

from __future__ import annotations

import contextvars
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from croissant_lineage._io import check_output, input_guard, note_input
from croissant_lineage.errors import InputError, OutputExistsError
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.linking.threads import (
    ENV,
    MAX_THREADED_ITEMS,
    MAX_THREADS,
    load_threads,
    thread_count,
    threaded_map,
)
from croissant_lineage.workflows import link

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"

_VAR: contextvars.ContextVar[str] = contextvars.ContextVar("test_threads_var", default="unset")


def test_results_come_in_the_items_order() -> None:
    def slow_first(i: int) -> int:
        time.sleep(0.05 if i == 0 else 0)  # the first finishes last
        return i * i

    assert threaded_map(slow_first, range(6), threads=2) == [0, 1, 4, 9, 16, 25]


def test_each_task_sees_the_callers_context() -> None:
    token = _VAR.set("caller")
    try:
        seen = threaded_map(lambda _i: (_VAR.get(), threading.current_thread().name), range(4), threads=2)
    finally:
        _VAR.reset(token)
    assert {v for v, _ in seen} == {"caller"}
    assert all(name.startswith("croissant-lineage") for _, name in seen)


def test_one_thread_runs_in_the_caller() -> None:
    here = threading.current_thread()
    assert threaded_map(lambda _i: threading.current_thread() is here, range(3), threads=1) == [True] * 3


def test_the_first_failure_in_order_is_raised() -> None:
    def fail(i: int) -> int:
        if i in (1, 3):
            time.sleep(0.05 if i == 1 else 0)  # item 3 fails first in time, item 1 first in order
            raise ValueError(str(i))
        return i

    with pytest.raises(ValueError, match=r"^1$"):
        threaded_map(fail, range(5), threads=2)


def test_inputs_read_on_threads_are_guarded(tmp_path: Path) -> None:
    files = [tmp_path / f"in{i}.txt" for i in range(3)]
    for f in files:
        f.write_text("x", encoding="utf-8")
    with input_guard():
        threaded_map(note_input, files, threads=2)
        for f in files:
            with pytest.raises(OutputExistsError) as err:
                check_output(f)
            assert err.value.code == "CL-E007"


def test_thread_count_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "1")
    assert thread_count() == 1
    monkeypatch.setenv(ENV, " 3 ")
    assert thread_count() == 3
    monkeypatch.delenv(ENV)
    assert 1 <= thread_count() <= MAX_THREADS
    for bad in ("0", "-2", "two", "1.5"):
        monkeypatch.setenv(ENV, bad)
        with pytest.raises(InputError) as err:
            thread_count()
        assert err.value.code == "CL-E001"


def _tables(lineage: Lineage) -> tuple:
    return (lineage.items, lineage.edges, lineage.duplicates, lineage.unmatched)


def _same(a: Lineage, b: Lineage) -> None:
    for x, y in zip(_tables(a), _tables(b), strict=True):
        assert x.equals(y)
    assert a.summary.to_dict() == b.summary.to_dict()


def test_toy_family_is_the_same_with_and_without_threads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV, "1")
    alone = link(TOY / "family.json")
    monkeypatch.setenv(ENV, "2")
    threaded = link(TOY / "family.json")
    _same(alone, threaded)
    alone.write(tmp_path / "a")
    threaded.write(tmp_path / "b")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        a, b = tmp_path / "a" / name, tmp_path / "b" / name
        if name.endswith(".parquet"):
            assert pq.read_table(a).equals(pq.read_table(b)), name
        else:
            assert a.read_bytes() == b.read_bytes(), name


def test_a_failing_derivation_on_a_thread_points_at_the_spec(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A link rule naming a field the records lack fails the same with threads as without."""
    import json
    import shutil

    fam = tmp_path / "toy"
    shutil.copytree(TOY, fam)
    spec = json.loads((fam / "family.json").read_text(encoding="utf-8"))
    rule = next(d["link"] for d in spec["derivations"] if d.get("link", {}).get("by") == "id")
    rule["child_field"] = "no_such_field"
    (fam / "family.json").write_text(json.dumps(spec), encoding="utf-8")
    codes = []
    for n in ("1", "2"):
        monkeypatch.setenv(ENV, n)
        with pytest.raises(Exception) as err:
            link(fam / "family.json")
        codes.append((type(err.value).__name__, getattr(err.value, "code", None), getattr(err.value, "path", None)))
    assert codes[0] == codes[1]
    assert codes[0][1] is not None and codes[0][1].startswith("CL-E")


@pytest.mark.realdata
def test_mmlu_family_is_the_same_with_and_without_threads(
    monkeypatch: pytest.MonkeyPatch, shared_data: Path
) -> None:
    monkeypatch.setenv(ENV, "1")
    alone = link("mmlu", data_dir=shared_data)
    monkeypatch.setenv(ENV, "2")
    _same(alone, link("mmlu", data_dir=shared_data))


def test_a_large_family_links_its_derivations_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above MAX_THREADED_ITEMS items the derivations link one after the other (memory), the
    same lineage either way."""
    from croissant_lineage.linking import linker

    calls: list[int] = []
    real = linker._link_threaded

    def spy(*a, **k):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(linker, "_link_threaded", spy)
    monkeypatch.setenv(ENV, "2")
    threaded = link(TOY / "family.json")
    assert calls == [1]
    monkeypatch.setattr(linker, "MAX_THREADED_ITEMS", 10)
    alone = link(TOY / "family.json")
    assert calls == [1]
    _same(alone, threaded)


def test_a_large_family_loads_its_datasets_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "2")
    assert load_threads(MAX_THREADED_ITEMS // 5, 5) == 2
    assert load_threads(MAX_THREADED_ITEMS // 5 + 1, 5) == 1
    monkeypatch.setenv(ENV, "none")
    with pytest.raises(InputError):
        load_threads(1, 1)


def test_derivations_start_costliest_first_and_come_back_in_spec_order() -> None:
    """Text matches by both sides' rows, the first index join to a parent by the parent's (a
    second shares its evidence), id joins last; ties keep spec order."""
    from types import SimpleNamespace

    import pyarrow as pa

    from croissant_lineage.linking.linker import _costliest_first

    rows = {"p": 1000, "a": 400, "b": 300, "c": 50, "d": 60, "e": 2000}
    tables = {n: pa.table({"x": [0] * k}) for n, k in rows.items()}

    def deriv(child: str, parent: str, by: str) -> SimpleNamespace:
        return SimpleNamespace(child=child, parent=parent, link=SimpleNamespace(by=by))

    derivations = [deriv("e", "p", "id"), deriv("c", "p", "index"), deriv("d", "p", "index"),
                   deriv("a", "p", "text"), deriv("b", "a", "text")]
    # costs: 500, 1000, 15, 1400, 700
    assert _costliest_first(derivations, tables) == [3, 1, 4, 0, 2]  # type: ignore[arg-type]
