"""One step run on a thread of its own while the calling thread does others (writing a
lineage folder's largest file beside its other files).

Arrow's Parquet writer encodes and compresses without Python's lock, so the items file
(most of a folder's bytes) and the edges, duplicates and index files written at once
finish sooner on two cores than one after the other; the files are the same bytes either
way. ``CROISSANT_LINEAGE_THREADS=1`` (the variable :mod:`croissant_lineage.linking.threads`
reads) runs the step first, in the calling thread, as does a table of more than
:data:`MAX_BESIDE_ROWS` rows: then two files' working memory at once is not worth it.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["ENV", "MAX_BESIDE_ROWS", "beside"]

#: The environment variable that sets a link's threads (``1``: none).
ENV = "CROISSANT_LINEAGE_THREADS"

#: Most rows for which the step runs on a thread of its own (the bound under which a
#: link's derivations link on threads, :data:`croissant_lineage.linking.threads.MAX_THREADED_ITEMS`).
MAX_BESIDE_ROWS = 250_000


def _threads_allowed() -> bool:
    """False when ``CROISSANT_LINEAGE_THREADS`` asks for one thread (or fewer)."""
    raw = os.environ.get(ENV, "").strip()
    try:
        return not raw or int(raw) > 1
    except ValueError:
        return True  # (the link refuses it with its code; a write keeps the default)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@contextmanager
def beside(step: Callable[[], object], rows: int) -> Iterator[None]:
    """Run ``step`` on a thread of its own (in a copy of the caller's context: the input
    guard reaches it) during the ``with`` block, and wait for it at the block's end; its
    exception, if any, is raised there. With one thread allowed, or more than
    :data:`MAX_BESIDE_ROWS` ``rows``, ``step`` runs first, in the calling thread."""
    if rows > MAX_BESIDE_ROWS or not _threads_allowed() or _cores() < 2:
        step()
        yield
        return
    failed: list[BaseException] = []
    context = contextvars.copy_context()

    def run() -> None:
        try:
            context.run(step)
        except BaseException as exc:
            failed.append(exc)

    worker = threading.Thread(target=run, name="croissant-lineage-write", daemon=True)
    worker.start()
    try:
        yield
    finally:
        worker.join()  # (also when the block failed: the folder it writes into is then removed)
    if failed:
        raise failed[0]
