"""One root exception for the package, with stable codes.

Every error the library raises on purpose is a :class:`LineageError` (or a subclass).
Each carries a stable ``code`` (``CL-E...``) that tests and CI scripts can rely on,
the ``path`` it concerns (when there is one), and a message that says what to fix.
The CLI prints ``str(error)`` on one line and exits with status 2.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "ArgumentError",
    "DataError",
    "DescriptorError",
    "FindingsError",
    "InputError",
    "LineageError",
    "OutputError",
    "OutputExistsError",
    "PipelineError",
    "PublishError",
    "SizeLimitError",
    "SpecError",
    "UnsafePathError",
]


class LineageError(Exception):
    """Root of every error raised on purpose by croissant_lineage.

    Attributes:
        code: A stable identifier (``CL-E001``...) that does not change with wording.
        path: The file the error concerns, when there is one.
        hint: What the user can do about it.
    """

    code = "CL-E000"

    def __init__(self, message: str, *, path: str | Path | None = None, hint: str | None = None):
        self.message = message
        self.path = None if path is None else str(path)
        self.hint = hint
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        tail = f" ({self.hint})" if self.hint else ""
        return f"{self.code} {where}{self.message}{tail}"


class InputError(LineageError):
    """A file is missing, empty, unreadable or not in the expected format."""

    code = "CL-E001"


class DescriptorError(LineageError):
    """A JSON-LD document is not a usable Croissant descriptor."""

    code = "CL-E002"


class SpecError(LineageError):
    """A family spec is invalid or names something the descriptors do not have."""

    code = "CL-E003"


class DataError(LineageError):
    """Data files do not match what the descriptor or spec says (columns, ids, encoding)."""

    code = "CL-E004"


class FindingsError(LineageError):
    """A findings file does not follow ``schemas/finding.schema.json``."""

    code = "CL-E005"


class UnsafePathError(LineageError):
    """A URL or path points outside the folder the user allowed reading from."""

    code = "CL-E006"


class OutputExistsError(LineageError):
    """An output exists and was not made by this library; it is not replaced silently."""

    code = "CL-E007"


class SizeLimitError(LineageError):
    """An input is, or expands to, more than a size limit allows (e.g. a zip bomb)."""

    code = "CL-E008"


class PublishError(LineageError):
    """Publishing to the Hugging Face Hub failed: huggingface_hub missing, or the Hub refused."""

    code = "CL-E009"


class OutputError(LineageError):
    """An output cannot be written: the disk is full, the file system read-only, no permission."""

    code = "CL-E010"


class ArgumentError(LineageError, TypeError):
    """A public function was given a value of a kind its parameter does not take (the
    message names the parameter and what it accepts). Also a :class:`TypeError`."""

    code = "CL-E011"


class PipelineError(LineageError):
    """A Beam pipeline (``--runner beam``) failed for a reason other than the library's own
    errors: Beam refused the pipeline (its type checks, its options) or a worker failed."""

    code = "CL-E012"
