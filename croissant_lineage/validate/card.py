"""Checks of a Hugging Face dataset card (``README.md``) against its descriptor.

* ``CLV601``: the YAML header is missing, or ``yaml.safe_load`` fails, or it is not a mapping;
* ``CLV602``: a ``configs`` entry lacks ``config_name`` or ``data_files``;
* ``CLV603``: a ``configs`` path or glob matches no file beside the card;
* ``CLV604``: the card's ``license`` and the descriptor's differ;
* ``CLV605``: ``source_datasets`` does not name a parent the descriptor declares
  (dataset-level ``prov:wasDerivedFrom``);
* ``CLV606``: a data file the descriptor distributes is in no ``configs`` entry, so the
  Hub's generated Croissant and its viewer will not show it.

The descriptor is the Croissant file beside the card (``croissant.json`` or
``metadata.json``), or one passed to the same run from the card's folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from croissant_lineage._io import load_yaml
from croissant_lineage.croissant.describe import encoding_format_of
from croissant_lineage.croissant.descriptor import Descriptor, as_list, node_id
from croissant_lineage.croissant.jsonld import JsonLdContext, pointer
from croissant_lineage.croissant.namespaces import PROV_NS
from croissant_lineage.errors import LineageError
from croissant_lineage.validate.codes import issue
from croissant_lineage.validate.report import Issue

__all__ = ["card_body", "card_header", "check_card", "descriptor_parents", "hub_id", "normalize_license"]

_HEADER = re.compile(r"\A\s*---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_HUB = re.compile(r"^https?://huggingface\.co/datasets/([^/?#@]+/[^/?#@]+)")
_CC = re.compile(r"creativecommons\.org/(?:licenses|publicdomain)/([a-z-]+)/(\d\.\d)", re.I)
_LICENSE_URLS = {
    "opensource.org/licenses/mit": "mit",
    "opensource.org/license/mit": "mit",
    "www.apache.org/licenses/license-2.0": "apache-2.0",
    "apache.org/licenses/license-2.0": "apache-2.0",
}


def card_header(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The card's YAML header parsed with ``yaml.safe_load``.

    Returns:
        ``(header, None)``, or ``(None, problem)`` when it is missing, does not parse, or
        is not a mapping.
    """
    m = _HEADER.match(text)
    if not m:
        return None, "no YAML header (a block between --- lines at the top)"
    try:
        data = load_yaml(m.group(1))
    except yaml.YAMLError as exc:
        return None, f"YAML header does not parse: {exc}".replace("\n", " ")[:300]
    if not isinstance(data, dict):
        return None, "YAML header is not a mapping"
    return data, None


def card_body(text: str) -> str:
    """The card's Markdown after its YAML header (the whole text when it has none)."""
    m = _HEADER.match(text)
    return text[m.end():] if m else text


def normalize_license(value: str) -> str:
    """A comparison key for a license id or URL (``MIT``, ``https://opensource.org/licenses/MIT``
    and ``mit`` all give ``mit``; ``CC BY 4.0`` and its URL give ``cc-by-4.0``)."""
    v = value.strip().lower()
    m = _CC.search(v)
    if m:
        return f"cc-{m.group(1)}-{m.group(2)}" if m.group(1) != "zero" else f"cc0-{m.group(2)}"
    bare = re.sub(r"^https?://", "", v).rstrip("/")
    bare = re.sub(r"\.(html|php|txt)$", "", bare)
    if bare in _LICENSE_URLS:
        return _LICENSE_URLS[bare]
    if bare.startswith("spdx.org/licenses/"):
        bare = bare.removeprefix("spdx.org/licenses/")
    return re.sub(r"[\s_]+", "-", bare)


def _licenses(value: Any) -> set[str]:
    out: set[str] = set()
    for v in as_list(value):
        if isinstance(v, str):
            out.add(normalize_license(v))
        elif isinstance(v, dict):
            for k in ("url", "@id", "name", "identifier"):
                if isinstance(v.get(k), str):
                    out.add(normalize_license(v[k]))
                    break
    return out


def hub_id(iri: str) -> str:
    """``org/name`` for a Hub dataset URL; any other IRI without a trailing slash."""
    value = iri.strip().removeprefix("extended|")
    m = _HUB.match(value)
    return m.group(1) if m else value.rstrip("/")


def descriptor_parents(doc: dict[str, Any]) -> list[str]:
    """The IRIs a descriptor names as dataset-level ``prov:wasDerivedFrom``."""
    ctx = JsonLdContext(doc.get("@context"))
    out: list[str] = []
    for key, value in doc.items():
        if ctx.expand_iri(key, vocab=True).iri != f"{PROV_NS}wasDerivedFrom":
            continue
        for v in as_list(value):
            ref = node_id(v) if isinstance(v, dict) else v
            if isinstance(v, dict) and not isinstance(v.get("@id"), str) and isinstance(v.get("url"), str):
                ref = v["url"]
            if isinstance(ref, str):
                out.append(ref)
    return out


def _patterns(data_files: Any) -> list[str] | None:
    if isinstance(data_files, str):
        return [data_files]
    if isinstance(data_files, dict):
        return [p for v in data_files.values() for p in (as_list(v) if not isinstance(v, dict) else as_list(v.get("path")))]
    if isinstance(data_files, list):
        out: list[str] = []
        for entry in data_files:
            if isinstance(entry, str):
                out.append(entry)
            elif isinstance(entry, dict) and entry.get("path") is not None:
                out += [p for p in as_list(entry["path"]) if isinstance(p, str)]
            else:
                return None
        return out
    return None


def check_card(path: Path, text: str, where: str, descriptor: Descriptor | None) -> list[Issue]:
    """Check a dataset card.

    Args:
        path: The ``README.md`` (its folder is the repository root).
        text: Its content.
        where: The name to report it under.
        descriptor: The dataset's Croissant descriptor, if there is one (agreement checks
            ``CLV604``-``CLV606`` need it).

    Returns:
        Issues ``CLV601``-``CLV606``.
    """
    header, problem = card_header(text)
    if header is None:
        return [issue("CLV601", problem or "bad YAML header", f"{where}#")]
    out: list[Issue] = []
    root = path.parent
    published: set[Path] = set()
    configs = header.get("configs", [])
    for n, cfg in enumerate(configs if isinstance(configs, list) else [configs]):
        at = f"{where}#{pointer(['configs', n])}"
        if not isinstance(cfg, dict) or not isinstance(cfg.get("config_name"), str):
            out.append(issue("CLV602", "configs entry without a config_name", at))
            continue
        patterns = _patterns(cfg.get("data_files"))
        if not patterns:
            out.append(issue("CLV602", f"config {cfg['config_name']!r} has no usable data_files", at))
            continue
        for pat in patterns:
            hits = [p for p in root.glob(pat) if p.is_file()] if not Path(pat).is_absolute() else []
            if not hits:
                out.append(issue("CLV603", f"config {cfg['config_name']!r}: {pat!r} matches no file", at))
            published.update(h.resolve() for h in hits)
    if descriptor is None:
        return out
    doc = descriptor.doc
    mine = _licenses(doc.get("license"))
    theirs = _licenses(header.get("license"))
    if mine and mine != theirs:
        got = ", ".join(sorted(theirs)) or "none"
        out.append(issue("CLV604", f"card license {got} != descriptor license {', '.join(sorted(mine))}",
                         f"{where}#/license"))
    named = {hub_id(s) for s in as_list(header.get("source_datasets")) if isinstance(s, str)}
    for parent in descriptor_parents(doc):
        if hub_id(parent) not in named:
            out.append(issue("CLV605", f"source_datasets does not name parent {parent} "
                             f"(e.g. 'extended|{hub_id(parent)}')", f"{where}#/source_datasets"))
    local = Descriptor(descriptor.path, doc, root)
    for fid in sorted(local.files()):
        try:
            files = local.local_paths(fid)
        except LineageError:
            continue
        for f in files:
            if encoding_format_of(f) and f.resolve() not in published and f.resolve() != (descriptor.path or f).resolve():
                out.append(issue("CLV606", f"{f.relative_to(root).as_posix()} ({fid}) is in no configs entry",
                                 f"{where}#/configs"))
    return out
