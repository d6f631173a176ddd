"""Reading Croissant (MLCommons) JSON-LD descriptors without touching the network.

A descriptor is kept as the parsed JSON object exactly as written (key order
included), so that enrichment can add to it without rewriting anything. This module
gives typed access to the parts the library needs: the distribution (FileObjects and
FileSets), RecordSets and their Fields, and where each file lives on disk.

Nothing here fetches a remote ``@context``: a descriptor is read as plain JSON, and
JSON-LD processing elsewhere uses the local copy of the Croissant context.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from croissant_lineage._io import (
    note_dataset,
    read_json,
    replaceable,
    resolve_inside,
)
from croissant_lineage.croissant.jsonld import check_contexts
from croissant_lineage.croissant.namespaces import CL_NS, CROISSANT_NS, SCHEMA_NS
from croissant_lineage.errors import (
    DescriptorError,
    LineageError,
    UnsafePathError,
)

__all__ = [
    "CL_NS",
    "GENERATED_BY",
    "GENERATOR",
    "Descriptor",
    "FieldNode",
    "FileNode",
    "RecordSetNode",
    "as_list",
    "ensure_replaceable",
    "glob_matches",
    "is_generated",
    "is_generated_file",
    "match_files",
    "node_id",
    "read_descriptor",
]

#: The property this library puts on the top of every descriptor it writes, with the
#: value :data:`GENERATOR` (no version, so that output stays byte-identical across
#: releases). A file that has it may be replaced; any other file is not, unless forced.
GENERATED_BY = "cl:generatedBy"
GENERATOR = "croissant-lineage"

#: Existing outputs larger than this are never taken for ours (they are not read).
_MAX_OWN_OUTPUT_BYTES = 256 * 1024 * 1024


def as_list(value: Any) -> list[Any]:
    """Return ``value`` as a list: JSON-LD allows a single value where a list is meant."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def node_id(node: Any) -> str | None:
    """The ``@id`` of a node or reference (``{"@id": x}``), else its ``name``, else None."""
    if isinstance(node, str):
        return node
    if isinstance(node, dict):
        value = node.get("@id", node.get("name"))
        return value if isinstance(value, str) else None
    return None


def _short_type(node: dict[str, Any]) -> str:
    types = [
        t.split(":")[-1].split("/")[-1] for t in as_list(node.get("@type")) if isinstance(t, str)
    ]
    return types[0] if types else ""


@dataclass(frozen=True)
class FileNode:
    """A FileObject or FileSet of the distribution."""

    id: str
    kind: str  # "FileObject" | "FileSet"
    node: dict[str, Any]

    @property
    def encoding_format(self) -> str:
        fmt = self.node.get("encodingFormat", "")
        return fmt if isinstance(fmt, str) else str(as_list(fmt)[0])

    @property
    def contained_in(self) -> list[str]:
        return [i for i in (node_id(x) for x in as_list(self.node.get("containedIn"))) if i]


@dataclass(frozen=True)
class FieldNode:
    """A Field of a RecordSet, with its ``source`` resolved into plain values."""

    id: str
    name: str
    node: dict[str, Any]

    @property
    def source(self) -> dict[str, Any]:
        src = self.node.get("source")
        return src if isinstance(src, dict) else {}

    @property
    def source_file(self) -> str | None:
        for key in ("fileObject", "fileSet", "distribution"):
            ref = node_id(self.source.get(key))
            if ref:
                return ref
        return None

    @property
    def source_field(self) -> str | None:
        return node_id(self.source.get("field"))

    @property
    def extract(self) -> dict[str, Any]:
        ext = self.source.get("extract")
        return ext if isinstance(ext, dict) else {}

    @property
    def regexes(self) -> list[str]:
        out = []
        for t in as_list(self.source.get("transform")):
            if isinstance(t, dict) and isinstance(t.get("regex"), str):
                out.append(t["regex"])
        return out


@dataclass(frozen=True)
class RecordSetNode:
    """A RecordSet: its id, its fields (by name) and its inline ``data`` if any."""

    id: str
    node: dict[str, Any]
    fields: dict[str, FieldNode] = field(default_factory=dict)

    def field(self, name: str) -> FieldNode:
        """Return a field by short name or full ``@id``.

        Raises:
            DescriptorError: no such field (the message lists the fields there are).
        """
        if name in self.fields:
            return self.fields[name]
        for f in self.fields.values():
            if f.id == name:
                return f
        raise DescriptorError(
            f"RecordSet {self.id!r} has no field {name!r}",
            hint=f"fields are: {', '.join(sorted(self.fields)) or '(none)'}",
        )


@dataclass
class Descriptor:
    """A parsed Croissant descriptor.

    Attributes:
        path: Where it was read from (None when built in memory).
        doc: The JSON object, exactly as read.
        base_dir: Folder that relative ``contentUrl`` / ``includes`` resolve against;
            the descriptor's folder unless the caller chose another (a data root).
    """

    path: Path | None
    doc: dict[str, Any]
    base_dir: Path

    @property
    def name(self) -> str:
        value = self.doc.get("name") or self.doc.get("@id") or (self.path.stem if self.path else "")
        return str(value)

    @property
    def context(self) -> dict[str, Any]:
        ctx = self.doc.get("@context")
        return ctx if isinstance(ctx, dict) else {}

    def _nodes(self, key: str, iri: str, full_iri: bool) -> list[dict[str, Any]]:
        keys = (key, iri) if full_iri else (key,)
        return [n for k in keys for n in as_list(self.doc.get(k)) if isinstance(n, dict)]

    def record_set_nodes(self, *, full_iri: bool = False) -> list[dict[str, Any]]:
        """The RecordSet JSON objects as written (``recordSet``), in document order.

        Args:
            full_iri: Also those under the property spelt as a full IRI
                (``http://mlcommons.org/croissant/recordSet``), after the others.
        """
        return self._nodes("recordSet", f"{CROISSANT_NS}recordSet", full_iri)

    def distribution_nodes(self, *, full_iri: bool = False) -> list[dict[str, Any]]:
        """The distribution's JSON objects as written (``distribution``), in document order.

        Args:
            full_iri: Also those under ``https://schema.org/distribution``, after the others.
        """
        return self._nodes("distribution", f"{SCHEMA_NS}distribution", full_iri)

    def files(self) -> dict[str, FileNode]:
        """FileObjects and FileSets of the distribution, by ``@id`` (or ``name``)."""
        out: dict[str, FileNode] = {}
        for node in self.distribution_nodes():
            nid = node_id(node)
            kind = _short_type(node)
            if nid and kind in ("FileObject", "FileSet"):
                out[nid] = FileNode(nid, kind, node)
        return out

    def record_sets(self) -> dict[str, RecordSetNode]:
        """RecordSets by ``@id`` (or ``name``), each with its Fields by short name."""
        out: dict[str, RecordSetNode] = {}
        for node in self.record_set_nodes():
            rid = node_id(node)
            if not rid:
                continue
            fields: dict[str, FieldNode] = {}
            for fnode in as_list(node.get("field")):
                if not isinstance(fnode, dict):
                    continue
                fid = node_id(fnode)
                if not fid:
                    continue
                short = fnode.get("name") if isinstance(fnode.get("name"), str) else None
                short = (short or fid).removeprefix(f"{rid}/")
                fields[short] = FieldNode(fid, short, fnode)
            out[rid] = RecordSetNode(rid, node, fields)
        return out

    def record_set(self, name: str | None = None) -> RecordSetNode:
        """Return a RecordSet by id; with no name, the only one that is not a split list.

        Raises:
            DescriptorError: no such RecordSet, or several and none named.
        """
        sets = self.record_sets()
        if name is not None:
            if name in sets:
                return sets[name]
            raise DescriptorError(
                f"no RecordSet {name!r}",
                path=self.path,
                hint=f"RecordSets are: {', '.join(sorted(sets)) or '(none)'}",
            )
        data_sets = [r for r in sets.values() if "data" not in r.node]
        if len(data_sets) == 1:
            return data_sets[0]
        raise DescriptorError(
            "several RecordSets and none named",
            path=self.path,
            hint=f"name one of: {', '.join(sorted(sets))}",
        )

    def local_paths(self, file_id: str, *, allow_outside: bool = False) -> list[Path]:
        """Files on disk behind a FileObject or FileSet, in mlcroissant's order.

        Relative ``contentUrl`` and ``includes`` resolve against :attr:`base_dir`; a FileSet
        ``containedIn`` a remote repository (as the Hub generates) resolves its globs
        against :attr:`base_dir` too. ``includes`` / ``excludes`` are matched as mlcroissant
        matches them: :func:`fnmatch.fnmatch` on the path relative to that folder, so ``*``
        also crosses ``/`` (``*.csv`` takes CSVs in sub-folders too). Folder symlinks are not
        followed (as in mlcroissant); a file symlink is read only if it leads inside the
        folder. Paths outside ``base_dir`` are refused unless ``allow_outside``.

        Returns:
            Paths (``base_dir`` joined with the relative path, not resolved), sorted by
            their string form, as mlcroissant sorts them.

        Raises:
            DescriptorError: unknown id, or a remote URL with no local copy.
            UnsafePathError: a path leaves ``base_dir`` (the error names the descriptor).
        """
        try:
            return self._local_paths(file_id, allow_outside=allow_outside)
        except UnsafePathError as exc:
            if self.path is None:
                raise
            raise UnsafePathError(f"file {file_id!r}: {exc.message}", path=self.path, hint=exc.hint) from None

    def _local_paths(self, file_id: str, *, allow_outside: bool) -> list[Path]:
        files = self.files()
        for fnode in files.values():
            for key in ("contentUrl", "includes", "excludes"):
                if any(isinstance(v, str) and "\x00" in v for v in as_list(fnode.node.get(key))):
                    raise DescriptorError(f"{fnode.kind} {fnode.id!r}: {key} holds a NUL byte", path=self.path)
        if file_id not in files:
            raise DescriptorError(
                f"no FileObject or FileSet {file_id!r} in distribution",
                path=self.path,
                hint=f"distribution has: {', '.join(sorted(files)) or '(none)'}",
            )
        fnode = files[file_id]
        if fnode.kind == "FileObject":
            url = fnode.node.get("contentUrl")
            if not isinstance(url, str) or not url:
                raise DescriptorError(f"FileObject {file_id!r} has no contentUrl", path=self.path)
            if "://" in url and not url.startswith("file://"):
                raise DescriptorError(
                    f"FileObject {file_id!r} is remote ({url}); no local copy",
                    path=self.path,
                    hint="download it, or point the descriptor at a local file",
                )
            rel = url.removeprefix("file://")
            resolve_inside(self.base_dir, rel, allow_outside=allow_outside)
            return [Path(rel) if Path(rel).is_absolute() else self.base_dir / rel]
        includes = [i for i in as_list(fnode.node.get("includes")) if isinstance(i, str)]
        excludes = [e for e in as_list(fnode.node.get("excludes")) if isinstance(e, str)]
        root = self.base_dir
        for parent in fnode.contained_in:
            pnode = files.get(parent)
            url = pnode.node.get("contentUrl") if pnode else None
            if (
                isinstance(url, str)
                and "://" not in url
                and pnode is not None
                and pnode.encoding_format != "git+https"
            ):
                resolve_inside(self.base_dir, url, allow_outside=allow_outside)
                root = self.base_dir / url
        found: dict[str, Path] = {}
        is_file = _FileCheck(root, allow_outside=allow_outside)
        for pattern in includes:
            for rel in match_files(root, pattern, allow_outside=allow_outside):
                if any(_glob_regex(ex).match(rel) for ex in excludes):
                    continue
                path = root / rel
                if is_file(rel, path):
                    found[os.fspath(path)] = path
        return [found[k] for k in sorted(found)]

    def iter_nodes(self) -> Iterator[dict[str, Any]]:
        """Every JSON object in the document, depth first (for checks and enrichment)."""
        stack: list[Any] = [self.doc]
        while stack:
            cur = stack.pop()
            if isinstance(cur, dict):
                yield cur
                stack.extend(reversed(list(cur.values())))
            elif isinstance(cur, list):
                stack.extend(reversed(cur))



class _FileCheck:
    """Whether a path under a FileSet's folder is a file to read, refusing one that leads
    outside the folder: :func:`~croissant_lineage._io.resolve_inside` then
    :meth:`Path.is_file`, with the folders' real paths found once (a plain file's real path
    is its folder's with its name), not once per file."""

    def __init__(self, root: Path, *, allow_outside: bool):
        self._root = root
        self._allow_outside = allow_outside
        self._real_root = os.path.realpath(root).rstrip(os.sep) + os.sep
        self._real_dirs: dict[str, str] = {}

    def __call__(self, rel: str, path: Path) -> bool:
        try:
            mode = path.lstat().st_mode
        except OSError:
            mode = 0
        if not stat.S_ISREG(mode):  # a link (its target decides), or no file: the plain way
            resolve_inside(self._root, rel, allow_outside=self._allow_outside)
            return path.is_file()
        if self._allow_outside:
            return True
        folder, name = os.path.split(os.fspath(path))
        real = self._real_dirs.get(folder)
        if real is None:
            real = self._real_dirs[folder] = os.path.realpath(folder)
        if not os.path.join(real, name).startswith(self._real_root):
            resolve_inside(self._root, rel)  # raises its error
        return True


@functools.cache
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob compiled as mlcroissant compiles it (``fnmatch.translate``, case-sensitive)."""
    return re.compile(fnmatch.translate(pattern))


def glob_matches(pattern: str, rel: str) -> bool:
    """True when the Croissant ``includes`` glob ``pattern`` takes the file at ``rel``
    (``/``-separated, relative to the descriptor's folder), as :func:`match_files` matches."""
    return bool(_glob_regex(pattern).match(rel))


def match_files(root: str | Path, pattern: str, *, allow_outside: bool = False) -> list[str]:
    """Files under ``root`` that a Croissant ``includes`` glob takes, as mlcroissant matches.

    The glob is matched with :func:`fnmatch.fnmatch` semantics (case-sensitive) against
    each file's path relative to ``root``, so ``*`` also crosses ``/``. Only the folder
    named by the glob's literal start is walked, without following folder symlinks.

    Returns:
        Relative, ``/``-separated paths, in walk order (not sorted).

    Raises:
        UnsafePathError: the glob starts outside ``root`` (``../x/*.csv``, ``/etc/*``)
            and not ``allow_outside``.
    """
    root = Path(root)
    literal = re.split(r"[*?\[]", pattern, maxsplit=1)[0]
    start = literal.rsplit("/", 1)[0] if "/" in literal else ""
    if pattern.startswith("/") and not start:
        start = "/"
    resolve_inside(root, start or ".", allow_outside=allow_outside)
    if literal == pattern:  # no wildcard: one file
        return [pattern] if (root / pattern).is_file() else []
    rx = _glob_regex(pattern)
    top = root / start if start else root
    out: list[str] = []
    for dirpath, _dirs, names in os.walk(top):
        for name in names:
            rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
            if rx.match(rel):
                out.append(rel)
    return out

def is_generated(doc: Any) -> bool:
    """True when a parsed JSON document carries this library's generator marker."""
    if not isinstance(doc, dict):
        return False
    ctx = doc.get("@context")
    cl_declared = isinstance(ctx, dict) and ctx.get("cl") == CL_NS
    value = doc.get(f"{CL_NS}generatedBy")
    if value is None and cl_declared:
        value = doc.get(GENERATED_BY)
    return value == GENERATOR


def is_generated_file(path: str | Path, test: Callable[[Any], bool] = is_generated) -> bool:
    """True when ``path`` is a JSON file (of at most 256 MiB) whose document passes ``test``.

    Args:
        path: The file.
        test: What makes a parsed document ours (default: :func:`is_generated`).
    """
    p = Path(path)
    try:
        return p.stat().st_size <= _MAX_OWN_OUTPUT_BYTES and test(read_json(p))
    except (LineageError, OSError):
        return False


def ensure_replaceable(
    path: str | Path, *, force: bool = False, ours: Callable[[Path], bool] = is_generated_file
) -> bool:
    """Check that an output file may be written: it is absent, ours, or ``force``
    (the one rule, :func:`croissant_lineage._io.replaceable`).

    Args:
        path: The output file.
        force: Replace any file.
        ours: Whether an existing file was written by this library. The default
            (:func:`is_generated_file`) takes a JSON object carrying
            ``"cl:generatedBy": "croissant-lineage"`` (see :data:`GENERATED_BY`) with
            ``cl`` bound to :data:`CL_NS` in its ``@context``.

    Returns:
        True when ``path`` exists and will be replaced, False when it does not exist.

    Raises:
        OutputExistsError: ``path`` is a folder, or a file not written by this library
            and ``force`` is false.
    """
    return replaceable(path, force=force, ours=ours)


def read_descriptor(
    path: str | Path, *, base_dir: str | Path | None = None
) -> Descriptor:
    """Read a Croissant descriptor from a local JSON-LD file.

    Args:
        path: The ``metadata.json`` / ``croissant.json`` file.
        base_dir: Folder that relative file URLs resolve against; defaults to the
            descriptor's own folder (the Croissant convention).

    Returns:
        A :class:`Descriptor` holding the document exactly as written.

    Raises:
        InputError: missing file, empty file or invalid JSON.
        DescriptorError: valid JSON that is not a Croissant dataset, or one that names a
            context URL with no bundled copy at any level (the rule ``validate`` reports
            as ``CLV202``; nothing is ever fetched).
    """
    p = Path(path)
    note_dataset(p)  # its files are the command's to leave alone, read or not
    doc = read_json(p)
    check_croissant(doc, p)
    return Descriptor(p, doc, Path(base_dir) if base_dir is not None else p.parent)


def check_croissant(doc: Any, path: Path | None = None, *, contexts: bool = True) -> None:
    """Raise :class:`DescriptorError` unless ``doc`` looks like a Croissant Dataset.

    Args:
        doc: The parsed descriptor.
        path: The file, for error messages.
        contexts: Also refuse a context URL with no bundled copy at any level (see
            :func:`~croissant_lineage.croissant.jsonld.check_contexts`): the one rule of
            every reader. ``validate`` passes False and reports it as ``CLV202`` instead.
    """
    if not isinstance(doc, dict):
        raise DescriptorError("not a JSON object: a Croissant descriptor is one", path=path)
    types = [t for t in as_list(doc.get("@type")) if isinstance(t, str)]
    dataset_types = ("sc:Dataset", "schema:Dataset", "Dataset", f"{SCHEMA_NS}Dataset")
    if not any(t in dataset_types for t in types):
        raise DescriptorError(
            "not a Croissant descriptor: @type is not sc:Dataset",
            path=path,
            hint="expected a JSON-LD document with \"@type\": \"sc:Dataset\"",
        )
    if "@context" not in doc:
        raise DescriptorError("no @context: not JSON-LD", path=path)
    if contexts:
        check_contexts(doc, path=path)
