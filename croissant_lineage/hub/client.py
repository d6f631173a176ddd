"""The Hub calls publish makes, through ``huggingface_hub``: only when uploading or asked.

Reading the repository's card and committing the files. Every call runs with timeouts,
and a refusal or a network failure becomes a :class:`~croissant_lineage.errors.PublishError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from croissant_lineage.errors import InputError, PublishError

__all__ = ["HUB_TIMEOUT", "check_repo_id", "commit_files", "hub_api", "hub_call", "repo_card"]

T = TypeVar("T")

#: Seconds before a Hub request (connect, read, write) gives up.
HUB_TIMEOUT = 60.0


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


def hub_api(token: str | None) -> Any:
    try:
        from huggingface_hub import HfApi
    except ImportError:
        raise PublishError("huggingface_hub is not installed",
                           hint="pip install 'croissant-lineage[hub]' (or pip install huggingface_hub)") from None
    return HfApi(token=token)


def repo_card(api: Any, repo_id: str) -> str | None:
    """The repository's README.md, or None when it has none."""
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


def hub_call(fn: Callable[[], T], repo_id: str) -> T:
    """Run one Hub call with timeouts; refusals and network failures become PublishError."""
    try:
        with _hub_timeouts(HUB_TIMEOUT):
            return fn()
    except _hub_errors() as exc:
        raise PublishError(f"Hub request for {repo_id} failed: {exc}"[:500],
                           hint="check the token, the repo_id and the network") from exc


def commit_files(api: Any, repo_id: str, out: Path, paths: Sequence[str], message: str) -> str | None:
    """Commit the files ``paths`` of ``out`` to the dataset repository in one commit; its URL."""
    from huggingface_hub import CommitOperationAdd

    ops = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=str(out / path)) for path in paths]
    info = api.create_commit(repo_id=repo_id, repo_type="dataset", operations=ops, commit_message=message)
    url = getattr(info, "commit_url", None)
    return str(url) if url else None

