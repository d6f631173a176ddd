"""The one wrapper around mlcroissant: run its validation on a descriptor, offline.

``mlcroissant.Metadata.from_json`` runs every check mlcroissant has; :func:`run_mlcroissant`
hands it a copy of the document (in memory, no URL), captures its issues, the warnings it
only logs (absl and the root logger; nothing is printed) and any crash, and returns them
as data. Callers decide what a crash or a log line means: :func:`mlcroissant_issues`
counts them (enrichment's before/after check); :mod:`croissant_lineage.validate.croissant`
turns them into coded issues.

mlcroissant 1.1.1 finds a node by its id with a scan of its whole structure graph
(``node_by_uuid``), once per Field whose dataType comes from its source and once per join:
quadratic in the number of nodes (20,001 RecordSets would take hours). While it runs here,
:func:`_indexed_node_lookup` answers the same question from an index of the graph, built
once per graph and rebuilt when the graph grows: the same node (the first with that id, in
graph order), in linear time overall.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from croissant_lineage.croissant.jsonld import check_contexts, inline_contexts, offline_documents

__all__ = ["MlcroissantIssues", "MlcroissantRun", "mlcroissant_issues", "run_mlcroissant"]


@dataclass(frozen=True)
class MlcroissantRun:
    """What one mlcroissant validation reported.

    Attributes:
        errors: (message, node) pairs of its errors, as mlcroissant keeps them.
        warnings: (message, node) pairs of its warnings.
        error_messages: Its errors as it formats them (with their node context), sorted.
        warning_messages: Its warnings, likewise.
        logs: Messages it logged at WARNING or above, in order.
        crash: The exception it raised on an input it does not expect, else None.
    """

    errors: list[tuple[str, Any]]
    warnings: list[tuple[str, Any]]
    error_messages: list[str]
    warning_messages: list[str]
    logs: list[str]
    crash: Exception | None


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _captured_logs() -> Iterator[_Capture]:
    """Capture mlcroissant's absl/root log warnings instead of printing them."""
    handler = _Capture()
    loggers = [logging.getLogger("absl"), logging.getLogger()]
    saved = [(lg, lg.propagate, list(lg.handlers), lg.level) for lg in loggers]
    try:
        for lg in loggers:
            lg.handlers = [handler]
            # Whatever level the application set, the warnings are what we need here.
            lg.setLevel(logging.WARNING)
            if lg.name == "absl":
                lg.propagate = False
        yield handler
    finally:
        for lg, propagate, handlers, level in saved:
            lg.handlers = handlers
            lg.propagate = propagate
            lg.setLevel(level)


#: The mlcroissant modules that call ``node_by_uuid`` by a name of their own.
_LOOKUP_MODULES = (
    "mlcroissant._src.structure_graph.base_node",
    "mlcroissant._src.structure_graph.nodes.field",
    "mlcroissant._src.structure_graph.nodes.record_set",
    "mlcroissant._src.operation_graph.graph",
)


def _index_lookup(scan: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``node_by_uuid`` answered from an index: {uuid: first node of the graph with it}."""
    indexes: dict[int, tuple[Any, int, dict[Any, Any]]] = {}

    def node_by_uuid(ctx: Any, uuid: Any) -> Any:
        graph = ctx.graph
        size = graph.number_of_nodes()
        held = indexes.get(id(graph))
        if held is None or held[0] is not graph or held[1] != size:
            index: dict[Any, Any] = {}
            try:
                for node in graph.nodes():
                    index.setdefault(node.uuid, node)
            except Exception:  # a node whose id does not compute: mlcroissant's own scan decides
                return scan(ctx, uuid)
            held = (graph, size, index)
            indexes[id(graph)] = held
        return held[2].get(uuid)

    return node_by_uuid


@contextmanager
def _indexed_node_lookup() -> Iterator[None]:
    """Replace mlcroissant's ``node_by_uuid`` (a scan of every node) by an indexed lookup."""
    import importlib

    modules = [importlib.import_module(name) for name in _LOOKUP_MODULES]
    saved = [(m, vars(m)["node_by_uuid"]) for m in modules]
    fast = _index_lookup(saved[0][1])
    try:
        for m in modules:
            vars(m)["node_by_uuid"] = fast
        yield
    finally:
        for m, original in saved:
            vars(m)["node_by_uuid"] = original


def run_mlcroissant(doc: dict[str, Any], *, inline: bool = False) -> MlcroissantRun:
    """Validate a descriptor with mlcroissant, offline.

    Args:
        doc: The descriptor JSON object (not modified).
        inline: Replace bundled ``@context`` URLs by their local copies first (see
            :func:`~croissant_lineage.croissant.jsonld.inline_contexts`). Either way a
            context URL with no bundled copy, at any level, is refused before mlcroissant
            sees the document, and mlcroissant runs under
            :func:`~croissant_lineage.croissant.jsonld.offline_documents` (it loads nothing).

    Returns:
        A :class:`MlcroissantRun`.

    Raises:
        DescriptorError: a context URL has no bundled copy.
    """
    import mlcroissant as mlc

    check_contexts(doc)
    json_ = inline_contexts(copy.deepcopy(doc)) if inline else copy.deepcopy(doc)
    ctx = mlc.Context()
    crash: Exception | None = None
    with _captured_logs() as logs, offline_documents(), _indexed_node_lookup():
        try:
            mlc.Metadata.from_json(ctx=ctx, json_=json_)
        except mlc.ValidationError:
            pass  # the issues are in ctx.issues
        except Exception as exc:  # mlcroissant fails on inputs it does not expect
            crash = exc
    return MlcroissantRun(
        list(ctx.issues._errors),
        list(ctx.issues._warnings),
        sorted(ctx.issues.errors),
        sorted(ctx.issues.warnings),
        logs.messages,
        crash,
    )


@dataclass(frozen=True)
class MlcroissantIssues:
    """mlcroissant's validation result for one document.

    Attributes:
        errors: Number of errors.
        warnings: Number of warnings.
        messages: The messages, errors first, each sorted.
    """

    errors: int
    warnings: int
    messages: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.errors} errors, {self.warnings} warnings"


def mlcroissant_issues(doc: dict[str, Any]) -> MlcroissantIssues:
    """Validate a descriptor with mlcroissant, offline, and count its issues.

    Remote ``@context`` URLs are replaced by local copies first (mlcroissant would
    fetch them); mlcroissant reads no data file to validate. When mlcroissant itself
    fails on the document, that counts as one error (its message says so).
    """
    run = run_mlcroissant(doc, inline=True)
    errors = list(run.error_messages)
    if run.crash is not None:
        # mlcroissant 1.1.1 crashes on some valid JSON-LD (e.g. a name without a
        # default @language): that is a failed validation, reported as one error.
        errors.append(f"mlcroissant could not read the descriptor: {type(run.crash).__name__}: {run.crash}")
    warnings = run.warning_messages
    return MlcroissantIssues(len(errors), len(warnings), tuple(errors + warnings))
