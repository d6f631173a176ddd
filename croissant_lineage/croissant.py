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
import glob
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._io import read_json, resolve_inside
from .errors import DescriptorError

__all__ = [
    "CL_NS",
    "Descriptor",
    "FieldNode",
    "FileNode",
    "RecordSetNode",
    "as_list",
    "node_id",
    "read_descriptor",
]

#: Namespace of this library's own extension properties (reserved IRI).
CL_NS = "https://w3id.org/croissant-lineage/ns#"


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
    types = [t.split(":")[-1].split("/")[-1] for t in as_list(node.get("@type")) if isinstance(t, str)]
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

    def files(self) -> dict[str, FileNode]:
        """FileObjects and FileSets of the distribution, by ``@id`` (or ``name``)."""
        out: dict[str, FileNode] = {}
        for node in as_list(self.doc.get("distribution")):
            if not isinstance(node, dict):
                continue
            nid = node_id(node)
            kind = _short_type(node)
            if nid and kind in ("FileObject", "FileSet"):
                out[nid] = FileNode(nid, kind, node)
        return out

    def record_sets(self) -> dict[str, RecordSetNode]:
        """RecordSets by ``@id`` (or ``name``), each with its Fields by short name."""
        out: dict[str, RecordSetNode] = {}
        for node in as_list(self.doc.get("recordSet")):
            if not isinstance(node, dict):
                continue
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
        """Files on disk behind a FileObject or FileSet, sorted for determinism.

        Relative ``contentUrl`` and ``includes`` resolve against :attr:`base_dir`; a FileSet
        ``containedIn`` a remote repository (as the Hub generates) resolves its globs
        against :attr:`base_dir` too. Paths outside ``base_dir`` are refused unless
        ``allow_outside``.

        Raises:
            DescriptorError: unknown id, or a remote URL with no local copy.
            UnsafePathError: a path leaves ``base_dir``.
        """
        files = self.files()
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
            return [resolve_inside(self.base_dir, url.removeprefix("file://"), allow_outside=allow_outside)]
        includes = [i for i in as_list(fnode.node.get("includes")) if isinstance(i, str)]
        excludes = [e for e in as_list(fnode.node.get("excludes")) if isinstance(e, str)]
        root = self.base_dir
        for parent in fnode.contained_in:
            pnode = files.get(parent)
            url = pnode.node.get("contentUrl") if pnode else None
            if isinstance(url, str) and "://" not in url and pnode and pnode.encoding_format != "git+https":
                root = resolve_inside(self.base_dir, url, allow_outside=allow_outside)
        found: set[Path] = set()
        for pattern in includes:
            resolve_inside(root, pattern.split("*")[0] or ".", allow_outside=allow_outside)
            for hit in glob.glob(os.path.join(glob.escape(str(root)), pattern), recursive=True):
                rel = os.path.relpath(hit, root)
                if any(fnmatch.fnmatch(rel, ex) for ex in excludes):
                    continue
                p = resolve_inside(root, rel, allow_outside=allow_outside)
                if p.is_file():
                    found.add(p)
        return sorted(found)

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
        DescriptorError: valid JSON that is not a Croissant dataset.
    """
    p = Path(path)
    doc = read_json(p)
    check_croissant(doc, p)
    return Descriptor(p, doc, Path(base_dir) if base_dir is not None else p.parent)


def check_croissant(doc: Any, path: Path | None = None) -> None:
    """Raise :class:`DescriptorError` unless ``doc`` looks like a Croissant Dataset."""
    if not isinstance(doc, dict):
        raise DescriptorError("not a JSON object: a Croissant descriptor is one", path=path)
    types = [t for t in as_list(doc.get("@type")) if isinstance(t, str)]
    if not any(t in ("sc:Dataset", "schema:Dataset", "Dataset", "https://schema.org/Dataset") for t in types):
        raise DescriptorError(
            "not a Croissant descriptor: @type is not sc:Dataset",
            path=path,
            hint="expected a JSON-LD document with \"@type\": \"sc:Dataset\"",
        )
    if "@context" not in doc:
        raise DescriptorError("no @context: not JSON-LD", path=path)
