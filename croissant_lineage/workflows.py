"""Entry points that start from a family (a name, a spec file or a spec) and a data folder.

They load the data, link once and hand the result on; the CLI commands call them, and a
notebook can do the same with one call.

Example:
    >>> from croissant_lineage.workflows import write_lineage
    >>> result = write_lineage("mmlu", "lineage/", data_dir="data")  # doctest: +SKIP
    >>> print(result)  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from croissant_lineage._results import Result
from croissant_lineage.family.spec import FamilySpec
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.linking.linker import link

__all__ = ["LinkResult", "write_lineage"]


@dataclass(frozen=True)
class LinkResult(Result):
    """A family linked and its lineage folder written (what ``croissant-lineage link`` does).

    Attributes:
        lineage: The linked family.
        path: The lineage folder written.
    """

    lineage: Lineage
    path: Path

    def to_dict(self) -> dict[str, Any]:
        """The lineage's summary (counts per derivation and method; ``summary.json``)."""
        return self.lineage.summary


def write_lineage(
    family: FamilySpec | str | Path,
    out: str | Path,
    *,
    data_dir: str | Path | None = None,
    allow_outside: bool = False,
    force: bool = False,
    progress: bool = False,
) -> LinkResult:
    """Link every dataset of ``family`` and write the lineage folder ``out``.

    Args:
        family: A :class:`FamilySpec`, a built-in family name (``"mmlu"``) or a spec path.
        out: The lineage folder to write (created if missing).
        data_dir: Folder the shipped descriptors' file URLs resolve against.
        allow_outside: Allow descriptor file URLs that leave their base folder.
        force: Write into a non-empty folder this library did not write.
        progress: Show progress bars.

    Returns:
        The :class:`LinkResult`: the lineage and the folder written.

    Raises:
        LineageError: any input problem; ``OutputExistsError`` when ``out`` holds other
            files and ``force`` is false.
    """
    lineage = link(family, data_dir=data_dir, progress=progress, allow_outside=allow_outside)
    return LinkResult(lineage, lineage.write(out, overwrite=force))
