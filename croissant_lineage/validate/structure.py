"""Croissant requirements that mlcroissant's validation lets through (``CLV801``-``CLV805``).

Errors: mlcroissant 1.1.1 validates these descriptors, then ``records()`` yields ``None`` for
a column on every record, or fails while generating:

- ``CLV802``: a leaf Field (no ``subField``) has neither ``source`` nor ``value`` in a RecordSet
  without inline ``data``: its column is ``None`` on every record. mlcroissant reports this
  only when no other Field of the RecordSet has a source.
- ``CLV803``: a Field's ``source`` names a FileObject or FileSet but no ``extract`` (``column``,
  ``jsonPath`` or ``fileProperty``): ``records()`` fails in ``ReadFields``.
- ``CLV805``: a RecordSet has no Field: no record holds anything.

Warnings: requirements of the specification that records do not depend on, which official
MLCommons examples break:

- ``CLV801``: the Dataset has no ``name`` (mlcroissant asks for it only in Croissant 0.8;
  ``1.0/huggingface-squad`` has none).
- ``CLV804``: a RecordSet's ``key`` names no Field of that RecordSet, by its ``@id``, its
  ``name``, or its ``@id`` under the RecordSet's (``1.0/coco2014`` writes ``image_id`` for
  ``images/image_id``). ``records()`` does not read keys; ``1.0/coco2014-mini`` and
  ``1.1/zenodo-head-mri`` name a key ``img_id`` that no field has.

Each check visits every node once (the work is linear in the nodes).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from croissant_lineage.croissant.descriptor import as_list, node_id
from croissant_lineage.croissant.jsonld import pointer
from croissant_lineage.validate.codes import issue
from croissant_lineage.validate.report import Issue

__all__ = ["check_structure"]

_FILE_KEYS = ("fileObject", "fileSet", "distribution")
_EXTRACT_KEYS = ("column", "jsonPath", "fileProperty")


def _at(container: Any, path: tuple[Any, ...], key: str) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The JSON objects under ``key`` of ``container`` with their paths (one object or a list)."""
    value = container.get(key)
    if isinstance(value, dict):
        yield (*path, key), value
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, dict):
                yield (*path, key, i), v


def _field_names(fields: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> set[str]:
    """Every ``@id`` and ``name`` of the fields and their subFields."""
    names: set[str] = set()
    stack = [f for _p, f in fields]
    while stack:
        f = stack.pop()
        names.update(v for v in (f.get("@id"), f.get("name")) if isinstance(v, str))
        stack += [s for _p, s in _at(f, (), "subField")]
    return names


class _Checker:
    def __init__(self, where: str) -> None:
        self.where = where
        self.out: list[Issue] = []

    def add(self, code: str, message: str, path: tuple[Any, ...]) -> None:
        self.out.append(issue(code, message, f"{self.where}#{pointer(path)}"))

    def dataset(self, doc: dict[str, Any]) -> None:
        name = doc.get("name")
        if not (isinstance(name, str) and name.strip()) and not (isinstance(name, dict) and any(name.values())):
            self.add("CLV801", "the Dataset has no name (the Croissant specification requires one)", ())

    def record_set(self, path: tuple[Any, ...], rs: dict[str, Any]) -> None:
        fields = list(_at(rs, path, "field"))
        label = node_id(rs) or "?"
        if not fields:
            self.add("CLV805", f"RecordSet {label!r} has no field: its records hold nothing", path)
        inline = rs.get("data") is not None
        stack = list(fields)
        while stack:
            fpath, f = stack.pop()
            subs = list(_at(f, fpath, "subField"))
            stack += subs
            self.source(fpath, f)
            if not subs and not inline and not f.get("source") and f.get("value") is None:
                self.add("CLV802", f"Field {node_id(f) or '?'!r} has neither source nor value: "
                         "records() yields None for it on every record", fpath)
        names = _field_names(fields)
        for i, key in enumerate(as_list(rs.get("key"))):
            kid = node_id(key)
            if kid is not None and kid not in names and f"{label}/{kid}" not in names:
                kpath = (*path, "key", i) if isinstance(rs.get("key"), list) else (*path, "key")
                self.add("CLV804", f"RecordSet {label!r} key {kid!r} names no field of the RecordSet", kpath)

    def source(self, path: tuple[Any, ...], field: dict[str, Any]) -> None:
        src = field.get("source")
        if not isinstance(src, dict) or not any(node_id(src.get(k)) for k in _FILE_KEYS):
            return
        extract = src.get("extract")
        if not (isinstance(extract, dict) and any(extract.get(k) for k in _EXTRACT_KEYS)):
            self.add("CLV803", f"Field {node_id(field) or '?'!r} reads a file with no extract (column, jsonPath "
                     "or fileProperty): records() fails", (*path, "source"))


def check_structure(doc: dict[str, Any], where: str) -> list[Issue]:
    """Check the Croissant requirements that records depend on and mlcroissant lets through.

    Args:
        doc: The descriptor JSON object.
        where: The file name issues are reported against.

    Returns:
        Issues ``CLV801``-``CLV805``, at the JSON pointer of the node.
    """
    checker = _Checker(where)
    checker.dataset(doc)
    for path, rs in _at(doc, (), "recordSet"):
        checker.record_set(path, rs)
    return checker.out
