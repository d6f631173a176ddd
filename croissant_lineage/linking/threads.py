"""Threads for independent steps of a link (loading datasets, linking derivations).

Much of a link's time is spent where Python's lock is released (Arrow's readers and
compute kernels, RapidFuzz's matrices, Parquet encoding), so two independent steps on two
threads finish sooner than one after the other. Results always come back in the order the
steps were given, so the outputs are the same with threads as without.

Each step runs in a copy of the caller's :mod:`contextvars` context: the input guard
(:func:`croissant_lineage._io.note_input`) and anything else a step reads from the context
reach the pool's threads.

``CROISSANT_LINEAGE_THREADS`` sets the number of threads (``1``: none, every step in the
calling thread, one after the other); the default is the machine's usable cores, at most
:data:`MAX_THREADS`. Derivations link on threads only in a family of at most
:data:`MAX_THREADED_ITEMS` items: above, a second derivation's working memory at once costs
more than the threads save (a million-item synthetic family's link + write peaked at
1,490 MB with its derivations on two threads, 1,467 MB on one, 1,449 MB with this bound).
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from croissant_lineage.errors import InputError

__all__ = ["ENV", "MAX_THREADED_ITEMS", "MAX_THREADS", "load_threads", "thread_count", "threaded_map"]

#: The environment variable that sets the number of threads.
ENV = "CROISSANT_LINEAGE_THREADS"

#: Threads used by default (at most): one step's memory more at a time for each.
MAX_THREADS = 2

#: Most items a family may hold for its derivations to link on threads.
MAX_THREADED_ITEMS = 250_000

T = TypeVar("T")
R = TypeVar("R")


def thread_count() -> int:
    """The threads a link may use: ``CROISSANT_LINEAGE_THREADS``, else the usable cores (at
    most :data:`MAX_THREADS`).

    Raises:
        InputError: the variable is set to something other than a whole number >= 1.
    """
    raw = os.environ.get(ENV, "").strip()
    if raw:
        try:
            n = int(raw)
        except ValueError:
            n = 0
        if n < 1:
            raise InputError(f"{ENV}={raw!r} is not a number of threads", hint="set it to 1 (no threads) or more")
        return n
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cores))


def load_threads(first_items: int, datasets: int) -> int:
    """Threads for loading the rest of a family's ``datasets`` once its first has been
    loaded alone, holding ``first_items`` items: one (no threads) when the family is
    likely larger than :data:`MAX_THREADED_ITEMS` items (the first dataset's size for every
    dataset), else :func:`thread_count`. Two large datasets read at once add one's working
    memory to the other's: a million-item synthetic family's loading alone peaked at
    1,181-1,236 MB on two threads and 994-1,041 MB on one, in the same 6 s."""
    threads = thread_count()  # (a bad CROISSANT_LINEAGE_THREADS is refused whatever the size)
    return 1 if first_items * datasets > MAX_THREADED_ITEMS else threads


def threaded_map(fn: Callable[[T], R], items: Iterable[T], *, threads: int | None = None) -> list[R]:
    """``fn`` of each item, in the items' order, computed on up to ``threads`` threads.

    Each call runs in a copy of the caller's context (taken when it is submitted); the
    calls start in the items' order. With one thread (or one item) every call runs in the
    calling thread, one after the other.

    Args:
        fn: The step.
        items: Its inputs.
        threads: Threads (default: :func:`thread_count`).

    Raises:
        Whatever ``fn`` raises, for the first item (in order) whose call raised; the calls
        not started yet are cancelled.
    """
    n = thread_count() if threads is None else threads
    todo = list(items)
    if n <= 1 or len(todo) <= 1:
        return [fn(item) for item in todo]
    with ThreadPoolExecutor(max_workers=min(n, len(todo)), thread_name_prefix="croissant-lineage") as pool:
        futures = [pool.submit(contextvars.copy_context().run, fn, item) for item in todo]
        try:
            return [f.result() for f in futures]
        finally:
            for f in futures:
                f.cancel()
