"""Safe reads of untrusted files: text encodings, strict JSON, bounded YAML, paths kept inside a folder."""

from __future__ import annotations

import codecs
import json
import os
from pathlib import Path
from typing import Any

import yaml

from croissant_lineage._io.guard import note_input
from croissant_lineage.errors import InputError, SizeLimitError, UnsafePathError


def read_text(path: str | Path) -> tuple[str, str]:
    """Read a text file, tolerating the encodings real benchmark files use.

    UTF-8 first; in a file with a few stray non-UTF-8 bytes (at most
    :data:`MAX_STRAY_BYTES` sequences), only those bytes are decoded as Mac Roman (the
    single 0xD5 byte of MMLU-Redux's ``moral_scenarios.csv`` is a Mac Roman apostrophe).
    A file with more is in another encoding and is refused, not guessed. A UTF-8 BOM is
    dropped. NUL bytes are an error.

    Returns:
        ``(text, encoding)``: the decoded text and the encoding that decoded it.

    Raises:
        InputError: the file is missing, a folder, holds NUL bytes, or is not UTF-8
            beyond a few stray bytes.
    """
    p = Path(path)
    note_input(p)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=p, hint="check the path") from None
    except IsADirectoryError:
        raise InputError("is a folder, not a file", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=p) from None
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputError("encoded as UTF-16 or UTF-32 (byte order mark)", path=p, hint="save it as UTF-8")
    if b"\x00" in raw:
        raise InputError("contains NUL bytes: not a text file", path=p)
    try:
        return raw.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as first:
        bad = _count_invalid_utf8(raw)
        if bad > MAX_STRAY_BYTES:
            raise InputError(
                f"not UTF-8: {bad} invalid byte sequences (the first at byte {first.start})",
                path=p,
                hint="convert the file to UTF-8 (a few stray bytes are tolerated, a legacy encoding is not guessed)",
            ) from None
        # Decode only the stray bytes as Mac Roman so valid UTF-8 stays as it is.
        return raw.decode("utf-8", errors="macroman_fallback"), "utf-8+mac_roman"


#: At most this many stray non-UTF-8 byte sequences are decoded as Mac Roman; more means the
#: whole file is in another encoding, which is refused rather than guessed.
MAX_STRAY_BYTES = 8


def _count_invalid_utf8(raw: bytes) -> int:
    count = 0

    def handler(err: UnicodeError) -> tuple[str, int]:
        nonlocal count
        assert isinstance(err, UnicodeDecodeError)
        count += 1
        return "", err.end

    codecs.register_error("croissant_lineage_count", handler)
    raw.decode("utf-8", errors="croissant_lineage_count")
    return count


def _macroman_fallback(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeDecodeError):
        raise err
    bad = err.object[err.start : err.end]
    return bytes(bad).decode("mac_roman"), err.end


codecs.register_error("macroman_fallback", _macroman_fallback)


#: Largest JSON or YAML document (a descriptor, a family spec, a findings file, a
#: lineage folder's JSON) read from a file, in bytes: 64 MiB. A larger file is refused
#: (CL-E008) before it is read. Real descriptors and specs take kilobytes, findings files
#: a few MiB. Adjustable: set ``croissant_lineage._io.reads.MAX_DOCUMENT_BYTES`` before reading.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


def check_document_size(path: str | Path, what: str = "JSON or YAML document") -> None:
    """Refuse a document file larger than :data:`MAX_DOCUMENT_BYTES` before reading it.

    A file that cannot be stat'ed passes (the read that follows reports it).

    Raises:
        SizeLimitError: the file is larger than the limit.
    """
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return
    if size > MAX_DOCUMENT_BYTES:
        raise SizeLimitError(
            f"{what} of {size:,} bytes is over the limit of {MAX_DOCUMENT_BYTES:,}",
            path=path,
            hint="raise croissant_lineage._io.reads.MAX_DOCUMENT_BYTES if the file is trusted",
        )


def read_json(path: str | Path, *, expected: str = "a JSON document") -> Any:
    """Parse a JSON file, raising :class:`InputError` with the position on bad JSON.

    Args:
        path: The file.
        expected: What the file should hold, for the hint on an empty file.

    Raises:
        SizeLimitError: the file is larger than :data:`MAX_DOCUMENT_BYTES`.
        InputError: missing, empty or not JSON; an object that holds one key twice
            (:func:`loads_json`).
    """
    check_document_size(path, "JSON document")
    text, _ = read_text(path)
    if not text.strip():
        raise InputError("empty file", path=path, hint=f"expected {expected}")
    try:
        return loads_json(text)
    except DuplicateKeyError as exc:
        raise InputError(
            exc.msg, path=path, hint="JSON readers differ on which value of a repeated key counts; keep one"
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", path=path
        ) from None


#: Deepest nesting of lists and objects accepted in JSON or YAML from a file. Real
#: descriptors, specs and findings nest less than 20 deep; code that walks documents
#: recursively (JSON-LD, enrichment, schema checks) stays far from Python's limit.
MAX_DEPTH = 100


def _too_deep(obj: Any) -> bool:
    stack = [(obj, 1)] if isinstance(obj, (dict, list)) else []
    while stack:
        cur, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        for v in cur.values() if isinstance(cur, dict) else cur:
            if isinstance(v, (dict, list)):
                stack.append((v, depth + 1))
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


class DuplicateKeyError(json.JSONDecodeError):
    """A JSON object that holds one key twice (``{"@context": 1, "@context": 2}``)."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict; a key given twice is a :class:`DuplicateKeyError`
    (Python keeps the last value, other JSON readers the first: the meaning is not one)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise DuplicateKeyError(f"the key {key[:80]!r} appears twice in one JSON object", "", 0)
    return obj


def loads_json(text: str, *, allow_nan: bool = False) -> Any:
    """``json.loads`` for untrusted text, strict where Python's is lenient.

    Nesting deeper than :data:`MAX_DEPTH` and (unless ``allow_nan``, for data records)
    the non-standard ``NaN`` / ``Infinity`` literals, which this library's JSON writer
    refuses to write back, are a :class:`json.JSONDecodeError`, which callers already
    handle, instead of a RecursionError or ValueError here or in the code that uses the
    document later. In a document (not ``allow_nan``: a descriptor, a spec, findings) an
    object that holds one key twice is a :class:`DuplicateKeyError` (a
    :class:`json.JSONDecodeError`): Python would keep the last value where other
    readers keep the first.
    """
    try:
        obj = (
            json.loads(text)
            if allow_nan
            else json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_pairs)
        )
    except RecursionError:
        obj = None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        raise json.JSONDecodeError(str(exc), text, 0) from None
    else:
        if not _too_deep(obj):
            return obj
    raise json.JSONDecodeError(f"nested more than {MAX_DEPTH} levels deep", text, 0) from None


#: A YAML document whose aliases expand it to more than this many nodes, and more than
#: ten times the nodes it spells out, is refused (a "billion laughs" alias bomb).
MAX_YAML_EXPANSION = 100_000

#: A YAML text longer than this many characters is refused by :func:`load_yaml` (64 Mi;
#: callers that read a file check its size in bytes first). Adjustable: set it before reading.
MAX_YAML_CHARS = 64 * 1024 * 1024

_CParser: Any = getattr(yaml.cyaml, "CParser", None) if yaml.__with_libyaml__ else None

if _CParser is not None:

    class _CSafeLoader(yaml.composer.Composer, _CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """libyaml's C scanner and parser, Python's composer (recursion-checked), safe constructor.

        ``yaml.CSafeLoader`` composes nodes in C with unchecked recursion: a list nested
        100,000 deep crashes the interpreter (SIGSEGV). Python's composer raises
        RecursionError there instead, which :func:`load_yaml` turns into an error.
        """

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

#: libyaml's C scanner and parser when PyYAML was built with it (scanning is most of the
#: cost), else the pure-Python loader: both construct only plain data.
_YAML_LOADER: Any = _CSafeLoader if _CParser is not None else yaml.SafeLoader


class YAMLLimitError(yaml.YAMLError):
    """A YAML document refused by :func:`load_yaml` (alias bomb, recursion, nesting)."""


def _yaml_children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_yaml_expansion(root: yaml.Node) -> None:
    """Count the nodes ``root`` expands to (aliases copied out), and its depth, without
    expanding it."""
    sizes: dict[int, int] = {}
    heights: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        kids = _yaml_children(node)
        if leaving:
            open_nodes.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes[id(k)] for k in kids)
            container = isinstance(node, (yaml.SequenceNode, yaml.MappingNode))
            heights[id(node)] = container + max((heights[id(k)] for k in kids), default=0)
            continue
        if id(node) in sizes:
            continue
        if id(node) in open_nodes:
            raise YAMLLimitError(f"an alias at line {node.start_mark.line + 1} refers to a node that contains it")
        open_nodes.add(id(node))
        stack.append((node, True))
        stack.extend((k, False) for k in kids)
    if heights[id(root)] > MAX_DEPTH:
        raise YAMLLimitError(f"nested more than {MAX_DEPTH} levels deep")
    total = sizes[id(root)]
    if total > MAX_YAML_EXPANSION and total > 10 * len(sizes):
        raise YAMLLimitError(
            f"aliases expand {len(sizes):,} nodes to {total:,} (limit {MAX_YAML_EXPANSION:,}): an alias bomb?"
        )


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` for untrusted text, with libyaml's C loader where present.

    Besides refusing tags that construct objects (as ``safe_load`` does), it refuses
    text longer than :data:`MAX_YAML_CHARS`, aliases that expand the document far beyond
    its size, aliases that make a structure contain itself, and nesting deeper than
    Python can recurse.

    Raises:
        yaml.YAMLError: the text does not parse, or is refused (:class:`YAMLLimitError`);
            callers handle both as "does not parse".
    """
    if len(text) > MAX_YAML_CHARS:
        raise YAMLLimitError(f"YAML text of {len(text):,} characters is over the limit of {MAX_YAML_CHARS:,}")
    loader = _YAML_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_yaml_expansion(node)
        return loader.construct_document(node)
    except RecursionError:
        raise YAMLLimitError("nested too deeply") from None
    finally:
        loader.dispose()


def resolve_inside(base: str | Path, relative: str, *, allow_outside: bool = False) -> Path:
    """Resolve ``relative`` against ``base`` and refuse paths that leave ``base``.

    Absolute paths, ``..`` segments and symlinks that lead outside ``base`` are refused
    unless ``allow_outside`` is true.

    Raises:
        UnsafePathError: the resolved path is outside ``base``.
    """
    root = Path(base).resolve()
    candidate = Path(relative)
    target = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if not allow_outside and target != root and root not in target.parents:
        raise UnsafePathError(
            f"{relative!r} resolves outside {root}",
            path=relative,
            hint="pass allow_outside=True (CLI: --allow-outside) if this is intended",
        )
    return target
