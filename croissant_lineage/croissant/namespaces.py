"""The namespaces the library reads and writes, each declared once.

JSON files (the packaged contexts, shipped descriptors) keep their literals; Python code
uses these constants.
"""

from __future__ import annotations

__all__ = ["CL_NS", "CROISSANT_NS", "MARK", "PROV_NS", "RAI_NS", "SCHEMA_NS", "XSD_NS"]

#: MLCommons Croissant vocabulary (``cr:``); also the root of its context URLs.
CROISSANT_NS = "http://mlcommons.org/croissant/"
#: Croissant's Responsible-AI extension (``rai:``).
RAI_NS = f"{CROISSANT_NS}RAI/"
#: schema.org (``sc:``, and Croissant's ``@vocab``).
SCHEMA_NS = "https://schema.org/"
#: PROV-O (``prov:``).
PROV_NS = "http://www.w3.org/ns/prov#"
#: XML Schema datatypes (``xsd:``).
XSD_NS = "http://www.w3.org/2001/XMLSchema#"
#: This library's own extension properties (``cl:``; a reserved IRI).
CL_NS = "https://w3id.org/croissant-lineage/ns#"

#: The value of ``@index`` on every JSON-LD node the library adds to a descriptor:
#: how a later run finds (and replaces) its own additions. ``@index`` is a JSON-LD
#: keyword that produces no triple.
MARK = "croissant-lineage"
