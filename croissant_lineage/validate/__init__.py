r"""Validation for CI: descriptors, lineage, family specs, findings and dataset cards.

``validate(paths)`` returns a :class:`ValidationReport` of coded issues; ``croissant-lineage
validate PATH...`` prints it (or ``--json``: exactly ``ValidationReport.to_dict()``) and exits 0
when valid, 1 on errors, 2 when it could not run. A descriptor's local data files must be
there (``CLV701``) unless ``metadata_only``.

Codes (stable; :data:`CODES` holds them, :func:`codes_table` renders this table):

| code | severity | meaning | fix |
|---|---|---|---|
| CLV001 | error | file does not parse (JSON, YAML or Parquet) | fix the syntax; the message gives the position |
| CLV002 | error | kind of file not recognised | pass a Croissant descriptor, a lineage folder or table, a family spec, a findings file or a dataset card |
| CLV003 | error | folder holds nothing to validate | point at the files themselves |
| CLV101 | error | mlcroissant reports an error | see the message; it is mlcroissant's own |
| CLV102 | warning | mlcroissant reports a warning | see the message; it is mlcroissant's own |
| CLV103 | warning | recommended property missing (mlcroissant) | add it (citeAs, datePublished, license, version) |
| CLV104 | error | reference to a node that does not exist (mlcroissant) | fix the @id it points at |
| CLV105 | error | field without a valid dataType (mlcroissant) | give the field (or its RecordSet) a dataType |
| CLV106 | warning | @context lacks terms of the standard Croissant context that the descriptor uses (mlcroissant; terms it does not use are not reported) | start from the Croissant 1.1 @context |
| CLV107 | error | mlcroissant could not process the document (or it is not a Croissant Dataset) | see the message; the descriptor is not usable by Croissant loaders |
| CLV108 | error | mandatory property missing (mlcroissant) | add the property the message names |
| CLV201 | error | prefix used but not declared in @context | declare it, e.g. "prov": "http://www.w3.org/ns/prov#" |
| CLV202 | error | remote @context: cannot be checked offline, and loaders would fetch it | inline the @context object |
| CLV203 | error | annotation / equivalentProperty not mapped in @context: silently ignored (equivalentProperty merely absent from @context: CLV208) | map them to cr:annotation and cr:equivalentProperty |
| CLV204 | warning | PROV property on the wrong kind of node (outside its PROV-O domain; RDF readers still read it) | Croissant nodes are prov:Entity; put activity properties on a prov:Activity |
| CLV205 | warning | PROV property with the wrong kind of value (outside its PROV-O range: a literal for a relation, a node of the wrong kind, a time that is no date-time; RDF readers still read it) | use a node or {"@id": ...} for relations, an ISO date-time for times |
| CLV206 | error | prov: term that PROV-O does not define | check the spelling against https://www.w3.org/TR/prov-o/ |
| CLV207 | warning | prov: name that PROV-O does not define, as the official Croissant 1.1 examples write it (prov:isAssociatedWith, prov:locatedAt) | use the PROV-O term the message names (prov:wasAssociatedWith, prov:atLocation) |
| CLV208 | warning | equivalentProperty used but absent from @context, as in the official Croissant 1.1 examples: mlcroissant drops it, so the annotation loses its PROV-O meaning | add "equivalentProperty": "cr:equivalentProperty" to @context |
| CLV301 | error | lineage edge names an item that does not exist | re-run link, or fix the item ids |
| CLV302 | error | duplicate item id | item ids must be unique within a dataset |
| CLV303 | error | derivation cycle | an item (or dataset) cannot derive from itself |
| CLV304 | error | score outside 0-100 | scores are 0-100, higher is more similar |
| CLV305 | error | references join would fail in records(): key columns read as different types | keep join keys as strings that cannot be read as numbers, on both sides |
| CLV306 | error | lineage file missing or not in the lineage schema | write lineage with Lineage.write / croissant-lineage link |
| CLV307 | error | item key names none of its options (a letter or index past the options) | fix the key, or the options the spec's options role reads |
| CLV308 | warning | keys the spec names could not be read for some items of a dataset (counted per dataset) | fix the key field, its pattern or its kind in the family spec |
| CLV401 | error | finding breaks schemas/finding.schema.json | fix the entry at the JSON path given |
| CLV402 | error | unknown finding status | use proposed, submitted, confirmed_fixed, confirmed_documented, acknowledged_ambiguous, rejected or no_response |
| CLV403 | error | finding names an item that does not exist | fix the item ref (dataset:item) |
| CLV404 | warning | stale: a confirmed fix that an inherited descendant does not carry | apply the fix to the descendant, or record why not |
| CLV405 | error | finding id defined twice, or a status update for an unknown id | ids are unique; updates follow the finding they update |
| CLV406 | error | finding option_index beyond the item's options | option_index is 0-based |
| CLV501 | error | family spec invalid | see schemas/family.schema.json |
| CLV502 | error | family spec names a descriptor that does not exist | fix the descriptor path (relative to the spec) |
| CLV503 | error | dataset IRIs cannot give each item an IRI of its own with one '#': an IRI with two '#', or the item IRIs of one dataset starting with another's | give each dataset an IRI with at most one '#' (a fragment's items go after '/': X#en -> X#en/ITEM), not extending another item dataset's |
| CLV601 | error | dataset card YAML header missing or does not parse (yaml.safe_load) | start README.md with a --- YAML block --- |
| CLV602 | error | dataset card configs entry malformed | each entry needs config_name and data_files |
| CLV603 | error | dataset card configs data_files match no file | fix the path or glob, relative to the card |
| CLV604 | error | dataset card license disagrees with the descriptor | use the same license in both |
| CLV605 | error | dataset card source_datasets does not name the descriptor's parents | list each parent, e.g. extended\|cais/mmlu |
| CLV606 | warning | a data file the descriptor distributes is in no configs entry: the Hub's Croissant and viewer will not show it | add a configs entry for it |
| CLV701 | error | local FileObject or FileSet matches no file: the descriptor is here without its data (mlcroissant validates it, then reads no records) | commit the data beside the descriptor or fix contentUrl / includes; --metadata-only skips this check |
| CLV702 | warning | local contentUrl or includes resolves outside the descriptor's folder | keep the data inside the descriptor's folder (or give a URL) so that the two move together |
| CLV801 | warning | the Dataset has no name (required by the Croissant specification; records do not depend on it) | give the dataset a name |
| CLV802 | error | leaf Field with neither source nor value (in a RecordSet without data): records() yields None for it on every record | give the field a source (or a constant value) |
| CLV803 | error | Field source names a FileObject or FileSet but no extract: records() fails | add extract with a column, jsonPath or fileProperty |
| CLV804 | warning | RecordSet key names no field of the RecordSet (by @id, name, or @id under the RecordSet's; records() does not read keys) | point key at @ids of the RecordSet's own fields |
| CLV805 | error | RecordSet with no field: its records hold nothing | declare the RecordSet's fields |
"""

from __future__ import annotations

from croissant_lineage.validate.codes import CODES, Code, codes_table
from croissant_lineage.validate.core import validate
from croissant_lineage.validate.report import Checked, Issue, ValidationReport

__all__ = ["CODES", "Checked", "Code", "Issue", "ValidationReport", "codes_table", "validate"]
