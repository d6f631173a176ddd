"""Every issue code ``validate`` can report, declared once.

A code never changes meaning; new checks get new codes. Codes are grouped by family:
``CLV0xx`` inputs, ``CLV1xx`` what mlcroissant reports, ``CLV2xx`` JSON-LD context and
PROV-O, ``CLV3xx`` lineage, ``CLV4xx`` findings, ``CLV5xx`` family specs, ``CLV6xx``
dataset cards, ``CLV7xx`` the local data files a descriptor distributes, ``CLV8xx`` Croissant
requirements that mlcroissant lets through and records depend on. :func:`codes_table` renders the table the docs show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from croissant_lineage.croissant.namespaces import PROV_NS
from croissant_lineage.errors import InputError
from croissant_lineage.validate.report import Issue

__all__ = ["CODES", "Code", "codes_table", "expand_selection", "issue"]


@dataclass(frozen=True)
class Code:
    """An issue code.

    Attributes:
        code: ``CLV`` and three digits.
        severity: ``error`` (fails validation) or ``warning``.
        title: What the code means, in one line.
        fix: What to do about it.
    """

    code: str
    severity: str
    title: str
    fix: str


_TABLE = [
    Code("CLV001", "error", "file does not parse (JSON, YAML or Parquet)", "fix the syntax; the message gives the position"),
    Code("CLV002", "error", "kind of file not recognised", "pass a Croissant descriptor, a lineage folder or table, a family spec, a findings file or a dataset card"),
    Code("CLV003", "error", "folder holds nothing to validate", "point at the files themselves"),
    Code("CLV101", "error", "mlcroissant reports an error", "see the message; it is mlcroissant's own"),
    Code("CLV102", "warning", "mlcroissant reports a warning", "see the message; it is mlcroissant's own"),
    Code("CLV103", "warning", "recommended property missing (mlcroissant)", "add it (citeAs, datePublished, license, version)"),
    Code("CLV104", "error", "reference to a node that does not exist (mlcroissant)", "fix the @id it points at"),
    Code("CLV105", "error", "field without a valid dataType (mlcroissant)", "give the field (or its RecordSet) a dataType"),
    Code("CLV106", "warning", "@context lacks terms of the standard Croissant context that the descriptor uses (mlcroissant; terms it does not use are not reported)", "start from the Croissant 1.1 @context"),
    Code("CLV107", "error", "mlcroissant could not process the document (or it is not a Croissant Dataset)", "see the message; the descriptor is not usable by Croissant loaders"),
    Code("CLV108", "error", "mandatory property missing (mlcroissant)", "add the property the message names"),
    Code("CLV201", "error", "prefix used but not declared in @context", f"declare it, e.g. \"prov\": \"{PROV_NS}\""),
    Code("CLV202", "error", "remote @context: cannot be checked offline, and loaders would fetch it", "inline the @context object"),
    Code("CLV203", "error", "annotation / equivalentProperty not mapped in @context: silently ignored (equivalentProperty merely absent from @context: CLV208)", "map them to cr:annotation and cr:equivalentProperty"),
    Code("CLV204", "warning", "PROV property on the wrong kind of node (outside its PROV-O domain; RDF readers still read it)", "Croissant nodes are prov:Entity; put activity properties on a prov:Activity"),
    Code("CLV205", "warning", "PROV property with the wrong kind of value (outside its PROV-O range: a literal for a relation, a node of the wrong kind, a time that is no date-time; RDF readers still read it)", "use a node or {\"@id\": ...} for relations, an ISO date-time for times"),
    Code("CLV206", "error", "prov: term that PROV-O does not define", "check the spelling against https://www.w3.org/TR/prov-o/"),
    Code("CLV207", "warning", "prov: name that PROV-O does not define, as the official Croissant 1.1 examples write it (prov:isAssociatedWith, prov:locatedAt)", "use the PROV-O term the message names (prov:wasAssociatedWith, prov:atLocation)"),
    Code("CLV208", "warning", "equivalentProperty used but absent from @context, as in the official Croissant 1.1 examples: mlcroissant drops it, so the annotation loses its PROV-O meaning", "add \"equivalentProperty\": \"cr:equivalentProperty\" to @context"),
    Code("CLV301", "error", "lineage edge names an item that does not exist", "re-run link, or fix the item ids"),
    Code("CLV302", "error", "duplicate item id", "item ids must be unique within a dataset"),
    Code("CLV303", "error", "derivation cycle", "an item (or dataset) cannot derive from itself"),
    Code("CLV304", "error", "score outside 0-100", "scores are 0-100, higher is more similar"),
    Code("CLV305", "error", "references join would fail in records(): key columns read as different types", "keep join keys as strings that cannot be read as numbers, on both sides"),
    Code("CLV306", "error", "lineage file missing or not in the lineage schema", "write lineage with Lineage.write / croissant-lineage link"),
    Code("CLV307", "error", "item key names none of its options (a letter or index past the options)", "fix the key, or the options the spec's options role reads"),
    Code("CLV308", "warning", "keys the spec names could not be read for some items of a dataset (counted per dataset)", "fix the key field, its pattern or its kind in the family spec"),
    Code("CLV401", "error", "finding breaks schemas/finding.schema.json", "fix the entry at the JSON path given"),
    Code("CLV402", "error", "unknown finding status", "use proposed, submitted, confirmed_fixed, confirmed_documented, acknowledged_ambiguous, rejected or no_response"),
    Code("CLV403", "error", "finding names an item that does not exist", "fix the item ref (dataset:item)"),
    Code("CLV404", "warning", "stale: a confirmed fix that an inherited descendant does not carry", "apply the fix to the descendant, or record why not"),
    Code("CLV405", "error", "finding id defined twice, or a status update for an unknown id", "ids are unique; updates follow the finding they update"),
    Code("CLV406", "error", "finding option_index beyond the item's options", "option_index is 0-based"),
    Code("CLV501", "error", "family spec invalid", "see schemas/family.schema.json"),
    Code("CLV502", "error", "family spec names a descriptor that does not exist", "fix the descriptor path (relative to the spec)"),
    Code("CLV503", "error", "dataset IRIs cannot give each item an IRI of its own with one '#': an IRI with two '#', or the item IRIs of one dataset starting with another's", "give each dataset an IRI with at most one '#' (a fragment's items go after '/': X#en -> X#en/ITEM), not extending another item dataset's"),
    Code("CLV601", "error", "dataset card YAML header missing or does not parse (yaml.safe_load)", "start README.md with a --- YAML block ---"),
    Code("CLV602", "error", "dataset card configs entry malformed", "each entry needs config_name and data_files"),
    Code("CLV603", "error", "dataset card configs data_files match no file", "fix the path or glob, relative to the card"),
    Code("CLV604", "error", "dataset card license disagrees with the descriptor", "use the same license in both"),
    Code("CLV605", "error", "dataset card source_datasets does not name the descriptor's parents", "list each parent, e.g. extended|cais/mmlu"),
    Code("CLV606", "warning", "a data file the descriptor distributes is in no configs entry: the Hub's Croissant and viewer will not show it", "add a configs entry for it"),
    Code("CLV701", "error", "local FileObject or FileSet matches no file: the descriptor is here without its data (mlcroissant validates it, then reads no records)", "commit the data beside the descriptor or fix contentUrl / includes; --metadata-only skips this check"),
    Code("CLV702", "warning", "local contentUrl or includes resolves outside the descriptor's folder", "keep the data inside the descriptor's folder (or give a URL) so that the two move together"),
    Code("CLV801", "warning", "the Dataset has no name (required by the Croissant specification; records do not depend on it)", "give the dataset a name"),
    Code("CLV802", "error", "leaf Field with neither source nor value (in a RecordSet without data): records() yields None for it on every record", "give the field a source (or a constant value)"),
    Code("CLV803", "error", "Field source names a FileObject or FileSet but no extract: records() fails", "add extract with a column, jsonPath or fileProperty"),
    Code("CLV804", "warning", "RecordSet key names no field of the RecordSet (by @id, name, or @id under the RecordSet's; records() does not read keys)", "point key at @ids of the RecordSet's own fields"),
    Code("CLV805", "error", "RecordSet with no field: its records hold nothing", "declare the RecordSet's fields"),
]

#: Code -> :class:`Code`, in table order.
CODES: dict[str, Code] = {c.code: c for c in _TABLE}


def codes_table() -> str:
    """The codes as a Markdown table (code, severity, meaning, fix)."""
    lines = ["| code | severity | meaning | fix |", "|---|---|---|---|"]
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines += [f"| {c.code} | {c.severity} | {cell(c.title)} | {cell(c.fix)} |" for c in CODES.values()]
    return "\n".join(lines)


def expand_selection(selection: Sequence[str] | None) -> set[str] | None:
    """Expand codes and code prefixes (``CLV2``, ``CLV30``) into a set of codes.

    Args:
        selection: Codes or prefixes, case-insensitive; comma-separated strings are split.

    Returns:
        The matching codes, or None when ``selection`` is None.

    Raises:
        InputError: an entry matches no code (a typo must not silently select nothing).
    """
    if selection is None:
        return None
    out: set[str] = set()
    for raw in selection:
        for part in str(raw).split(","):
            token = part.strip().upper()
            if not token:
                continue
            hits = {c for c in CODES if c.startswith(token)}
            if not hits:
                raise InputError(f"{token!r} matches no validation code", hint="see 'croissant-lineage validate --list-codes'")
            out |= hits
    return out


def issue(code: str, message: str, where: str) -> Issue:
    """An :class:`Issue` with the severity its code is declared with."""
    return Issue(code, CODES[code].severity, message, where)
