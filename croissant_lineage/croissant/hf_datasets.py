"""A Hub dataset read through ``datasets``, as one Arrow table shaped like a RecordSet.

A family spec may name a dataset by its Hub id (``"descriptor": "owner/name"``) and ask
for ``"loader": "datasets"``: its items then come from ``datasets.load_dataset`` rather
than from the Croissant the Hub generates plus a download of the files it lists. That is
the loader Hub users already have, with its cache (``HF_DATASETS_CACHE``) and its offline
mode: with ``HF_HUB_OFFLINE=1`` nothing touches the network, and a dataset loaded once
before is read from the cache.

:func:`read_hub_dataset` returns what :func:`~croissant_lineage.croissant.records.read_record_set`
returns for a RecordSet: one column per feature (a family spec's roles name them), a
``split`` column, and ``_file`` / ``_row`` (where each row came from:
``hf://datasets/OWNER/NAME/CONFIG/SPLIT`` and its 0-based row in that split). The
columns are the cached Arrow data, not copies.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage.croissant.records import FILE_COLUMN, ROW_COLUMN
from croissant_lineage.errors import InputError

__all__ = ["SPLIT_COLUMN", "hub_offline", "read_hub_dataset"]

#: The column naming each row's split (the Hub's generated Croissant calls its field ``split`` too).
SPLIT_COLUMN = "split"


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` asks the Hugging Face libraries not to use the network."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in ("1", "ON", "YES", "TRUE")


def _load(repo_id: str, config: str | None, revision: str | None, cache_dir: str | Path | None) -> Any:
    try:
        import datasets
    except ImportError:  # pragma: no cover - datasets is a dependency
        raise InputError("the datasets package is not installed", hint="pip install datasets") from None
    kwargs: dict[str, Any] = {"revision": revision}
    if cache_dir is not None:
        kwargs["cache_dir"] = str(cache_dir)
    try:
        return datasets.load_dataset(repo_id, config, **kwargs)
    except (ConnectionError, FileNotFoundError, ValueError, OSError) as exc:
        where = "not in the datasets cache (HF_HUB_OFFLINE is set)" if hub_offline() else "cannot be loaded"
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(
            f"Hub dataset {repo_id}{'/' + config if config else ''} {where}: {first}"[:400],
            hint="load it once with network access (it is then cached), or unset HF_HUB_OFFLINE",
        ) from None


def read_hub_dataset(
    repo_id: str,
    config: str | None = None,
    *,
    split: str | None = None,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
) -> pa.Table:
    """Read a Hub dataset (one config, one or every split) with ``datasets.load_dataset``.

    Args:
        repo_id: The dataset id, ``owner/name``.
        config: Its config (subset) name; None for the default one.
        split: Keep only this split (default: every split, in the order ``datasets`` gives).
        revision: A branch, tag or commit (default: the main branch).
        cache_dir: The ``datasets`` cache folder (default: ``HF_DATASETS_CACHE``).

    Returns:
        One table: the features' columns, then ``split`` (unless a feature has that name),
        ``_file`` and ``_row``.

    Raises:
        InputError: the dataset cannot be loaded (offline and not cached, no such
            dataset or config, no such split), or its splits have different features.
    """
    loaded = _load(repo_id, config, revision, cache_dir)
    splits = list(loaded)
    if split is not None:
        if split not in splits:
            raise InputError(f"Hub dataset {repo_id} has no split {split!r}", hint=f"splits are: {', '.join(splits)}")
        splits = [split]
    parts = []
    for name in splits:
        table = loaded[name].data.table  # the Arrow table datasets holds (memory-mapped from its cache)
        n = table.num_rows
        where = f"hf://datasets/{repo_id}/{config or 'default'}/{name}"
        table = table.replace_schema_metadata(None)
        if SPLIT_COLUMN not in table.column_names:
            table = table.append_column(SPLIT_COLUMN, pa.array([name] * n, pa.string()))
        table = table.append_column(FILE_COLUMN, pa.array([where] * n, pa.string()))
        parts.append(table.append_column(ROW_COLUMN, pa.array(range(n), pa.int64())))
    if not parts:
        raise InputError(f"Hub dataset {repo_id} has no split to read")
    try:
        return pa.concat_tables(parts)
    except pa.ArrowInvalid as exc:
        raise InputError(f"the splits of {repo_id} have different features: {exc}"[:300]) from None
