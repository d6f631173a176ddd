"""Writing a family's PROV-O graph to a file: formats, deterministic bytes, the file mark.

:func:`write_prov` builds the graph (:func:`croissant_lineage.prov.graph.build_graph`) and
writes it as Turtle, JSON-LD or N-Triples; the same graph always gives the same bytes, and
the file starts with this library's mark (:data:`PROV_FILE_COMMENT`) by which a later run
knows it may replace it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import rdflib

from croissant_lineage._io import atomic_write_bytes
from croissant_lineage._results import Result
from croissant_lineage.croissant.descriptor import ensure_replaceable
from croissant_lineage.errors import InputError
from croissant_lineage.prov.graph import build_graph
from croissant_lineage.prov.vocab import (
    PROV_CONTEXT,
)

__all__ = ["FORMATS", "PROV_FILE_COMMENT", "ProvResult", "is_prov_file", "serialize", "write_prov"]


#: Serialisation formats of :func:`serialize` (CLI name -> rdflib name).
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
    """Serialise a graph as ``turtle``, ``json-ld`` or ``nt`` (UTF-8 bytes).

    Raises:
        InputError: unknown format, or rdflib refuses an IRI of the graph (one a family
            spec, a descriptor or a findings file gave, such as ``https://x/a b``).
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}", hint=f"one of: {', '.join(FORMATS)}")
    try:
        if fmt == "json-ld":
            data = graph.serialize(format="json-ld", context=dict(PROV_CONTEXT), auto_compact=True)
            # Like N-Triples below: rdflib's node and value order follows set order.
            data = json.dumps(_canonical_order(json.loads(data)), indent=2, sort_keys=True,
                              ensure_ascii=False)
        else:
            data = graph.serialize(format=FORMATS[fmt])
    except Exception as exc:  # rdflib raises bare Exceptions for IRIs it cannot write
        raise InputError(
            f"cannot write the PROV graph as {fmt}: {str(exc).splitlines()[0][:300]}",
            hint="an IRI in the family spec, descriptors or findings is not a valid IRI (spaces, <, >, quotes...)",
        ) from None
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if fmt == "nt":
        # rdflib writes N-Triples in set order, which changes from run to run (hash
        # randomisation): sorted lines make the same graph the same bytes.
        raw = b"".join(sorted(raw.splitlines(keepends=True)))
    return raw


def _canonical_order(node: Any) -> Any:
    """A JSON-LD document with its unordered arrays sorted (``@list`` keeps its order)."""
    if isinstance(node, dict):
        return {k: (v if k == "@list" else _canonical_order(v)) for k, v in node.items()}
    if isinstance(node, list):
        items = [_canonical_order(v) for v in node]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False))
    return node


def is_prov_file(path: str | Path) -> bool:
    """True when ``path`` starts as a file written by :func:`write_prov` does (see
    :data:`PROV_FILE_COMMENT`)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(_JSONLD_MARK))
    except OSError:
        return False
    return head.startswith(PROV_FILE_COMMENT) or head == _JSONLD_MARK


def _marked(data: bytes, fmt: str) -> bytes:
    if fmt == "json-ld":
        assert data.startswith(b"{"), "rdflib writes a JSON object when given a context"
        return _JSONLD_MARK + data[1:]
    return PROV_FILE_COMMENT + data


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
    from croissant_lineage.lineage.model import Lineage

    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}", hint=f"one of: {', '.join(FORMATS)}")
    lineage = Lineage.read(lineage_dir)
    found = _load_findings(findings)
    ensure_replaceable(out, force=force, ours=is_prov_file)
    graph = build_graph(lineage, found, items=items, time=time)
    atomic_write_bytes(out, _marked(serialize(graph, fmt), fmt))
    return ProvResult(str(out), fmt, len(graph), lineage.edges.num_rows, len(found or []))


def _load_findings(paths: str | Path | Sequence[str | Path] | None) -> list[Any] | None:
    if paths is None:
        return None
    from croissant_lineage.findings.files import load_findings

    return list(load_findings(paths))
