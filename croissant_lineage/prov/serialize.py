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
from croissant_lineage.prov.stream import WRITERS, SortedLines, write_jsonld
from croissant_lineage.prov.terms import nt_row, utf8_lines
from croissant_lineage.prov.triples import lineage_lines, read_lineage_columns

__all__ = [
    "FORMATS",
    "PROV_FILE_COMMENT",
    "ProvResult",
    "is_prov_file",
    "serialize",
    "serialize_lineage",
    "write_prov",
]


#: Serialisation formats of :func:`serialize` (CLI name -> rdflib's name, to parse them).
FORMATS = {"turtle": "turtle", "json-ld": "json-ld", "nt": "nt"}


#: How a file written by :func:`write_prov` says so, in its first bytes: Turtle and
#: N-Triples start with this comment line (no triple); JSON-LD starts with the member
#: ``"generatedBy": "croissant-lineage"``, a key that is neither a term nor an IRI, so
#: JSON-LD processors drop it (no triple). :func:`is_prov_file` looks for these, and
#: :func:`write_prov` replaces only such files unless forced.
PROV_FILE_COMMENT = b"# PROV-O written by croissant-lineage\n"


_JSONLD_MARK = b'{\n  "generatedBy": "croissant-lineage",'


@dataclass(frozen=True)
class ProvResult(Result):
    """What :func:`write_prov` wrote.

    Attributes:
        path: The output file.
        format: ``turtle``, ``json-ld`` or ``nt``.
        triples: Number of triples.
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
    """Serialise a graph as ``turtle``, ``json-ld`` or ``nt`` (UTF-8 bytes, without the mark).

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
        fmt: ``turtle``, ``json-ld`` or ``nt``.
        items: Include every item as a ``prov:Entity``.
        time: Time of the linking activity (see :func:`resolve_time`).

    Raises:
        InputError: unknown format, an IRI N-Triples cannot hold, a text UTF-8 cannot encode.
    """
    _check_format(fmt)
    return _unmarked(_stream_bytes(lineage_lines(lineage, findings, items=items, time=time), fmt), fmt)


def _stream_bytes(arrays: Iterable[pa.Array], fmt: str) -> bytes:
    out = io.BytesIO()
    with SortedLines() as lines:
        for array in arrays:
            lines.add(array)
        _write(lines, fmt, out)
    return out.getvalue()


def _unmarked(data: bytes, fmt: str) -> bytes:
    return b"{" + data[len(_JSONLD_MARK):] if fmt == "json-ld" else data[len(PROV_FILE_COMMENT):]


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}", hint=f"one of: {', '.join(FORMATS)}")


def _write(lines: SortedLines, fmt: str, out: IO[bytes]) -> None:
    """The mark, then the sorted distinct lines in format ``fmt``."""
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
            head = fh.read(len(_JSONLD_MARK))
    except OSError:
        return False
    return head.startswith(PROV_FILE_COMMENT) or head == _JSONLD_MARK


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
        fmt: ``turtle``, ``json-ld`` or ``nt``.
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
    with SortedLines() as lines:
        for array in source.lines(found, items=items, time=time):
            lines.add(array)
        with atomic_writer(target) as fh:
            _write(lines, fmt, fh)
        triples = lines.count
    return ProvResult(str(out), fmt, triples, source.edge_rows, len(found or []))


def _load_findings(paths: str | Path | Sequence[str | Path] | None) -> list[Any] | None:
    if paths is None:
        return None
    from croissant_lineage.findings.files import load_findings

    return list(load_findings(paths))
