"""The data files behind a Hub-generated descriptor, downloaded on request.

The Croissant the Hugging Face Hub generates names its files through a FileObject
for the repository (``.../tree/refs%2Fconvert%2Fparquet``, ``encodingFormat``
``git+https``) and FileSets ``containedIn`` it with ``includes`` globs.
:func:`local_copy` downloads exactly those files with ``huggingface_hub`` (only when the
user named a Hub dataset id) and returns the folder that the globs resolve against.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

from croissant_lineage.croissant.descriptor import Descriptor, as_list
from croissant_lineage.errors import InputError

__all__ = ["hub_revision", "local_copy"]


def hub_revision(desc: Descriptor) -> str | None:
    """The git revision named by the descriptor's repository FileObject, if any
    (``refs/convert/parquet`` for the Hub's own descriptors)."""
    for f in desc.files().values():
        url = f.node.get("contentUrl")
        if f.kind == "FileObject" and isinstance(url, str) and "/tree/" in url:
            return unquote(url.split("/tree/", 1)[1]) or None
    return None


def local_copy(desc: Descriptor, repo_id: str, *, cache_dir: str | Path | None = None, timeout: float = 30) -> Path:
    """Download the files a Hub descriptor's FileSets include; return their root folder.

    Args:
        desc: The descriptor (from :func:`croissant_lineage.croissant.hub.descriptor_for`).
        repo_id: The dataset id, ``owner/name``.
        cache_dir: ``huggingface_hub`` cache folder (default: its own).
        timeout: Seconds for the Hub's answers.

    Raises:
        InputError: the files cannot be downloaded.
    """
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    patterns: list[str] = []
    for f in desc.files().values():
        if f.kind == "FileSet":
            patterns.extend(p for p in as_list(f.node.get("includes")) if isinstance(p, str))
    kwargs: dict[str, Any] = {"repo_type": "dataset", "allow_patterns": patterns or None, "etag_timeout": timeout}
    if cache_dir is not None:
        kwargs["cache_dir"] = str(cache_dir)
    try:
        folder = snapshot_download(repo_id, revision=hub_revision(desc), **kwargs)
    except (HfHubHTTPError, LocalEntryNotFoundError, OSError) as exc:
        raise InputError(
            f"cannot download the files of {repo_id}: {exc}".splitlines()[0],
            hint="check the network, or download the files and describe them locally",
        ) from None
    return Path(folder)
