"""Checks of a family spec: the schema and rules of :func:`croissant_lineage.family.spec.parse_family`
(``CLV501``), descriptors that do not exist (``CLV502``), dataset IRIs that cannot mint item IRIs
with one ``#`` (``CLV503``), dataset-level cycles (``CLV303``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from croissant_lineage.croissant.jsonld import pointer
from croissant_lineage.errors import SpecError
from croissant_lineage.family.spec import DatasetSpec, iri_problems, parse_family
from croissant_lineage.validate.codes import issue
from croissant_lineage.validate.lineage import check_cycles
from croissant_lineage.validate.report import Issue

__all__ = ["check_family"]


def check_family(doc: Any, path: Path, where: str) -> list[Issue]:
    """Check a parsed family spec read from ``path``.

    Returns:
        Issues ``CLV303``, ``CLV501``, ``CLV502``, ``CLV503``.
    """
    out: list[Issue] = []
    iris = _iri_problems(doc)
    out += [issue("CLV503", p, f"{where}#{pointer(['datasets'])}") for p in iris]
    derivs = doc.get("derivations", []) if isinstance(doc, dict) else []
    pairs = [(d["child"], d["parent"]) for d in derivs if isinstance(derivs, list) and isinstance(d, dict)
             and isinstance(d.get("child"), str) and isinstance(d.get("parent"), str)]
    cycles = check_cycles(pairs, where, what="dataset")
    out += cycles
    try:
        parse_family(doc, path)
    except SpecError as exc:
        if not (cycles and "cycle" in exc.message) and exc.message not in iris:
            out.append(issue("CLV501", exc.message, f"{where}#"))
    datasets = doc.get("datasets", []) if isinstance(doc, dict) else []
    for n, d in enumerate(datasets if isinstance(datasets, list) else []):
        desc = d.get("descriptor") if isinstance(d, dict) else None
        if isinstance(desc, str) and not (path.parent / desc).is_file():
            out.append(issue("CLV502", f"dataset {d.get('name')!r}: descriptor {desc} not found",
                             f"{where}#{pointer(['datasets', n, 'descriptor'])}"))
    return out


def _iri_problems(doc: Any) -> list[str]:
    """:func:`~croissant_lineage.family.spec.iri_problems` of the datasets that name a string IRI."""
    datasets = doc.get("datasets", []) if isinstance(doc, dict) else []
    specs = [
        DatasetSpec(name=str(d.get("name")), iri=d["iri"], descriptor=Path(d["descriptor"]) if d.get("descriptor") else None)
        for d in (datasets if isinstance(datasets, list) else [])
        if isinstance(d, dict) and isinstance(d.get("iri"), str)
    ]
    return iri_problems(specs)
