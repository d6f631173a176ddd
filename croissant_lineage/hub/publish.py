"""Publishing a dataset's lineage to the Hugging Face Hub.

The Hub generates its own Croissant for a dataset repository and ignores an uploaded
``croissant.json`` (mlcommons/croissant#724). What it does read is the data files and
the dataset card's YAML header. So :func:`publish` writes, for one dataset of a family,
one Parquet file per table, each with one ``configs`` entry of the same name:

=================  ================================  ===========================================
config             file                              one row per
=================  ================================  ===========================================
``lineage_items``  ``lineage/lineage_items.parquet`` item of the dataset: ref, IRI, duplicate
                                                     group, texts (the enriched items file)
``lineage``        ``lineage/lineage.parquet``       derivation edge whose child is an item of the
                                                     dataset (the enriched lineage file)
``findings``       ``lineage/findings.parquet``      finding on (or naming) an item of the dataset
=================  ================================  ===========================================

The config names are the ids of the RecordSets that read these files in an enriched
descriptor, and the tables are those :mod:`croissant_lineage.enrich.files` writes beside
it, so a user finds the same table under the same name in ``datasets.load_dataset``,
in ``croissant.json`` and in the Hub's generated Croissant (where each config becomes a
RecordSet). Beside them:

* ``croissant.json``: the descriptor, as given; an enriched one with its lineage
  FileObjects pointing at the files above (``contentUrl`` and ``sha256``), so mlcroissant
  reads its added RecordSets from the repository;
* ``README.md``: the card: the ``configs``; ``source_datasets`` naming the parents; the
  metadata the Hub indexes (``license``, ``language``, ``multilinguality``,
  ``size_categories``, ``task_categories``, ``task_ids``, ``pretty_name``, ``tags``); and a
  readable lineage section between ``<!-- croissant-lineage:begin -->`` and
  ``<!-- croissant-lineage:end -->`` whose Hub links have the form the Hub serves
  (``https://huggingface.co/datasets/ORG/NAME`` or ``.../tree/REVISION``).

An existing card (``base_card``) is merged, not replaced: its YAML keys and configs are
kept, ours are added, and only our section of the body is rewritten. With a token and
``dry_run=False`` the same files go to the Hub in one commit (when the repository
already has a README.md it is downloaded and merged first, and the merged card is
written to ``out_dir`` too, so ``out_dir`` always holds exactly what was committed).
"""

from __future__ import annotations

import copy
import hashlib
import io
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml

from croissant_lineage._io import (
    atomic_folder,
    atomic_write_bytes,
    check_output,
    dumps_json,
    parquet_bytes,
    read_json,
    resolve_inside,
)
from croissant_lineage._results import Result, inert_value, link_url
from croissant_lineage.croissant.descriptor import Descriptor, as_list, check_croissant, node_id
from croissant_lineage.enrich.files import items_table, lineage_table
from croissant_lineage.enrich.marks import is_ours
from croissant_lineage.errors import InputError, OutputExistsError, PublishError, UnsafePathError
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.model import Finding
from croissant_lineage.findings.parquet import findings_table
from croissant_lineage.lineage.model import Lineage, lineage_folder
from croissant_lineage.lineage.schema import DUPLICATES_SCHEMA, EDGES_SCHEMA
from croissant_lineage.validate.card import (
    card_body,
    card_header,
    descriptor_parents,
    hub_id,
    normalize_license,
)
from croissant_lineage.validate.detect import is_enriched

__all__ = [
    "TABLES",
    "PlannedFile",
    "PublishPlan",
    "hub_url",
    "publish",
    "size_category",
    "table_path",
]

T = TypeVar("T")

BEGIN = "<!-- croissant-lineage:begin -->"
END = "<!-- croissant-lineage:end -->"
#: Seconds before a Hub request (connect, read, write) gives up.
HUB_TIMEOUT = 60.0

#: Config name -> (file kind of :data:`~croissant_lineage.enrich.files.FILE_KINDS`, what a row is).
TABLES: dict[str, tuple[str, str]] = {
    "lineage_items": ("items", "an item of this dataset: ref, IRI, duplicate group, texts"),
    "lineage": ("lineage", "child item -> parent item, with activity, method, score and option map"),
    "findings": ("findings", "an audit finding with source, evidence and status"),
}


def table_path(config: str) -> str:
    """The repository path of a config's Parquet file (``lineage/<config>.parquet``)."""
    return f"lineage/{config}.parquet"


#: Files earlier releases of publish wrote (removed when publish rewrites its folder).
_OLD_FILES = ("lineage/edges.parquet", "lineage/duplicates.parquet", "findings/findings.parquet")
_OLD_CONFIGS = ("lineage_edges", "lineage_duplicates")
_OWN_FILES = ("README.md", "croissant.json", *(table_path(c) for c in TABLES), *_OLD_FILES)
#: What the Hub indexes a multiple-choice benchmark under (its task taxonomy).
TASK_CATEGORIES = ("question-answering",)
TASK_IDS = ("multiple-choice-qa",)
_HUB_URL = re.compile(r"^https?://huggingface\.co/datasets/([^/?#@\s]+/[^/?#@\s]+)(?:@([^/?#\s]+))?([^#\s]*)(#\S*)?$")


@dataclass(frozen=True)
class PlannedFile:
    """One file of the commit.

    Attributes:
        path: Path in the repository (and under ``out_dir``), POSIX separators.
        size: Bytes.
        sha256: Hex digest of the content.
    """

    path: str
    size: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size, "sha256": self.sha256}


@dataclass(frozen=True)
class PublishPlan(Result):
    """What :func:`publish` wrote, and what it committed.

    Attributes:
        repo_id: The dataset repository (``org/name``).
        dataset: The family dataset published (``mmlu-pro``).
        out_dir: Folder holding exactly the committed files.
        files: The files, sorted by path.
        configs: Config names added to the card.
        commit_message: The commit message.
        uploaded: True when the commit was made.
        commit_url: The commit's URL when uploaded.
        merged_card: True when an existing card was merged.
    """

    repo_id: str
    dataset: str
    out_dir: str
    files: tuple[PlannedFile, ...]
    configs: tuple[str, ...]
    commit_message: str
    uploaded: bool = False
    commit_url: str | None = None
    merged_card: bool = False

    def operations(self) -> list[str]:
        """The commit operations, one readable line each (``add PATH (N bytes, sha256 ...)``)."""
        return [f"add {f.path} ({f.size} bytes, sha256 {f.sha256[:12]})" for f in self.files]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (what ``croissant-lineage publish --json`` prints)."""
        return {
            "repo_id": self.repo_id,
            "dataset": self.dataset,
            "out_dir": self.out_dir,
            "files": [f.to_dict() for f in self.files],
            "configs": list(self.configs),
            "commit_message": self.commit_message,
            "operations": self.operations(),
            "uploaded": self.uploaded,
            "commit_url": self.commit_url,
            "merged_card": self.merged_card,
        }


# --- planning -------------------------------------------------------------------------


def _dataset_of(doc: dict[str, Any], lineage: Lineage, dataset: str | None) -> dict[str, Any]:
    datasets = {d["name"]: d for d in lineage.family.get("datasets", []) if isinstance(d, dict) and "name" in d}
    if dataset is not None:
        if dataset not in datasets:
            raise InputError(f"dataset {dataset!r} is not in the lineage", hint=f"datasets are: {', '.join(datasets)}")
        return datasets[dataset]
    name = doc.get("name")
    if isinstance(name, str) and name in datasets:
        return datasets[name]
    urls = {u for u in (doc.get("url"), doc.get("@id")) if isinstance(u, str)}
    hits = [d for d in datasets.values() if d.get("iri") in urls]
    if len(hits) == 1:
        return hits[0]
    raise InputError(
        f"cannot tell which dataset of the lineage the descriptor {name!r} is",
        hint=f"pass dataset= (CLI: --dataset), one of: {', '.join(datasets)}",
    )


def _hf_license(doc: dict[str, Any]) -> str | None:
    for v in as_list(doc.get("license")):
        text = v if isinstance(v, str) else (v.get("url") or v.get("name")) if isinstance(v, dict) else None
        if isinstance(text, str):
            return normalize_license(text)
    return None


def _fmt(n: int) -> str:
    return f"{n:,}"


def _derivation_rows(edges: pa.Table, side: str) -> list[tuple[str, str, int, str]]:
    """(other dataset, activity, edges, methods) per derivation, sorted."""
    other = "parent_dataset" if side == "child" else "child_dataset"
    groups: dict[tuple[str, str], Counter[str]] = {}
    for o, a, m in zip(edges.column(other).to_pylist(), edges.column("activity").to_pylist(),
                       edges.column("method").to_pylist(), strict=True):
        groups.setdefault((o, a), Counter())[m] += 1
    return [(o, a, sum(c.values()), ", ".join(f"{k} {_fmt(v)}" for k, v in sorted(c.items())))
            for (o, a), c in sorted(groups.items())]


def hub_url(iri: str) -> str:
    """A Hub dataset IRI in the form the Hub serves; any other IRI unchanged.

    ``https://huggingface.co/datasets/ORG/NAME@REV`` (a revision, as family specs name
    snapshots) becomes ``https://huggingface.co/datasets/ORG/NAME/tree/REV``; a fragment
    (``#en``, a subset) is dropped, since the Hub page has no such anchor.
    """
    m = _HUB_URL.match(iri.strip())
    if m is None:
        return iri
    name, rev, rest = m.group(1), m.group(2), m.group(3) or ""
    base = f"https://huggingface.co/datasets/{name}"
    return f"{base}/tree/{rev}" if rev else base + rest.rstrip("/")


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` value for ``n`` rows (``n<1K``, ``1K<n<10K``, ...)."""
    bounds = (("n<1K", 10**3), ("1K<n<10K", 10**4), ("10K<n<100K", 10**5), ("100K<n<1M", 10**6),
              ("1M<n<10M", 10**7), ("10M<n<100M", 10**8), ("100M<n<1B", 10**9))
    return next((label for label, top in bounds if n < top), "n>1T" if n > 10**12 else "1B<n<10B")


def _link(name: str, iris: dict[str, str]) -> str:
    """A dataset name as Markdown text, a link only to an http(s) IRI."""
    iri = link_url(hub_url(iris.get(name) or ""))
    if iri is None or "(" in iri or ")" in iri:
        return md_text(name)
    return f"[{md_text(name)}]({iri})"


#: Characters that make Markdown (or the HTML inside it) of a text: escaped in the card.
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>!|&])")


def md_text(value: Any) -> str:
    """``value`` as literal Markdown text on one line: no link, emphasis, HTML or table cell
    break can come from it (titles and names from a spec are text, never markup)."""
    return _MD_SPECIAL.sub(r"\\\1", inert_value(value))


def _section(ds: dict[str, Any], lineage: Lineage, up: pa.Table, down: pa.Table, dups: pa.Table,
             findings: pa.Table | None, configs: list[tuple[str, str, int, str]], repo_id: str,
             enriched: bool) -> str:
    iris = {d["name"]: d.get("iri", "") for d in lineage.family.get("datasets", []) if isinstance(d, dict)}
    name = ds["name"]
    lines = [BEGIN, "## Lineage", ""]
    family = lineage.family.get("title") or lineage.family.get("name", "")
    lines.append(f"Item-level lineage of **{md_text(name)}** ({md_text(hub_url(str(ds.get('iri', ''))))}), "
                 "reconstructed by croissant-lineage: "
                 "which item of which dataset each item was copied, expanded, re-annotated or translated "
                 f"from, with the evidence (method, 0-100 score, option map). Family: {md_text(family)}.")
    lines.append("")
    if up.num_rows:
        lines += ["### Derived from", "", "| parent | activity | items linked | how |", "|---|---|---:|---|"]
        lines += [f"| {_link(o, iris)} | {a} | {_fmt(n)} | {m} |" for o, a, n, m in _derivation_rows(up, "child")]
        lines.append("")
    if down.num_rows:
        lines += ["### Derived into", "", "| child | activity | items linked | how |", "|---|---|---:|---|"]
        lines += [f"| {_link(o, iris)} | {a} | {_fmt(n)} | {m} |" for o, a, n, m in _derivation_rows(down, "parent")]
        lines.append("")
    documented = [d for d in lineage.family.get("derivations", [])
                  if isinstance(d, dict) and d.get("coverage") == "documented" and name in (d.get("child"), d.get("parent"))]
    if documented:
        lines += ["Documented at dataset level only (no item data here): " + "; ".join(
            f"{d['child']} <- {d['parent']} ({d.get('activity', '')})" for d in documented) + ".", ""]
    if dups.num_rows:
        groups = len(set(dups.column("group").to_pylist()))
        lines += [f"Duplicates: {_fmt(dups.num_rows)} items in {_fmt(groups)} "
                  f"group{'s' if groups != 1 else ''} of identical items.", ""]
    if findings is not None and findings.num_rows:
        counts = Counter(findings.column("status").to_pylist())
        lines += ["### Findings", "", f"{_fmt(findings.num_rows)} audit findings on this dataset's items, by status:", "",
                  "| status | findings |", "|---|---:|"]
        lines += [f"| {s} | {_fmt(n)} |" for s, n in sorted(counts.items())]
        lines.append("")
    lines += ["### Files", "", "| config | file | rows | content |", "|---|---|---:|---|"]
    lines += [f"| {c} | {p} | {_fmt(n)} | {what} |" for c, p, n, what in configs]
    what = "enriched with W3C PROV-O" if enriched else "as given"
    lines += ["", f"`croissant.json` is the dataset's Croissant descriptor, {what} (mlcroissant reads its "
              "RecordSets from this repository; the Hub ignores it and serves its own generated Croissant, "
              "in which each config above is a RecordSet of the same name).", "",
              "```python", "from datasets import load_dataset", ""]
    lines += [f'{c} = load_dataset("{repo_id}", "{c}", split="train")' for c, _, _, _ in configs]
    lines += ["```", END]
    return "\n".join(lines)


#: Card keys of ours that an existing card's own value overrides.
_CARD_KEYS = ("pretty_name", "language", "multilinguality", "size_categories", "task_categories", "task_ids")


def _merge_header(base: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    if ours.get("license") and "license" not in out:
        out["license"] = ours["license"]
    sources = [s for s in as_list(out.get("source_datasets")) if isinstance(s, str)]
    have = {hub_id(s) for s in sources}
    sources += [s for s in ours.get("source_datasets", []) if hub_id(s) not in have]
    if sources:
        out["source_datasets"] = sources
    mine = {c["config_name"] for c in ours["configs"]} | set(_OLD_CONFIGS)
    kept = [c for c in as_list(out.get("configs")) if not (isinstance(c, dict) and c.get("config_name") in mine)]
    out["configs"] = kept + ours["configs"]
    tags = [t for t in as_list(out.get("tags")) if isinstance(t, str)]
    out["tags"] = tags + [t for t in ours.get("tags", []) if t not in tags]
    for key in _CARD_KEYS:
        if key in ours and key not in out:
            out[key] = ours[key]
    return out


def _render_card(header: dict[str, Any], section: str, base_text: str | None, title: str) -> str:
    body = f"\n# {title}\n\n{section}\n"
    if base_text is not None:
        rest = card_body(base_text)
        if BEGIN in rest and END in rest:
            before, _, tail = rest.partition(BEGIN)
            _, _, after = tail.partition(END)
            body = f"{before}{section}{after}"
        else:
            body = rest.rstrip("\n") + "\n\n" + section + "\n"
    head = yaml.safe_dump(header, sort_keys=False, allow_unicode=True, width=100)
    return f"---\n{head}---\n{body}"


def check_repo_id(repo_id: str) -> None:
    """Refuse a repository id that is not ``org/name`` by huggingface_hub's own rule.

    Raises:
        InputError: ``repo_id`` is not ``org/name``, or huggingface_hub's
            ``validate_repo_id`` refuses it (characters, ``--`` / ``..``, length).
    """
    if not isinstance(repo_id, str) or repo_id.count("/") != 1:
        raise InputError(f"repo_id {repo_id!r} is not 'org/name'")
    try:
        from huggingface_hub.utils import HFValidationError, validate_repo_id
    except ImportError:  # without the extra: the same character rule, checked here
        if not _REPO_ID.fullmatch(repo_id) or "--" in repo_id or ".." in repo_id:
            raise InputError(f"repo_id {repo_id!r} is not a valid Hub repository id") from None
        return
    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        first = str(exc).strip().splitlines()[0]
        raise InputError(f"repo_id {repo_id!r} is not a valid Hub repository id: {first}") from None


#: huggingface_hub's repository-id characters (used only when it is not installed).
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}")


def _check_out_dir(out: Path, overwrite: bool) -> None:
    check_output(out, folder=True)
    if not out.exists():
        return
    if not out.is_dir():
        raise OutputExistsError("exists and is not a folder", path=out)
    readme = out / "README.md"
    ours = readme.is_file() and BEGIN in readme.read_text("utf-8", errors="replace")
    if any(out.iterdir()) and not ours and not overwrite:
        raise OutputExistsError("folder is not empty and was not written by publish", path=out,
                                hint="choose an empty folder, or pass overwrite=True (CLI: --force)")


def _write(out: Path, files: dict[str, bytes]) -> tuple[PlannedFile, ...]:
    """Write the folder whole and swap it in: a full disk or a kill leaves the old folder."""
    stale = [name for name in _OWN_FILES if name not in files]
    planned = []
    with atomic_folder(out, drop=stale) as tmp:
        for name in sorted(files):
            atomic_write_bytes(tmp / name, files[name])
            planned.append(PlannedFile(name, len(files[name]), hashlib.sha256(files[name]).hexdigest()))
    return tuple(planned)


def _descriptor_parquet(doc: dict[str, Any], folder: Path) -> list[tuple[str, str, bytes, str]]:
    """The benchmark's own Parquet FileObjects the descriptor distributes from beside itself
    (not the lineage files enrichment added: :data:`TABLES` holds those), as (config name,
    relative path, bytes, content)."""
    desc = Descriptor(None, doc, folder)
    readers: dict[str, str] = {}
    for rs in desc.record_set_nodes():
        for f in as_list(rs.get("field")):
            src = f.get("source") if isinstance(f, dict) else None
            ref = node_id(src.get("fileObject")) if isinstance(src, dict) else None
            if ref and isinstance(node_id(rs), str):
                readers.setdefault(ref, str(node_id(rs)))
    out = []
    for fo in desc.distribution_nodes():
        if is_ours(fo) or "parquet" not in str(fo.get("encodingFormat", "")):
            continue
        url, fid = fo.get("contentUrl"), node_id(fo)
        if not isinstance(url, str) or "://" in url or not fid:
            continue
        try:
            path = resolve_inside(folder, url)
        except UnsafePathError:
            continue
        if path.is_file() and url not in _OWN_FILES:
            name = re.sub(r"[^A-Za-z0-9_]+", "_", readers.get(fid, path.stem)).strip("_") or "data"
            out.append((f"descriptor_{name}", Path(url).as_posix(), path.read_bytes(),
                        f"RecordSet {readers.get(fid, '?')} of croissant.json"))
    return out


def _lineage_tables(lineage: Lineage, name: str, found: list[Finding], iris: dict[str, str]) -> dict[str, pa.Table]:
    """The dataset's tables by config name (see :data:`TABLES`)."""
    return {
        "lineage_items": items_table(lineage.items, lineage.duplicates, iris, [name]),
        "lineage": lineage_table(lineage.edges, iris, [name]),
        "findings": findings_table(found, iris),
    }


def _point_at_tables(doc: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
    """``doc`` with its lineage FileObjects (enrichment's, ``cl-<kind>-file``) reading the
    published tables: ``contentUrl`` and ``sha256`` of the files in the repository."""
    by_id = {f"cl-{kind}-file": table_path(config) for config, (kind, _) in TABLES.items()}
    out = copy.deepcopy(doc)
    for fo in as_list(out.get("distribution")):
        path = by_id.get(str(node_id(fo))) if is_ours(fo) else None
        if path is not None:
            fo["contentUrl"] = path
            fo["sha256"] = hashlib.sha256(files[path]).hexdigest()
    return out


def _card_metadata(doc: dict[str, Any], ds: dict[str, Any], items: int) -> dict[str, Any]:
    """What the Hub indexes: license, language, size, task, name (unknown ones left out)."""
    header: dict[str, Any] = {}
    lic = _hf_license(doc)
    if lic:
        header["license"] = lic
    langs = [lang for lang in as_list(ds.get("languages") or doc.get("inLanguage")) if isinstance(lang, str) and lang]
    if langs:
        header["language"] = list(dict.fromkeys(langs))
        header["multilinguality"] = "monolingual" if len(header["language"]) == 1 else "multilingual"
    header["size_categories"] = [size_category(items)]
    header["task_categories"] = list(TASK_CATEGORIES)
    header["task_ids"] = list(TASK_IDS)
    header["pretty_name"] = str(ds.get("title") or ds["name"])
    return header


def _plan_files(doc: dict[str, Any], lineage: Lineage, ds: dict[str, Any], found: list[Finding],
                repo_id: str, base_card: str | None, folder: Path) -> tuple[dict[str, bytes], list[str], str]:
    name = ds["name"]
    edges = lineage.edges.cast(EDGES_SCHEMA)
    up = edges.filter(pc.equal(edges.column("child_dataset"), name))
    down = edges.filter(pc.equal(edges.column("parent_dataset"), name))
    dups = lineage.duplicates.cast(DUPLICATES_SCHEMA)
    dups = dups.filter(pc.equal(dups.column("dataset"), name))
    iris = {d["name"]: d.get("iri", "") for d in lineage.family.get("datasets", []) if isinstance(d, dict)}
    tables = _lineage_tables(lineage, name, found, {k: v for k, v in iris.items() if v})
    files: dict[str, bytes] = {}
    configs: list[tuple[str, str, int, str]] = []
    for config, table in tables.items():
        files[table_path(config)] = parquet_bytes(table)
        configs.append((config, table_path(config), table.num_rows, TABLES[config][1]))
    for config, rel, data, what in _descriptor_parquet(doc, folder):
        files[rel] = data
        configs.append((config, rel, pq.read_metadata(io.BytesIO(data)).num_rows, what))
    files["croissant.json"] = dumps_json(_point_at_tables(doc, files)).encode("utf-8")
    parents = list(descriptor_parents(doc))
    parents += [iris[d["parent"]] for d in lineage.family.get("derivations", [])
                if isinstance(d, dict) and d.get("child") == name and iris.get(d.get("parent", ""))]
    sources = list(dict.fromkeys(f"extended|{hub_id(p)}" for p in parents))
    header = _card_metadata(doc, ds, tables["lineage_items"].num_rows)
    if sources:
        header["source_datasets"] = sources
    header["tags"] = ["croissant", "provenance", "lineage"]
    header["configs"] = [{"config_name": c, "data_files": [{"split": "train", "path": p}]} for c, p, _, _ in configs]
    base_header: dict[str, Any] | None = None
    if base_card is not None:
        base_header, problem = card_header(base_card)
        if base_header is None and base_card.lstrip().startswith("---"):
            raise InputError(f"the existing card's {problem}", hint="fix its YAML header first")
    merged = _merge_header(base_header or {}, header)
    section = _section(ds, lineage, up, down, dups, tables["findings"], configs, repo_id, is_enriched(doc))
    card = _render_card(merged, section, base_card, str(ds.get("title") or name))
    files["README.md"] = card.encode("utf-8")
    edges_n = tables["lineage"].num_rows
    message = (f"croissant-lineage: lineage of {name} ({_fmt(edges_n)} derivation edges"
               + (f", {_fmt(len(found))} findings" if found else "") + ")")
    return files, [c for c, _, _, _ in configs], message


# --- upload ---------------------------------------------------------------------------


@contextmanager
def _hub_timeouts(seconds: float) -> Iterator[None]:
    """Give huggingface_hub's shared HTTP client timeouts for the duration of the upload.

    Releases built on httpx create their client with no timeout; older, requests-based
    releases set their own per-call timeouts and need nothing here.
    """
    import huggingface_hub as hh

    setter = getattr(hh, "set_client_factory", None)
    if setter is None:
        yield
        return
    from huggingface_hub.utils import _http

    previous = getattr(_http, "_GLOBAL_CLIENT_FACTORY", None) or _http.default_client_factory

    def factory() -> Any:
        client = previous()
        timeout_cls = type(client.timeout)
        client.timeout = timeout_cls(seconds, connect=min(seconds, 15.0))
        return client

    setter(factory)
    try:
        yield
    finally:
        setter(previous)


def _hub_api(token: str) -> Any:
    try:
        from huggingface_hub import HfApi
    except ImportError:
        raise PublishError("huggingface_hub is not installed",
                           hint="pip install 'croissant-lineage[hub]' (or pip install huggingface_hub)") from None
    return HfApi(token=token)


def _existing_card(api: Any, repo_id: str) -> str | None:
    if not api.file_exists(repo_id, "README.md", repo_type="dataset"):
        return None
    path = api.hf_hub_download(repo_id, "README.md", repo_type="dataset")
    return Path(path).read_text("utf-8")


def _hub_errors() -> tuple[type[BaseException], ...]:
    """Exceptions a Hub call raises on refusal or network failure (for :class:`PublishError`)."""
    out: list[type[BaseException]] = [OSError, ValueError]
    try:
        from huggingface_hub.errors import HfHubHTTPError

        out.append(HfHubHTTPError)
    except ImportError:  # pragma: no cover - very old releases
        pass
    for module in ("httpx2", "httpx", "requests"):
        try:
            mod = __import__(module)
        except ImportError:
            continue
        err = getattr(mod, "HTTPError", None) or getattr(mod, "RequestException", None)
        if isinstance(err, type) and issubclass(err, BaseException):
            out.append(err)
    return tuple(out)


def _hub_call(fn: Callable[[], T], repo_id: str) -> T:
    """Run one Hub call with timeouts; refusals and network failures become PublishError."""
    try:
        with _hub_timeouts(HUB_TIMEOUT):
            return fn()
    except _hub_errors() as exc:
        raise PublishError(f"Hub request for {repo_id} failed: {exc}"[:500],
                           hint="check the token, the repo_id and the network") from exc


def _upload(api: Any, repo_id: str, out: Path, files: tuple[PlannedFile, ...], message: str) -> str | None:
    from huggingface_hub import CommitOperationAdd

    ops = [CommitOperationAdd(path_in_repo=f.path, path_or_fileobj=str(out / f.path)) for f in files]
    info = api.create_commit(repo_id=repo_id, repo_type="dataset", operations=ops, commit_message=message)
    url = getattr(info, "commit_url", None)
    return str(url) if url else None


# --- public ---------------------------------------------------------------------------


def publish(
    enriched_descriptor: str | Path,
    lineage_dir: str | Path,
    out_dir: str | Path,
    *,
    repo_id: str,
    token: str | None = None,
    dry_run: bool = True,
    dataset: str | None = None,
    findings: str | Path | Sequence[str | Path] | None = None,
    base_card: str | Path | None = None,
    overwrite: bool = False,
) -> PublishPlan:
    """Write (and optionally commit) a Hugging Face dataset repository update.

    Args:
        enriched_descriptor: The dataset's (enriched) Croissant descriptor.
        lineage_dir: The family's lineage folder (``croissant-lineage link``).
        out_dir: Folder that receives exactly the files of the commit (empty, or written
            by an earlier ``publish``).
        repo_id: The dataset repository, ``org/name``.
        token: A Hub token; nothing is uploaded without one.
        dry_run: Write the files and plan the commit, upload nothing (the default).
        dataset: Which dataset of the lineage the descriptor is (default: the
            descriptor's ``name``, or the dataset whose IRI is its ``url``).
        findings: Findings files; those on the dataset's items (or naming them as
            related) are published.
        base_card: An existing ``README.md`` to merge into (offline). When uploading
            without one, the repository's current card is downloaded and merged.
        overwrite: Replace a non-empty ``out_dir`` that ``publish`` did not write.

    Returns:
        The :class:`PublishPlan` (``uploaded`` True only after a successful commit).

    Raises:
        InputError: unreadable inputs, or a descriptor that is no dataset of the lineage.
        DescriptorError: the descriptor is not Croissant.
        OutputExistsError: ``out_dir`` holds other files.
        PublishError: huggingface_hub missing, or the Hub refused the commit.
    """
    check_repo_id(repo_id)
    lineage_dir = lineage_folder(lineage_dir, "lineage_dir")
    desc_path = Path(enriched_descriptor)
    doc = read_json(desc_path)
    check_croissant(doc, desc_path)
    lineage = Lineage.read(lineage_dir)
    ds = _dataset_of(doc, lineage, dataset)
    found: list[Finding] = []
    if findings is not None:
        found = [f for f in load_findings(findings)
                 if f.item.partition(":")[0] == ds["name"] or any(r.partition(":")[0] == ds["name"] for r in f.related)]
    out = Path(out_dir)
    _check_out_dir(out, overwrite)
    base_text = Path(base_card).read_text("utf-8") if base_card is not None else None
    upload = bool(token) and not dry_run
    api = _hub_api(token) if upload and token else None
    if api is not None and base_text is None:
        base_text = _hub_call(lambda: _existing_card(api, repo_id), repo_id)
    files, configs, message = _plan_files(doc, lineage, ds, found, repo_id, base_text, desc_path.parent)
    planned = _write(out, files)
    url = None
    if api is not None:
        url = _hub_call(lambda: _upload(api, repo_id, out, planned, message), repo_id)
    return PublishPlan(repo_id, ds["name"], out.as_posix(), planned, tuple(configs), message,
                       uploaded=api is not None, commit_url=url, merged_card=base_text is not None)
