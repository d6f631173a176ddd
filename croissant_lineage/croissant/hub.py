"""A Croissant descriptor from a local path or a Hugging Face Hub dataset id.

:func:`descriptor_for` is the one place where a dataset id, written explicitly as
``hf://TIGER-Lab/MMLU-Pro`` (or ``hf://datasets/TIGER-Lab/MMLU-Pro``), is turned into a
descriptor file. A bare ``owner/name`` is a local path, never an id: a path that does not
exist is an error, not a download. it downloads the Croissant the
Hub generates for the dataset (``{endpoint}/api/datasets/{id}/croissant``), with an
explicit timeout and a size cap, checks that it is a Croissant dataset, and caches it.
A local path never touches the network.

The Hub's descriptor names its files by URL (a FileSet ``containedIn`` the repository),
so reading its records needs those files; this module fetches only the descriptor.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from pathlib import Path

from croissant_lineage._io import atomic_write_bytes
from croissant_lineage.croissant.descriptor import check_croissant
from croissant_lineage.errors import InputError, SizeLimitError

__all__ = [
    "HUB_CROISSANT_URL",
    "MAX_DESCRIPTOR_BYTES",
    "default_cache_dir",
    "descriptor_for",
    "is_hub_id",
    "parse_hub_id",
]

#: Where the Hub serves the Croissant it generates for a dataset (``{endpoint}``
#: is ``huggingface_hub``'s endpoint, ``https://huggingface.co`` unless ``HF_ENDPOINT``).
HUB_CROISSANT_URL = "{endpoint}/api/datasets/{id}/croissant"

#: A downloaded descriptor larger than this is refused.
MAX_DESCRIPTOR_BYTES = 32 * 1024 * 1024

_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9_-])?"
_HUB_ID = re.compile(rf"{_PART}/{_PART}")
_DESCRIPTOR_NAMES = ("croissant.json", "metadata.json")


#: The explicit prefix of a Hub dataset id (``hf://owner/name``), as huggingface_hub's
#: file system spells it; ``hf://datasets/owner/name`` is accepted too.
HUB_PREFIX = "hf://"


def parse_hub_id(text: str) -> str | None:
    """The ``owner/name`` of an explicit Hub id (``hf://owner/name``), else None.

    Only the explicit form is an id: a bare ``owner/name`` is a path (a missing file is
    an error, not a download), so a typo in a local path never reaches the network.
    """
    if not text.startswith(HUB_PREFIX):
        return None
    rest = text[len(HUB_PREFIX):].removeprefix("datasets/")
    if rest.endswith((".json", ".jsonld")) or _HUB_ID.fullmatch(rest) is None:
        return None
    return rest


def is_hub_id(text: str) -> bool:
    """True when ``text`` is an explicit Hub dataset id (``hf://owner/name``; see :func:`parse_hub_id`)."""
    return parse_hub_id(text) is not None


def default_cache_dir() -> Path:
    """``$CROISSANT_LINEAGE_CACHE``, else ``$XDG_CACHE_HOME/croissant-lineage``, else
    ``~/.cache/croissant-lineage``; Hub descriptors go in its ``hub/`` folder."""
    env = os.environ.get("CROISSANT_LINEAGE_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "croissant-lineage"


def _endpoint() -> str:
    try:
        from huggingface_hub import constants

        return str(constants.ENDPOINT).rstrip("/")
    except ImportError:  # pragma: no cover - huggingface_hub is a dependency
        return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def _offline() -> bool:
    value = os.environ.get("HF_HUB_OFFLINE", "")
    return value.strip().upper() in ("1", "ON", "YES", "TRUE")


def _headers() -> dict[str, str]:
    try:
        from huggingface_hub.utils import build_hf_headers

        return dict(build_hf_headers(library_name="croissant-lineage"))
    except ImportError:  # pragma: no cover - huggingface_hub is a dependency
        return {"user-agent": "croissant-lineage"}


def _fetch(url: str, timeout: float) -> bytes:
    """GET ``url`` with ``timeout`` seconds; at most :data:`MAX_DESCRIPTOR_BYTES` + 1 bytes.

    Raises:
        InputError: HTTP error, unreachable host or timeout.
    """
    request = urllib.request.Request(url, headers=_headers())
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return bytes(response.read(MAX_DESCRIPTOR_BYTES + 1))
    except urllib.error.HTTPError as exc:
        hint = (
            "check the dataset id; a gated or private dataset needs `huggingface-cli login`"
            if exc.code in (401, 403, 404)
            else "try again later"
        )
        raise InputError(f"the Hub answered HTTP {exc.code} for {url}", hint=hint) from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise InputError(
            f"cannot reach the Hub at {url}: {reason}",
            hint="check the network, or pass a local descriptor path",
        ) from None


def descriptor_for(
    name_or_path: str | Path,
    *,
    cache_dir: str | Path | None = None,
    timeout: float = 30,
    refresh: bool = False,
) -> Path:
    """The local path of a Croissant descriptor, downloading it for a Hub dataset id.

    Args:
        name_or_path: A descriptor file, a folder holding ``croissant.json`` (or
            ``metadata.json``), or an explicit Hub dataset id such as
            ``hf://TIGER-Lab/MMLU-Pro``. A bare ``owner/name`` is always a local path.
        cache_dir: Folder for downloaded descriptors (default :func:`default_cache_dir`);
            a dataset ``owner/name`` is cached as ``hub/owner/name/croissant.json``.
        timeout: Seconds to wait for the Hub (connect and each read).
        refresh: Download again even when a cached copy exists.

    Returns:
        The descriptor file. For a local path, the path itself (the network is never
        used); for an id, the cached copy.

    Raises:
        InputError: a local path that does not exist (a bare ``owner/name`` included); the Hub cannot
            be reached, answers an error, or ``HF_HUB_OFFLINE`` is set with no cached copy.
        DescriptorError: the Hub's answer is not a Croissant dataset.
        SizeLimitError: the answer is larger than :data:`MAX_DESCRIPTOR_BYTES`.
    """
    text = os.fspath(name_or_path)
    local = Path(text)
    if local.is_dir():
        for candidate in _DESCRIPTOR_NAMES:
            if (local / candidate).is_file():
                return local / candidate
        raise InputError(
            "folder holds no croissant.json or metadata.json",
            path=local,
            hint="give the descriptor file itself",
        )
    if local.exists():
        return local
    hub_id = None if isinstance(name_or_path, Path) else parse_hub_id(text)
    if hub_id is None:
        raise InputError(
            "file not found",
            path=local,
            hint="give a descriptor path, or a Hugging Face dataset id written hf://owner/name",
        )
    text = hub_id
    owner, name = text.split("/")
    target = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    target = target / "hub" / owner / name / "croissant.json"
    if target.is_file() and not refresh:
        return target
    url = HUB_CROISSANT_URL.format(endpoint=_endpoint(), id=text)
    if _offline():
        raise InputError(
            f"HF_HUB_OFFLINE is set and {text} has no cached descriptor",
            path=target,
            hint="unset HF_HUB_OFFLINE, or pass a local descriptor path",
        )
    body = _fetch(url, timeout)
    if len(body) > MAX_DESCRIPTOR_BYTES:
        raise SizeLimitError(
            f"the Hub's descriptor for {text} is larger than {MAX_DESCRIPTOR_BYTES:,} bytes",
            hint="download it yourself and pass the local path",
        )
    try:
        doc = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise InputError(f"the Hub's answer for {text} is not JSON ({url})") from None
    check_croissant(doc, Path(url))
    atomic_write_bytes(target, body)
    return target
