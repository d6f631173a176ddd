"""The importer registry: each findings source declares itself once, as data.

An importer is one module of this package that defines ``IMPORTER``, an
:class:`Importer`: its name (the ``croissant-lineage findings import NAME`` command),
a one-line help, its own arguments (:class:`ImporterArgument`) and the function that
does the import. The registry finds these modules itself (:func:`importers`), so a new
source is one new file; code outside the package adds one with :func:`register_importer`.

Every importer function is called the same way: keyword arguments ``family`` (a family
spec or its name), ``data_dir`` (the data folder, or None), ``lineage`` (a
``Lineage``, or None), and its declared arguments; it returns an
:class:`~croissant_lineage.findings.importers._common.ImportResult`.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from croissant_lineage.errors import InputError

if TYPE_CHECKING:
    from croissant_lineage.findings.importers._common import ImportResult
    from croissant_lineage.lineage.model import Lineage

__all__ = [
    "COMMON_ARGUMENTS",
    "Importer",
    "ImporterArgument",
    "get_importer",
    "importers",
    "register_importer",
    "unregister_importer",
]

#: Keywords every importer function takes; the CLI declares their flags once for all
#: importers, so an importer may not declare an argument of the same name.
COMMON_ARGUMENTS = ("family", "data_dir", "lineage")

#: Names the generated CLI uses for its own options (an argument may not take them).
_RESERVED = (*COMMON_ARGUMENTS, "out", "force", "json", "quiet", "func", "importer", "debug")


@dataclass(frozen=True)
class ImporterArgument:
    """One argument of an importer, beyond the common ones.

    Attributes:
        name: The keyword the function takes (``folder``); its CLI flag is
            ``--`` and the name with ``_`` as ``-`` (``--folder``).
        help: One line for ``--help``.
        required: Whether the CLI requires the flag.
        type: Converts the flag's text (``str``, ``int``, ``Path``...).
        default: The flag's default; None leaves the function's own default.
    """

    name: str
    help: str
    required: bool = False
    type: Callable[[str], Any] = str
    default: Any = None

    @property
    def flag(self) -> str:
        """The CLI flag (``--folder``)."""
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Importer:
    """A findings source: what the registry and the generated CLI know of it.

    Attributes:
        name: The source's name (``redux``): the CLI subcommand.
        help: One line for the list of sources.
        function: Does the import (see the module docstring for how it is called).
        arguments: Its own arguments, in the order ``--help`` lists them.
        description: A paragraph for the subcommand's ``--help`` (``help`` when empty).
        examples: Command lines for the subcommand's ``--help``.

    Raises:
        InputError: an argument takes a name the CLI uses for its own options.
    """

    name: str
    help: str
    function: Callable[..., ImportResult]
    arguments: tuple[ImporterArgument, ...] = ()
    description: str = ""
    examples: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        clash = [a.name for a in self.arguments if a.name in _RESERVED]
        if clash:
            raise InputError(
                f"importer {self.name!r}: argument {clash[0]!r} is reserved",
                hint=f"the CLI uses {', '.join(_RESERVED)} for every importer",
            )

    def run(
        self,
        *,
        family: Any,
        data_dir: str | Path | None = None,
        lineage: Lineage | None = None,
        **values: Any,
    ) -> ImportResult:
        """Call :attr:`function` with the common arguments and the declared ones.

        Args:
            family: The family spec or its name; None when none was named (an importer
                of one benchmark's annotations then reads them on its own family).
            data_dir: The data folder, or None.
            lineage: The linked family, or None.
            **values: Values of the declared arguments; None (not given) leaves the
                function's default. Names that are not declared are ignored.

        Returns:
            The import result.
        """
        given = {a.name: values[a.name] for a in self.arguments if values.get(a.name) is not None}
        return self.function(family=family, data_dir=data_dir, lineage=lineage, **given)


_REGISTRY: dict[str, Importer] = {}


@functools.cache
def _discover() -> None:
    """Register the ``IMPORTER`` of every public module of this package (once)."""
    package = __name__.rpartition(".")[0]
    found = pkgutil.iter_modules([str(Path(__file__).resolve().parent)])
    for info in sorted(found, key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        importer = getattr(importlib.import_module(f"{package}.{info.name}"), "IMPORTER", None)
        if isinstance(importer, Importer):
            _REGISTRY.setdefault(importer.name, importer)


def register_importer(importer: Importer, *, replace: bool = False) -> Importer:
    """Add an importer defined outside this package (its CLI subcommand comes with it).

    Args:
        importer: The importer.
        replace: Replace an importer of the same name.

    Returns:
        The importer.

    Raises:
        InputError: an importer of that name exists and ``replace`` is false.
    """
    _discover()
    if importer.name in _REGISTRY and not replace:
        raise InputError(
            f"an importer named {importer.name!r} is already registered",
            hint="choose another name, or pass replace=True",
        )
    _REGISTRY[importer.name] = importer
    return importer


def unregister_importer(name: str) -> None:
    """Remove the importer called ``name`` (nothing happens when there is none)."""
    _discover()
    _REGISTRY.pop(name, None)


def importers() -> dict[str, Importer]:
    """Every importer by name: this package's modules (by module name), then the ones
    registered from outside, in registration order."""
    _discover()
    return dict(_REGISTRY)


def get_importer(name: str) -> Importer:
    """The importer called ``name``.

    Raises:
        InputError: no importer has that name.
    """
    found = importers()
    if name not in found:
        raise InputError(f"no findings importer {name!r}", hint=f"importers: {', '.join(found)}")
    return found[name]
