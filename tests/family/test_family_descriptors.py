"""The shipped MMLU descriptors: reproducible from the data, valid for mlcroissant, readable.

Each descriptor in ``croissant_lineage/family/families/mmlu/descriptors/`` is made by
``describe(data_dir / folder, DescribeOptions(**options, relative_to=data_dir))`` from
``families/mmlu/describe.json``. Regenerating must give the shipped bytes.

mlcroissant resolves file globs against the descriptor's own folder, so each descriptor
is checked from a copy at the root of a mirror of the data folder (real folders, the
data files symlinked; mlcroissant does not follow folder symlinks).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pandas
import pytest

from croissant_lineage._io import dumps_json
from croissant_lineage.croissant.describe import DescribeOptions, describe
from croissant_lineage.croissant.descriptor import Descriptor, read_descriptor
from croissant_lineage.croissant.records import read_record_set
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from tests.mlc_compare import mlc_rows, open_dataset, our_rows, root_cause

pytestmark = pytest.mark.realdata

FAMILY_DIR = Path(str(resources.files("croissant_lineage.family").joinpath("families/mmlu")))
RECIPES = {
    k: v
    for k, v in json.loads((FAMILY_DIR / "describe.json").read_text(encoding="utf-8")).items()
    if not k.startswith("//")
}
#: A RecordSet with at most this many rows is read in full by mlcroissant; bigger ones
#: are compared on their first HEAD records only (mlcroissant's pandas reader is slow).
SMALL = 1_000
HEAD = 50

#: What mlcroissant 1.1.1 cannot read in the shipped descriptors, and why (root cause).
MLC_CANNOT_READ = {
    # headerless CSV (cl:csvColumns): the first data row is taken as the header
    "mmlu-2020": AssertionError,
    # 9 files use ';' (pandas reads ',' only): anatomy.csv, the first, fails to tokenize
    # (and moral_scenarios.csv's Mac Roman byte would raise UnicodeDecodeError)
    "mmlu-redux": pandas.errors.ParserError,
    # Arrow IPC (datasets.save_to_disk) is not a format mlcroissant reads
    "mmlu-redux-2.0": ValueError,
    "mmlu-prox-lite-en": ValueError,
}

#: The only validation warnings allowed on the shipped descriptors: recommended
#: dataset-level properties the sources do not state.
ALLOWED_WARNINGS = ("citeAs", "datePublished", "version")


def test_every_shipped_descriptor_has_a_recipe() -> None:
    shipped = sorted(p.stem for p in (FAMILY_DIR / "descriptors").glob("*.json"))
    assert shipped == sorted(RECIPES)
    family = load_family("mmlu")
    used = {Path(d.descriptor).stem for d in family.datasets.values() if d.descriptor is not None}
    assert used == set(RECIPES)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_regenerates_byte_identical(shared_data: Path, name: str) -> None:
    recipe = dict(RECIPES[name])
    folder = recipe.pop("folder")
    doc = describe(shared_data / folder, DescribeOptions(**recipe, relative_to=shared_data))
    shipped = (FAMILY_DIR / "descriptors" / f"{name}.json").read_text(encoding="utf-8")
    assert dumps_json(doc) == shipped, f"regenerate {name}.json (see describe.json)"


@dataclass(frozen=True)
class Mirror:
    root: Path
    data: Path


@pytest.fixture(scope="module")
def mirror(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Mirror:
    """tmp/{descriptor}.json for every shipped descriptor, beside symlinks to its files."""
    root = tmp_path_factory.mktemp("mlc-root")
    for name in RECIPES:
        src = FAMILY_DIR / "descriptors" / f"{name}.json"
        desc = read_descriptor(src, base_dir=shared_data)
        for file_id in desc.files():
            for path in desc.local_paths(file_id):
                rel = os.path.relpath(path, shared_data)
                link = root / rel
                link.parent.mkdir(parents=True, exist_ok=True)
                if not link.exists():
                    os.symlink(Path(path).resolve(), link)
        (root / f"{name}.json").write_bytes(src.read_bytes())
    return Mirror(root, shared_data)


def _dataset(mirror: Mirror, name: str) -> tuple[Any, Descriptor]:
    ds = open_dataset(mirror.root / f"{name}.json")
    desc = read_descriptor(FAMILY_DIR / "descriptors" / f"{name}.json", base_dir=mirror.data)
    return ds, desc


def _item_count(data_dir: Path, name: str, record_set: str) -> int | None:
    """Rows ``load_items`` gives for the dataset read from (descriptor, RecordSet), if any
    such dataset has no row filter."""
    for spec in load_family("mmlu").datasets.values():
        if spec.descriptor is None or Path(spec.descriptor).stem != name:
            continue
        if spec.record_set in (None, record_set) and not spec.where:
            return int(load_items(spec, data_dir=data_dir).num_rows)
    return None


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_mlcroissant_validates_with_no_error(mirror: Mirror, name: str) -> None:
    ds, _ = _dataset(mirror, name)
    issues = ds.metadata.ctx.issues
    assert issues.errors == set()
    for warning in issues.warnings:
        assert "is recommended, but does not exist" in warning, warning
        assert any(f"/{prop}\"" in warning for prop in ALLOWED_WARNINGS), warning


@pytest.mark.parametrize("name", sorted(n for n in RECIPES if n not in MLC_CANNOT_READ))
def test_mlcroissant_reads_the_same_records(mirror: Mirror, name: str) -> None:
    ds, desc = _dataset(mirror, name)
    data_sets = [rs.id for rs in desc.record_sets().values() if "data" not in rs.node]
    for rs in data_sets:
        n = read_record_set(desc, rs).num_rows
        if n <= SMALL:
            theirs = mlc_rows(ds, desc, rs)
            assert len(theirs) == n == _item_count(mirror.data, name, rs)
            assert theirs == our_rows(desc, rs)
        else:
            assert mlc_rows(ds, desc, rs, limit=HEAD) == our_rows(desc, rs, limit=HEAD)


@pytest.mark.parametrize("name", sorted(MLC_CANNOT_READ))
def test_what_mlcroissant_cannot_read(mirror: Mirror, name: str) -> None:
    ds, desc = _dataset(mirror, name)
    (rs,) = [r.id for r in desc.record_sets().values() if "data" not in r.node]
    assert our_rows(desc, rs, limit=1)  # we can
    with pytest.raises(Exception) as info:
        mlc_rows(ds, desc, rs)
    assert type(info.value).__name__ == "GenerationError"
    assert isinstance(root_cause(info.value), MLC_CANNOT_READ[name])
