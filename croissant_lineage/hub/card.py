"""The dataset card publish writes: the YAML header the Hub reads and the lineage section.

The header carries the ``configs`` (the repository's own, kept, then ours), ``source_datasets``
naming the parents, and the metadata the Hub indexes (``license``, ``language``,
``multilinguality``, ``size_categories``, ``task_categories``, ``task_ids``, ``pretty_name``,
``tags``). The body's lineage section sits between :data:`BEGIN` and :data:`END`; its Hub
links have the form the Hub serves (``https://huggingface.co/datasets/ORG/NAME`` or
``.../tree/REVISION``). An existing card is merged, not replaced: its YAML keys and configs
are kept, ours are added, and only our section of the body is rewritten.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pyarrow as pa
import yaml

from croissant_lineage._results import inert_value, link_url
from croissant_lineage.croissant.descriptor import as_list
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.info import DatasetInfo
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.validate.card import card_body, card_header, hub_id, normalize_license

__all__ = [
    "BEGIN",
    "END",
    "ConfigRow",
    "card_configs",
    "card_metadata",
    "hub_url",
    "md_text",
    "merge_header",
    "parse_card",
    "render_card",
    "section",
    "size_category",
]

BEGIN = "<!-- croissant-lineage:begin -->"
END = "<!-- croissant-lineage:end -->"
#: Configs of earlier publish versions (replaced when publish merges a card).
OLD_CONFIGS = ("lineage_edges", "lineage_duplicates")
#: What the Hub indexes a multiple-choice benchmark under (its task taxonomy).
TASK_CATEGORIES = ("question-answering",)
TASK_IDS = ("multiple-choice-qa",)
_HUB_URL = re.compile(r"^https?://huggingface\.co/datasets/([^/?#@\s]+/[^/?#@\s]+)(?:@([^/?#\s]+))?([^#\s]*)(#\S*)?$")


#: A config row of the card's lineage section: (config, file, rows, what a row is).
ConfigRow = tuple[str, str, int, str]


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


def section(ds: DatasetInfo, lineage: Lineage, up: pa.Table, down: pa.Table, dups: pa.Table,
             findings: pa.Table | None, configs: list[ConfigRow], repo_id: str,
             enriched: bool) -> str:
    iris = lineage.family.iris()
    name = ds.name
    lines = [BEGIN, "## Lineage", ""]
    family = lineage.family.title or lineage.family.name
    lines.append(f"Item-level lineage of **{md_text(name)}** ({md_text(hub_url(ds.iri))}), "
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
    documented = [d for d in lineage.family.derivations if d.coverage == "documented" and name in (d.child, d.parent)]
    if documented:
        lines += ["Documented at dataset level only (no item data here): " + "; ".join(
            f"{d.child} <- {d.parent} ({d.activity})" for d in documented) + ".", ""]
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


def merge_header(base: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    if ours.get("license") and "license" not in out:
        out["license"] = ours["license"]
    sources = [s for s in as_list(out.get("source_datasets")) if isinstance(s, str)]
    have = {hub_id(s) for s in sources}
    sources += [s for s in ours.get("source_datasets", []) if hub_id(s) not in have]
    if sources:
        out["source_datasets"] = sources
    mine = {c["config_name"] for c in ours["configs"]} | set(OLD_CONFIGS)
    kept = [c for c in as_list(out.get("configs")) if not (isinstance(c, dict) and c.get("config_name") in mine)]
    out["configs"] = kept + ours["configs"]
    tags = [t for t in as_list(out.get("tags")) if isinstance(t, str)]
    out["tags"] = tags + [t for t in ours.get("tags", []) if t not in tags]
    for key in _CARD_KEYS:
        if key in ours and key not in out:
            out[key] = ours[key]
    return out


def render_card(header: dict[str, Any], section: str, base_text: str | None, title: str) -> str:
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


def card_metadata(doc: dict[str, Any], ds: DatasetInfo, items: int) -> dict[str, Any]:
    """What the Hub indexes: license, language, size, task, name (unknown ones left out)."""
    header: dict[str, Any] = {}
    lic = _hf_license(doc)
    if lic:
        header["license"] = lic
    langs = [lang for lang in as_list(list(ds.languages) or doc.get("inLanguage")) if isinstance(lang, str) and lang]
    if langs:
        header["language"] = list(dict.fromkeys(langs))
        header["multilinguality"] = "monolingual" if len(header["language"]) == 1 else "multilingual"
    header["size_categories"] = [size_category(items)]
    header["task_categories"] = list(TASK_CATEGORIES)
    header["task_ids"] = list(TASK_IDS)
    header["pretty_name"] = ds.title or ds.name
    return header


def parse_card(text: str) -> dict[str, Any]:
    """The YAML header of an existing card (``{}`` for a card without one).

    Raises:
        InputError: the card starts a YAML header that does not parse into a mapping.
    """
    header, problem = card_header(text)
    if header is None and text.lstrip().startswith("---"):
        raise InputError(f"the existing card's {problem}", hint="fix its YAML header first")
    return header or {}


def card_configs(header: dict[str, Any], ours: set[str]) -> list[dict[str, Any]]:
    """The configs of an existing card that publish keeps (all but its own, old and new)."""
    mine = ours | set(OLD_CONFIGS)
    return [c for c in as_list(header.get("configs"))
            if isinstance(c, dict) and c.get("config_name") not in mine]
