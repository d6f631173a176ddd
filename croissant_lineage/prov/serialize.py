"""Writing a family's PROV-O graph to a file: formats, deterministic bytes, the file mark.

:func:`write_prov` streams the graph's triples (:mod:`croissant_lineage.prov.triples`) and
writes them as Turtle, JSON-LD or N-Triples; the same graph always gives the same bytes, and
the file starts with this library's mark (:data:`PROV_FILE_COMMENT`) by which a later run
knows it may replace it.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import rdflib

from croissant_lineage._io import atomic_writer
from croissant_lineage._results import Result
from croissant_lineage.croissant.descriptor import ensure_replaceable
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.model import lineage_folder
from croissant_lineage.prov.provjson import (
    MARK_PREFIX,
    MARK_PREFIX_NS,
    inverse_lines,
    write_provjson,
)
from croissant_lineage.prov.stream import WRITERS, SortedLines, write_jsonld
from croissant_lineage.prov.terms import nt_row, utf8_lines
from croissant_lineage.prov.triples import lineage_lines, read_lineage_columns

__all__ = [
    "FORMATS",
    "PROV_FILE_COMMENT",
    "SYNTAXES",
    "ProvResult",
    "is_prov_file",
    "serialize",
    "serialize_lineage",
    "write_prov",
]


#: RDF serialisation formats of :func:`serialize` (CLI name -> rdflib's name, to parse them).
FORMATS = {"turtle": "turtle", "json-ld": "json-ld", "nt": "nt"}

#: Every syntax :func:`write_prov` writes: the RDF formats and W3C PROV-JSON
#: (:mod:`croissant_lineage.prov.provjson`: the records ``prov`` reads out of the RDF).
SYNTAXES = (*FORMATS, "provjson")


#: How a file written by :func:`write_prov` says so, in its first bytes: Turtle and
#: N-Triples start with this comment line (no triple); JSON-LD starts with the member
#: ``"generatedBy": "croissant-lineage"``, a key that is neither a term nor an IRI, so
#: JSON-LD processors drop it (no triple); PROV-JSON starts with the prefix
#: ``"croissant-lineage"`` (the namespace of the library's agent IRIs: PROV-JSON allows no
#: other top-level key, and a prefix is no record). :func:`is_prov_file` looks for these, and
#: :func:`write_prov` replaces only such files unless forced.
PROV_FILE_COMMENT = b"# PROV-O written by croissant-lineage\n"


_JSONLD_MARK = b'{\n  "generatedBy": "croissant-lineage",'

_PROVJSON_MARK = f'{{\n  "prefix": {{\n    "{MARK_PREFIX}": "{MARK_PREFIX_NS}",'.encode()


@dataclass(frozen=True)
class ProvResult(Result):
    """What :func:`write_prov` wrote.

    Attributes:
        path: The output file.
        format: ``turtle``, ``json-ld``, ``nt`` or ``provjson``.
        triples: Number of triples (of the RDF graph the PROV-JSON records are read from).
        edges: Item-level derivations in the graph.
        findings: Findings in the graph.
    """

    path: str
    format: str
    triples: int
    edges: int
    findings: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every attribute."""
        return asdict(self)


def serialize(graph: rdflib.Graph, fmt: str) -> bytes:
    """Serialise a graph as ``turtle``, ``json-ld``, ``nt`` or ``provjson`` (UTF-8 bytes, without the mark).

    The writers of :func:`write_prov` (:mod:`croissant_lineage.prov.stream`) over the
    graph's triples: the same graph always gives the same bytes, and ``write_prov`` writes
    the bytes of ``serialize(build_graph(...))`` after its mark
    (:func:`~croissant_lineage.prov.triples.build_graph`).

    Raises:
        InputError: unknown format, or an IRI of the graph that N-Triples cannot hold (one
            a family spec, a descriptor or a findings file gave, such as ``https://x/a b``).
    """
    _check_format(fmt)
    return _unmarked(_stream_bytes([utf8_lines(nt_row(t) for t in graph)], fmt), fmt)


def serialize_lineage(
    lineage: Any,
    findings: Iterable[Any] | None = None,
    *,
    fmt: str = "turtle",
    items: bool = True,
    time: str | datetime | int | None = None,
) -> bytes:
    """The bytes :func:`write_prov` writes after its mark, for an in-memory lineage.

    ``serialize_lineage(lineage, findings, ...) == serialize(build_graph(lineage, findings, ...))``,
    built from Arrow columns (:mod:`croissant_lineage.prov.triples`) with no rdflib graph
    of the items.

    Args:
        lineage: A :class:`croissant_lineage.lineage.model.Lineage`.
        findings: Findings to include.
        fmt: ``turtle``, ``json-ld``, ``nt`` or ``provjson``.
        items: Include every item as a ``prov:Entity``.
        time: Time of the linking activity (see :func:`resolve_time`).

    Raises:
        InputError: unknown format, an IRI N-Triples cannot hold, a text UTF-8 cannot encode.
    """
    _check_format(fmt)
    datasets = _item_namespaces(lineage.family.iris())
    arrays = lineage_lines(lineage, findings, items=items, time=time)
    return _unmarked(_stream_bytes(arrays, fmt, datasets), fmt)


def _item_namespaces(iris: dict[str, str]) -> dict[str, str]:
    """Dataset name -> the namespace of its items (``<dataset IRI>#``)."""
    return {name: iri.rstrip("#") + "#" for name, iri in iris.items()}


class _Sorted:
    """The sorted lines of a graph and, for PROV-JSON, the sorted :func:`inverse_lines`."""

    def __init__(self, fmt: str) -> None:
        self.lines = SortedLines()
        self.inverse = SortedLines() if fmt == "provjson" else None

    def __enter__(self) -> _Sorted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.lines.close()
        if self.inverse is not None:
            self.inverse.close()

    def add(self, array: pa.Array) -> None:
        self.lines.add(array)
        if self.inverse is not None:
            for chunk in array.chunks if isinstance(array, pa.ChunkedArray) else [array]:
                inverse = inverse_lines(chunk.drop_null())
                if inverse is not None:
                    self.inverse.add(inverse)


def _stream_bytes(arrays: Iterable[pa.Array], fmt: str, datasets: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with _Sorted(fmt) as sorted_lines:
        for array in arrays:
            sorted_lines.add(array)
        _write(sorted_lines, fmt, out, datasets, mark=fmt != "provjson")
    return out.getvalue()


def _unmarked(data: bytes, fmt: str) -> bytes:
    if fmt == "provjson":
        return data
    return b"{" + data[len(_JSONLD_MARK):] if fmt == "json-ld" else data[len(PROV_FILE_COMMENT):]


def _check_format(fmt: str) -> None:
    if fmt not in SYNTAXES:
        raise InputError(f"unknown format {fmt!r}", hint=f"one of: {', '.join(SYNTAXES)}")


def _write(
    sorted_lines: _Sorted, fmt: str, out: IO[bytes], datasets: dict[str, str] | None = None, *, mark: bool = True
) -> None:
    """The mark, then the sorted distinct lines in format ``fmt``."""
    lines = sorted_lines.lines
    if fmt == "provjson":
        write_provjson(lines, out, inverse=sorted_lines.inverse, datasets=datasets, mark=mark)
        return
    if fmt == "json-ld":
        write_jsonld(lines, out, _JSONLD_MARK)
        return
    out.write(PROV_FILE_COMMENT)
    WRITERS[fmt](lines, out)


def is_prov_file(path: str | Path) -> bool:
    """True when ``path`` starts as a file written by :func:`write_prov` does (see
    :data:`PROV_FILE_COMMENT`)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(max(len(_JSONLD_MARK), len(_PROVJSON_MARK)))
    except OSError:
        return False
    return head.startswith((PROV_FILE_COMMENT, _JSONLD_MARK, _PROVJSON_MARK))


def write_prov(
    lineage_dir: str | Path,
    out: str | Path,
    *,
    findings: str | Path | Sequence[str | Path] | None = None,
    fmt: str = "turtle",
    items: bool = True,
    time: str | datetime | int | None = None,
    force: bool = False,
) -> ProvResult:
    """Write a lineage folder's PROV-O graph to a file (atomically).

    The file starts with this library's mark (see :data:`PROV_FILE_COMMENT`), by which
    a later run knows it may replace it.

    Args:
        lineage_dir: A folder written by ``croissant-lineage link``.
        out: Output file: new, or one written by this function before.
        findings: A findings file to include, or several (read in order, as
            :func:`~croissant_lineage.findings.model.load_findings` reads them).
        fmt: ``turtle``, ``json-ld``, ``nt`` or ``provjson`` (W3C PROV-JSON: the records
            the ``prov`` library reads out of the RDF, see :mod:`croissant_lineage.prov.provjson`).
        items: Include every item as a ``prov:Entity`` (not only linked ones).
        time: Time of the linking activity (see :func:`resolve_time`).
        force: Replace ``out`` even when this library did not write it.

    Returns:
        A :class:`ProvResult`.

    Raises:
        InputError: missing lineage folder or findings file, unknown format.
        FindingsError: invalid findings file.
        OutputExistsError: ``out`` is a folder, or a file without the mark (and not
            ``force``). Nothing is written.
    """
    _check_format(fmt)
    source = read_lineage_columns(lineage_folder(lineage_dir, "lineage_dir"))
    found = _load_findings(findings)
    ensure_replaceable(out, force=force, ours=is_prov_file)
    target = Path(out)
    with _Sorted(fmt) as sorted_lines:
        for array in source.lines(found, items=items, time=time):
            sorted_lines.add(array)
        with atomic_writer(target) as fh:
            _write(sorted_lines, fmt, fh, _item_namespaces(source.family.iris()))
        triples = sorted_lines.lines.count
    return ProvResult(str(out), fmt, triples, source.edge_rows, len(found or []))


def _load_findings(paths: str | Path | Sequence[str | Path] | None) -> list[Any] | None:
    if paths is None:
        return None
    from croissant_lineage.findings.files import load_findings

    return list(load_findings(paths))
