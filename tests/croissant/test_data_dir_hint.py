"""A descriptor whose files are not found says which folder was searched and what to pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from croissant_lineage.croissant.descriptor import read_descriptor
from croissant_lineage.croissant.records import read_record_set
from croissant_lineage.errors import DataError

TOY = Path(__file__).resolve().parents[2] / "examples" / "toy" / "toy-base" / "croissant.json"


@pytest.mark.parametrize("exists", [True, False])
def test_missing_data_dir_names_the_folder_and_the_option(tmp_path: Path, exists: bool) -> None:
    folder = tmp_path / "data"
    if exists:
        folder.mkdir()
    desc = read_descriptor(TOY, base_dir=folder)
    with pytest.raises(DataError) as info:
        read_record_set(desc)
    err = info.value
    assert err.code == "CL-E004"
    assert str(folder) in str(err)
    assert err.hint is not None and "--data-dir" in err.hint
    assert ("does not exist" in err.hint) is not exists


def test_found_files_need_no_hint() -> None:
    assert read_record_set(read_descriptor(TOY)).num_rows > 0
