"""Publishing a dataset's lineage to the Hugging Face Hub, as an update of its repository.

The Hub generates its own Croissant for a dataset repository and ignores an uploaded
``croissant.json`` (mlcommons/croissant#724). What it does read is the data files and
the dataset card's YAML header. So :func:`publish` writes, for one dataset of a family,
the folder of one commit to the dataset's repository:

* one Parquet file per table, each with one ``configs`` entry of the same name
  (:mod:`croissant_lineage.hub.tables`): the items (stems and options only with
  ``texts=True``), the derivation edges, and the findings (the findings files given, or
  else those the enriched descriptor holds);
* ``croissant.json``: the descriptor, every file URL one that resolves in the repository
  (:mod:`croissant_lineage.hub.repo_descriptor`);
* ``README.md``: the repository's card with its configs kept and ours added, and the
  lineage section (:mod:`croissant_lineage.hub.card`).

The repository's card comes from ``base_card`` (offline) or, when uploading or asked
(``read_hub_card``), from the repository through ``huggingface_hub``; without either,
publish stops (CL-E009) rather than write a card that would hide the repository's own
configs. Nothing is uploaded unless ``upload=True`` (with a token); ``out_dir`` always
holds exactly the files of the commit.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq

from croissant_lineage._io import (
    atomic_folder,
    atomic_write_bytes,
    check_output,
    dumps_json,
    parquet_bytes,
    read_json,
)
from croissant_lineage._results import Result
from croissant_lineage.croissant.descriptor import check_croissant
from croissant_lineage.errors import InputError, OutputExistsError, PublishError
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.model import Finding
from croissant_lineage.hub.card import (
    BEGIN,
    END,
    card_configs,
    card_metadata,
    hub_url,
    md_text,
    merge_header,
    parse_card,
    render_card,
    section,
    size_category,
)
from croissant_lineage.hub.client import check_repo_id, commit_files, hub_api, hub_call, repo_card
from croissant_lineage.hub.repo_descriptor import descriptor_parquet, for_repository
from croissant_lineage.hub.tables import (
    ITEMS_WITHOUT_TEXTS,
    TABLES,
    descriptor_findings,
    lineage_tables,
    on_dataset,
    table_path,
)
from croissant_lineage.lineage.info import DatasetInfo
from croissant_lineage.lineage.model import Lineage, lineage_folder
from croissant_lineage.lineage.schema import DUPLICATES_SCHEMA, EDGES_SCHEMA
from croissant_lineage.validate.card import descriptor_parents, hub_id
from croissant_lineage.validate.detect import is_enriched

__all__ = [
    "BEGIN",
    "END",
    "TABLES",
    "PlannedFile",
    "PublishPlan",
    "check_repo_id",
    "hub_url",
    "md_text",
    "publish",
    "size_category",
    "table_path",
]

#: Files earlier releases of publish wrote (removed when publish rewrites its folder).
_OLD_FILES = ("lineage/edges.parquet", "lineage/duplicates.parquet", "findings/findings.parquet")
_OWN_FILES = ("README.md", "croissant.json", *(table_path(c) for c in TABLES), *_OLD_FILES)




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
        configs: Config names added to the card (a table of no rows is written for
            croissant.json, without a config: the Hub cannot load an empty one).
        commit_message: The commit message.
        uploaded: True when the commit was made.
        commit_url: The commit's URL when uploaded.
        merged_card: True when an existing card was merged.
        kept_configs: The repository's own configs, kept in the card.
        card_from: Where the repository's card came from: ``base_card``, ``hub``, or
            ``none`` (the repository has no card yet).
        findings: Findings published.
        texts: True when the items' stems and options were published.
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
    kept_configs: tuple[str, ...] = ()
    card_from: str = "base_card"
    findings: int = 0
    texts: bool = False

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
            "kept_configs": list(self.kept_configs),
            "card_from": self.card_from,
            "findings": self.findings,
            "texts": self.texts,
        }





def _dataset_of(doc: dict[str, Any], lineage: Lineage, dataset: str | None) -> DatasetInfo:
    datasets = {d.name: d for d in lineage.family.datasets}
    if dataset is not None:
        if dataset not in datasets:
            raise InputError(f"dataset {dataset!r} is not in the lineage", hint=f"datasets are: {', '.join(datasets)}")
        return datasets[dataset]
    name = doc.get("name")
    if isinstance(name, str) and name in datasets:
        return datasets[name]
    urls = {u for u in (doc.get("url"), doc.get("@id")) if isinstance(u, str)}
    hits = [d for d in datasets.values() if d.iri in urls]
    if len(hits) == 1:
        return hits[0]
    raise InputError(
        f"cannot tell which dataset of the lineage the descriptor {name!r} is",
        hint=f"pass dataset= (CLI: --dataset), one of: {', '.join(datasets)}",
    )



def _check_out_dir(out: Path, force: bool) -> None:
    check_output(out, folder=True)
    if not out.exists():
        return
    if not out.is_dir():
        raise OutputExistsError("exists and is not a folder", path=out)
    readme = out / "README.md"
    ours = readme.is_file() and BEGIN in readme.read_text("utf-8", errors="replace")
    if any(out.iterdir()) and not ours and not force:
        raise OutputExistsError("folder is not empty and was not written by publish", path=out,
                                hint="choose an empty folder, or pass force=True (CLI: --force)")


def _write(out: Path, files: dict[str, bytes]) -> tuple[PlannedFile, ...]:
    """Write the folder whole and swap it in: a full disk or a kill leaves the old folder."""
    stale = [name for name in _OWN_FILES if name not in files]
    planned = []
    with atomic_folder(out, drop=stale) as tmp:
        for name in sorted(files):
            atomic_write_bytes(tmp / name, files[name])
            planned.append(PlannedFile(name, len(files[name]), hashlib.sha256(files[name]).hexdigest()))
    return tuple(planned)



def _header(doc: dict[str, Any], lineage: Lineage, ds: DatasetInfo, items: int,
            configs: list[tuple[str, str, int, str]]) -> dict[str, Any]:
    """Our card header: the metadata the Hub indexes, the parents, the tags, our configs."""
    name = ds.name
    iris = lineage.family.iris()
    parents = list(descriptor_parents(doc))
    parents += [iris[d.parent] for d in lineage.family.derivations if d.child == name and iris.get(d.parent)]
    header = card_metadata(doc, ds, items)
    sources = list(dict.fromkeys(f"extended|{hub_id(p)}" for p in parents))
    if sources:
        header["source_datasets"] = sources
    header["tags"] = ["croissant", "provenance", "lineage"]
    header["configs"] = [{"config_name": c, "data_files": [{"split": "train", "path": p}]} for c, p, _, _ in configs]
    return header


@dataclass(frozen=True)
class _Planned:
    files: dict[str, bytes]
    configs: list[str]
    kept: list[str]
    message: str


def _plan_files(doc: dict[str, Any], lineage: Lineage, ds: DatasetInfo, found: list[Finding], repo_id: str,
                base_card: str | None, folder: Path, texts: bool) -> _Planned:
    name = ds.name
    edges = lineage.edges.cast(EDGES_SCHEMA)
    up = edges.filter(pc.equal(edges.column("child_dataset"), name))
    down = edges.filter(pc.equal(edges.column("parent_dataset"), name))
    dups = lineage.duplicates.cast(DUPLICATES_SCHEMA)
    dups = dups.filter(pc.equal(dups.column("dataset"), name))
    iris = lineage.family.iris()
    tables = lineage_tables(lineage, name, found, {k: v for k, v in iris.items() if v}, texts=texts)
    files: dict[str, bytes] = {}
    configs: list[tuple[str, str, int, str]] = []
    for config, table in tables.items():
        files[table_path(config)] = parquet_bytes(table)
        if not table.num_rows:  # croissant.json reads it; a config of no rows would not load on the Hub
            continue
        what = TABLES[config][1] if texts or config != "lineage_items" else ITEMS_WITHOUT_TEXTS
        configs.append((config, table_path(config), table.num_rows, what))
    for config, rel, data, what in descriptor_parquet(doc, folder, _OWN_FILES):
        files[rel] = data
        configs.append((config, rel, pq.read_metadata(io.BytesIO(data)).num_rows, what))
    header = _header(doc, lineage, ds, tables["lineage_items"].num_rows, configs)
    base_header = parse_card(base_card) if base_card is not None else {}
    kept = card_configs(base_header, {c for c, _, _, _ in configs})
    files["croissant.json"] = dumps_json(for_repository(doc, files, kept)).encode("utf-8")
    merged = merge_header(base_header, header)
    text = section(ds, lineage, up, down, dups, tables["findings"], configs, repo_id, is_enriched(doc))
    files["README.md"] = render_card(merged, text, base_card, str(ds.title or name)).encode("utf-8")
    edges_n = tables["lineage"].num_rows
    message = (f"croissant-lineage: lineage of {name} ({edges_n:,} derivation edges"
               + (f", {len(found):,} findings" if found else "") + ")")
    return _Planned(files, [c for c, _, _, _ in configs], [str(c.get("config_name")) for c in kept], message)


def _repository_card(base_card: str | Path | None, api: Any, repo_id: str) -> tuple[str | None, str]:
    """The repository's current card and where it came from (see :attr:`PublishPlan.card_from`)."""
    if base_card is not None:
        return Path(base_card).read_text("utf-8"), "base_card"
    if api is None:
        raise PublishError(
            f"the card of {repo_id} is unknown, so its own configs cannot be kept",
            hint="pass --base-card README.md (the repository's card), or --from-hub to read it "
                 "(a token for a private repository)")
    text = hub_call(lambda: repo_card(api, repo_id), repo_id)
    return text, "hub" if text is not None else "none"


def publish(
    enriched_descriptor: str | Path,
    lineage_dir: str | Path,
    out_dir: str | Path,
    *,
    repo_id: str,
    token: str | None = None,
    upload: bool = False,
    dataset: str | None = None,
    findings: str | Path | Sequence[str | Path] | None = None,
    base_card: str | Path | None = None,
    read_hub_card: bool = False,
    texts: bool = False,
    force: bool = False,
    overwrite: bool | None = None,
) -> PublishPlan:
    """Write (and, only with ``upload=True``, commit) an update of a Hub dataset repository.

    Args:
        enriched_descriptor: The dataset's (enriched) Croissant descriptor.
        lineage_dir: The family's lineage folder (``croissant-lineage link``).
        out_dir: Folder that receives exactly the files of the commit (empty, or written
            by an earlier ``publish``).
        repo_id: The dataset repository, ``org/name``.
        token: A Hub token (needed to upload; used to read a private repository's card).
        upload: Commit the files to the repository (one commit). Off by default: a dry
            run writes the folder and plans the commit, and uploads nothing.
        dataset: Which dataset of the lineage the descriptor is (default: the
            descriptor's ``name``, or the dataset whose IRI is its ``url``).
        findings: Findings files; those on the dataset's items (or naming them as
            related) are published. Default: the findings the enriched descriptor holds.
        base_card: The repository's current ``README.md`` (offline): its configs and
            metadata are kept, our section is added or rewritten.
        read_hub_card: Without ``base_card``, read the repository's card from the Hub
            (``upload`` does so too).
        texts: Publish the items' stems and options (the benchmark's texts) in
            ``lineage_items``; without it those columns are null.
        force: Replace a non-empty ``out_dir`` that ``publish`` did not write.
        overwrite: The former name of ``force`` (deprecated).

    Returns:
        The :class:`PublishPlan` (``uploaded`` True only after a successful commit).

    Raises:
        InputError: unreadable inputs, or a descriptor that is no dataset of the lineage.
        DescriptorError: the descriptor is not Croissant.
        OutputExistsError: ``out_dir`` holds other files.
        PublishError: the repository's card is unknown (no ``base_card``, no Hub read),
            a data file of the descriptor is in no config of that card, ``upload``
            without a token, huggingface_hub missing, or the Hub refused.
    """
    if overwrite is not None:
        warnings.warn("overwrite= is now force=", DeprecationWarning, stacklevel=2)
        force = force or overwrite
    check_repo_id(repo_id)
    if upload and not token:
        raise PublishError("uploading needs a Hub token", hint="pass --token or set $HF_TOKEN")
    lineage_dir = lineage_folder(lineage_dir, "lineage_dir")
    desc_path = Path(enriched_descriptor)
    doc = read_json(desc_path)
    check_croissant(doc, desc_path)
    lineage = Lineage.read(lineage_dir)
    ds = _dataset_of(doc, lineage, dataset)
    given = load_findings(findings) if findings is not None else descriptor_findings(doc, desc_path.parent)
    found = on_dataset(given, ds.name)
    out = Path(out_dir)
    _check_out_dir(out, force)
    api = hub_api(token) if upload or (read_hub_card and base_card is None) else None
    base_text, card_from = _repository_card(base_card, api, repo_id)
    plan = _plan_files(doc, lineage, ds, found, repo_id, base_text, desc_path.parent, texts)
    planned = _write(out, plan.files)
    url = None
    if upload:
        url = hub_call(lambda: commit_files(api, repo_id, out, [f.path for f in planned], plan.message), repo_id)
    return PublishPlan(repo_id, ds.name, out.as_posix(), planned, tuple(plan.configs), plan.message,
                       uploaded=upload, commit_url=url, merged_card=base_text is not None,
                       kept_configs=tuple(plan.kept), card_from=card_from, findings=len(found), texts=texts)
