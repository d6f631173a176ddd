"""The one rule for replacing an output: absent, written by this library before, or ``force``.

Every command that writes a file asks :func:`replaceable` first. An existing file is
replaced when this library wrote it (recognised by the mark its format carries: a
descriptor's ``cl:generatedBy``, the comment heading a PROV file or an SVG, a findings
file's ``$schema`` in this library's own layout; or, for formats that carry no mark
(CSV, JSON Lines, Parquet tables), an entry in the output folder's manifest
:data:`OUTPUT_MANIFEST` with the file's sha256); anything else only with ``force``. An
input of the running command, a dataset's file or a non-regular file is never replaced
(:func:`croissant_lineage._io.check_output`), whatever ``force`` says.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from croissant_lineage._io.atomic import atomic_write_text, dumps_json
from croissant_lineage._io.guard import check_output, probing_outputs
from croissant_lineage.errors import OutputExistsError

__all__ = ["OUTPUT_MANIFEST", "mark_written", "replaceable", "written_here"]

#: The manifest, in an output's folder, of the files there that this library wrote and
#: whose format carries no mark of its own: ``{"generator", "outputs": {name: sha256}}``.
OUTPUT_MANIFEST = ".croissant-lineage-outputs.json"

_GENERATOR = "croissant-lineage"
#: A manifest larger than this is not ours (1 MiB holds thousands of entries).
_MAX_MANIFEST_BYTES = 1024 * 1024


def _sha256(path: Path) -> str | None:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def _manifest(folder: Path) -> dict[str, str]:
    path = folder / OUTPUT_MANIFEST
    try:
        if not path.is_file() or path.stat().st_size > _MAX_MANIFEST_BYTES:
            return {}
        doc = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("generator") != _GENERATOR or not isinstance(doc.get("outputs"), dict):
        return {}
    return {k: v for k, v in doc["outputs"].items() if isinstance(k, str) and isinstance(v, str)}


def written_here(path: str | Path) -> bool:
    """True when the output folder's manifest lists ``path`` with its current sha256."""
    p = Path(path)
    with probing_outputs():
        want = _manifest(p.parent).get(p.name)
        return want is not None and want == _sha256(p)


def mark_written(path: str | Path) -> None:
    """Record in the output folder's manifest that this library just wrote ``path``."""
    p = Path(path)
    outputs = _manifest(p.parent)
    digest = _sha256(p)
    if digest is None:
        return
    outputs[p.name] = digest
    atomic_write_text(p.parent / OUTPUT_MANIFEST,
                      dumps_json({"generator": _GENERATOR, "outputs": dict(sorted(outputs.items()))}))


def replaceable(path: str | Path, *, force: bool = False, ours: Callable[[Path], bool] | None = None) -> bool:
    """Check that an output file may be written: absent, written by this library, or ``force``.

    Args:
        path: The output file.
        force: Replace a file this library did not write (never an input, a dataset's
            file or a non-regular file).
        ours: Whether an existing file carries this library's mark (its format's own);
            a file the output folder's manifest lists with its sha256 is ours too.

    Returns:
        True when ``path`` exists and will be replaced, False when it does not exist.

    Raises:
        OutputExistsError: ``path`` is a folder, an input of the running command, a
            dataset's file or not a regular file; or a file this library did not write
            and ``force`` is false.
    """
    p = Path(path)
    if p.is_dir():
        raise OutputExistsError("is a folder", path=p, hint="give a file path for the output")
    check_output(p)
    if not p.exists():
        return False
    if force:
        return True
    with probing_outputs():  # reading an output to see whether it is ours: not an input
        mine = (ours is not None and ours(p)) or written_here(p)
    if not mine:
        raise OutputExistsError(
            "exists and was not written by croissant-lineage; not replacing it",
            path=p,
            hint="choose another output path, or pass --force (force=True) to replace it",
        )
    return True
