"""The official MLCommons Croissant examples (1.0 and 1.1) in the data folder: every one that
mlcroissant accepts passes ``validate`` by default; the PROV-O usage of the 1.1 examples is a
warning (an error with ``strict``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from croissant_lineage.validate import validate
from tests.mlc_compare import quiet_mlcroissant

mlc = pytest.importorskip("mlcroissant")

pytestmark = pytest.mark.realdata


def _examples(shared_data: Path) -> list[Path]:
    return sorted((shared_data / "croissant-examples").glob("*/*/metadata.json"))


def _mlcroissant_accepts(path: Path) -> bool:
    """mlcroissant loads the descriptor and reports no error (as ``mlcroissant validate``)."""
    with quiet_mlcroissant():
        try:
            mlc.Dataset(jsonld=path)
        except mlc.ValidationError:
            return False
    return True


def _local_data_present(path: Path) -> bool:
    """Every local FileObject and FileSet of the descriptor has its file(s) beside it.

    Written independently of :mod:`croissant_lineage.validate.files` (pathlib globs; the
    examples' globs are simple). Without them mlcroissant cannot read the records either:
    a missing FileObject fails, a FileSet matching nothing yields no record.
    """
    doc = json.loads(path.read_text("utf-8"))
    for node in doc.get("distribution", []):
        if node.get("containedIn"):
            continue
        url = node.get("contentUrl")
        remote = not isinstance(url, str) or re.match(r"^[a-z][a-z0-9+.-]*:", url)
        if not remote and not (path.parent / url).exists():
            return False
        includes = node.get("includes")
        for pattern in [includes] if isinstance(includes, str) else includes or []:
            if not any(path.parent.glob(pattern)):
                return False
    return True


def test_every_example_mlcroissant_accepts_passes_validate(shared_data: Path) -> None:
    examples = _examples(shared_data)
    assert len(examples) == 30
    accepted = [p for p in examples if _mlcroissant_accepts(p)]
    assert len(accepted) == 30  # as measured with mlcroissant 1.1.1
    without_data = []
    for path in accepted:
        name = path.parent.relative_to(shared_data / "croissant-examples").as_posix()
        if _local_data_present(path):
            report = validate(path)
            assert report.valid, f"{name}: {report.errors}"
        else:
            # The copy here lacks its data/ folder (upstream has it): only CLV701 fails, and
            # a metadata-only check passes.
            without_data.append(name)
            assert {i.code for i in validate(path).errors} == {"CLV701"}, name
            assert validate(path, metadata_only=True).valid, name
    assert sorted(without_data) == ["1.0/audio_test", "1.0/coco2014-mini", "1.0/wiki-text"]


def test_example_prov_usage_is_a_warning_and_an_error_with_strict(shared_data: Path) -> None:
    root = shared_data / "croissant-examples" / "1.1"
    squad = validate(root / "huggingface-squad_v2" / "metadata.json")
    assert squad.valid
    assert sorted(i.message.split("'")[1] for i in squad.issues if i.code == "CLV207") == [
        "prov:isAssociatedWith", "prov:isAssociatedWith", "prov:locatedAt", "prov:locatedAt", "prov:locatedAt"]
    dpi = validate(root / "huggingface-data_provenance_initiative" / "metadata.json")
    assert dpi.valid and [i.code for i in dpi.issues if i.code.startswith("CLV20")] == ["CLV208"] * 3
    for path in (root / "huggingface-squad_v2" / "metadata.json",
                 root / "huggingface-data_provenance_initiative" / "metadata.json"):
        strict = validate(path, strict=True, select=["CLV207", "CLV208"])
        assert not strict.valid and strict.codes() <= {"CLV207", "CLV208"}


def test_every_example_has_no_error_and_no_noise_warning(shared_data: Path) -> None:
    """No error on any official example (its data checked where the copy has it), and no
    warning that fires on every example: a warning there is one a maintainer acts on."""
    examples = _examples(shared_data)
    codes_per_example = []
    for path in examples:
        report = validate(path, metadata_only=not _local_data_present(path))
        assert report.valid and not report.errors, (path, report.errors)
        codes_per_example.append({i.code for i in report.issues})
    assert not [c for c in codes_per_example if "CLV106" in c]  # unused standard terms: not reported
    everywhere = set.intersection(*codes_per_example)
    assert everywhere == set()


def test_example_with_associated_agent_on_the_dataset_is_valid(shared_data: Path, tmp_path: Path) -> None:
    """huggingface-squad_v2 written with the PROV-O names (prov:wasAssociatedWith,
    prov:atLocation), as a later copy of the example has them: the agent sits on the dataset
    node beside its activities (outside PROV-O's domain: CLV204), and relations to plain strings
    (outside their range: CLV205): warnings, no error."""
    source = shared_data / "croissant-examples" / "1.1" / "huggingface-squad_v2" / "metadata.json"
    text = source.read_text("utf-8").replace("prov:isAssociatedWith", "prov:wasAssociatedWith")
    path = tmp_path / "metadata.json"
    path.write_text(text.replace("prov:locatedAt", "prov:atLocation"), "utf-8")
    report = validate(path, metadata_only=True)
    assert report.valid
    assert "CLV207" not in report.codes()
    hits = [i for i in report.issues if i.code == "CLV204"]
    assert hits and all(i.severity == "warning" for i in report.issues)
    assert {"CLV204", "CLV205"} <= report.codes()
    assert "#/prov:wasAssociatedWith" in {i.where[len(str(path)):] for i in hits}
