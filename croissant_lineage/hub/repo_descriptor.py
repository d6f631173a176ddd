"""The ``croissant.json`` of the repository: every file URL one that resolves there.

An enriched descriptor reads its data from where it was described (a local layout such as
``mmlu_pro/test.jsonl``) and its lineage tables from beside itself. In the repository:

* the lineage FileObjects (enrichment's, ``cl-<kind>-file``) read the published tables
  (``contentUrl`` and ``sha256`` of the files publish writes);
* Parquet the descriptor distributes from beside itself is published at the same path;
* every other FileSet or FileObject with a relative URL reads the files of the
  repository's config of the same name (the RecordSet that reads it, as the Hub names its
  configs, or the ``...-for-config-NAME`` FileSet id): its ``includes`` become that
  config's ``data_files`` patterns, its ``encodingFormat`` follows their extension, and a
  split regex on the old folder drops that folder. A node no config names is an error:
  it would point at no file of the repository.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from croissant_lineage._io import resolve_inside
from croissant_lineage.croissant.descriptor import Descriptor, as_list, node_id
from croissant_lineage.enrich.marks import is_ours
from croissant_lineage.errors import PublishError, UnsafePathError
from croissant_lineage.hub.tables import TABLES, table_path

__all__ = ["config_paths", "descriptor_parquet", "for_repository"]

#: File extension -> the encodingFormat of a FileSet of such files.
_FORMATS = {
    ".parquet": "application/x-parquet",
    ".jsonl": "application/jsonlines",
    ".json": "application/json",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
}
_CONFIG_ID = re.compile(r"-for-config-(.+)$")


def descriptor_parquet(doc: dict[str, Any], folder: Path, own: Iterable[str]) -> list[tuple[str, str, bytes, str]]:
    """The benchmark's own Parquet FileObjects the descriptor distributes from beside itself
    (not the lineage files enrichment added: :data:`TABLES` holds those), as (config name,
    relative path, bytes, content)."""
    desc = Descriptor(None, doc, folder)
    readers: dict[str, str] = {}
    for rs in desc.record_set_nodes():
        for f in as_list(rs.get("field")):
            src = f.get("source") if isinstance(f, dict) else None
            ref = node_id(src.get("fileObject")) if isinstance(src, dict) else None
            if ref and isinstance(node_id(rs), str):
                readers.setdefault(ref, str(node_id(rs)))
    out = []
    for fo in desc.distribution_nodes():
        if is_ours(fo) or "parquet" not in str(fo.get("encodingFormat", "")):
            continue
        url, fid = fo.get("contentUrl"), node_id(fo)
        if not isinstance(url, str) or "://" in url or not fid:
            continue
        try:
            path = resolve_inside(folder, url)
        except UnsafePathError:
            continue
        if path.is_file() and url not in own:
            name = re.sub(r"[^A-Za-z0-9_]+", "_", readers.get(fid, path.stem)).strip("_") or "data"
            out.append((f"descriptor_{name}", Path(url).as_posix(), path.read_bytes(),
                        f"RecordSet {readers.get(fid, '?')} of croissant.json"))
    return out


def _point_at_tables(doc: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
    """``doc`` with its lineage FileObjects (enrichment's, ``cl-<kind>-file``) reading the
    published tables: ``contentUrl`` and ``sha256`` of the files in the repository. The
    reference index beside an enriched descriptor (``cl-index-file``) points into the files
    it was written with, not into the published tables: it is left out."""
    by_id = {f"cl-{kind}-file": table_path(config) for config, (kind, _) in TABLES.items()}
    out = copy.deepcopy(doc)
    if isinstance(out.get("distribution"), list):
        out["distribution"] = [fo for fo in out["distribution"]
                               if not (is_ours(fo) and node_id(fo) == "cl-index-file")]
    for fo in as_list(out.get("distribution")):
        path = by_id.get(str(node_id(fo))) if is_ours(fo) else None
        if path is not None:
            fo["contentUrl"] = path
            fo["sha256"] = hashlib.sha256(files[path]).hexdigest()
    return out


def config_paths(config: Mapping[str, Any]) -> list[str]:
    """The ``data_files`` patterns of one card config, in order (a string, a list of
    strings, or a list of ``{split, path}`` whose path is a string or a list)."""
    out: list[str] = []
    for entry in as_list(config.get("data_files")):
        paths = entry.get("path") if isinstance(entry, dict) else entry
        out += [p for p in as_list(paths) if isinstance(p, str) and p]
    return out


def _sources(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(RecordSet id, field source) of every field, nested fields included."""
    out: list[tuple[str, dict[str, Any]]] = []

    def walk(rs_id: str, fields: Any) -> None:
        for f in as_list(fields):
            if not isinstance(f, dict):
                continue
            if isinstance(f.get("source"), dict):
                out.append((rs_id, f["source"]))
            walk(rs_id, f.get("subField"))

    for rs in as_list(doc.get("recordSet")):
        if isinstance(rs, dict):
            walk(str(node_id(rs) or ""), rs.get("field"))
    return out


def _local_paths(node: dict[str, Any]) -> list[str]:
    """The relative paths or patterns a data node reads (none when it is absolute or
    inside a container)."""
    if node.get("containedIn") is not None:
        return []
    values = as_list(node.get("includes")) if node.get("includes") is not None else as_list(node.get("contentUrl"))
    return [v for v in values if isinstance(v, str) and "://" not in v]


def _strip_folder(source: dict[str, Any], folders: set[str]) -> None:
    """Drop an old folder from the start of a split regex over the file's path."""
    for tr in as_list(source.get("transform")):
        regex = tr.get("regex") if isinstance(tr, dict) else None
        if not isinstance(regex, str):
            continue
        for folder in sorted(folders, key=len, reverse=True):
            for spelled in (folder, re.escape(folder)):
                if regex.startswith(f"^{spelled}/"):
                    tr["regex"] = "^" + regex[len(spelled) + 2:]
                    break
            else:
                continue
            break


def _repoint(node: dict[str, Any], patterns: list[str], sources: list[dict[str, Any]], old: list[str]) -> None:
    nid = node_id(node)
    for key in ("contentUrl", "sha256", "md5", "contentSize"):
        node.pop(key, None)
    node["@type"] = "cr:FileSet"
    node["includes"] = patterns[0] if len(patterns) == 1 else list(patterns)
    fmt = _FORMATS.get(PurePosixPath(patterns[0].replace("*", "x")).suffix.lower())
    if fmt:
        node["encodingFormat"] = fmt
    folders = {str(PurePosixPath(p).parent) for p in old} - {"."}
    for src in sources:
        if node_id(src.get("fileObject")) == nid:
            src["fileSet"] = src.pop("fileObject")
        _strip_folder(src, folders)


def for_repository(doc: dict[str, Any], files: Mapping[str, bytes], configs: list[dict[str, Any]]) -> dict[str, Any]:
    """``doc`` as the repository's ``croissant.json``: every relative file URL one of
    ``files`` (what publish writes) or of the repository's ``configs`` (see the module).

    Raises:
        PublishError: a data node reads local files that no config of the repository names.
    """
    out = _point_at_tables(doc, dict(files))
    by_name = {str(c.get("config_name")): config_paths(c) for c in configs}
    sources = _sources(out)
    for node in as_list(out.get("distribution")):
        if not isinstance(node, dict) or is_ours(node):
            continue
        old = _local_paths(node)
        if not old or all(p in files for p in old):
            continue
        nid = node_id(node)
        pairs = [(rs, src) for rs, src in sources if nid in (node_id(src.get("fileSet")), node_id(src.get("fileObject")))]
        reads = [src for _, src in pairs]
        names = list(dict.fromkeys(rs for rs, _ in pairs))
        m = _CONFIG_ID.search(str(nid or ""))
        names += [m.group(1)] if m else []
        config = next((n for n in names if by_name.get(n)), None)
        if config is None:
            raise PublishError(
                f"croissant.json reads {nid!r} from {', '.join(old)}, which no config of the repository's card names",
                hint=f"give the card (--base-card, or the repository's) a config named {names[0] if names else nid!r} "
                     "whose data_files are these files in the repository")
        _repoint(node, by_name[config], reads, old)
    return out
