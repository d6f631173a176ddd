"""The golden comparison reads content: what a library version changes in the bytes is not a change."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tests.golden import content


def _table(n: int) -> pa.Table:
    return pa.table({
        "ref": [f"toy:{i}" for i in range(n)],
        "score": [float(i) / 3 for i in range(n)],
        "options": [[f"o{i}", None] for i in range(n)],
        "blob": [bytes([i % 256]) for i in range(n)],
    })


def test_a_parquet_table_written_two_ways_has_one_content(tmp_path: Path) -> None:
    table = _table(700)
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    pq.write_table(table, a, compression="zstd", row_group_size=100)
    pq.write_table(table, b, compression="snappy", use_dictionary=False, write_statistics=False)
    assert a.read_bytes() != b.read_bytes()
    assert content.digest(content.file_lines(a)) == content.digest(content.file_lines(b))


def test_a_changed_row_is_named_with_the_new_rows_there(tmp_path: Path) -> None:
    table = _table(700)
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    recorded = content.digest(content.file_lines(path))
    scores = table.column("score").to_pylist()
    scores[600] = 9.5
    changed = table.set_column(1, "score", pa.array(scores))
    pq.write_table(changed, path)
    message = content.compare("t.parquet", recorded, content.file_lines(path))
    assert message is not None
    # 1 schema line + rows: row 600 is line 602, in the third chunk (lines 513-768)
    assert f"lines {2 * content.CHUNK + 1}-{3 * content.CHUNK}" in message
    assert '"ref":"toy:511"' in message  # the first new line of that chunk is row 511


def test_a_schema_change_is_a_change(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"n": pa.array([1, 2], pa.int64())}), path)
    recorded = content.digest(content.file_lines(path))
    pq.write_table(pa.table({"n": pa.array([1, 2], pa.int32())}), path)
    assert content.compare("t.parquet", recorded, content.file_lines(path)) is not None


def test_json_is_compared_by_its_leaves_not_its_spelling(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"b": [1, {"c": None}], "a": "x"}, indent=2))
    b.write_text(json.dumps({"a": "x", "b": [1, {"c": None}]}, separators=(",", ":")))
    assert content.file_lines(a) == content.file_lines(b) == ['$.a\t"x"', "$.b[0]\t1", "$.b[1].c\tnull"]
    b.write_text(json.dumps({"a": "x", "b": [{"c": None}, 1]}))
    assert content.file_lines(a) != content.file_lines(b)


def test_svg_structure_and_texts_not_coordinates(tmp_path: Path) -> None:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg"><metadata>matplotlib v{v}</metadata>'
        '<g id="a"><path d="M {x} 0 L 1 1"/><text x="{x}">toy-pro:105</text></g></svg>'
    )
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    a.write_text(svg.format(v="3.9", x="1.5"))
    b.write_text(svg.format(v="3.10", x="1.50001"))
    assert content.file_lines(a) == content.file_lines(b)
    b.write_text(svg.format(v="3.10", x="1.5").replace("toy-pro:105", "toy-pro:106"))
    assert content.file_lines(a) != content.file_lines(b)


def test_a_file_missing_or_new_is_reported(tmp_path: Path) -> None:
    (tmp_path / "new.txt").write_text("x\n")
    problems = content.compare_trees({"old.txt": content.digest(["x"])}, tmp_path)
    assert problems == ["new.txt: written now, not recorded", "old.txt: recorded, not written now"]
