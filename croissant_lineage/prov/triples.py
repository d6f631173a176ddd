"""The triples of a family's PROV graph as Arrow columns of N-Triples lines.

The one builder of the graph beyond its dataset level (items, item derivations, findings):
every export reads its lines, and :func:`build_graph` parses them into rdflib. The triples
are made without a Python object per triple: for each batch of items or edges, each
predicate is one :func:`pyarrow.compute.binary_join_element_wise` over the batch's columns,
giving a string array of whole lines (see :mod:`croissant_lineage.prov.terms` for their
spelling). Values that repeat (dataset IRIs, activity labels, derivation classes, scores)
are spelled once per distinct value in Python and spread with ``take``. The small dataset
level (datasets, activities, the agent) and the findings go through rdflib / Python: their
size does not grow with the items. ``tests/oracles/prov_graph.py`` states the same graph
one rdflib triple at a time (the oracle the tests compare this module with).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import rdflib

from croissant_lineage._io import note_input, read_json
from croissant_lineage.croissant.namespaces import CL_NS, PROV_NS, SCHEMA_NS
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.graph import LineageLike, as_lineage
from croissant_lineage.lineage.info import FamilyInfo
from croissant_lineage.lineage.model import LINEAGE_FILES
from croissant_lineage.lineage.schema import item_iri_prefix
from croissant_lineage.prov.graph import family_iri_of, header_graph, parent_activities
from croissant_lineage.prov.terms import (
    XSD_BOOLEAN,
    XSD_INTEGER,
    iri,
    literal,
    nt_row,
    per_distinct,
    py_literal,
    utf8_lines,
)
from croissant_lineage.prov.vocab import activity_iri, agent_iri, derivation_class, finding_iri

__all__ = [
    "Datasets",
    "LineageColumns",
    "build_graph",
    "edge_lines",
    "finding_lines",
    "graph_lines",
    "header_lines",
    "item_lines",
    "lineage_lines",
    "read_lineage_columns",
]

#: Rows of items or edges turned into lines at a time (an edge gives about 14 lines).
BATCH_ROWS = 8_192

_RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
_SAFE_ITEM = r"^[A-Za-z0-9/:@._~-]*$"  # what item_iri's quote() leaves as it is


def _p(ns: str, name: str) -> str:
    return f" <{ns}{name}> "


class Datasets:
    """The family's datasets as lookup arrays: name -> index -> IRI spellings.

    Args:
        iris: Dataset name -> dataset IRI (checked: see :func:`~croissant_lineage.prov.terms.iri`).
        family: The family's IRI (item derivations are named under it).
    """

    def __init__(self, iris: Mapping[str, str], family: str) -> None:
        names = list(iris)
        self.names = pa.array(names, pa.string())
        #: ``<family iri>/derivation/<name>/`` per dataset (item derivations start so).
        self.derivations = pa.array([iri(f"{family}/derivation/{n}/")[:-1] for n in names], pa.string())
        #: ``<dataset iri>`` per dataset.
        self.terms = pa.array([iri(iris[n]) for n in names], pa.string())
        #: ``<item iri prefix`` per dataset (the item id and ``>`` follow).
        self.bases = pa.array([iri(item_iri_prefix(iris[n]))[:-1] for n in names], pa.string())

    def index(self, column: pa.Array) -> pa.Array:
        """Each value's dataset index (null when the family has no such dataset)."""
        return pc.index_in(column, value_set=self.names)

    def item_terms(self, index: pa.Array, items: pa.Array) -> pa.Array:
        """``<item iri>`` of each (dataset index, item id)."""
        return self.quoted_terms(index, _quoted(items))

    def quoted_terms(self, index: pa.Array, quoted: pa.Array) -> pa.Array:
        """``<item iri>`` of each (dataset index, percent-encoded item id)."""
        return pc.binary_join_element_wise(self.bases.take(index), quoted, ">", "")

    def derivation_terms(self, cidx: pa.Array, cquoted: pa.Array, pidx: pa.Array, pquoted: pa.Array) -> pa.Array:
        """``<item derivation iri>`` of each edge (see
        :func:`~croissant_lineage.prov.vocab.item_derivation_iri`)."""
        return pc.binary_join_element_wise(
            self.derivations.take(cidx), cquoted, "#", self.names.take(pidx), "/", pquoted, ">", ""
        )


def _quoted(items: pa.Array) -> pa.Array:
    """Item ids percent-encoded as :func:`~croissant_lineage.lineage.schema.item_iri` does;
    ids that need no encoding (nearly all) are not touched by Python."""
    safe = pc.match_substring_regex(items, _SAFE_ITEM)
    if pc.all(safe).as_py() is not False:
        return items
    unsafe = pc.invert(safe)
    fixed = [quote(x, safe="/:@-._~") for x in items.filter(unsafe).to_pylist()]
    return pc.replace_with_mask(items, unsafe, pa.array(fixed, items.type))


def _line(*parts: Any) -> pa.Array:
    return pc.binary_join_element_wise(*parts, " .\n", "")


def item_lines(batch: pa.RecordBatch | pa.Table, ds: Datasets) -> list[pa.Array]:
    """``<item> a prov:Entity`` and ``<dataset> prov:hadMember <item>`` for a batch of items
    (columns ``dataset`` and ``item``); items of datasets outside the family are left out."""
    index = ds.index(_array(batch.column("dataset")))
    keep = pc.is_valid(index)
    index = index.filter(keep)
    node = ds.item_terms(index, _array(batch.column("item")).filter(keep))
    return [
        _line(node, f" {_RDF_TYPE} <{PROV_NS}Entity>"),
        _line(ds.terms.take(index), _p(PROV_NS, "hadMember"), node),
    ]


def _array(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


_FLOATS = ("options_score",)
_INTS = ("options_copied", "options_added", "options_dropped")
_BOOLS = ("key_inherited", "stem_changed", "ambiguous")
_PROPS = {
    "options_score": "optionsScore",
    "options_copied": "optionsCopied",
    "options_added": "optionsAdded",
    "options_dropped": "optionsDropped",
    "key_inherited": "keyInherited",
    "stem_changed": "stemChanged",
    "ambiguous": "ambiguous",
}


def edge_lines(
    batch: pa.RecordBatch | pa.Table,
    ds: Datasets,
    activities: Mapping[tuple[str, str], str],
    family: str,
) -> list[pa.Array]:
    """The item-level derivations of a batch of edges (``family``: the family's IRI).

    Each edge whose two datasets are in the family gives ``<child> prov:wasDerivedFrom
    <parent>``, ``<child> prov:qualifiedDerivation <item derivation IRI>`` and that node's class,
    entity, activity and ``cl:`` values (as :func:`~croissant_lineage.prov.graph.build_graph`).
    """
    col = {name: _array(batch.column(name)) for name in batch.column_names}
    cidx, pidx = ds.index(col["child_dataset"]), ds.index(col["parent_dataset"])
    keep = pc.and_(pc.is_valid(cidx), pc.is_valid(pidx))
    col = {name: values.filter(keep) for name, values in col.items()}
    cidx, pidx = cidx.filter(keep), pidx.filter(keep)
    cquoted, pquoted = _quoted(col["child_item"]), _quoted(col["parent_item"])
    child = ds.quoted_terms(cidx, cquoted)
    parent = ds.quoted_terms(pidx, pquoted)
    node = ds.derivation_terms(cidx, cquoted, pidx, pquoted)
    kinds = pc.binary_join_element_wise(col["child_dataset"], col["parent_dataset"], col["activity"], "\x00")

    def activity(key: str) -> str:
        cds, pds, kind = key.split("\x00")
        return iri(activities.get((cds, pds)) or activity_iri(family, kind, pds, cds))

    out = [
        _line(child, _p(PROV_NS, "wasDerivedFrom"), parent),
        _line(child, _p(PROV_NS, "qualifiedDerivation"), node),
        _line(node, f" {_RDF_TYPE} ",
              per_distinct(col["activity"], lambda k: f"<{PROV_NS}{derivation_class(k).split(':')[1]}>")),
        _line(node, _p(PROV_NS, "entity"), parent),
        _line(node, _p(PROV_NS, "hadActivity"), per_distinct(kinds, activity)),
        _line(node, _p(CL_NS, "method"), per_distinct(col["method"], literal)),
        _line(node, _p(CL_NS, "score"), per_distinct(col["score"], lambda v: py_literal(float(v)))),
    ]
    for name in _FLOATS:
        out.append(_line(node, _p(CL_NS, _PROPS[name]), per_distinct(col[name], lambda v: py_literal(float(v)))))
    for name in _INTS:
        out.append(_line(node, _p(CL_NS, _PROPS[name]), '"', col[name].cast(pa.string()), f'"^^<{XSD_INTEGER}>'))
    for name in _BOOLS:
        out.append(_line(node, _p(CL_NS, _PROPS[name]), '"', col[name].cast(pa.string()), f'"^^<{XSD_BOOLEAN}>'))
    option_map = pc.binary_join(col["option_map"].cast(pa.list_(pa.string())), ",")
    out.append(_line(node, _p(CL_NS, "optionMap"), '"', option_map, '"'))
    alternatives = col["alternatives"]
    if pc.sum(pc.list_value_length(alternatives)).as_py():
        owner = pc.list_parent_indices(alternatives)
        alt = ds.item_terms(pidx.take(owner), pc.list_flatten(alternatives))
        out.append(_line(node.take(owner), _p(CL_NS, "alternative"), alt))
    return out


def header_lines(family: FamilyInfo, time: str | datetime | int | None = None) -> list[str]:
    """The dataset level, the linking activity and the agent (see
    :func:`~croissant_lineage.prov.graph.header_graph`), as lines."""
    return [nt_row(t) for t in header_graph(family, time)]


def finding_lines(findings: Iterable[Any], iris: Mapping[str, str], family: str) -> Iterator[str]:
    """The triples of each finding (as :func:`~croissant_lineage.prov.graph.build_graph`)."""
    from croissant_lineage.lineage.schema import item_iri, split_ref

    a_type = _RDF_TYPE
    for f in findings:
        ds, item = split_ref(f.item)
        node = iri(finding_iri(f.id))
        rows = [
            (a_type, f"<{PROV_NS}Entity>"),
            (a_type, f"<{CL_NS}Finding>"),
            (f"<{SCHEMA_NS}identifier>", literal(f.id)),
        ]
        if ds in iris:
            rows.append((f"<{CL_NS}item>", iri(item_iri(iris[ds], item))))
        rows += [(f"<{CL_NS}{k}>", literal(getattr(f, a))) for k, a in (
            ("itemRef", "item"), ("target", "target"), ("kind", "kind"), ("status", "status"))]
        for attr, prop in (
            ("option_index", "optionIndex"),
            ("proposed", "proposed"),
            ("status_date", "statusDate"),
            ("status_reason", "statusReason"),
        ):
            value = getattr(f, attr, None)
            if value is not None:
                rows.append((f"<{CL_NS}{prop}>", py_literal(value)))
        rows += [(f"<{CL_NS}evidence>", py_literal(ev)) for ev in getattr(f, "evidence", None) or ()]
        src = getattr(f, "source", None)
        if src is not None:
            agent = iri(src.url if getattr(src, "url", None) else agent_iri(family, src.name))
            rows.append((f"<{PROV_NS}wasAttributedTo>", agent))
            yield f"{agent} {a_type} <{PROV_NS}Agent> .\n"
            yield f"{agent} <{SCHEMA_NS}name> {literal(src.name)} .\n"
            if getattr(src, "kind", None):
                yield f"{agent} <{CL_NS}sourceKind> {py_literal(src.kind)} .\n"
        for p, o in rows:
            yield f"{node} {p} {o} .\n"


def graph_lines(
    family: FamilyInfo,
    items: Iterable[pa.Table | pa.RecordBatch] | None,
    edges: Iterable[pa.Table | pa.RecordBatch],
    findings: Iterable[Any] | None = None,
    time: str | datetime | int | None = None,
) -> Iterator[pa.Array]:
    """Every line of a family's graph, as string arrays (a line may come more than once).

    Args:
        family: ``Lineage.family``.
        items: Batches of the items table (``dataset``, ``item``), or None for no items.
        edges: Batches of the edges table.
        findings: Findings to include.
        time: Time of the linking activity (see :func:`resolve_time`).
    """
    iris = family.iris()
    base = family_iri_of(family)
    ds = Datasets(iris, base)  # checks the IRIs before rdflib sees them (it would warn on stderr)
    yield utf8_lines(header_lines(family, time))
    for batch in items or ():
        yield from item_lines(batch, ds)
    activities = parent_activities(family)
    for batch in edges:
        yield from edge_lines(batch, ds, activities, base)
    if findings is not None:
        yield utf8_lines(finding_lines(findings, iris, base))


def lineage_lines(
    lineage: Any,
    findings: Iterable[Any] | None = None,
    *,
    items: bool = True,
    time: str | datetime | int | None = None,
    batch_rows: int | None = None,
) -> Iterator[pa.Array]:
    """:func:`graph_lines` of an in-memory lineage (arguments as
    :func:`~croissant_lineage.prov.graph.build_graph`; ``batch_rows``: rows per batch)."""
    rows = batch_rows or BATCH_ROWS
    item_batches = lineage.items.select(["dataset", "item"]).to_batches(rows) if items else None
    return graph_lines(lineage.family, item_batches, lineage.edges.to_batches(rows), findings, time)


def build_graph(
    lineage: LineageLike,
    findings: Iterable[Any] | None = None,
    *,
    items: bool = True,
    time: str | datetime | int | None = None,
) -> rdflib.Graph:
    """The family's PROV-O graph as an rdflib graph: the lines of :func:`lineage_lines` parsed.

    The triples the exports write (``write_prov`` and :func:`~croissant_lineage.prov.serialize.serialize_lineage`),
    to query or combine in rdflib; a large family's graph holds millions of triples in memory
    (the exports do not).

    Args:
        lineage: A :class:`croissant_lineage.lineage.model.Lineage` (family info, items, edges),
            or its lineage folder.
        findings: Findings (``croissant_lineage.findings.model.Finding``) to include.
        items: Include every item as a ``prov:Entity`` member of its dataset.
        time: Time of the linking activity (see :func:`~croissant_lineage.prov.vocab.resolve_time`); none by default.

    Returns:
        A new graph (prefixes ``prov``, ``cl``, ``sc`` bound): datasets (``prov:Entity``,
        ``prov:Collection``) with their dataset-level derivations and activities (as in the
        enriched descriptors); items and item-level qualified derivations (each named by
        its IRI); the linking activity, associated with this library as
        ``prov:SoftwareAgent``; findings (``cl:Finding``) with status and source
        (``prov:wasAttributedTo``).
    """
    lineage = as_lineage(lineage, records=False)  # the graph holds no raw records
    graph = rdflib.Graph()
    for prefix, ns in (("prov", PROV_NS), ("cl", CL_NS), ("sc", SCHEMA_NS)):
        graph.bind(prefix, rdflib.Namespace(ns))
    for array in lineage_lines(lineage, findings, items=items, time=time):
        lines = array.drop_null().to_pylist()  # a null: no triple (an absent optional value)
        if lines:
            graph.parse(data="".join(lines), format="nt")
    return graph


_EDGE_COLUMNS = (
    "child_dataset", "child_item", "parent_dataset", "parent_item", "activity", "method", "score",
    "options_score", "option_map", "options_copied", "options_added", "options_dropped",
    "key_inherited", "stem_changed", "ambiguous", "alternatives",
)


@dataclass(frozen=True)
class LineageColumns:
    """The columns of a lineage folder the PROV graph needs, read batch by batch.

    Attributes:
        folder: The lineage folder.
        family: Its ``family.json``, read.
        edge_rows: Rows of its edges table.
    """

    folder: Path
    family: FamilyInfo
    edge_rows: int

    def _batches(self, name: str, columns: Sequence[str], rows: int) -> Iterator[pa.Table]:
        path = self.folder / name
        schema = pa.schema([LINEAGE_FILES[name].field(c) for c in columns])
        try:
            for batch in pq.ParquetFile(path).iter_batches(rows, columns=list(columns)):
                yield pa.Table.from_batches([batch]).cast(schema)
        except (pa.ArrowInvalid, OSError, ValueError, KeyError) as exc:
            raise InputError(f"not a lineage table: {exc}", path=path) from None

    def lines(
        self,
        findings: Iterable[Any] | None = None,
        *,
        items: bool = True,
        time: str | datetime | int | None = None,
        batch_rows: int | None = None,
    ) -> Iterator[pa.Array]:
        """:func:`graph_lines` of the folder, one batch of its tables in memory at a time."""
        rows = batch_rows or BATCH_ROWS
        item_batches = self._batches("items.parquet", ("dataset", "item"), rows) if items else None
        edges = self._batches("edges.parquet", _EDGE_COLUMNS, rows)
        return graph_lines(self.family, item_batches, edges, findings, time)


def read_lineage_columns(folder: str | Path) -> LineageColumns:
    """Open a lineage folder for :class:`LineageColumns` (its family and table sizes only).

    Raises:
        InputError: the folder or one of its files is missing or unreadable (as
            :meth:`croissant_lineage.lineage.model.Lineage.read`).
    """
    src = Path(folder)
    if not src.is_dir():
        raise InputError("lineage folder not found", path=src, hint="run 'croissant-lineage link' first")
    note_input(src)
    for name in LINEAGE_FILES:
        if not (src / name).exists():
            raise InputError("missing from lineage folder", path=src / name)
    try:
        rows = pq.ParquetFile(src / "edges.parquet").metadata.num_rows
    except (pa.ArrowInvalid, OSError, ValueError) as exc:
        raise InputError(f"not a lineage table: {exc}", path=src / "edges.parquet") from None
    family = read_json(src / "family.json")
    if not isinstance(family, dict):
        raise InputError("not a lineage family (a JSON object)", path=src / "family.json")
    return LineageColumns(src, FamilyInfo.from_dict(family), rows)
