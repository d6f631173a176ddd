"""The local data files a descriptor distributes: present (``CLV701``) and inside its folder (``CLV702``).

mlcroissant validates a descriptor without looking at its files, and when it reads records
a local FileSet whose glob matches nothing yields no record at all, without an error (a
local FileObject that is missing fails only then). A descriptor committed without its data
therefore passes mlcroissant's validation: ``CLV701`` is the error CI needs.

A FileObject is local when its ``contentUrl`` has no URL scheme (or is a ``file://`` URL)
and it is not ``containedIn`` another resource; a FileSet is local when it is not
``containedIn`` another resource (its ``includes`` globs then apply to the descriptor's
folder, as mlcroissant applies them). Resources inside an archive or a repository are not
checked: the archive is. Paths resolve against the descriptor's folder, or against the data
folder for a descriptor that a family spec says resolves there
(``files_relative_to_data_dir``). A descriptor anywhere else, an enriched copy of a family's
descriptor included, resolves against its own folder, as a loader reads it: a copy that
``enrich`` wrote apart from its data is ``CLV701``, whatever ``--family`` says. A path that
resolves outside that folder is ``CLV702`` (a warning: the descriptor cannot be moved with
its data, and loaders differ on it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from croissant_lineage.croissant.descriptor import as_list, match_files
from croissant_lineage.croissant.jsonld import JsonLdContext, pointer
from croissant_lineage.croissant.namespaces import MARK
from croissant_lineage.croissant.resources import local_path, resource_kind
from croissant_lineage.validate.codes import issue
from croissant_lineage.validate.detect import Target
from croissant_lineage.validate.report import Issue

__all__ = ["FileCheck", "check_files", "file_checks", "local_path"]

@dataclass(frozen=True)
class FileCheck:
    """How one descriptor's local files are checked.

    Attributes:
        base: The folder its paths resolve against (None: the data folder of a shipped
            family, not given; those resources are not checked).
        exists: Check that each local resource matches a file (False: metadata only).
        own: The folder of the files this library wrote beside an enriched descriptor
            (resources marked ``"@index": "croissant-lineage"``); default ``base``.
    """

    base: Path | None
    exists: bool = True
    own: Path | None = None

    def for_node(self, node: dict[str, Any]) -> FileCheck:
        """The check of one resource: the lineage files enrich wrote resolve beside the descriptor."""
        if self.own is not None and node.get("@index") == MARK:
            return FileCheck(self.own, self.exists)
        return self




def _outside(base: Path, rel: str) -> bool:
    """True when ``rel`` leaves ``base``: absolute or ``..``-escaping by its spelling (decided
    without touching the file system), or through a symbolic link inside ``base``."""
    if os.path.isabs(rel) or os.path.normpath(rel).split(os.sep)[0] == "..":
        return True
    root = base.resolve()
    try:
        target = (Path(rel) if os.path.isabs(rel) else root / rel).resolve()
    except (OSError, ValueError):  # a NUL byte, a loop of symlinks: not a path we can place
        return False
    return target != root and root not in target.parents


def _exists(base: Path, rel: str) -> bool:
    try:
        return (Path(rel) if os.path.isabs(rel) else base / rel).exists()
    except (OSError, ValueError):
        return False


def _glob_start(pattern: str) -> str:
    """The literal folder a glob starts in (``"."`` for the folder itself)."""
    literal = re.split(r"[*?\[]", pattern, maxsplit=1)[0]
    if "/" not in literal:
        return "/" if pattern.startswith("/") else "."
    return literal.rsplit("/", 1)[0] or "/"


def _at(n: int) -> list[Any]:
    """The JSON path of distribution node ``n`` (-1: the only node, not in a list)."""
    return ["distribution"] if n < 0 else ["distribution", n]


def _label(node: dict[str, Any], n: int) -> str:
    name = node.get("@id") or node.get("name")
    return repr(name) if isinstance(name, str) else f"#{max(n, 0)}"


def _file_object(node: dict[str, Any], n: int, where: str, base: Path, exists: bool) -> Iterable[Issue]:
    url = node.get("contentUrl")
    rel = local_path(url) if isinstance(url, str) and url.strip() else None
    if rel is None:
        return
    at = f"{where}#{pointer([*_at(n), 'contentUrl'])}"
    if _outside(base, rel):  # never stat'ed: nothing outside the descriptor's folder is looked at
        yield issue("CLV702", f"FileObject {_label(node, n)}: contentUrl {url!r} resolves outside {base}", at)
    elif exists and not _exists(base, rel):
        yield issue("CLV701", f"FileObject {_label(node, n)}: {url!r} is not in {base}", at)


def _file_set(node: dict[str, Any], n: int, where: str, base: Path, exists: bool) -> Iterable[Issue]:
    """A FileSet that matches no file, or would take the lineage files enrich wrote for its
    data (``includes: "*.parquet"`` in an output folder), is ``CLV701``; so is a glob that starts
    outside the folder when files must exist (mlcroissant lists only the descriptor's folder, so
    it loads no record from it), besides its ``CLV702``."""
    patterns = [p for p in as_list(node.get("includes")) if isinstance(p, str) and p.strip()]
    if not patterns:
        return
    at = f"{where}#{pointer([*_at(n), 'includes'])}"
    matched = False
    for pattern in patterns:
        if _outside(base, _glob_start(pattern)):  # never listed: a glob is walked only inside base
            yield issue("CLV702", f"FileSet {_label(node, n)}: includes {pattern!r} starts outside {base}", at)
            if exists:  # mlcroissant matches includes only under the descriptor's folder: it loads nothing
                yield issue("CLV701", f"FileSet {_label(node, n)}: includes {pattern!r} starts outside {base}, "
                            "where mlcroissant matches no file", at)
            matched = True  # said above; CLV701 for the other globs would need a walk outside
        elif exists and not matched:
            try:
                found = match_files(base, pattern)
                matched = bool(found) and not _reads_lineage_files(base, found)
            except (OSError, ValueError):
                matched = False
    if exists and not matched:
        globs = ", ".join(repr(p) for p in patterns)
        yield issue("CLV701", f"FileSet {_label(node, n)}: includes {globs} match no file in {base}", at)


def check_files(doc: dict[str, Any], where: str, check: FileCheck) -> list[Issue]:
    """Check the local FileObjects and FileSets of a descriptor's ``distribution``.

    Args:
        doc: The descriptor JSON object.
        where: The file name issues are reported against.
        check: The folder paths resolve against, and whether files must exist.

    Returns:
        ``CLV701`` (a local resource matches no file, or a FileSet takes lineage files
        for its data; only when ``exists``) and
        ``CLV702`` (a local path resolves outside ``base``), in distribution order.
    """
    ctx = JsonLdContext(doc.get("@context"))
    out: list[Issue] = []
    dist = doc.get("distribution")
    for n, node in enumerate(dist if isinstance(dist, list) else [dist]):
        n = n if isinstance(dist, list) else -1
        if not isinstance(node, dict) or node.get("containedIn") is not None:
            continue
        kind = resource_kind(node, ctx)
        here = check.for_node(node)
        if here.base is None:
            continue
        if kind == "FileObject":
            out += _file_object(node, n, where, here.base, here.exists)
        elif kind == "FileSet":
            out += _file_set(node, n, where, here.base, here.exists)
    return out


def _spec_bases(targets: list[Target], data_dir: Path | None) -> dict[Path, Path | None]:
    """Where the descriptors of the family specs in the run resolve their files, by
    descriptor path (None: the data folder, which was not given)."""
    by_path: dict[Path, Path | None] = {}
    for t in targets:
        datasets = t.doc.get("datasets") if t.kind == "family" and isinstance(t.doc, dict) else None
        for d in datasets if isinstance(datasets, list) else []:
            if not isinstance(d, dict) or not isinstance(d.get("descriptor"), str) or "\x00" in d["descriptor"]:
                continue  # a NUL byte is no path: the spec check reports it
            desc = (t.path.parent / d["descriptor"]).resolve()
            base = data_dir if d.get("files_relative_to_data_dir") else desc.parent
            by_path.setdefault(desc, base)
    return by_path


def file_checks(targets: list[Target], *, data_dir: Path | None, exists: bool) -> dict[Path, FileCheck]:
    """How the files of each descriptor of a run are checked, by its resolved path.

    A descriptor resolves its files against its own folder, unless a family spec of the
    run names it (by its path): then against ``data_dir`` for ``files_relative_to_data_dir``
    (None, not checked, when ``data_dir`` is not given). An enriched copy of a family's
    descriptor is not the descriptor the spec names: it resolves against its own folder,
    where a loader resolves it (a copy written apart from its data is ``CLV701``). The
    lineage files ``enrich`` wrote beside an enriched descriptor resolve there too.
    """
    by_path = _spec_bases(targets, data_dir)
    out: dict[Path, FileCheck] = {}
    for t in targets:
        if t.kind not in ("descriptor", "enriched-descriptor") or not isinstance(t.doc, dict):
            continue
        key = t.path.resolve()
        base = by_path.get(key, t.path.parent)
        out[key] = FileCheck(base, exists, own=t.path.parent)
    return out


def _reads_lineage_files(base: Path, found: list[str]) -> bool:
    """Would a FileSet matching ``found`` read lineage files that enrichment wrote as its data?
    Only Parquet files can be such files: the enrichment layer (and its schemas) is loaded only
    when one matched, so validating a plain descriptor loads none of it."""
    if not any(str(m).endswith((".parquet", ".pq")) for m in found):
        return False
    from croissant_lineage.enrich.places import takes_lineage_files

    return takes_lineage_files(base, found)
