"""Reading model prediction archives safely.

A prediction archive is a zip file holding exactly one JSON file: a list of records, one
per question, in the format MMLU-Pro publishes (``question_id``, ``question``, ``options``,
``answer``, ``pred``, ...). Archives come from strangers, so reading one:

* refuses a file that is not a zip, an encrypted member, or a zip whose file members are
  not exactly one (directory entries are ignored; there is no rule that picks one JSON
  among several) -> :class:`~croissant_lineage.errors.InputError` (``CL-E001``);
* refuses a member name that is absolute or climbs out with ``..`` (nothing is ever
  extracted to disk; such a name marks a hostile archive)
  -> :class:`~croissant_lineage.errors.UnsafePathError` (``CL-E006``);
* refuses a member whose declared size is above ``max_member_bytes`` or more than
  ``max_ratio`` times its compressed size, and stops reading as soon as the bytes actually
  decompressed pass either limit or the declared size (a zip bomb with a lying header)
  -> :class:`~croissant_lineage.errors.SizeLimitError` (``CL-E008``);
* stream-parses the JSON (one record in memory at a time; a record longer than
  ``max_record_bytes`` is refused) and yields each element as parsed, so the caller can
  skip and count records of the wrong shape (:func:`parse_prediction` returns None).

The top level may be a JSON array (MMLU-Pro's format) or JSON Lines / concatenated
JSON values; anything else is :class:`~croissant_lineage.errors.InputError`.
"""

from __future__ import annotations

import codecs
import json
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from croissant_lineage._io import resolve_inside
from croissant_lineage.errors import InputError, SizeLimitError, UnsafePathError

__all__ = [
    "ArchiveLimits",
    "ArchiveMember",
    "Prediction",
    "archive_member",
    "inspect_archive",
    "iter_archive",
    "list_archives",
    "model_name",
    "parse_prediction",
]

_MIB = 1024 * 1024
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER_TAIL = re.compile(r"[0-9.eE+\-]*")
_MODEL = re.compile(r"^model_outputs_(.+?)(?:_\d+shots)?$")
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class ArchiveLimits:
    """Limits applied while reading an archive.

    Attributes:
        max_member_bytes: Largest uncompressed member accepted (declared and actual).
            MMLU-Pro's largest is 22.8 MB.
        max_ratio: Largest uncompressed/compressed size ratio accepted. MMLU-Pro's
            archives expand 4-6x; deflate cannot exceed ~1,032x.
        max_record_bytes: Longest single JSON record (in characters) held in memory.
        chunk_bytes: Bytes decompressed per read.
    """

    max_member_bytes: int = 256 * _MIB
    max_ratio: float = 100.0
    max_record_bytes: int = 16 * _MIB
    chunk_bytes: int = _MIB


@dataclass(frozen=True)
class ArchiveMember:
    """The one file inside an archive.

    Attributes:
        archive: Path of the zip file.
        name: Member name inside the zip.
        compressed_bytes: Compressed size from the zip's central directory.
        declared_bytes: Uncompressed size from the zip's central directory.
    """

    archive: Path
    name: str
    compressed_bytes: int
    declared_bytes: int


@dataclass(frozen=True)
class Prediction:
    """One record of a prediction archive, checked for shape.

    Attributes:
        question_id: The item id as text (``"3542"``).
        options: The options as the model saw them.
        answer: The key letter the archive graded against.
        pred: The model's predicted letter as written (None when it gave none).
        question: The stem the model saw, when the record has one.
    """

    question_id: str
    options: tuple[str, ...]
    answer: str
    pred: str | None
    question: str | None = None


def model_name(path: str | Path) -> str:
    """The model an archive belongs to: ``model_outputs_{model}_5shots.zip`` -> ``{model}``.

    Returns:
        The model name, or the file name without its suffix when it does not follow
        MMLU-Pro's naming.
    """
    stem = Path(path).name
    for suffix in (".zip", ".json"):
        stem = stem.removesuffix(suffix)
    m = _MODEL.match(stem)
    return m.group(1) if m else stem


def list_archives(folder: str | Path) -> list[Path]:
    """The ``*.zip`` files of a folder, sorted by name.

    Symlinks that lead outside the folder are refused.

    Returns:
        Paths of the archives (possibly empty).

    Raises:
        InputError: ``folder`` is not a folder.
        UnsafePathError: an archive is a symlink out of the folder.
    """
    root = Path(folder)
    if not root.is_dir():
        raise InputError(
            "not a folder", path=root, hint="give the folder holding the *.zip archives"
        )
    return [resolve_inside(root, p.name) for p in sorted(root.glob("*.zip")) if p.is_file()]


def _unsafe_name(name: str) -> bool:
    parts = re.split(r"[\\/]", name)
    return name.startswith(("/", "\\")) or bool(_DRIVE.match(name)) or ".." in parts


def archive_member(zf: zipfile.ZipFile, path: Path, limits: ArchiveLimits) -> ArchiveMember:
    """Check an open zip and return its single member.

    Raises:
        UnsafePathError: a member name is absolute or contains ``..``.
        InputError: no file member, more than one, or an encrypted one.
        SizeLimitError: the declared size or ratio is beyond ``limits``.
    """
    infos = zf.infolist()
    for info in infos:
        if _unsafe_name(info.filename):
            raise UnsafePathError(
                f"member name {info.filename!r} is absolute or climbs out with '..'",
                path=path,
                hint="a prediction archive holds one plain JSON file name",
            )
    files = [i for i in infos if not i.is_dir()]
    if len(files) != 1:
        raise InputError(
            f"holds {len(files)} files; a prediction archive holds exactly one JSON file",
            path=path,
            hint="zip the one predictions JSON file on its own",
        )
    info = files[0]
    if info.flag_bits & 0x1:
        raise InputError(f"member {info.filename!r} is encrypted", path=path)
    if info.file_size > limits.max_member_bytes:
        raise SizeLimitError(
            f"member {info.filename!r} declares {info.file_size:,} bytes, "
            f"above the limit of {limits.max_member_bytes:,}",
            path=path,
            hint="raise ArchiveLimits.max_member_bytes if the archive is trusted",
        )
    if info.file_size > limits.max_ratio * max(info.compress_size, 1):
        raise SizeLimitError(
            f"member {info.filename!r} expands {info.file_size / max(info.compress_size, 1):,.0f}x "
            f"(limit {limits.max_ratio:g}x): a zip bomb?",
            path=path,
        )
    return ArchiveMember(path, info.filename, info.compress_size, info.file_size)


class _CappedReader:
    """Reads a binary stream, failing as soon as more than ``cap`` bytes came out."""

    def __init__(self, raw: IO[bytes], cap: int, path: Path, what: str):
        self.raw = raw
        self.cap = cap
        self.path = path
        self.what = what
        self.count = 0

    def read(self, n: int) -> bytes:
        data = self.raw.read(n)
        self.count += len(data)
        if self.count > self.cap:
            raise SizeLimitError(
                f"{self.what}: decompressed more than {self.cap:,} bytes; stopped reading",
                path=self.path,
                hint="a zip bomb, or a header that understates the size",
            )
        return data


def _text_chunks(reader: _CappedReader, chunk: int, path: Path) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    try:
        while True:
            data = reader.read(chunk)
            text = decoder.decode(data, final=not data)
            if text:
                yield text
            if not data:
                return
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 at byte {reader.count - len(data) + exc.start:,}", path=path
        ) from None


def _may_continue(obj: Any, buf: str, end: int) -> bool:
    """A number at the end of the buffer may go on in the next chunk (``1`` -> ``1.5e3``)."""
    if isinstance(obj, bool) or not isinstance(obj, (int, float)):
        return False
    return _NUMBER_TAIL.fullmatch(buf, end) is not None


def _iter_json_values(chunks: Iterator[str], max_chars: int, path: Path) -> Iterator[Any]:
    """Yield the elements of a top-level JSON array, or a sequence of JSON values."""
    decoder = json.JSONDecoder()
    buf = ""
    pos = 0
    eof = False
    base = 0  # characters dropped before buf[0], for error positions

    def refill() -> None:
        nonlocal buf, pos, eof, base
        for text in chunks:
            base += pos
            buf = buf[pos:] + text
            pos = 0
            return
        eof = True

    def skip_ws() -> None:
        nonlocal pos
        while True:
            pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
            if pos < len(buf) or eof:
                return
            refill()

    def bad(what: str, at: int) -> InputError:
        return InputError(f"invalid JSON at character {base + at:,}: {what}", path=path)

    def value() -> Any:
        nonlocal pos
        while True:
            try:
                obj, end = decoder.raw_decode(buf, pos)
            except RecursionError:
                raise bad("a record is nested too deeply", pos) from None
            except json.JSONDecodeError as exc:
                if eof:
                    raise bad(exc.msg, exc.pos) from None
                if len(buf) - pos > max_chars:
                    raise SizeLimitError(
                        f"a record at character {base + pos:,} is longer than "
                        f"{max_chars:,} characters (or is not valid JSON)",
                        path=path,
                        hint="raise ArchiveLimits.max_record_bytes if the archive is trusted",
                    ) from None
                refill()
                continue
            if not eof and _may_continue(obj, buf, end):
                refill()
                continue
            pos = end
            return obj

    skip_ws()
    if pos >= len(buf):
        raise InputError("the archive's JSON file is empty", path=path)
    if buf[pos] != "[":
        while pos < len(buf):
            yield value()
            skip_ws()
        return
    pos += 1
    skip_ws()
    if pos < len(buf) and buf[pos] == "]":
        pos += 1
    else:
        while True:
            if pos >= len(buf):
                raise bad("the list is not closed", pos)
            yield value()
            skip_ws()
            if pos >= len(buf):
                raise bad("the list is not closed", pos)
            if buf[pos] == "]":
                pos += 1
                break
            if buf[pos] != ",":
                raise bad("expected ',' or ']' after a record", pos)
            pos += 1
            skip_ws()
    skip_ws()
    if pos < len(buf):
        raise bad("extra data after the list", pos)


def _not_a_file(p: Path) -> InputError:
    return InputError("not found or not a file", path=p, hint="give a .zip prediction archive")


def inspect_archive(path: str | Path, limits: ArchiveLimits | None = None) -> ArchiveMember:
    """Check an archive from its zip directory alone, without decompressing anything.

    Returns:
        Its single :class:`ArchiveMember`.

    Raises:
        InputError, UnsafePathError, SizeLimitError: as :func:`archive_member`, or the
            file is missing or not a zip.
    """
    p = Path(path)
    if not p.is_file():
        raise _not_a_file(p)
    try:
        with zipfile.ZipFile(p) as zf:
            return archive_member(zf, p, limits or ArchiveLimits())
    except zipfile.BadZipFile as exc:
        raise InputError(f"not a readable zip archive: {exc}", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc}", path=p) from None


def iter_archive(path: str | Path, limits: ArchiveLimits | None = None) -> Iterator[Any]:
    """Yield the JSON records of a prediction archive, one at a time, as parsed.

    Args:
        path: The zip file.
        limits: Size limits (defaults: :class:`ArchiveLimits`).

    Yields:
        Each element of the member's top-level JSON list (or each JSON value of a JSON
        Lines member), unchecked: dicts, strings, anything. See :func:`parse_prediction`.

    Raises:
        InputError: not a zip, not exactly one file member, encrypted, corrupt (bad CRC,
            bad deflate stream), not UTF-8, or not JSON.
        UnsafePathError: a member name is absolute or contains ``..``.
        SizeLimitError: the member expands beyond the limits (checked on the header and
            while reading), or one record is longer than ``limits.max_record_bytes``.
    """
    p = Path(path)
    lim = limits or ArchiveLimits()
    if not p.is_file():
        raise _not_a_file(p)
    try:
        with zipfile.ZipFile(p) as zf:
            member = archive_member(zf, p, lim)
            cap = min(
                lim.max_member_bytes,
                member.declared_bytes,
                int(lim.max_ratio * max(member.compressed_bytes, 1)),
            )
            with zf.open(member.name) as raw:
                reader = _CappedReader(raw, cap, p, f"member {member.name!r}")
                chunks = _text_chunks(reader, lim.chunk_bytes, p)
                yield from _iter_json_values(chunks, lim.max_record_bytes, p)
    except zipfile.BadZipFile as exc:
        raise InputError(f"not a readable zip archive: {exc}", path=p) from None
    except (zlib.error, EOFError) as exc:
        raise InputError(f"corrupt compressed data: {exc}", path=p) from None
    except NotImplementedError as exc:
        raise InputError(f"unsupported zip feature: {exc}", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc}", path=p) from None


def parse_prediction(value: Any) -> Prediction | None:
    """Check one archive record's shape.

    A record has the right shape when it is an object with ``question_id`` (an integer
    or a non-empty string), ``options`` (a list of strings), ``answer`` (one letter
    A-Z) and ``pred`` (a string or null; a missing ``pred`` counts as null), and, if
    present, a string ``question``.

    Returns:
        The :class:`Prediction`, or None when the record has the wrong shape.
    """
    if not isinstance(value, dict):
        return None
    qid = value.get("question_id")
    if isinstance(qid, bool) or not isinstance(qid, (int, str)) or qid == "":
        return None
    options = value.get("options")
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        return None
    answer = value.get("answer")
    if not (isinstance(answer, str) and len(answer) == 1 and "A" <= answer <= "Z"):
        return None
    pred = value.get("pred")
    if pred is not None and not isinstance(pred, str):
        return None
    question = value.get("question")
    if question is not None and not isinstance(question, str):
        return None
    return Prediction(str(qid), tuple(options), answer, pred, question)
