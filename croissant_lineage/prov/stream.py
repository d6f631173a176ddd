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

import functools
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
from croissant_lineage.prov.terms import literal_value, per_distinct, split_line

__all__ = ["CHUNK_BYTES", "WRITERS", "SortedLines", "write_jsonld", "write_nt", "write_turtle"]

#: Bytes of N-Triples lines kept in memory before a sorted run is spilled to disk.
CHUNK_BYTES = 16 * 1024 * 1024

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
        chunk_bytes: Bytes of lines held before a run is written to ``folder``
            (default :data:`CHUNK_BYTES`).
        folder: Where runs go (a temporary folder, removed by :meth:`close`).
    """

    def __init__(self, chunk_bytes: int | None = None, folder: str | Path | None = None) -> None:
        self.chunk_bytes = CHUNK_BYTES if chunk_bytes is None else chunk_bytes
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
        return _distinct(merged.take(pc.sort_indices(merged)))

    def _spill(self) -> None:
        if self._tmp is None:
            self._tmp = tempfile.mkdtemp(prefix="cl-prov-", dir=self._folder)
        path = os.path.join(self._tmp, f"run-{len(self._runs)}.arrow")
        block = self._sorted_pending()
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_stream(sink, _SCHEMA) as writer:
            for start in range(0, len(block), BLOCK_LINES):
                writer.write_batch(pa.record_batch([block.slice(start, BLOCK_LINES)], schema=_SCHEMA))
        self._runs.append(path)

    def blocks(self) -> Iterator[pa.Array]:
        """Every distinct line added, in byte order, as string arrays (call once, after the
        last :meth:`add`). Runs are merged a block at a time: each round takes, from every
        run's current block, the lines up to the smallest of the blocks' last lines (no run
        can hold a smaller line after them), and sorts those with Arrow."""
        if not self._runs:
            block = self._sorted_pending() if self._pending else pa.array([], pa.large_string())
            self.count = len(block)
            if len(block):
                yield block
            return
        if self._pending:
            self._spill()
        self.count = 0
        with ExitStack() as stack:
            readers = [iter(stack.enter_context(pa.ipc.open_stream(pa.OSFile(p, "rb")))) for p in self._runs]
            heads = [_next_block(r) for r in readers]
            last: str | None = None
            while any(h is not None for h in heads):
                live = [h for h in heads if h is not None]
                bound = pa.scalar(min(h[-1].as_py() for h in live), pa.large_string())
                parts = []
                for i, head in enumerate(heads):
                    if head is None:
                        continue
                    n = int(pc.sum(pc.less_equal(head, bound)).as_py() or 0)
                    parts.append(head.slice(0, n))
                    heads[i] = head.slice(n) if n < len(head) else _next_block(readers[i])
                merged = pa.concat_arrays(parts)
                merged = _distinct(merged.take(pc.sort_indices(merged)), last)
                if len(merged):
                    last = merged[-1].as_py()
                    self.count += len(merged)
                    yield merged

    def lines(self) -> Iterator[bytes]:
        """Every distinct line added, in byte order, one by one (see :meth:`blocks`)."""
        for block in self.blocks():
            yield from _data(block).splitlines(keepends=True)


#: Lines per block of a spilled run (and per merge round and run). The merge holds one block
#: of every run: 8,192 lines keep the MMLU family's N-Triples export (whose lines
#: name item derivations by IRI) at 365 MB peak, where 32,768 took 509 MB, at the same speed.
BLOCK_LINES = 8_192

_SCHEMA = pa.schema([pa.field("line", pa.large_string())])


def _distinct(ordered: pa.Array, last: str | None = None) -> pa.Array:
    """A sorted array without repeated values (nor a first value equal to ``last``)."""
    if not len(ordered):
        return ordered
    keep = pc.not_equal(ordered.slice(1), ordered.slice(0, len(ordered) - 1))
    first = pa.array([ordered[0].as_py() != last])
    return ordered.filter(pa.concat_arrays([first, keep]))


def _next_block(reader: Iterator[pa.RecordBatch]) -> pa.Array | None:
    for batch in reader:
        if batch.num_rows:
            return batch.column(0)
    return None


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


def write_nt(lines: SortedLines, out: IO[bytes]) -> None:
    """N-Triples: the sorted lines as they are."""
    for block in lines.blocks():
        out.write(_data(block))


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


_XSD_TAIL = re.compile(rf"\^\^<{re.escape(XSD_NS)}([A-Za-z]+)>$")


def _turtle_object(obj: str) -> str:
    """An object term with a vocabulary IRI as ``prefix:local`` and an XSD datatype as ``xsd:x``."""
    if obj.startswith("<"):
        return _compact_iri(obj.encode(), {}).decode()
    return _XSD_TAIL.sub(r"^^xsd:\1", obj)


def _turtle_block(block: pa.Array, subject: str | None) -> pa.Array:
    """Turtle text of sorted lines, one value per line: ``" ;\n    p o"`` when the line's
    subject is the one before (``subject`` for the first line), else ``" .\n\ns p o"``."""
    parts = pc.split_pattern(pc.utf8_slice_codeunits(block.cast(pa.string()), 0, -3), " ", max_splits=2)
    subjects = pc.list_element(parts, 0)
    preds = per_distinct(pc.list_element(parts, 1), lambda p: "a" if p == _RDF_TYPE.decode() else
                         _compact_iri(p.encode(), {}).decode())
    objects = pc.list_element(parts, 2)
    # Only vocabulary IRIs (classes) and typed literals change; their distinct values are few.
    vocab = [pc.starts_with(objects, f"<{ns}") for _, ns in PREFIXES]
    typed = pc.and_(pc.starts_with(objects, '"'), pc.ends_with(objects, ">"))
    mask = functools.reduce(pc.or_, vocab, typed)
    if pc.any(mask).as_py():
        objects = pc.replace_with_mask(objects, mask, per_distinct(objects.filter(mask), _turtle_object))
    before = pa.concat_arrays([pa.array([subject], subjects.type), subjects.slice(0, len(subjects) - 1)])
    same = pc.fill_null(pc.equal(subjects, before), False)
    head = pc.if_else(same, " ;\n    ", pc.binary_join_element_wise(" .\n\n", subjects, " ", ""))
    return pc.binary_join_element_wise(head, preds, " ", objects, "")


def write_turtle(lines: SortedLines, out: IO[bytes]) -> None:
    """Turtle: the prefixes, then each subject once with its predicates and objects
    (``;``), in the sorted order of the lines. The escapes of N-Triples are Turtle's."""
    out.write(b"".join(f"@prefix {p}: <{ns}> .\n".encode() for p, ns in PREFIXES) + b"\n")
    subject: str | None = None
    for block in lines.blocks():
        data = _data(_turtle_block(block, subject))
        out.write(data[4:] if subject is None else data)  # no " .\n\n" before the first subject
        subject = block[-1].as_py().split(" ", 1)[0]
    if subject is not None:
        out.write(b" .\n")


def _json_iri(term: str) -> str:
    """``prefix:local`` for a vocabulary IRI, else the IRI itself (a JSON-LD key or type)."""
    out = _compact_iri(term.encode(), {}).decode()
    return out[1:-1] if out.startswith("<") else out


def _json_key(pred: str) -> str:
    if pred == "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>":
        return "@type"
    return _json_iri(pred)


def _json_value(key: str, obj: str) -> Any:
    if obj.startswith("<"):
        return _json_iri(obj) if key == "@type" else {"@id": obj[1:-1]}
    if obj.startswith("_:"):
        return obj if key == "@type" else {"@id": obj}
    lexical, datatype, lang = literal_value(obj)
    if lang:
        return {"@value": lexical, "@language": lang}
    if datatype:
        return {"@value": lexical, "@type": _json_iri(f"<{datatype}>")}
    return {"@value": lexical}


def _json_node(subject: str, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    node: dict[str, Any] = {"@id": subject[1:-1] if subject.startswith("<") else subject}
    for pred, obj in pairs:
        key = _json_key(pred)
        node.setdefault(key, []).append(_json_value(key, obj))
    return {k: (v[0] if isinstance(v, list) and len(v) == 1 else v) for k, v in node.items()}


def write_jsonld(lines: SortedLines, out: IO[bytes], mark: bytes) -> None:
    """JSON-LD: ``mark`` (the file's first member), the ``@context`` of :data:`PREFIXES`,
    then ``@graph``: one node object per subject, one per line, keys sorted."""
    context = json.dumps({p: ns for p, ns in PREFIXES}, sort_keys=True)
    out.write(mark + b'\n  "@context": ' + context.encode() + b',\n  "@graph": [')
    first = True
    for subject, pairs in _grouped(lines.lines()):
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
