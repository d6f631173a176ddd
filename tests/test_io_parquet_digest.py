"""The digest ``atomic_write_parquet_groups`` returns is the sha256 of the file it wrote."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from croissant_lineage._io import formats


@pytest.mark.parametrize("gather", [1, 1 << 10, 1 << 20])
def test_digest_is_the_files_and_the_rows_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gather: int) -> None:
    monkeypatch.setattr(formats, "_WRITE_BYTES", gather)
    table = pa.table({"a": [f"text {i}" * (i % 7) for i in range(5000)], "b": list(range(5000))})
    groups = [table.slice(s, 1000) for s in range(0, 5000, 1000)]
    digest = formats.atomic_write_parquet_groups(tmp_path / "t.parquet", table.schema, groups, dictionary=["b"])
    data = (tmp_path / "t.parquet").read_bytes()
    assert digest == hashlib.sha256(data).hexdigest()
    assert pq.read_table(tmp_path / "t.parquet").equals(table)
    assert pq.ParquetFile(tmp_path / "t.parquet").metadata.num_row_groups == 5
