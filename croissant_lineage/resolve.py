"""An item's family from enriched descriptors alone.

Whoever holds a family's enriched descriptors (written by
:func:`croissant_lineage.enrich.family.enrich_family`) and the Parquet files beside them can
resolve any item without this library's lineage folder and without the benchmark data:
:func:`resolve` reads the descriptors' ``cl:familyDataset`` nodes (datasets and
dataset-level derivations) and their ``items`` / ``lineage`` / ``findings`` files
(with pyarrow, not mlcroissant: it is much faster), rebuilds the
:class:`~croissant_lineage.lineage.model.Lineage` they describe, and answers with the same
:class:`~croissant_lineage.lineage.graph.Relatives` that :func:`croissant_lineage.lineage.graph.relatives_of`
gives on the original lineage, plus the findings on the item's relatives.

:func:`resolve` reads the rows of the item's family alone: the descriptors' reference
indexes (``<stem>.index.parquet``, :mod:`croissant_lineage.enrich.index`) give the rows of
the item's connected component (edges and duplicate groups, direction ignored), and only
the row groups holding them are decoded; the findings files are read whole (they are
small). The open readers are kept for the last few sets of files (keyed by the files'
sizes and modification times), so a later query reads only the row groups it has not
decoded yet. Descriptors enriched before the indexes existed are loaded whole, once.
:class:`Resolver` loads every file whole (for a program that walks the whole family).
"""

from __future__ import annotations

import os
import re
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage._io import read_json, resolve_inside
from croissant_lineage.croissant.descriptor import Descriptor, as_list
from croissant_lineage.croissant.namespaces import CL_NS, MARK, PROV_NS
from croissant_lineage.enrich.files import FILE_KINDS, WRITTEN_KINDS, FileTables, read_tables
from croissant_lineage.enrich.index import INDEX_KIND, EnrichedRows
from croissant_lineage.errors import InputError
from croissant_lineage.findings.parquet import findings_from_table
from croissant_lineage.lineage.graph import LineageGraph, Relatives, relatives_of
from croissant_lineage.lineage.info import FamilyInfo
from croissant_lineage.lineage.model import Lineage, release_memory
from croissant_lineage.lineage.schema import (
    DUPLICATES_SCHEMA,
    EDGES_SCHEMA,
    ITEMS_BASE_SCHEMA,
    ITEMS_SCHEMA,
    conform,
    split_ref,
)

__all__ = ["EnrichedSource", "Resolver", "find_enriched", "resolve"]

_FILE_IDS = {f"cl-{kind}-file": kind for kind in WRITTEN_KINDS}

#: Columns of the enriched files that :func:`_lineage` does not use (IRIs and joined refs:
#: a fifth of the files' bytes), left unread.
_UNREAD = ("ref", "iri", "child_iri", "parent_iri")


def _get(node: Mapping[str, Any], key: str) -> Any:
    """A property by CURIE or full IRI (enrichment uses the IRI when the CURIE is taken)."""
    if key in node:
        return node[key]
    prefix, _, rest = key.partition(":")
    full = {"prov": PROV_NS, "cl": CL_NS}.get(prefix)
    return node.get(full + rest) if full else None


def _ours(node: Any) -> bool:
    return isinstance(node, dict) and node.get("@index") == MARK


@dataclass(frozen=True)
class EnrichedSource:
    """One enriched descriptor and what it contributes.

    Attributes:
        path: The descriptor file.
        datasets: Its ``cl:familyDataset`` nodes (JSON-LD, as written).
        files: File kind -> data file beside it.
        family: The family name the enrichment recorded, if any.
    """

    path: Path
    datasets: list[dict[str, Any]]
    files: dict[str, Path]
    family: str | None


def _source(path: Path) -> EnrichedSource | None:
    doc = read_json(path)
    if not isinstance(doc, dict):
        return None
    datasets = [n for n in as_list(_get(doc, "cl:familyDataset")) if _ours(n)]
    if not datasets:
        return None
    files: dict[str, Path] = {}
    for node in Descriptor(path, doc, path.parent).distribution_nodes(full_iri=True):
        if _ours(node) and node.get("@id") in _FILE_IDS and isinstance(node.get("contentUrl"), str):
            files[_FILE_IDS[node["@id"]]] = resolve_inside(path.parent, node["contentUrl"])
    family = None
    for act in as_list(_get(doc, "prov:wasGeneratedBy")):
        for used in as_list(_get(act, "prov:used")) if _ours(act) else []:
            if isinstance(used, dict) and "cl:Lineage" in as_list(used.get("@type")):
                family = _v(used, "sc:name")
    return EnrichedSource(path, datasets, files, family)


def _json_files(paths: Sequence[str | Path]) -> list[Path]:
    """The files named, and the ``*.json`` files (sorted) in the folders named.

    Raises:
        InputError: a path is neither a file nor a folder.
    """
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(p.glob("*.json")))
        elif p.is_file():
            files.append(p)
        else:
            raise InputError("not found", path=p)
    return files


def find_enriched(descriptors: str | Path | Sequence[str | Path]) -> list[EnrichedSource]:
    """The enriched descriptors among files and folders (``*.json`` in a folder), sorted.

    Files that are not descriptors enriched by :func:`~croissant_lineage.enrich.family.enrich_family`
    are skipped.

    Raises:
        InputError: a path is missing, or nothing enriched was found.
    """
    paths = [descriptors] if isinstance(descriptors, (str, Path)) else list(descriptors)
    sources = [s for s in (_source(f) for f in _json_files(paths)) if s is not None]
    if not sources:
        raise InputError(
            "no enriched descriptor found",
            path=str(paths[0]) if len(paths) == 1 else None,
            hint="give the output folder of 'croissant-lineage enrich --family'",
        )
    return sources


def _unwrap(value: Any) -> Any:
    """The plain value of a JSON-LD value object (or list of them); other values as they are."""
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    if isinstance(value, dict) and "@value" in value:
        return value["@value"]
    return value


def _v(node: Mapping[str, Any], key: str, default: Any = None) -> Any:
    return _unwrap(node[key]) if key in node else default


def _derivations(node: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(derivations with this dataset as child, documented derivations from it)."""
    name = _v(node, "sc:name")
    kinds = {a.get("@id"): _v(a, "cl:activityKind") for a in as_list(_get(node, "prov:wasGeneratedBy"))}
    up = []
    for q in as_list(_get(node, "prov:qualifiedDerivation")):
        entity = _get(q, "prov:entity") or {}
        activity = _get(q, "prov:hadActivity") or {}
        up.append(
            {
                "child": name,
                "parent": _v(entity, "sc:name"),
                "activity": kinds.get(activity.get("@id")),
                "coverage": _v(q, "cl:coverage"),
                "languages": _v(q, "cl:languageCount"),
                "method": _v(q, "cl:linkMethod"),
                "threshold": _v(q, "cl:threshold"),
                "note": _v(q, "sc:description", ""),
            }
        )
    down = []
    for d in as_list(node.get("cl:documentedDerivation")):
        down.append(
            {
                "child": _v(d.get("cl:derivative") or {}, "sc:name"),
                "parent": name,
                "activity": _v(d, "cl:activityKind"),
                "coverage": "documented",
                "languages": _v(d, "cl:languageCount"),
                "method": None,
                "threshold": None,
                "note": _v(d, "sc:description", ""),
            }
        )
    return up, down


def _family(sources: Sequence[EnrichedSource]) -> FamilyInfo:
    datasets: dict[str, dict[str, Any]] = {}
    derivations: list[dict[str, Any]] = []
    for src in sources:
        for node in src.datasets:
            name = _v(node, "sc:name")
            datasets.setdefault(
                name,
                {
                    "name": name,
                    "iri": node["@id"],
                    "title": _v(node, "cl:title", ""),
                    "date": _v(node, "cl:date"),
                    "languages": list(as_list(_v(node, "cl:languages"))),
                    "coverage": _v(node, "cl:coverage", "items"),
                    "note": _v(node, "sc:description", ""),
                },
            )
            up, down = _derivations(node)
            derivations.extend(up)
            derivations.extend(down)
            for d in as_list(node.get("cl:documentedDerivation")):
                child = d.get("cl:derivative") or {}
                child_name = _v(child, "sc:name")
                if child_name and child_name not in datasets:
                    datasets[child_name] = {
                        "name": child_name,
                        "iri": child.get("@id"),
                        "title": "",
                        "date": None,
                        "languages": [],
                        "coverage": "documented",
                        "note": "",
                    }
    names = {s.family for s in sources if s.family}
    return FamilyInfo.from_dict({
        "name": names.pop() if len(names) == 1 else "",
        "title": "",
        "datasets": list(datasets.values()),
        "derivations": derivations,
    })


def _split(refs: pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    """Item refs -> (datasets, items), split at the first ``:``."""
    parts = pc.split_pattern(refs.combine_chunks(), ":", max_splits=1)
    return pc.list_element(parts, 0), pc.list_element(parts, 1)


def _alternative_items(refs: pa.ChunkedArray) -> pa.Array:
    """Lists of item refs -> lists of their items (a null list: an empty one), column-wise."""
    lists = refs.combine_chunks() if refs.num_chunks != 1 else refs.chunk(0)
    flat = pc.list_flatten(lists)
    if flat.null_count or pc.all(pc.match_substring_regex(flat, "^[^:]+:(?s:.)")).as_py() is False:
        # Not every one a ref: split_ref's error, as row by row.
        return pa.array([[split_ref(a)[1] for a in alts] if alts else [] for alts in lists.to_pylist()],
                        pa.list_(pa.string()))
    offsets = np.zeros(len(lists) + 1, np.int32)
    np.cumsum(pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False), out=offsets[1:])
    items = _split(pa.chunked_array([flat], flat.type))[1] if len(flat) else pa.array([], pa.string())
    return pa.ListArray.from_arrays(pa.array(offsets), items)


#: The typed key columns an items file carries beside the key letter.
_KEY_COLUMNS = ("key_kind", "key_text", "key_value", "key_answers")


def _lineage(family: FamilyInfo, tables: Sequence[FileTables]) -> Lineage:
    items = pa.concat_tables([t.items for t in tables]) if tables else FILE_KINDS["items"].empty_table()
    n = items.num_rows
    item_cols = {c: items.column(c) for c in ("dataset", "item", "subject", "stem", "options", "key", "source_file", "source_row")}
    items_t = conform(pa.table({**item_cols, "record": pa.nulls(n, pa.string())}, schema=ITEMS_BASE_SCHEMA), ITEMS_SCHEMA)
    for c in _KEY_COLUMNS:  # (files enriched before these columns leave them null)
        if c in items.column_names:
            items_t = items_t.set_column(items_t.schema.get_field_index(c), items_t.schema.field(c),
                                         items.column(c).cast(items_t.schema.field(c).type))
    dup_mask = items.column("duplicate_group").is_valid()
    dups = items.filter(dup_mask)
    duplicates = pa.table(
        {
            "dataset": dups.column("dataset"),
            "item": dups.column("item"),
            "group": dups.column("duplicate_group"),
            "parent_dataset": dups.column("duplicate_parent_dataset"),
            "parent_item": dups.column("duplicate_parent_item"),
            "size": dups.column("duplicate_size"),
        },
        schema=DUPLICATES_SCHEMA,
    )
    lin = pa.concat_tables([t.lineage for t in tables]) if tables else FILE_KINDS["lineage"].empty_table()
    cds, cis = _split(lin.column("child"))
    pds, pis = _split(lin.column("parent"))
    alternatives = _alternative_items(lin.column("alternatives"))
    edges = pa.table(
        {
            "child_dataset": cds,
            "child_item": cis,
            "parent_dataset": pds,
            "parent_item": pis,
            **{f.name: lin.column(f.name) for f in EDGES_SCHEMA if f.name in lin.column_names and f.name != "alternatives"},
            **{f.name: pa.nulls(lin.num_rows, f.type) for f in list(EDGES_SCHEMA)[4:] if f.name not in lin.column_names},
            "alternatives": alternatives,
        }
    ).select(EDGES_SCHEMA.names).cast(EDGES_SCHEMA)
    return Lineage(family=family, items=items_t, edges=edges, duplicates=duplicates)


def _joined_refs(table: pa.Table, dataset: str, item: str) -> pa.Array:
    """``dataset:item`` of each row (as :func:`~croissant_lineage.lineage.schema.join_ref` writes it)."""
    return pc.binary_join_element_wise(
        table.column(dataset).combine_chunks().cast(pa.string()),
        table.column(item).combine_chunks().cast(pa.string()),
        ":",
    )


def _component_labels(lineage: Lineage) -> tuple[pa.Array, np.ndarray]:
    """The refs joined by an edge or a duplicate group (direction ignored), sorted, and the
    connected component of each as an integer label: over Arrow and SciPy arrays, not a
    Python dictionary of every ref (that cost 0.3 GB for a million items)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    e, d = lineage.edges, lineage.duplicates
    ends = [
        pa.concat_arrays([_joined_refs(e, "child_dataset", "child_item"), _joined_refs(d, "dataset", "item")]),
        pa.concat_arrays([_joined_refs(e, "parent_dataset", "parent_item"), _joined_refs(d, "dataset", "group")]),
    ]
    refs = pc.unique(pa.concat_arrays(ends))
    refs = refs.take(pc.sort_indices(refs))
    if not len(refs):
        return refs, np.zeros(0, np.int64)
    a, b = (pc.index_in(x, value_set=refs).to_numpy(zero_copy_only=False) for x in ends)
    graph = coo_matrix((np.ones(len(a), np.int8), (a, b)), shape=(len(refs), len(refs)))
    return refs, connected_components(graph, directed=False)[1]


def _components(lineage: Lineage) -> dict[str, str]:
    """Item ref -> a representative of its connected component (edges and duplicates,
    direction ignored): its smallest ref, which is left out (a ref not listed is its own),
    as are refs in no edge and no duplicate group."""
    refs, labels = _component_labels(lineage)
    _, first = np.unique(labels, return_index=True)  # refs are sorted: a label's first is its smallest
    names = refs.to_pylist()
    return {names[i]: names[first[lab]] for i, lab in enumerate(labels.tolist()) if first[lab] != i}


def _touched(lineage: Lineage, seeds: Iterable[str]) -> frozenset[str]:
    """The refs that share a connected component (:func:`_components`) with one of ``seeds``,
    and the seeds themselves (a ref in no edge is its own component)."""
    seeds = frozenset(seeds)
    if not seeds:
        return seeds
    refs, labels = _component_labels(lineage)
    at = pc.index_in(pa.array(sorted(seeds), pa.string()), value_set=refs).drop_null()
    hit = labels[at.to_numpy(zero_copy_only=False)]
    return seeds | frozenset(refs.filter(pa.array(np.isin(labels, hit))).to_pylist())


class Resolver:
    """Item families from enriched descriptors, loaded once.

    Attributes:
        sources: The enriched descriptors read.
        lineage: The :class:`~croissant_lineage.lineage.model.Lineage` they describe (items
            without their raw records; no unmatched table).
        graph: Its :class:`~croissant_lineage.lineage.graph.LineageGraph`.
        findings: The findings their findings files hold.
    """

    def __init__(self, sources: Sequence[EnrichedSource]):
        self.sources = list(sources)
        # A fresh pool for what follows: hand back the pages of what the process freed
        # before (a link and enrich in the same process leave ~1.5 GB of them at a million
        # items), so that loading does not add its peak on top of theirs.
        release_memory()
        tables = []
        for s in self.sources:
            tables.append(read_tables(s.files, skip=_UNREAD))
            release_memory()  # the reader's scratch, before the next file's
        self.lineage = _lineage(_family(self.sources), tables)
        self.findings = findings_from_table(pa.concat_tables([t.findings for t in tables])) if tables else []
        del tables  # the files' own columns: the lineage keeps what it needs
        release_memory()
        self.graph = LineageGraph(self.lineage)
        # Every relative routing can reach is in the item's connected component: the refs
        # in a component with a finding (few, next to a family's items).
        self._with_findings = _touched(
            self.lineage, (r for f in self.findings for r in (f.item, f.source.item, *f.related) if r is not None)
        )

    @classmethod
    def load(cls, descriptors: str | Path | Sequence[str | Path]) -> Resolver:
        """Read enriched descriptors (files, or folders of ``*.json``) and their files.

        Raises:
            InputError: nothing enriched found, or a data file missing or malformed.
            UnsafePathError: a data file's URL leaves the descriptor's folder.
        """
        return cls(find_enriched(descriptors))

    def family(self, ref: str) -> Relatives:
        """The family of ``ref``: as :func:`~croissant_lineage.lineage.graph.relatives_of` gives it,
        with ``findings`` the findings on its relatives (``Finding.to_dict()``, file order).

        Raises:
            InputError: the item is not in these descriptors' lineage.
        """
        fam = relatives_of(self.graph, ref)
        # Every relative routing can reach is in the item's connected component: skip the
        # walk for the (many) components no finding touches.
        if ref not in self._with_findings:
            return fam
        # (imported here: routing's imports, only when a finding may apply)
        from croissant_lineage.findings.routing import relevant_findings

        found = relevant_findings(self.graph, ref, self.findings)
        return replace(fam, findings=tuple(f.to_dict() for f in found))


def _stamp(paths: Iterable[Path]) -> tuple[tuple[str, int, int], ...]:
    """Each file's absolute path (symbolic links kept: resolving them cost more than a
    warm query), modification time and size."""
    out = []
    for p in paths:
        st = os.stat(p)
        out.append((os.path.abspath(p), st.st_mtime_ns, st.st_size))
    return tuple(out)


class _FamilyReader:
    """Answers read from the rows of the item's family alone, through each descriptor's
    reference index (:class:`~croissant_lineage.enrich.index.EnrichedRows`): what
    :meth:`Resolver.family` of the whole files answers."""

    def __init__(self, sources: Sequence[EnrichedSource]):
        self.sources = list(sources)
        self.info = _family(self.sources)
        items, lineage = (pa.schema([f for f in FILE_KINDS[k] if f.name not in _UNREAD]) for k in ("items", "lineage"))
        try:
            self._rows = [EnrichedRows(s.files, items, lineage) for s in self.sources]
        except FileNotFoundError as exc:
            raise InputError("lineage file missing beside its descriptor", path=exc.filename) from None
        except (pa.ArrowInvalid, OSError) as exc:
            raise InputError(f"not a croissant-lineage file: {exc}") from None
        tables = [read_tables({k: p for k, p in s.files.items() if k == "findings"}, skip=_UNREAD)
                  for s in self.sources]
        self.findings = findings_from_table(pa.concat_tables([t.findings for t in tables])) if tables else []
        self._no_findings = FILE_KINDS["findings"].empty_table()
        self._finding_refs = frozenset(
            r for f in self.findings for r in (f.item, f.source.item, *f.related) if r is not None
        )

    def _component(self, ref: str) -> tuple[frozenset[str], list[tuple[set[int], set[int]]]]:
        """The refs of ``ref``'s connected component, and per descriptor the rows of its items
        and lineage files that hold them (one step of edges and groups at a time)."""
        rows: list[tuple[set[int], set[int]]] = [(set(), set()) for _ in self._rows]
        members, frontier = {ref}, [ref]
        while frontier:
            found: set[str] = set()
            for (items, edges), reader in zip(rows, self._rows, strict=True):
                for entries in reader.lookup(frontier).values():
                    for kind, row, other in entries:
                        (items if kind in (0, 3) else edges).add(row)
                        found.add(other)
            frontier = sorted(found - members)
            members |= found
        return frozenset(members), rows

    def family(self, ref: str) -> Relatives:
        members, rows = self._component(ref)
        tables = [FileTables(reader.items(i), reader.lineage(e), self._no_findings)
                  for reader, (i, e) in zip(self._rows, rows, strict=True) if i or e]
        graph = LineageGraph(_lineage(self.info, tables))
        fam = relatives_of(graph, ref)
        if members.isdisjoint(self._finding_refs):  # (as Resolver.family: no finding in its component)
            return fam
        from croissant_lineage.findings.routing import relevant_findings

        found = relevant_findings(graph, ref, self.findings)
        return replace(fam, findings=tuple(f.to_dict() for f in found))


def _reader(paths: Sequence[Path]) -> _FamilyReader | Resolver:
    """The family reader of enriched descriptors whose files all have an index; the whole
    files' :class:`Resolver` otherwise (descriptors enriched before the indexes)."""
    sources = find_enriched(paths)
    if all(INDEX_KIND in s.files for s in sources):
        return _FamilyReader(sources)
    return Resolver(sources)


#: The readers of the last few sets of files, by their stamp (:func:`_stamp`).
_READERS: OrderedDict[tuple[tuple[str, int, int], ...], _FamilyReader | Resolver] = OrderedDict()
_KEEP = 4


def _cached(stamp: tuple[tuple[str, int, int], ...]) -> _FamilyReader | Resolver:
    reader = _READERS.get(stamp)
    if reader is None:
        reader = _READERS[stamp] = _reader([Path(p) for p, _, _ in stamp])
        while len(_READERS) > _KEEP:
            _READERS.popitem(last=False)
    _READERS.move_to_end(stamp)
    return reader


#: ``dataset:id``: a dataset name (no colon, slash or space), a colon, then the item's id.
_ITEM_REF = re.compile(r"[^:/\\\s]+:\S.*")


def _is_item_ref(value: object) -> bool:
    """True for a ``dataset:id`` string that is not an existing file or folder."""
    return isinstance(value, str) and _ITEM_REF.fullmatch(value) is not None and not os.path.exists(value)


def _item_first(item_ref: Any, descriptors: Any) -> tuple[str, Any]:
    """``(item_ref, descriptors)``, swapped (with a DeprecationWarning) when given in the
    version 1 order ``resolve(descriptors, item_ref)``."""
    if _is_item_ref(descriptors) and not _is_item_ref(item_ref):
        warnings.warn(
            "resolve(descriptors, item_ref) is deprecated; call resolve(item_ref, descriptors), "
            "the order of 'croissant-lineage resolve ITEM DESCRIPTOR...'",
            DeprecationWarning,
            stacklevel=3,
        )
        return descriptors, item_ref
    return item_ref, descriptors


def resolve(item_ref: str, descriptors: str | Path | Sequence[str | Path]) -> Relatives:
    """The family of one item, from enriched descriptors alone.

    The item comes first, as on the command line (``croissant-lineage resolve ITEM
    DESCRIPTOR...``). The version 1 order ``resolve(descriptors, item_ref)`` still works
    for one release, with a :class:`DeprecationWarning`: it is recognised by the item ref,
    a ``dataset:id`` string that is not an existing path.

    Args:
        item_ref: ``dataset:item``, e.g. ``mmlu-pro:3542``.
        descriptors: Enriched descriptor files, or folders holding them (the output of
            ``croissant-lineage enrich --family``); their data files are read from
            beside them.

    Returns:
        A :class:`~croissant_lineage.lineage.graph.Relatives`: the item (its texts), ancestors and
        descendants with the edge evidence (method, score, option diff, key
        inheritance), duplicates, documented-coverage derivations, and the findings on
        its relatives (dicts as in a findings file).

    Raises:
        InputError: nothing enriched found, a file missing, or an unknown item.
    """
    item_ref, descriptors = _item_first(item_ref, descriptors)
    paths = [descriptors] if isinstance(descriptors, (str, Path)) else list(descriptors)
    return _cached(_stamp(_json_files(paths))).family(item_ref)
