"""A dataset repository as the Hub reads it, offline: the card's configs resolved to files,
each config loaded with ``datasets``, and croissant.json's file URLs checked."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from croissant_lineage.validate.card import card_header


def repository(existing: Path | None, update: Path, into: Path) -> Path:
    """The repository after the update's commit: ``existing``'s files, then ``update``'s."""
    if existing is not None:
        shutil.copytree(existing, into)
    shutil.copytree(update, into, dirs_exist_ok=True)
    return into


def configs(repo: Path) -> dict[str, dict[str, list[Path]]]:
    """Config -> split -> the files its ``data_files`` globs match in ``repo``."""
    header, problem = card_header((repo / "README.md").read_text("utf-8"))
    assert header is not None, problem
    out: dict[str, dict[str, list[Path]]] = {}
    for cfg in header["configs"]:
        entries = cfg["data_files"] if isinstance(cfg["data_files"], list) else [cfg["data_files"]]
        for entry in entries:
            split, paths = (entry["split"], entry["path"]) if isinstance(entry, dict) else ("train", entry)
            for pattern in paths if isinstance(paths, list) else [paths]:
                out.setdefault(cfg["config_name"], {}).setdefault(split, []).extend(sorted(repo.glob(pattern)))
    return out


def load_every_config(repo: Path, cache: Path, monkeypatch: Any) -> dict[str, dict[str, int]]:
    """Rows per config and split, read by ``datasets.load_dataset`` from the local folder."""
    import datasets

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True, raising=False)
    rows = {}
    for name in configs(repo):
        loaded = datasets.load_dataset(str(repo), name, cache_dir=str(cache))
        rows[name] = {split: ds.num_rows for split, ds in loaded.items()}
    return rows


def unresolved_urls(repo: Path, doc: dict[str, Any]) -> list[str]:
    """croissant.json's relative file URLs that name no file of ``repo``."""
    missing = []
    for node in doc["distribution"]:
        if node.get("containedIn"):
            continue
        values = node.get("includes", node.get("contentUrl"))
        for value in values if isinstance(values, list) else [values]:
            if "://" in value:
                continue
            if not (list(repo.glob(value)) if "includes" in node else (repo / value).is_file()):
                missing.append(value)
    return missing
