"""The Arrow pool's peak growth of a statement, measured in a fresh interpreter (so that
the peak is the statement's, not an earlier test's)."""

from __future__ import annotations

import subprocess
import sys


def pool_peak(setup: str, statement: str) -> int:
    """Bytes the default pool's peak grew by while ``statement`` ran (after ``setup``)."""
    code = (
        f"import pyarrow as pa\n{setup}\n"
        "pool = pa.default_memory_pool(); before = pool.max_memory()\n"
        f"{statement}\n"
        "print(pool.max_memory() - before)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout)
