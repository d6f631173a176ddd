"""A validation report as GitHub Actions reads it: annotations and a job summary.

:func:`github_annotations` turns each issue into a workflow command
(``::error file=F,line=L,title=CODE::MESSAGE``) that GitHub shows on the pull request's diff;
:func:`github_summary` is the Markdown a step appends to ``$GITHUB_STEP_SUMMARY``. Both take a
:class:`ValidationReport` or its ``to_dict()`` form (what ``croissant-lineage validate --json``
prints), so a saved JSON report can be turned into annotations later.
``croissant-lineage validate --format github --summary FILE`` prints the first and writes the
second (the repository's ``action.yml`` runs it).

An issue's ``where`` is ``FILE#PLACE``. The line is found for JSON pointers (``#/recordSet/2``)
into JSON files: the line where that value starts; other places (a table row, an item) annotate
the file without a line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from croissant_lineage.validate.report import ValidationReport

__all__ = ["github_annotations", "github_summary", "json_pointer_line"]

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
#: Rows of the summary's issue table; the rest are counted, not listed.
SUMMARY_ROWS = 200


def _skip(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


def _end_of_value(text: str, pos: int) -> int:
    """The position just after the JSON value starting at ``pos``."""
    return _DECODER.raw_decode(text, pos)[1]


def _child_start(text: str, pos: int, token: str) -> int | None:
    """Where the member ``token`` of the object or array at ``pos`` starts, or None."""
    if text[pos] == "{":
        pos = _skip(text, pos + 1)
        while text[pos] == '"':
            key, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
            pos = _skip(text, _skip(text, pos) + 1)  # past the colon
            if key == token:
                return pos
            pos = _skip(text, _end_of_value(text, pos))
            pos = _skip(text, pos + 1) if text[pos] == "," else pos
        return None
    if text[pos] == "[" and token.isdigit():
        pos, index = _skip(text, pos + 1), int(token)
        for _ in range(index):
            if text[pos] == "]":
                return None
            pos = _skip(text, _end_of_value(text, pos))
            if text[pos] != ",":
                return None
            pos = _skip(text, pos + 1)
        return None if text[pos] == "]" else pos
    return None


def json_pointer_line(text: str, pointer: str) -> int | None:
    """The 1-based line where the value at a JSON pointer starts in JSON ``text``.

    Args:
        text: A JSON document.
        pointer: An RFC 6901 pointer (``""`` or ``/recordSet/2/field/0``).

    Returns:
        The line number, or None when the text does not parse or the pointer names nothing.
    """
    if pointer and not pointer.startswith("/"):
        return None
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    try:
        pos = _skip(text, 0)
        for token in tokens:
            found = _child_start(text, pos, token)
            if found is None:
                return None
            pos = found
    except (ValueError, IndexError):
        return None
    return text.count("\n", 0, pos) + 1


def _issues(report: ValidationReport | Mapping[str, Any]) -> list[dict[str, str]]:
    data = report.to_dict() if isinstance(report, ValidationReport) else report
    return list(data.get("issues", []))


def _escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if prop else value


def _line(file: str, place: str, texts: dict[str, str | None]) -> int | None:
    if not place.startswith("/") and place != "":
        return None
    if file not in texts:
        try:
            texts[file] = Path(file).read_text(encoding="utf-8") if Path(file).is_file() else None
        except (OSError, UnicodeDecodeError):
            texts[file] = None
    text = texts[file]
    return json_pointer_line(text, place) if text is not None else None


def github_annotations(report: ValidationReport | Mapping[str, Any]) -> list[str]:
    """One GitHub workflow command per issue, in the report's order.

    Args:
        report: A :class:`ValidationReport` or its ``to_dict()`` form. Files named in the
            issues are read (relative to the working folder) to find the line of a JSON pointer.

    Returns:
        Lines ``::error file=F,line=L,title=CODE::MESSAGE`` (``::warning`` for warnings;
        ``line`` left out when not known), escaped as GitHub requires.
    """
    texts: dict[str, str | None] = {}
    out: list[str] = []
    for issue in _issues(report):
        file, _, place = issue["where"].partition("#")
        props = [f"file={_escape(file, prop=True)}"]
        line = _line(file, place, texts)
        if line is not None:
            props.append(f"line={line}")
        props.append(f"title={_escape(issue['code'] + (' ' + place if place else ''), prop=True)}")
        level = "error" if issue["severity"] == "error" else "warning"
        out.append(f"::{level} {','.join(props)}::{_escape(issue['message'])}")
    return out


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def github_summary(report: ValidationReport | Mapping[str, Any]) -> str:
    """The report as Markdown for a job summary: the verdict, counts, and a table of issues.

    Args:
        report: A :class:`ValidationReport` or its ``to_dict()`` form.

    Returns:
        Markdown ending with a newline; at most :data:`SUMMARY_ROWS` issues are listed.
    """
    data = report.to_dict() if isinstance(report, ValidationReport) else report
    issues = _issues(data)
    verdict = "valid" if data.get("valid") else "**invalid**"
    lines = [
        "## croissant-lineage validate",
        "",
        f"{verdict}: {data.get('errors', 0)} errors, {data.get('warnings', 0)} warnings in "
        f"{len(data.get('checked', []))} checked paths.",
    ]
    if issues:
        lines += ["", "| code | severity | where | message |", "|---|---|---|---|"]
        lines += [
            f"| {i['code']} | {i['severity']} | `{_cell(i['where'])}` | {_cell(i['message'])} |"
            for i in issues[:SUMMARY_ROWS]
        ]
        if len(issues) > SUMMARY_ROWS:
            lines += ["", f"{len(issues) - SUMMARY_ROWS} more issues not listed (see --json)."]
    return "\n".join(lines) + "\n"
