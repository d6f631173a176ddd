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
from .graph import Edge, Family, ItemRecord, LineageGraph, Relative, family_of
from .hub import descriptor_for
from .items import load_items
from .lineage import Lineage
from .linking import link
from .normalize import normalize_option, normalize_stem
from .options import OptionDiff, diff_options

__all__ = [
    "DataError",
    "DatasetSpec",
    "Derivation",
    "DescribeOptions",
    "Descriptor",
    "DescriptorError",
    "Edge",
    "Family",
    "FamilySpec",
    "FindingsError",
    "InputError",
    "ItemRecord",
    "Lineage",
    "LineageError",
    "LineageGraph",
    "LinkRule",
    "OptionDiff",
    "OutputExistsError",
    "Relative",
    "SpecError",
    "UnsafePathError",
    "__version__",
    "describe",
    "descriptor_for",
    "diff_options",
    "family_of",
    "link",
    "load_family",
    "load_items",
    "normalize_option",
    "normalize_stem",
    "read_descriptor",
]
