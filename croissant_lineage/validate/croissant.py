"""What mlcroissant itself reports about a descriptor, as coded issues.

The descriptor is handed to ``mlcroissant.Metadata.from_json``, which runs every
check mlcroissant has; its errors and warnings (and the "@context is not standard"
warning it only logs) become issues ``CLV101``-``CLV108``. Nothing is re-implemented.

That "@context is not standard" warning names every standard term the ``@context`` lacks,
used or not: every official MLCommons example lacks ``equivalentProperty`` or
``samplingRate`` without using it. Only the missing terms the descriptor uses (as a key, a
key's prefix or an ``@type``) are reported (``CLV106``); ``equivalentProperty`` used without
an entry is ``CLV208`` (:mod:`.context`), not reported twice.

mlcroissant never touches the network here: the JSON object is passed in memory (no
URL), and a document whose ``@context`` names a remote URL is not handed over at all
(rdflib would fetch it); :mod:`.context` reports that as ``CLV202``.
"""

from __future__ import annotations

import re
from typing import Any

from croissant_lineage.croissant.jsonld import context_urls, pointer, walk
from croissant_lineage.croissant.mlc import run_mlcroissant
from croissant_lineage.validate.codes import issue
from croissant_lineage.validate.report import Issue

__all__ = ["check_with_mlcroissant"]

_PATTERNS = [
    ("CLV103", re.compile(r"is recommended, but does not exist")),
    ("CLV108", re.compile(r"is mandatory, but does not exist")),
    ("CLV104", re.compile(r"reference to node .* doesn't exist|does not refer to any existing node"
                          r"|Node with uuid=.* does not exist")),
    ("CLV105", re.compile(r"does not specify a valid .*dataType")),
]
_NOT_STANDARD = re.compile(r"`@context` is not standard.*different keys are: (\{.*\})", re.S)
_TERM = re.compile(r"'([^']*)'")
_REPORTED_ELSEWHERE = frozenset({"equivalentProperty"})  # CLV208


def _used_terms(doc: dict[str, Any]) -> set[str]:
    """The terms a descriptor writes: keys, their prefixes, ``@type`` values and their prefixes."""
    used: set[str] = set()
    for _path, node in walk(doc, skip_keys=frozenset({"@context", "data", "examples"})):
        names = [k for k in node if not k.startswith("@")]
        types = node.get("@type")
        names += [t for t in (types if isinstance(types, list) else [types]) if isinstance(t, str)]
        for name in names:
            used.add(name)
            if ":" in name:
                used.add(name.split(":", 1)[0])
    return used


def _missing_used(message: str, doc: dict[str, Any]) -> list[str]:
    """The standard terms mlcroissant says the ``@context`` lacks that ``doc`` uses."""
    m = _NOT_STANDARD.search(message)
    if not m:
        return []
    missing = set(_TERM.findall(m.group(1))) - _REPORTED_ELSEWHERE
    return sorted(missing & _used_terms(doc)) if missing else []


def _id_pointers(doc: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for path, node in walk(doc, skip_keys=frozenset({"data", "examples"})):
        for key in ("@id", "name"):
            value = node.get(key)
            if isinstance(value, str) and len(node) > 1 and value not in out:
                out[value] = pointer(path)
    return out


def _code_for(message: str, default: str) -> str:
    for code, rx in _PATTERNS:
        if rx.search(message):
            return code
    return default


def check_with_mlcroissant(doc: dict[str, Any], where: str) -> list[Issue]:
    """Run mlcroissant's own validation on a descriptor and code what it reports.

    Args:
        doc: The descriptor JSON object (not modified).
        where: The file name issues are reported against.

    Returns:
        Issues ``CLV101``-``CLV108``; each ``where`` is the JSON pointer of the node
        mlcroissant names when it can be found, else the file with mlcroissant's own
        ``Metadata(x) > RecordSet(y)`` context in the message. Empty when the
        ``@context`` is remote (not run; see ``CLV202``).
    """
    if context_urls(doc):  # at any level; reported as CLV202
        return []
    run = run_mlcroissant(doc)
    crashed = None
    if run.crash is not None:
        crashed = f"{type(run.crash).__name__}: {run.crash}".splitlines()[0][:300]
    pointers = _id_pointers(doc)
    out: list[Issue] = []
    for default, found in (("CLV101", run.errors), ("CLV102", run.warnings)):
        for message, node in found:
            context = ""
            loc: str | None = None
            get = getattr(node, "get_issue_context", None)
            if callable(get):
                context = str(get())
            uuid = getattr(node, "uuid", None) or getattr(node, "id", None)
            if type(node).__name__ == "Metadata":
                loc = ""
            elif isinstance(uuid, str) and uuid in pointers:
                loc = pointers[uuid]
            text = f"{message} [{context}]" if context and loc is None else message
            out.append(issue(_code_for(message, default), text, f"{where}#{loc or ''}"))
    for message in run.logs:
        terms = _missing_used(message, doc)
        if terms:
            out.append(issue("CLV106", f"@context lacks standard Croissant terms that the descriptor uses: "
                             f"{', '.join(terms)}", f"{where}#/@context"))
    if crashed and not any(i.severity == "error" for i in out):
        out.append(issue("CLV107", f"mlcroissant failed: {crashed}", f"{where}#"))
    return sorted(set(out))
