"""``validate(paths)``: detect what each path is, run the checks for its kind, report.

Cross-file checks use everything passed to one run: findings are checked against the
items and edges of the lineage folders given alongside, a dataset card against the
descriptor beside it, and a descriptor's local data files against the folder they resolve
in (the descriptor's own, or the data folder when a family spec of the run says so; see
:mod:`.files`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from croissant_lineage.croissant.descriptor import Descriptor, check_croissant
from croissant_lineage.errors import InputError, LineageError, SizeLimitError
from croissant_lineage.validate.codes import expand_selection, issue
from croissant_lineage.validate.context import check_context
from croissant_lineage.validate.croissant import check_with_mlcroissant
from croissant_lineage.validate.detect import Target, detect, expand_folder
from croissant_lineage.validate.files import FileCheck, check_files, file_checks
from croissant_lineage.validate.references import check_references
from croissant_lineage.validate.report import Checked, Issue, ValidationReport
from croissant_lineage.validate.structure import check_structure

if TYPE_CHECKING:
    from croissant_lineage.validate.lineage import ItemIndex

__all__ = ["validate"]

_DESCRIPTOR_NAMES = ("croissant.json", "metadata.json")


def _family_path(family: str | Path) -> Path:
    from croissant_lineage.family.spec import builtin_family_path

    path = builtin_family_path(str(family)) or Path(family)
    if not path.is_file():
        raise InputError("family spec not found", path=path, hint="give a spec file or a built-in family name")
    return path


def _name(path: Path) -> str:
    return path.as_posix()


def _collect(paths: Sequence[str | Path]) -> tuple[list[Target], list[Issue]]:
    targets: list[Target] = []
    issues: list[Issue] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise InputError("not found", path=p, hint="give existing files or folders")
        t = detect(p)
        if p.is_dir() and t.kind == "unknown":
            inner = expand_folder(p)
            if not inner:
                issues.append(issue("CLV003", "no descriptor, lineage, family spec, findings file or dataset card here", _name(p)))
            targets += inner
        else:
            targets.append(t)
    # One target per path, first occurrence wins (a file given twice is checked once).
    seen: set[Path] = set()
    unique = []
    for t in targets:
        key = t.path.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(t)
    return unique, issues


def _findings_doc(t: Target) -> Any:
    if t.path.suffix.lower() != ".parquet":
        return t.doc
    import pyarrow.parquet as pq

    from croissant_lineage.croissant.limits import check_cells, check_parquet
    from croissant_lineage.findings.parquet import findings_entries

    check_parquet(t.path)
    return {"findings": findings_entries(check_cells(pq.read_table(t.path), t.path))}


def _check_table(t: Target, where: str, index: ItemIndex, edges: dict[str, list[tuple[str, str]]]) -> list[Issue]:
    """Check one lineage table; an edge table's (child, parent) pairs go to ``edges``, for
    the cycle check across every edge table of the run."""
    from croissant_lineage.validate.lineage import (
        check_edges,
        check_items,
        edge_pairs,
        read_lineage_table,
    )

    assert t.table is not None
    table, problems = read_lineage_table(t.path, t.table, where)
    if table is None:
        return problems
    if t.table == "items.parquet":
        return problems + check_items(table, where)
    if t.table == "edges.parquet":
        edges[where] = edge_pairs(table)
        return problems + check_edges(table, where, index if index.refs else None, all_datasets=False, cycles=False)
    if t.table == "unmatched.parquet":
        scores = table.column("best_score").to_pylist()
        return problems + [issue("CLV304", f"best_score {s} is outside 0-100", f"{where}#row={n}")
                           for n, s in enumerate(scores) if s is not None and not 0 <= s <= 100]
    return problems


def _descriptor_issues(t: Target, where: str, files: FileCheck | None) -> list[Issue]:
    out = check_context(t.doc, where)
    out += check_with_mlcroissant(t.doc, where)
    out += check_structure(t.doc, where)
    out += check_references(Descriptor(t.path, t.doc, t.path.parent), where)
    if files is not None:
        out += check_files(t.doc, where, files)
    return out


def _card_descriptor(card: Path, descriptors: dict[Path, Target]) -> Descriptor | None:
    folder = card.parent.resolve()
    for name in _DESCRIPTOR_NAMES:
        p = folder / name
        if p in descriptors:
            d = descriptors[p]
            return Descriptor(d.path, d.doc, d.path.parent)
    here = [d for p, d in descriptors.items() if p.parent == folder]
    if len(here) == 1:
        return Descriptor(here[0].path, here[0].doc, here[0].path.parent)
    for name in _DESCRIPTOR_NAMES:
        t = detect(folder / name) if (folder / name).is_file() else None
        if t is not None and t.kind in ("descriptor", "enriched-descriptor"):
            return Descriptor(t.path, t.doc, t.path.parent)
    return None


#: Kinds whose checks read item tables (findings are checked against the items of the run).
_ITEM_KINDS = ("lineage", "lineage-table", "findings")


def _item_index(targets: list[Target]) -> tuple[ItemIndex | None, list[Issue]]:
    """The items of the run's lineage folders and items tables (checked on the way), or None
    when no target of the run reads items (then no lineage table machinery is loaded)."""
    if not any(t.kind in _ITEM_KINDS for t in targets):
        return None, []
    from croissant_lineage.validate.lineage import (
        ItemIndex,
        check_items,
        check_lineage_folder,
        read_lineage_table,
    )

    index = ItemIndex()
    out: list[Issue] = []
    # Items first: findings and standalone edge tables are checked against them.
    order = {"lineage": 0, "lineage-table": 1}
    for t in sorted(targets, key=lambda t: order.get(t.kind, 2)):
        if t.kind == "lineage":
            out += check_lineage_folder(t.path, _name(t.path), index)
        elif t.kind == "lineage-table" and t.table == "items.parquet":
            table, problems = read_lineage_table(t.path, "items.parquet", _name(t.path))
            out += problems
            if table is not None:
                out += check_items(table, _name(t.path))
                index.add(table)
    return index, out


def _findings_issues(t: Target, where: str, index: ItemIndex) -> list[Issue]:
    import pyarrow as pa

    try:
        doc = _findings_doc(t)
    except SizeLimitError as exc:
        return [issue("CLV001", f"findings table does not read: {exc.message}"[:300], where)]
    except (pa.ArrowInvalid, OSError, KeyError, TypeError, ValueError) as exc:
        return [issue("CLV001", f"findings table does not read: {exc}"[:300], where)]
    # Findings files only: a plain descriptor loads no routing or lineage graph.
    from croissant_lineage.validate.findings import check_findings

    return check_findings(doc, where, index)


def _card_issues(t: Target, where: str, descriptors: dict[Path, Target]) -> list[Issue]:
    try:
        text = t.path.read_text("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return [issue("CLV001", f"cannot read: {exc}"[:300], where)]
    from croissant_lineage.validate.card import check_card

    return check_card(t.path, text, where, _card_descriptor(t.path, descriptors))


def _dataset_cycles(t: Target, where: str) -> list[Issue]:
    """``CLV303`` between the datasets of a lineage folder's ``family.json`` given alone."""
    from croissant_lineage.validate.lineage import check_cycles

    derivs = t.doc.get("derivations", [])
    pairs = [(d["child"], d["parent"]) for d in derivs if isinstance(derivs, list) and isinstance(d, dict)
             and isinstance(d.get("child"), str) and isinstance(d.get("parent"), str)]
    return check_cycles(pairs, where, what="dataset")


def _run(targets: list[Target], files: dict[Path, FileCheck]) -> list[Issue]:
    index, out = _item_index(targets)
    descriptors = {t.path.resolve(): t for t in targets if t.kind in ("descriptor", "enriched-descriptor")}
    edges: dict[str, list[tuple[str, str]]] = {}  # standalone edge tables, checked for cycles together
    for t in targets:
        where = _name(t.path)
        if t.problem:
            out.append(issue("CLV001", t.problem, where))
        elif t.kind == "unknown":
            out.append(issue("CLV002", "not a Croissant descriptor, lineage folder or table, family spec, "
                             "findings file or dataset card", where))
        elif t.kind in ("descriptor", "enriched-descriptor"):
            try:
                check_croissant(t.doc, t.path, contexts=False)  # remote contexts: CLV202
            except LineageError as exc:
                out.append(issue("CLV107", exc.message, where))
                continue
            out += _descriptor_issues(t, where, files.get(t.path.resolve()))
        elif t.kind == "lineage-table" and t.table != "items.parquet":
            assert index is not None  # a lineage table makes the run read items
            out += _check_table(t, where, index, edges)
        elif t.kind == "lineage-family":
            out += _dataset_cycles(t, where)
        elif t.kind == "family":
            from croissant_lineage.validate.family import check_family

            out += check_family(t.doc, t.path, where)
        elif t.kind == "findings":
            assert index is not None  # a findings file makes the run read items
            out += _findings_issues(t, where, index)
        elif t.kind == "card":
            out += _card_issues(t, where, descriptors)
    if edges:
        from croissant_lineage.validate.lineage import check_cycles_across

        out += check_cycles_across(edges)
    return out


def _select(issues: Iterable[Issue], select: set[str] | None, ignore: set[str] | None, strict: bool) -> list[Issue]:
    out = []
    for i in issues:
        if select is not None and i.code not in select:
            continue
        if ignore and i.code in ignore:
            continue
        out.append(Issue(i.code, "error", i.message, i.where) if strict else i)
    return out


def _cap(issues: list[Issue], limit: int | None) -> list[Issue]:
    if limit is None:
        return issues
    counts: dict[tuple[str, str], int] = {}
    out: list[Issue] = []
    for i in issues:
        key = (i.code, i.where.split("#", 1)[0])
        counts[key] = counts.get(key, 0) + 1
        if counts[key] <= limit:
            out.append(i)
    for (code, file), n in counts.items():
        if n > limit:
            sev = next(i.severity for i in out if i.code == code and i.where.split("#", 1)[0] == file)
            out.append(Issue(code, sev, f"{n - limit} more {code} issue(s) in this file not listed", file))
    return out


def validate(
    paths: str | Path | Sequence[str | Path],
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    strict: bool = False,
    max_per_code: int | None = 50,
    metadata_only: bool = False,
    data_dir: str | Path | None = None,
    family: str | Path | None = None,
) -> ValidationReport:
    """Validate descriptors, lineage, family specs, findings files and dataset cards offline.

    Args:
        paths: Files or folders. A folder is a lineage folder when it holds
            ``edges.parquet`` with ``items.parquet`` or ``family.json``; any other folder
            is searched for the kinds above (hidden folders skipped).
        select: ValidationReport only these codes (or code prefixes such as ``CLV2``).
        ignore: Do not report these codes (or prefixes).
        strict: Count warnings as errors.
        max_per_code: At most this many issues of one code per file, then one issue
            saying how many more there are (None: all).
        metadata_only: Do not check that a descriptor's local FileObjects and FileSets
            match files (``CLV701``): for a descriptor checked without its data.
        data_dir: The folder that descriptors a family spec of this run marks
            ``files_relative_to_data_dir`` resolve their files against; without it their
            files are not checked.
        family: A family spec (built-in name or file) added to the run: it is validated,
            and the descriptors it names, and enriched descriptors of its datasets, resolve
            their files where it says (e.g. ``enriched/`` written apart from the data).

    Returns:
        A :class:`ValidationReport`: ``valid`` is False when an error remains after selection.

    Raises:
        InputError: a path does not exist, ``select``/``ignore`` names no code, or
            ``family`` is neither a built-in family nor a file.
    """
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if family is not None:
        items.append(_family_path(family))
    if not items:
        raise InputError("nothing to validate", hint="give at least one file or folder")
    sel = expand_selection(select)
    ign = expand_selection(ignore)
    targets, issues = _collect(items)
    files = file_checks(targets, data_dir=None if data_dir is None else Path(data_dir), exists=not metadata_only)
    issues += _run(targets, files)
    unique = list(dict.fromkeys(issues))
    kept = _cap(_select(unique, sel, ign, strict), max_per_code)
    order = {_name(t.path): n for n, t in enumerate(targets)}
    kept.sort(key=lambda i: order.get(i.where.split("#", 1)[0], len(order)))
    return ValidationReport(tuple(kept), tuple(Checked(_name(t.path), t.kind) for t in targets))
