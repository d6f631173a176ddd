"""Sorted, distinct N-Triples lines in bounded memory, and the three writers built on them.

A PROV graph is written in two passes over its triples, never holding the family:

1. :class:`SortedLines` takes the triples as Arrow string arrays of N-Triples lines
   (:mod:`croissant_lineage.prov.triples` builds them column by column), keeps at most
   ``chunk_bytes`` of them, and spills each full chunk, made distinct and sorted by Arrow,
   to a temporary file (a *run*);
2. :meth:`SortedLines.lines` merges the runs into one sorted stream of distinct lines:
   the graph (a set of triples), in byte order, which is the order rdflib's N-Triples
   lines were sorted in before (same file, same bytes).

The writers read that stream once: :func:`write_nt` as it is; :func:`write_turtle`
groups the lines of a subject (``;``) and abbreviates the library's namespaces;
:func:`write_jsonld` writes one node object per subject in a ``@graph``. Each file starts
with the library's mark (``PROV_FILE_COMMENT`` / the ``generatedBy`` member).
"""

from __future__ import annotations

import heapq
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.croissant.namespaces import CL_NS, PROV_NS, SCHEMA_NS, XSD_NS
from croissant_lineage.prov.terms import literal_value, split_line

__all__ = ["CHUNK_BYTES", "WRITERS", "SortedLines", "write_jsonld", "write_nt", "write_turtle"]

#: Bytes of N-Triples lines kept in memory before a sorted run is spilled to disk.
CHUNK_BYTES = 48 * 1024 * 1024

_RDF_TYPE = b"<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"

#: Prefixes of the Turtle and JSON-LD files (the JSON-LD ``@context``), in output order.
PREFIXES: tuple[tuple[str, str], ...] = (
    ("cl", CL_NS),
    ("prov", PROV_NS),
    ("sc", SCHEMA_NS),
    ("xsd", XSD_NS),
)

_LOCAL = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class SortedLines:
    """An external sort of N-Triples lines that also drops repeated lines.

    Args:
        chunk_bytes: Bytes of lines held before a run is written to ``folder``.
        folder: Where runs go (a temporary folder, removed by :meth:`close`).
    """

    def __init__(self, chunk_bytes: int = CHUNK_BYTES, folder: str | Path | None = None) -> None:
        self.chunk_bytes = chunk_bytes
        self._folder = folder
        self._tmp: str | None = None
        self._pending: list[pa.Array] = []
        self._pending_bytes = 0
        self._runs: list[str] = []
        self._last: pa.Array | None = None
        #: Distinct lines written by :meth:`lines` (set once it has run).
        self.count = 0

    def __enter__(self) -> SortedLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the runs."""
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def add(self, lines: pa.Array | pa.ChunkedArray) -> None:
        """Add lines (a string array, each value one line ending in a newline; nulls skipped)."""
        if isinstance(lines, pa.ChunkedArray):
            for chunk in lines.chunks:
                self.add(chunk)
            return
        if lines.null_count:
            lines = lines.drop_null()
        if not len(lines):
            return
        self._pending.append(lines)
        self._pending_bytes += _data_bytes(lines)
        if self._pending_bytes >= self.chunk_bytes:
            self._spill()

    def extend(self, lines: Iterable[str]) -> None:
        """Add lines given as Python strings."""
        self.add(pa.array(list(lines), pa.large_string()))

    def _sorted_pending(self) -> pa.Array:
        merged = pa.concat_arrays([a.cast(pa.large_string()) for a in self._pending])
        self._pending, self._pending_bytes = [], 0
        distinct = pc.unique(merged)
        return distinct.take(pc.sort_indices(distinct))

    def _spill(self) -> None:
        if self._tmp is None:
            self._tmp = tempfile.mkdtemp(prefix="cl-prov-", dir=self._folder)
        path = os.path.join(self._tmp, f"run-{len(self._runs)}")
        with open(path, "wb") as fh:
            fh.write(_data(self._sorted_pending()))
        self._runs.append(path)

    def lines(self) -> Iterator[bytes]:
        """Every distinct line added, in byte order (call once, after the last :meth:`add`)."""
        if not self._runs:
            block = self._sorted_pending() if self._pending else pa.array([], pa.large_string())
            self.count = len(block)
            yield from _data(block).splitlines(keepends=True)
            return
        if self._pending:
            self._spill()
        with ExitStack() as stack:
            runs = [stack.enter_context(open(p, "rb", buffering=1 << 20)) for p in self._runs]
            previous = None
            count = 0
            for line in heapq.merge(*runs):
                if line != previous:
                    count += 1
                    previous = line
                    yield line
            self.count = count


def _data_bytes(array: pa.Array) -> int:
    return int(pc.sum(pc.binary_length(array)).as_py() or 0)


def _data(array: pa.Array) -> bytes:
    """The values of a string array, one after the other (the lines, as a file holds them)."""
    if not len(array):
        return b""
    array = array.cast(pa.large_string())
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)
    start, end = int(offsets[array.offset]), int(offsets[array.offset + len(array)])
    return array.buffers()[2].slice(start, end - start).to_pybytes()


# --- writers -------------------------------------------------------------------------


def write_nt(lines: Iterable[bytes], out: IO[bytes]) -> None:
    """N-Triples: the sorted lines as they are."""
    out.writelines(lines)


def _compact_iri(term: bytes, cache: dict[bytes, bytes]) -> bytes:
    """``<iri>`` as ``prefix:local`` when ``iri`` is in a known namespace and ``local`` a
    plain name; else as given."""
    found = cache.get(term)
    if found is not None:
        return found
    text = term.decode("utf-8")[1:-1]
    out = term
    for prefix, ns in PREFIXES:
        if text.startswith(ns) and _LOCAL.fullmatch(text[len(ns):]):
            out = f"{prefix}:{text[len(ns):]}".encode()
            break
    if len(cache) < 4096:
        cache[term] = out
    return out


_XSD_TAIL = re.compile(rb"\^\^<" + re.escape(XSD_NS.encode()) + rb"([A-Za-z]+)>$")


def _turtle_object(obj: bytes, cache: dict[bytes, bytes]) -> bytes:
    if obj.startswith(b"<"):
        # Only vocabulary IRIs are worth a lookup: item and dataset IRIs stay whole.
        return _compact_iri(obj, cache) if obj.startswith(_VOCAB) else obj
    if obj.startswith(b'"') and obj.endswith(b">"):
        return _XSD_TAIL.sub(rb"^^xsd:\1", obj)
    return obj


_VOCAB = tuple(f"<{ns}".encode() for _, ns in PREFIXES)


def write_turtle(lines: Iterable[bytes], out: IO[bytes]) -> None:
    """Turtle: the prefixes, then each subject once with its predicates and objects
    (``;``), in the sorted order of the lines. The escapes of N-Triples are Turtle's."""
    out.write(b"".join(f"@prefix {p}: <{ns}> .\n".encode() for p, ns in PREFIXES) + b"\n")
    cache: dict[bytes, bytes] = {_RDF_TYPE: b"a"}
    subject = None
    write = out.write
    for line in lines:
        s, p, o = split_line(line)
        pred = cache.get(p) or _compact_iri(p, cache)
        obj = _turtle_object(o, cache)
        if s == subject:
            write(b" ;\n    " + pred + b" " + obj)
        else:
            if subject is not None:
                write(b" .\n\n")
            subject = s
            write(s + b" " + pred + b" " + obj)
    if subject is not None:
        write(b" .\n")


def _json_key(pred: str) -> str:
    if pred == "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>":
        return "@type"
    return _compact_iri(pred.encode(), {}).decode()


def _json_value(key: str, obj: str) -> Any:
    if obj.startswith("<"):
        if key == "@type":
            return _compact_iri(obj.encode(), {}).decode()
        return {"@id": obj[1:-1]}
    if obj.startswith("_:"):
        return obj if key == "@type" else {"@id": obj}
    lexical, datatype, lang = literal_value(obj)
    if lang:
        return {"@value": lexical, "@language": lang}
    if datatype:
        return {"@value": lexical, "@type": _compact_iri(f"<{datatype}>".encode(), {}).decode().strip("<>")}
    return {"@value": lexical}


def _json_node(subject: str, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    node: dict[str, Any] = {"@id": subject[1:-1] if subject.startswith("<") else subject}
    for pred, obj in pairs:
        key = _json_key(pred)
        node.setdefault(key, []).append(_json_value(key, obj))
    return {k: (v[0] if isinstance(v, list) and len(v) == 1 else v) for k, v in node.items()}


def write_jsonld(lines: Iterable[bytes], out: IO[bytes], mark: bytes) -> None:
    """JSON-LD: ``mark`` (the file's first member), the ``@context`` of :data:`PREFIXES`,
    then ``@graph``: one node object per subject, one per line, keys sorted."""
    context = json.dumps({p: ns for p, ns in PREFIXES}, sort_keys=True)
    out.write(mark + b'\n  "@context": ' + context.encode() + b',\n  "@graph": [')
    first = True
    for subject, pairs in _grouped(lines):
        node = json.dumps(_json_node(subject, pairs), sort_keys=True, ensure_ascii=False)
        out.write((b"\n    " if first else b",\n    ") + node.encode("utf-8"))
        first = False
    out.write(b"\n  ]\n}\n")


def _grouped(lines: Iterable[bytes]) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    subject: bytes | None = None
    pairs: list[tuple[str, str]] = []
    for line in lines:
        s, p, o = split_line(line)
        if s != subject:
            if subject is not None:
                yield subject.decode("utf-8"), pairs
            subject, pairs = s, []
        pairs.append((p.decode("utf-8"), o.decode("utf-8")))
    if subject is not None:
        yield subject.decode("utf-8"), pairs


#: Format -> writer of sorted lines to a binary file (JSON-LD's takes the mark too).
WRITERS: dict[str, Callable[..., None]] = {
    "nt": write_nt,
    "turtle": write_turtle,
    "json-ld": write_jsonld,
}
