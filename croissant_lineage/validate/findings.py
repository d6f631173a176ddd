"""Checks of findings files against ``schemas/finding.schema.json`` and the lineage.

* ``CLV401``: an entry breaks the schema (or a rule of :class:`~croissant_lineage.findings.model.Finding`);
* ``CLV402``: a status the schema does not know;
* ``CLV403``: a finding names an item (``item``, ``related``, ``source.item``) that is not
  in the lineage given alongside (skipped when no lineage is given);
* ``CLV404``: *stale*: a ``confirmed_fixed`` correction that a descendant which inherited
  the questioned part (as :func:`croissant_lineage.findings.routing.route` decides) still does
  not carry;
* ``CLV405``: an id defined twice, or a status update for an id not defined before;
* ``CLV406``: an ``option_index`` beyond the item's options.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jsonschema.exceptions import best_match

from croissant_lineage.croissant.jsonld import pointer
from croissant_lineage.errors import FindingsError, LineageError
from croissant_lineage.findings.files import dates_to_text, entry_validator
from croissant_lineage.findings.model import Finding
from croissant_lineage.findings.routing import route
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.lineage.paths import follow_option
from croissant_lineage.linking.normalize import normalize_option, normalize_stem
from croissant_lineage.validate.codes import issue
from croissant_lineage.validate.lineage import ItemIndex
from croissant_lineage.validate.report import Issue

__all__ = ["StaleCopy", "check_findings", "stale_descendants"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class StaleCopy:
    """A descendant that inherited what a confirmed fix corrected, and does not carry the fix.

    Attributes:
        finding: The finding's id.
        item: The item the finding is on.
        descendant: The descendant's ref.
        depth: Edges between them.
        target: ``key``, ``option`` or ``stem``.
        certainty: ``certain`` or ``probable`` (a fuzzy or ambiguous link on the way).
    """

    finding: str
    item: str
    descendant: str
    depth: int
    target: str
    certainty: str


def stale_descendants(finding: Finding, graph: LineageGraph) -> list[StaleCopy]:
    """Descendants of a ``confirmed_fixed`` finding's item that inherited the questioned
    part and still do not carry the correction (``proposed``).

    Which descendants inherited the part is :func:`croissant_lineage.findings.routing.route`'s
    call (status ``inherited``); whether one carries the correction is read from its
    item: for a key, its key letter against the corrected option followed down the
    edges' ``option_map``; for an option or a stem, its text (translations are not
    compared).

    Returns:
        Nearest first; empty when the finding is not a confirmed fix with a proposed
        correction of the key, an option or the stem, or its item is not in ``graph``.
    """
    if finding.status != "confirmed_fixed" or not finding.proposed or finding.target not in ("key", "option", "stem"):
        return []
    if finding.item not in graph:
        return []
    try:
        root = graph.item(finding.item)
        queue = route(graph, finding)
    except (LineageError, KeyError):
        return []
    paths = {rel.ref: rel for rel in graph.descendants(finding.item)}
    want = normalize_option(finding.proposed)
    fixed_index = next((i for i, o in enumerate(root.options) if normalize_option(o) == want), None)
    out: list[StaleCopy] = []
    for row in queue.rows:
        rel = paths.get(row.ref)
        if row.relation != "descendant" or row.status != "inherited" or rel is None:
            continue
        try:
            d = graph.item(row.ref)
        except (LineageError, KeyError):  # an edge endpoint without an item row is CLV301's business
            continue
        translated = any(e.activity == "translation" for e in rel.path)
        if finding.target == "key":
            if fixed_index is not None:
                j = follow_option(rel.path, fixed_index)
                carries = j is not None and d.key is not None and _LETTERS.find(d.key) == j
            elif translated:
                continue
            else:
                carries = normalize_option(d.key_text) == want
        elif finding.target == "option":
            j = follow_option(rel.path, finding.option_index)
            if translated or j is None or j >= len(d.options):
                continue
            carries = normalize_option(d.options[j]) == want
        else:  # stem
            if translated:
                continue
            carries = normalize_stem(d.stem) == normalize_stem(finding.proposed)
        if not carries:
            out.append(StaleCopy(finding.id, finding.item, row.ref, rel.depth, finding.target, row.certainty))
    return sorted(out, key=lambda s: (s.depth, s.descendant))


def _schema_issues(entry: Any, where: str) -> list[Issue]:
    errors = list(entry_validator().iter_errors(entry))
    if not errors:
        return []
    out: list[Issue] = []
    rest = []
    for err in errors:
        leaves = [err, *(err.context or [])]
        status_errs = [e for e in leaves if e.validator == "enum" and list(e.absolute_path)[-1:] == ["status"]]
        if status_errs:
            e = status_errs[0]
            out.append(issue("CLV402", f"unknown status {e.instance!r}", f"{where}{pointer(list(e.absolute_path))}"))
        else:
            rest.append(err)
    if rest and not out:
        err = best_match(rest)
        assert err is not None
        out.append(issue("CLV401", err.message[:300], f"{where}{pointer(list(err.absolute_path))}"))
    return out


def _entries(doc: Any) -> tuple[list[Any], tuple[Any, ...]] | None:
    if isinstance(doc, dict) and isinstance(doc.get("findings"), list):
        return doc["findings"], ("findings",)
    if isinstance(doc, list):
        return doc, ()
    return None


def check_findings(doc: Any, where: str, index: ItemIndex) -> list[Issue]:
    """Check a parsed findings document.

    Args:
        doc: ``{"findings": [...]}`` or a bare list (as parsed from JSON or YAML).
        where: The file name.
        index: The items and lineages known to this run (item checks are skipped when it
            holds no items; stale checks when it holds no lineage).

    Returns:
        Issues ``CLV401``-``CLV406``.
    """
    doc = dates_to_text(doc)
    parts = _entries(doc)
    if parts is None:
        return [issue("CLV401", "expected an object with 'findings' or a list of findings", f"{where}#")]
    entries, prefix = parts
    out: list[Issue] = []
    if isinstance(doc, dict):
        extra = sorted(set(doc) - {"$schema", "title", "description", "findings"})
        if extra:
            out.append(issue("CLV401", f"unknown top-level field {extra[0]!r}", f"{where}#/{extra[0]}"))
    findings: dict[str, tuple[Finding, str]] = {}
    for n, entry in enumerate(entries):
        at = f"{where}#{pointer([*prefix, n])}"
        problems = _schema_issues(entry, at)
        if problems:
            out += problems
            continue
        try:
            if "item" in entry:
                f = Finding.from_dict(entry)
                if f.id in findings:
                    out.append(issue("CLV405", f"id {f.id!r} is already defined at {findings[f.id][1]}", at))
                    continue
                findings[f.id] = (f, at)
            else:
                fid = entry["id"]
                if fid not in findings:
                    out.append(issue("CLV405", f"status update for {fid!r}, which is not defined before it", at))
                    continue
                old, old_at = findings[fid]
                findings[fid] = (old.with_status(entry["status"], date=entry.get("status_date"),
                                                 reason=entry.get("status_reason"),
                                                 evidence=entry.get("evidence", ())), old_at)
        except FindingsError as exc:
            out.append(issue("CLV401", exc.message, at))
    out += _against_lineage([v for v in findings.values()], index)
    return out


def _against_lineage(findings: list[tuple[Finding, str]], index: ItemIndex) -> list[Issue]:
    out: list[Issue] = []
    if index.refs:
        for f, at in findings:
            refs = [("item", f.item), *(("related", r) for r in f.related)]
            if f.source.item:
                refs.append(("source.item", f.source.item))
            for role, ref in refs:
                if ref not in index.refs:
                    out.append(issue("CLV403", f"{role} {ref} of finding {f.id} is not an item of the lineage", at))
    if not index.lineages:
        return out
    graphs = [LineageGraph(lin) for lin in index.lineages]
    for f, at in findings:
        for g in graphs:
            if f.item not in g:
                continue
            if f.option_index is not None:
                try:
                    n_opts = len(g.item(f.item).options)
                except (LineageError, KeyError):
                    n_opts = None
                if n_opts is not None and f.option_index >= n_opts:
                    out.append(issue("CLV406", f"option_index {f.option_index} of finding {f.id}: "
                                     f"{f.item} has {n_opts} options", at))
            for s in stale_descendants(f, g):
                out.append(issue("CLV404", f"finding {f.id} (confirmed_fixed, {s.target}) on {s.item}: "
                                 f"{s.descendant} (depth {s.depth}, {s.certainty}) inherited the {s.target} and does not carry the fix",
                                 at))
    return out
