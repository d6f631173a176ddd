"""Inferring the item roles (id, subject, stem, options, key) of a dataset nobody described.

:func:`infer_roles` reads the field names and values of one RecordSet and guesses, role by
role, which field plays it, with the reason for each guess:

* **stem**: a text field named like a question (``question``, ``stem``, ``prompt``...), else
  the text field with the longest mean length (at least :data:`MIN_STEM_CHARS`) whose values
  are mostly distinct;
* **options**: a list field (``options``, ``choices``), a text field holding a Python or
  JSON list, or lettered columns (``A``..``D``, ``option_a``.., ``option_0``..);
* **key**: a field named like an answer whose values are letters (``letter``), 0-based
  indices below the option count (``index``) or one of the item's option texts (``text``);
* **id**: a field named like an id whose values are distinct, else the row (``{_row}``);
* **subject**: a field named like a subject or category, with at most half as many distinct
  values as rows.

The user overrides any role with the family spec's role syntax (``roles={"stem": "q"}``).
A dataset with no stem, or options without a readable key, is *refused* with the reason:
nothing is guessed wildly.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from croissant_lineage.croissant.descriptor import read_descriptor
from croissant_lineage.croissant.records import read_record_set
from croissant_lineage.errors import LineageError
from croissant_lineage.family.spec import DatasetSpec

__all__ = ["MIN_STEM_CHARS", "RoleGuess", "guess_dataset", "infer_roles", "read_columns"]

#: A stem field's values average at least this many characters.
MIN_STEM_CHARS = 20
_STEM_NAMES = ("question", "stem", "prompt", "query", "problem", "input", "text")
_OPTION_NAMES = ("options", "choices", "answers", "candidates", "endings")
_KEY_NAMES = ("answer", "label", "key", "target", "gold", "correct", "answer_index", "answeridx")
_ID_NAMES = ("id", "question_id", "sample_id", "item_id", "qid", "uid", "idx")
_SUBJECT_NAMES = ("subject", "category", "topic", "domain", "discipline", "field")
_LETTERED = (
    re.compile(r"^([A-J])$"),
    re.compile(r"^(?:option|choice)_?([a-jA-J])$", re.IGNORECASE),
    re.compile(r"^(?:option|choice)_?([0-9])$", re.IGNORECASE),
)
_SAMPLE = 2000


@dataclass(frozen=True)
class RoleGuess:
    """The roles guessed for one RecordSet.

    Attributes:
        roles: Role -> expression in the family spec's role syntax (empty when refused).
        key_format: ``letter``, ``index`` or ``text`` (how the key field reads).
        reasons: Role -> why that field was chosen (or why the user's choice was kept).
        refused: Why the roles cannot be inferred (None when they can).
    """

    roles: dict[str, Any] = field(default_factory=dict)
    key_format: str = "letter"
    reasons: dict[str, str] = field(default_factory=dict)
    refused: str | None = None

    @property
    def ok(self) -> bool:
        """True when the dataset has at least a stem (and a key if it has options)."""
        return self.refused is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (roles, key format, reasons, refusal)."""
        return {"roles": self.roles, "key_format": self.key_format, "reasons": self.reasons, "refused": self.refused}


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _texts(values: list[Any]) -> list[str]:
    return [v for v in values if isinstance(v, str)]


def _as_list(value: Any) -> list[Any] | None:
    """A value read as a list of options: a list, or a text holding a Python/JSON list."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str) and value[:1] == "[" and value[-1:] == "]":
        for parse in (json.loads, ast.literal_eval):
            try:
                got = parse(value)
            except (ValueError, SyntaxError):
                continue
            if isinstance(got, (list, tuple)):
                return list(got)
    return None


def _named(columns: Mapping[str, list[Any]], names: tuple[str, ...]) -> list[str]:
    """Columns whose normalised name is one of ``names``, in the order of ``names``."""
    by_norm = {_norm(c): c for c in columns if not c.startswith("_")}
    return [by_norm[n] for n in names if n in by_norm]


def _stem(columns: Mapping[str, list[Any]], taken: set[str]) -> tuple[str | None, str]:
    for c in _named(columns, _STEM_NAMES):
        texts = _texts(columns[c])
        if c not in taken and texts and sum(map(len, texts)) / len(texts) >= MIN_STEM_CHARS / 2:
            return c, f"text field named {c!r}"
    best: tuple[float, str] | None = None
    for c, values in columns.items():
        texts = _texts(values)
        if c.startswith("_") or c in taken or len(texts) < 0.9 * len(values) or not texts:
            continue
        mean = sum(map(len, texts)) / len(texts)
        if mean >= MIN_STEM_CHARS and len(set(texts)) >= 0.5 * len(texts) and (best is None or mean > best[0]):
            best = (mean, c)
    if best is None:
        return None, f"no text field averages {MIN_STEM_CHARS}+ characters with mostly distinct values"
    return best[1], f"longest distinct text field ({best[0]:.0f} characters on average)"


def _options(columns: Mapping[str, list[Any]], taken: set[str]) -> tuple[Any, str]:
    for c in [*_named(columns, _OPTION_NAMES), *columns]:
        if c.startswith("_") or c in taken:
            continue
        values = [v for v in columns[c] if v is not None]
        if not values:
            continue
        if all(isinstance(v, (list, tuple)) for v in values) and all(2 <= len(v) <= 26 for v in values):
            return c, f"list field {c!r} (2-26 entries per item)"
        if all(isinstance(v, str) for v in values):
            parsed = [_as_list(v) for v in values]
            if all(p is not None and 2 <= len(p) <= 26 for p in parsed):
                how = "json" if all(_json_ok(v) for v in values[:50]) else "python_list"
                return {"field": c, "parse": how}, f"text field {c!r} holding a list ({how})"
    for rx in _LETTERED:
        cols = sorted((m.group(1).upper(), c) for c in columns if c not in taken and (m := rx.match(c)))
        if len(cols) >= 2 and _consecutive([k for k, _ in cols]):
            return [c for _, c in cols], f"lettered columns {', '.join(c for _, c in cols)}"
    return None, "no list field, list-valued text field or lettered columns"


def _json_ok(value: str) -> bool:
    try:
        return isinstance(json.loads(value), list)
    except ValueError:
        return False


def _consecutive(keys: list[str]) -> bool:
    order = "ABCDEFGHIJ" if keys[0].isalpha() else "0123456789"
    return keys == list(order[: len(keys)])


def _option_lists(columns: Mapping[str, list[Any]], options: Any) -> list[list[str] | None]:
    if isinstance(options, list):
        return [[str(x) if x is not None else "" for x in row] for row in zip(*(columns[c] for c in options), strict=True)]
    name = options["field"] if isinstance(options, dict) else options
    return [None if (p := _as_list(v)) is None else [str(x) for x in p] for v in columns[name]]


def _key(
    columns: Mapping[str, list[Any]], taken: set[str], opts: list[list[str] | None]
) -> tuple[str | None, str, str]:
    """``(field, key_format, reason)`` of the key, or ``(None, "", why not)``."""
    for c in [*_named(columns, _KEY_NAMES), *(c for c in columns if not c.startswith("_"))]:
        if c in taken:
            continue
        fmt = _key_format(columns[c], opts)
        if fmt is not None:
            return c, fmt, f"field {c!r} reads as {fmt} keys of the options"
    return None, "", "no field reads as a letter, an index or an option text of every item"


def _key_format(values: list[Any], opts: list[list[str] | None]) -> str | None:
    pairs = [(v, o) for v, o in zip(values, opts, strict=True) if v is not None and o]
    if not pairs or len(pairs) < 0.9 * len(values):
        return None
    if all(isinstance(v, str) and len(v.strip()) == 1 and "A" <= v.strip().upper() < chr(65 + len(o)) for v, o in pairs):
        return "letter"
    if all(_int(v) is not None and 0 <= _int(v) < len(o) for v, o in pairs):  # type: ignore[operator]
        return "index"
    if all(str(v) in o for v, o in pairs):
        return "text"
    return None


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str) and v.strip().isdigit():
        return int(v.strip())
    return None


def _id(columns: Mapping[str, list[Any]], taken: set[str], subject: str | None) -> tuple[str, str]:
    """The id role: a distinct id-named field; else one distinct within each subject
    (MMMLU's ``ID``, the row within the subject); else the file and row, or the row.

    ``columns`` are the whole RecordSet's (ids must be distinct over all of it, not a sample).
    """
    named = [c for c in _named(columns, _ID_NAMES) if c not in taken and None not in columns[c]]
    for c in named:
        if len({str(v) for v in columns[c]}) == len(columns[c]):
            return c, f"distinct values in field {c!r}"
    if subject is not None:
        for c in named:
            pairs = {(str(s), str(v)) for s, v in zip(columns[subject], columns[c], strict=True)}
            if len(pairs) == len(columns[c]):
                return f"{{{subject}}}/{{{c}}}", f"field {c!r} distinct within each {subject!r}"
    if len(set(columns.get("_file", ()))) > 1:
        return "{_file}/{_row}", "no distinct id field: the file and the row in it"
    return "{_row}", "no distinct id field: the row number"


def _subject(columns: Mapping[str, list[Any]], taken: set[str]) -> tuple[str | None, str]:
    for c in _named(columns, _SUBJECT_NAMES):
        texts = _texts(columns[c])
        if c not in taken and texts and len(set(texts)) <= max(1, len(texts) // 2):
            return c, f"field {c!r} with {len(set(texts))} distinct values"
    return None, "no subject-like field with few distinct values"


def _sample(columns: Mapping[str, list[Any]]) -> dict[str, list[Any]]:
    return {c: list(v[:_SAMPLE]) for c, v in columns.items()}


def infer_roles(
    columns: Mapping[str, list[Any]], overrides: Mapping[str, Any] | None = None, key_format: str | None = None
) -> RoleGuess:
    """Guess the item roles of a RecordSet from its fields' names and values.

    Args:
        columns: Field name -> values (a RecordSet read as columns; the first
            2,000 rows are looked at).
        overrides: Roles the user sets, in the family spec's role syntax; they are kept
            as given and their fields are not guessed for other roles.
        key_format: The key's format when the user overrides the key.

    Returns:
        The :class:`RoleGuess` (``refused`` says why when no stem is found, or when the
        items have options but no field reads as their key).
    """
    cols = _sample(columns)
    fixed = dict(overrides or {})
    given = [v["field"] if isinstance(v, dict) else v for v in fixed.values()]  # a key object names its field
    taken = {v for v in given if isinstance(v, str) and v in cols}
    roles: dict[str, Any] = {}
    reasons = {role: "given by the user" for role in fixed}
    fmt = key_format or "letter"
    guessed: dict[str, tuple[Any, str]] = {}
    if "stem" not in fixed:
        guessed["stem"] = _stem(cols, taken)
        if guessed["stem"][0] is None:
            return RoleGuess({}, fmt, {"stem": guessed["stem"][1]}, f"no stem: {guessed['stem'][1]}")
        taken.add(guessed["stem"][0])
    if "options" not in fixed:
        guessed["options"] = _options(cols, taken)
    options = fixed.get("options", guessed.get("options", (None, ""))[0])
    if options is not None:
        taken.update(options if isinstance(options, list) else [options["field"] if isinstance(options, dict) else options])
    if options is not None and "key" not in fixed:
        name, fmt, why = _key(cols, taken, _option_lists(cols, options))
        if name is None:
            return RoleGuess({}, "letter", {**reasons, "key": why}, f"options but no key: {why}")
        guessed["key"] = (name, why)
        taken.add(name)
    if "subject" not in fixed:
        guessed["subject"] = _subject(cols, taken)
    if "id" not in fixed:
        subject = fixed.get("subject", guessed.get("subject", (None, ""))[0])
        guessed["id"] = _id(columns, taken, subject if isinstance(subject, str) and subject in columns else None)
    for role, (value, why) in guessed.items():
        reasons[role] = why
        if value is not None:
            roles[role] = value
    roles.update(fixed)
    order = ("id", "subject", "stem", "options", "key", "solution", "tests")  # the text roles only when given
    return RoleGuess({r: roles[r] for r in order if r in roles}, fmt, {r: reasons[r] for r in order if r in reasons})


def read_columns(
    descriptor: str | Path, record_set: str | None = None, *, data_dir: str | Path | None = None
) -> dict[str, list[Any]]:
    """The fields of one RecordSet of a descriptor, as columns (``_file``/``_row`` included).

    Raises:
        LineageError: unreadable descriptor or data (its coded subclass).
    """
    desc = read_descriptor(descriptor, base_dir=Path(data_dir) if data_dir is not None else None)
    table = read_record_set(desc, record_set)
    return {name: table.column(name).to_pylist() for name in table.column_names}


def guess_dataset(
    descriptor: str | Path,
    *,
    name: str | None = None,
    record_set: str | None = None,
    data_dir: str | Path | None = None,
    roles: Mapping[str, Any] | None = None,
    key_format: str | None = None,
) -> tuple[DatasetSpec | None, RoleGuess]:
    """A dataset entry for a descriptor, its roles inferred (and overridden by ``roles``).

    Args:
        descriptor: Croissant descriptor path.
        name: Dataset name (default: the descriptor's ``name``, else its folder name).
        record_set: RecordSet id (default: the only data RecordSet).
        data_dir: Folder the descriptor's relative file URLs resolve against when they do
            not resolve against the descriptor's own folder.
        roles: User role overrides, in the family spec's role syntax.
        key_format: The key's format (``letter``, ``index`` or ``text``) when ``roles``
            overrides the key.

    Returns:
        ``(spec, guess)``; ``spec`` is None when the roles could not be inferred or the
        records could not be read (``guess.refused`` says why).
    """
    path = Path(descriptor)
    bases: list[Path | None] = [None] if data_dir is None else [None, Path(data_dir)]
    failure = ""
    for base in bases:
        try:
            desc = read_descriptor(path, base_dir=base)
            label = name or _dataset_name(desc.doc, path)
            rs = desc.record_set(record_set)
            table = read_record_set(desc, rs.id)
        except LineageError as exc:
            failure = failure or exc.message
            continue
        break
    else:
        return None, RoleGuess(refused=f"records not readable: {failure}")
    columns = {c: table.column(c).to_pylist() for c in table.column_names}
    guess = infer_roles(columns, roles, key_format)
    if not guess.ok:
        return None, guess
    spec_roles, key_props = _key_props(guess.roles)
    spec = DatasetSpec(
        name=label,
        iri=str(desc.doc.get("url") or path.resolve().as_uri()),
        title=str(desc.doc.get("name") or label),
        descriptor=path,
        record_set=rs.id,
        roles=spec_roles,
        key_format=guess.key_format,
        key_kind=key_props.get("kind", "option") if "key" in spec_roles else None,
        key_pattern=key_props.get("pattern"),
        key_tolerance=float(key_props.get("tolerance", 0.0)),
        key_separator=key_props.get("separator"),
        files_relative_to_data_dir=base is not None,
        languages=_languages(desc.doc),
    )
    return spec, guess


#: The key role object's own properties, as the family spec reads them.
_KEY_PROPS = ("kind", "pattern", "tolerance", "separator")


def _key_props(roles: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The roles with the key's own properties (``kind``, ``pattern``, ``tolerance``,
    ``separator``: a free-form key given as ``{"field": "answer", "kind": "text"}``) split
    off, as the family spec reads them."""
    out = dict(roles)
    key = out.get("key")
    if not isinstance(key, dict) or not set(key) & set(_KEY_PROPS):
        return out, {}
    props = {k: key[k] for k in _KEY_PROPS if k in key}
    rest = {k: v for k, v in key.items() if k not in _KEY_PROPS}
    out["key"] = rest["field"] if set(rest) == {"field"} else rest
    return out, props


def _languages(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The descriptor's ``inLanguage`` tags (a string or a list of strings)."""
    raw = doc.get("inLanguage")
    values = raw if isinstance(raw, list) else [raw]
    return tuple(v for v in values if isinstance(v, str) and v.strip())


def _dataset_name(doc: Mapping[str, Any], path: Path) -> str:
    raw = doc.get("name")
    text = raw if isinstance(raw, str) and raw.strip() else path.parent.name
    return re.sub(r"[^A-Za-z0-9._@-]+", "-", text).strip("-") or "dataset"
