"""What a link read, recorded in its lineage folder (``inputs.json``), and what changed since.

``link`` writes beside the tables one digest per dataset and per item derivation of the
spec it linked:

    datasets     name -> digest of its spec entry, its descriptor's bytes and the bytes of
                 every local file the descriptor's FileObjects and FileSets resolve to
                 (None when they cannot be read here: a Hub dataset, a file that does
                 not resolve)
    derivations  "child <- parent" -> digest of the derivation (activity, link rule,
                 languages...), in the spec's item-derivation order
    family       digest of the spec's name and language rules

:func:`plan_update` compares those of a folder with a spec's: when the spec only adds
datasets and item derivations (every recorded dataset and derivation unchanged), it names
the derivations to link and the datasets to load; otherwise it says why a full link is
needed (``link --update`` then links the whole family, with the notice ``CL-W003``).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from croissant_lineage.croissant.descriptor import read_descriptor
from croissant_lineage.errors import LineageError
from croissant_lineage.family.spec import DatasetSpec, Derivation, FamilySpec
from croissant_lineage.lineage.info import INPUTS_FILE, LinkInputs

__all__ = ["INPUTS_FILE", "UPDATE_NOTICE", "UpdatePlan", "derivation_key", "link_inputs", "plan_update", "touched_by"]

#: The notice ``link --update`` gives when it links the whole family instead.
UPDATE_NOTICE = "CL-W003"


def _digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def derivation_key(d: Derivation) -> str:
    """``child <- parent``: how a derivation is named in ``inputs.json``."""
    return f"{d.child} <- {d.parent}"


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _files(spec: DatasetSpec, data_dir: str | Path | None, allow_outside: bool) -> list[Any] | None:
    """The digests of the descriptor's bytes and of each local file it names (by its path
    relative to the descriptor's base folder), or None when they cannot be read."""
    if spec.hub_id is not None or spec.descriptor is None:
        return None
    try:
        base = Path(data_dir) if (spec.files_relative_to_data_dir and data_dir is not None) else None
        desc = read_descriptor(spec.descriptor, base_dir=base)
        out: list[Any] = [_file_digest(Path(spec.descriptor))]
        for file_id in sorted(desc.files()):
            for p in desc.local_paths(file_id, allow_outside=allow_outside):
                if not stat.S_ISREG(p.stat().st_mode):  # (a FIFO or device: never opened here; the link refuses it)
                    return None
                rel = os.path.relpath(p, desc.base_dir) if desc.base_dir is not None else p.name
                out.append((file_id, Path(rel).as_posix(), _file_digest(p)))
        return out
    except (LineageError, OSError, ValueError):
        return None


def link_inputs(spec: FamilySpec, *, data_dir: str | Path | None = None, allow_outside: bool = False) -> LinkInputs:
    """The digests of ``spec``'s datasets (with items), item derivations and family rules
    (see the module docstring): the content of ``inputs.json``."""
    datasets: dict[str, str | None] = {}
    for ds in spec.datasets.values():
        if not ds.has_items:
            continue
        files = _files(ds, data_dir, allow_outside)
        # (the spec entry without its descriptor's place: a moved checkout is the same input)
        datasets[ds.name] = None if files is None else _digest(replace(ds, descriptor=None), files)
    return LinkInputs(
        family=_digest(spec.name, sorted(spec.language_rules.items())),
        datasets=datasets,
        derivations={derivation_key(d): _digest(d) for d in spec.item_derivations()},
    )


@dataclass(frozen=True)
class UpdatePlan:
    """What an update links: ``derivations`` (new, in spec order) among ``load`` (the
    datasets new to the lineage) and the recorded datasets they touch."""

    derivations: tuple[Derivation, ...]
    load: tuple[str, ...]


def plan_update(recorded: LinkInputs | None, spec: FamilySpec, now: LinkInputs) -> UpdatePlan | str:
    """The plan of an update from ``recorded`` (a folder's ``inputs.json``) to ``spec``
    (whose inputs are ``now``), or why the whole family must be linked."""
    if recorded is None:
        return f"the lineage folder has no readable {INPUTS_FILE}"
    if recorded.family != now.family:
        return "the family's name or language rules changed"
    for name, digest in recorded.datasets.items():
        if name not in now.datasets:
            return f"dataset {name!r} was removed"
        if digest is None or now.datasets[name] != digest:
            return f"dataset {name!r} changed (its spec, descriptor or data files), or cannot be read here"
    for key, digest in recorded.derivations.items():
        if now.derivations.get(key) != digest:
            return f"derivation {key} changed or was removed"
    new = tuple(d for d in spec.item_derivations() if derivation_key(d) not in recorded.derivations)
    added = [n for n in now.datasets if n not in recorded.datasets]
    return UpdatePlan(new, tuple(added))


def touched_by(plan: UpdatePlan) -> list[str]:
    """The datasets the plan's derivations link, in first-use order."""
    return list(dict.fromkeys(n for d in plan.derivations for n in (d.parent, d.child)))
