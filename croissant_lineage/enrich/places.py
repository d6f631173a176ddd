"""Where an enriched copy goes, and whether the benchmark's own data loads from there.

A Croissant descriptor's relative ``contentUrl`` and ``includes`` resolve against the
folder the descriptor is read from. A copy written elsewhere (``enrich --out DIR``) keeps
them as they were, so it is the same bytes on every machine, and loads the lineage
RecordSets the enrichment adds (their files are beside it) but not the benchmark's own.
This module makes every other outcome explicit:

* :func:`unloadable_record_sets`: the benchmark's RecordSets whose files do not resolve
  from a folder, judged as ``mlcroissant`` 1.1.1 reads them (a FileObject's path may
  leave the folder; a FileSet's ``includes`` are matched against the files *under* the
  folder only); :func:`load_warning` turns them into one :class:`EnrichWarning`
  (``CL-W001``);
* :func:`rebase_urls`: the benchmark's relative paths rewritten to resolve from the
  copy's folder, each rewrite recorded (JSON pointer, original value) so that
  :func:`~croissant_lineage.enrich.marks.strip_enrichment` restores the original. A
  FileSet is rewritten only when its data lies under the copy's folder: mlcroissant
  1.1.1 lists the files under the descriptor's folder and matches ``includes`` against
  their paths relative to it, so a ``../`` or absolute glob matches nothing (0 records,
  no error). Such a FileSet is left as it was, and the warning names it;
* :func:`in_place_names`: the file names of a copy written beside its data
  (``enrich --in-place NAME``), checked so that the benchmark's own FileSets never take
  the added files for data.

Nodes this library added (marked, see :mod:`croissant_lineage.enrich.marks`) are never
the benchmark's own.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from croissant_lineage.croissant.descriptor import as_list, match_files
from croissant_lineage.croissant.jsonld import JsonLdContext, pointer
from croissant_lineage.croissant.namespaces import CROISSANT_NS
from croissant_lineage.croissant.resources import local_path, resource_kind
from croissant_lineage.enrich.files import WRITTEN_KINDS, is_lineage_file
from croissant_lineage.enrich.marks import is_ours
from croissant_lineage.errors import InputError
from croissant_lineage.prov.vocab import MARK

__all__ = [
    "UNLOADABLE",
    "EnrichWarning",
    "in_place_names",
    "is_any_lineage_file",
    "load_warning",
    "rebase_urls",
    "takes_lineage_files",
    "unloadable_record_sets",
]

#: The warning code of a copy whose benchmark RecordSets do not load from where it was written.
UNLOADABLE = "CL-W001"

@dataclass(frozen=True)
class EnrichWarning:
    """A coded warning about one written descriptor.

    Attributes:
        code: Stable code (``CL-W001``: its benchmark's RecordSets do not load from there).
        path: The descriptor written.
        record_sets: The RecordSets concerned, in descriptor order.
        message: What happened and the ways out, in one line.
        resources: The benchmark's FileObjects and FileSets whose files do not resolve
            from there (``@id``, else ``name``), in distribution order.
    """

    code: str
    path: str
    record_sets: list[str]
    message: str
    resources: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.code} {self.path}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "path": self.path, "record_sets": list(self.record_sets),
                "resources": list(self.resources), "message": self.message}


@dataclass(frozen=True)
class _Resource:
    """One of the benchmark's own local resources: a FileObject or a FileSet not ``containedIn``."""

    at: tuple[Any, ...]  # its JSON path in the document
    node: dict[str, Any]
    kind: str  # "FileObject" or "FileSet"

    @property
    def ident(self) -> str | None:
        value = self.node.get("@id") or self.node.get("name")
        return value if isinstance(value, str) else None

    @property
    def key(self) -> str:
        return "contentUrl" if self.kind == "FileObject" else "includes"


def _resources(doc: Mapping[str, Any]) -> Iterator[_Resource]:
    """The benchmark's own local FileObjects and FileSets, in distribution order."""
    ctx = JsonLdContext(doc.get("@context"))
    dist = doc.get("distribution")
    nodes = list(enumerate(dist)) if isinstance(dist, list) else [(None, dist)]
    for n, node in nodes:
        if not isinstance(node, dict) or is_ours(node) or node.get("containedIn") is not None:
            continue
        kind = resource_kind(node, ctx)
        if kind is not None:
            yield _Resource(("distribution",) if n is None else ("distribution", n), node, kind)


def _escapes(path: str) -> bool:
    """True when a relative path or glob leaves its folder (``..``) or is absolute."""
    return os.path.isabs(path) or ".." in PurePosixPath(path).parts


def is_any_lineage_file(path: str | Path) -> bool:
    """True for a lineage file that enrichment wrote (any kind; ``.parquet`` or ``.pq``)."""
    return Path(path).suffix in (".parquet", ".pq") and any(is_lineage_file(path, kind) for kind in WRITTEN_KINDS)


def takes_lineage_files(folder: str | Path, matched: Iterable[str]) -> bool:
    """Would a FileSet matching ``matched`` (paths under ``folder``) read lineage files as data?"""
    return any(is_any_lineage_file(Path(folder) / m) for m in matched)


def _loads(res: _Resource, folder: Path) -> bool:
    """Does ``res`` resolve from ``folder``, as mlcroissant 1.1.1 reads it? A FileSet that
    would take lineage files written there for its data does not."""
    if res.kind == "FileObject":
        url = res.node.get("contentUrl")
        rel = local_path(url) if isinstance(url, str) else None
        # lexically: the copy's folder may not exist yet (an output folder is swapped in whole)
        return rel is None or Path(os.path.normpath(os.path.join(os.path.abspath(folder), rel))).is_file()
    patterns = [p for p in as_list(res.node.get("includes")) if isinstance(p, str) and p.strip()]
    for pattern in patterns:
        if _escapes(pattern) or not folder.is_dir():
            continue  # mlcroissant matches a FileSet's globs against the files under the folder only
        try:
            matched = match_files(folder, pattern)
            if matched and not takes_lineage_files(folder, matched):
                return True
        except (OSError, ValueError, InputError):
            continue
    return not patterns


def _sources(node: Any) -> Iterator[str]:
    """Every ``@id`` a RecordSet's fields take their values from (fileObject, fileSet, field)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("fileObject", "fileSet", "field", f"{CROISSANT_NS}fileObject", f"{CROISSANT_NS}fileSet") \
                    and isinstance(value, dict) and isinstance(value.get("@id"), str):
                yield value["@id"]
            elif key != "field" or not isinstance(value, dict):
                yield from _sources(value)
    elif isinstance(node, list):
        for v in node:
            yield from _sources(v)


def _record_sets(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    rs = doc.get("recordSet")
    return [n for n in (rs if isinstance(rs, list) else [rs]) if isinstance(n, dict) and not is_ours(n)]


def _unloadable(doc: Mapping[str, Any], folder: Path) -> tuple[list[str], list[str]]:
    """The benchmark's RecordSets that do not load from ``folder``, and its own resources
    (FileObjects, FileSets) that do not resolve there, each in descriptor order."""
    own = [r.ident for r in _resources(doc) if r.ident and not _loads(r, folder)]
    failing = set(own)
    dist = doc.get("distribution")
    inner = [n for n in (dist if isinstance(dist, list) else [dist]) if isinstance(n, dict)]
    changed = True
    sets = _record_sets(doc)
    while changed:  # resources inside failing ones, RecordSets reading failing ones
        changed = False
        for n in inner:
            ident = n.get("@id") or n.get("name")
            if isinstance(ident, str) and ident not in failing and set(_sources({"c": n.get("containedIn")})) & failing:
                failing.add(ident)
                changed = True
        for rs in sets:
            ident = rs.get("@id") or rs.get("name")
            if not isinstance(ident, str) or ident in failing:
                continue
            srcs = set(_sources(rs.get("field")))
            if srcs & failing or any(s.split("/", 1)[0] in failing for s in srcs):
                failing.add(ident)
                changed = True
    return [i for rs in sets if isinstance(i := rs.get("@id") or rs.get("name"), str) and i in failing], own


def unloadable_record_sets(doc: Mapping[str, Any], folder: str | Path) -> list[str]:
    """The benchmark's own RecordSets whose data does not resolve from ``folder``.

    A RecordSet is unloadable when a field reads a local FileObject that is not there, a
    local FileSet whose ``includes`` match no file under ``folder`` (or would take the
    lineage files written there for data), a resource
    ``containedIn`` one of those, or a field of another unloadable RecordSet. Resources
    with URLs load from anywhere.

    Returns:
        Their ``@id`` (else ``name``), in descriptor order.
    """
    return _unloadable(doc, Path(folder))[0]


def _quoted(names: Iterable[str]) -> str:
    return ", ".join(repr(n) for n in names)


def load_warning(doc: Mapping[str, Any], folder: str | Path, path: str | Path, *, rebased: bool,
                 base: str | Path | None = None) -> EnrichWarning | None:
    """``CL-W001`` when some of the benchmark's RecordSets do not load from ``folder``, else None.

    The warning names the RecordSets and the resources whose files do not resolve, and
    the ways out that work: ``--in-place``; ``--rebase-urls`` only when it would make them
    load (tried when ``base`` is given; else when a FileObject is among them: a FileSet
    whose data lies outside ``folder`` never loads).

    Args:
        doc: The enriched descriptor.
        folder: Where it is written.
        path: Its path (named in the warning).
        rebased: Its paths were rewritten (:func:`rebase_urls`): what is left is a FileSet
            whose data lies outside ``folder``, which mlcroissant does not read.
        base: The folder the original's relative paths resolve against, when known.
    """
    names, resources = _unloadable(doc, Path(folder))
    if not names:
        return None
    where = f"RecordSets {_quoted(names)} do not load from {folder}"
    file_sets = [r.ident for r in _resources(doc) if r.kind == "FileSet" and r.ident in resources]
    if base is not None:
        helps = not rebased and _rebase_helps(doc, Path(base), Path(folder))
    else:  # an output folder is written whole: it never holds the data a FileSet reads
        helps = not rebased and len(file_sets) < len(resources)
    if not helps:
        why = (f"the data of FileSets {_quoted(file_sets)} is not under it, and mlcroissant matches a FileSet's "
               "includes only under the descriptor's folder" if file_sets else f"{_quoted(resources)} do not resolve there")
        message = f"{where}: {why}; write the copy beside its data with --in-place NAME"
    else:
        message = (f"{where}: {_quoted(resources)} resolve against the original descriptor's folder; "
                   "write the copy beside its data with --in-place NAME, or rewrite its paths with --rebase-urls")
    return EnrichWarning(UNLOADABLE, str(path), names, message, resources)


def _rebase_helps(doc: Mapping[str, Any], base: Path, folder: Path) -> bool:
    """Would :func:`rebase_urls` make every benchmark RecordSet load from ``folder``?"""
    trial = json.loads(json.dumps(doc))
    rebase_urls(trial, base, folder)
    return not _unloadable(trial, folder)[0]


def _rebased(value: str, base: Path, folder: Path) -> str:
    """``value`` (a relative path or glob under ``base``) as seen from ``folder``."""
    if os.path.isabs(value):
        return value
    target = os.path.abspath(os.path.join(base, value))
    try:
        rel = os.path.relpath(target, os.path.abspath(folder))
    except ValueError:  # another drive: only an absolute path reaches it
        return Path(target).as_posix()
    return Path(rel).as_posix()


def _rebased_value(res: _Resource, base: Path, folder: Path) -> Any:
    """The value of ``res``'s path key as seen from ``folder`` (unchanged when it cannot be)."""
    value = res.node.get(res.key)
    if res.kind == "FileObject":
        local = local_path(value) if isinstance(value, str) else None
        return value if local is None or local != value else _rebased(value, base, folder)
    patterns = as_list(value)
    if not patterns or not all(isinstance(v, str) and v.strip() for v in patterns):
        return value
    if any(os.path.isabs(v) for v in patterns):
        return value  # absolute globs: nothing relative to rewrite, and mlcroissant matches none
    new = [_rebased(v, base, folder) for v in patterns]
    if any(_escapes(v) for v in new):  # mlcroissant would match nothing: left as it was (warned)
        return value
    return new[0] if isinstance(value, str) else new


def rebase_urls(doc: dict[str, Any], base: str | Path, folder: str | Path) -> list[dict[str, Any]]:
    """Rewrite the benchmark's relative ``contentUrl`` / ``includes`` to resolve from ``folder``.

    A FileObject's relative ``contentUrl`` always is (``../`` allowed, as mlcroissant reads
    it). A FileSet's ``includes`` are rewritten only when every one of them stays under
    ``folder`` once rewritten (the copy is written in a folder that holds the data):
    mlcroissant matches ``includes`` against the files under the descriptor's folder only,
    so a ``../`` glob would read 0 records without an error; such a FileSet is left as it
    was, and :func:`load_warning` names it.

    Args:
        doc: The descriptor, changed in place (values replaced; no key added, moved or removed).
        base: The folder they resolve against now (the original's, or the data folder).
        folder: The folder the copy is written to.

    Returns:
        One marked record per value rewritten (``cl:at``: its JSON pointer; ``cl:original``:
        the original value as JSON text), for :data:`~croissant_lineage.enrich.marks.REBASED`.
    """
    records: list[dict[str, Any]] = []
    for res in _resources(doc):
        value = res.node.get(res.key)
        new = _rebased_value(res, Path(base), Path(folder))
        if new != value:
            records.append({"@index": MARK, "@type": "cl:RebasedValue",
                            "cl:at": pointer([*res.at, res.key]), "cl:original": json.dumps(value, ensure_ascii=False)})
            res.node[res.key] = new
    return records


def _taken(doc: Mapping[str, Any], name: str) -> str | None:
    """The benchmark resource that would read or is the file ``name`` in its folder, if any."""
    for res in _resources(doc):
        if res.kind == "FileObject":
            url = res.node.get("contentUrl")
            if isinstance(url, str) and local_path(url) is not None and os.path.normpath(url) == name:
                return res.ident or "a FileObject"
            continue
        for pattern in as_list(res.node.get("includes")):
            if isinstance(pattern, str) and re.match(fnmatch.translate(pattern), name):
                return res.ident or "a FileSet"
    return None


def in_place_names(doc: Mapping[str, Any], name: str, stem: str, kinds: Iterable[str]) -> tuple[str, dict[str, str]]:
    """The file names of a copy written beside its data: the descriptor and its lineage files.

    ``name`` is the descriptor's file name, ``{stem}`` standing for the stem ``enrich``
    gives it in an output folder (its dataset's name). Its lineage files are
    ``<name without .json>.<kind>.parquet``, or ``.<kind>.pq`` when a FileSet of the
    benchmark would take ``.parquet`` files for its data (``includes: "*.parquet"``).

    Raises:
        InputError: ``name`` is not a plain file name, or a resource of the benchmark
            would read (or is) one of the files.
    """
    target = name.replace("{stem}", stem)
    if not target or "/" in target or "\\" in target or target in (".", ".."):
        raise InputError(f"--in-place takes a file name, not {name!r}", hint="e.g. croissant.enriched.json")
    clash = _taken(doc, target)
    if clash:
        raise InputError(f"the benchmark's {clash!r} would read the enriched descriptor {target!r} as data",
                         hint="give --in-place a name its includes do not match")
    head = target[:-5] if target.endswith(".json") else target
    for ext in ("parquet", "pq"):
        files = {kind: f"{head}.{kind}.{ext}" for kind in kinds}
        clashes = [c for f in files.values() if (c := _taken(doc, f))]
        if not clashes:
            return target, files
    raise InputError(f"the benchmark's {clashes[0]!r} would read the lineage files beside {target!r} as data",
                     hint="enrich into --out DIR instead")

