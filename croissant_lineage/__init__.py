"""croissant_lineage: item-level lineage for benchmark families described with Croissant.

Read benchmarks' Croissant descriptors, reconstruct which item came from which (with
the evidence), route audit findings along that lineage, and write it all back as
W3C PROV-O in enriched Croissant JSON-LD.

Example:
    >>> import croissant_lineage as cl
    >>> fam = cl.load_family("mmlu")
    >>> lineage = cl.link(fam, data_dir="../shared/data")        # doctest: +SKIP
    >>> cl.family_of(lineage, "mmlu-pro:3542").ancestors           # doctest: +SKIP
"""

from __future__ import annotations

__version__ = "0.1.0"

from .croissant import Descriptor, read_descriptor
from .describe import DescribeOptions, describe
from .errors import (
    DataError,
    DescriptorError,
    FindingsError,
    InputError,
    LineageError,
    OutputExistsError,
    SpecError,
    UnsafePathError,
)
from .family import DatasetSpec, Derivation, FamilySpec, LinkRule, load_family
from .items import load_items

__all__ = [
    "DataError",
    "DatasetSpec",
    "Derivation",
    "DescribeOptions",
    "Descriptor",
    "DescriptorError",
    "FamilySpec",
    "FindingsError",
    "InputError",
    "LineageError",
    "LinkRule",
    "OutputExistsError",
    "SpecError",
    "UnsafePathError",
    "__version__",
    "describe",
    "load_family",
    "load_items",
    "read_descriptor",
]
