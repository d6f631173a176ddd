"""Block every network connection except to this machine, for the whole test session.

Library code must never reach the network unless the user asked for a Hub operation;
the tests prove it by running with this guard on (``tests/conftest.py`` installs it).
Loopback stays open: notebook kernels talk to their client over 127.0.0.1.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

__all__ = ["NetworkBlocked", "install", "uninstall"]


class NetworkBlocked(RuntimeError):
    """A test (or the code under test) tried to reach a non-local address."""


_saved: dict[str, Any] = {}


def _is_local(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    host = str(host)
    if host in ("localhost", "", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _guard_address(address: Any) -> None:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return
    if isinstance(address, tuple) and address and not _is_local(address[0]):
        raise NetworkBlocked(f"network access blocked in tests: {address!r}")


def install() -> None:
    """Patch socket connect / getaddrinfo so only loopback and Unix sockets work."""
    if _saved:
        return
    _saved["connect"] = socket.socket.connect
    _saved["connect_ex"] = socket.socket.connect_ex
    _saved["getaddrinfo"] = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> None:
        _guard_address(address)
        return _saved["connect"](self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _guard_address(address)
        return int(_saved["connect_ex"](self, address))

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_local(host):
            raise NetworkBlocked(f"DNS lookup blocked in tests: {host!r}")
        return _saved["getaddrinfo"](host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo


def uninstall() -> None:
    """Undo :func:`install`."""
    if not _saved:
        return
    socket.socket.connect = _saved.pop("connect")  # type: ignore[method-assign]
    socket.socket.connect_ex = _saved.pop("connect_ex")  # type: ignore[method-assign]
    socket.getaddrinfo = _saved.pop("getaddrinfo")
