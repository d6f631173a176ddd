"""Croissant descriptors in, offline: the JSON-LD layer, descriptors, record reading, tables, describe."""

from croissant_lineage.croissant import dataset_files as _dataset_files  # noqa: F401 (registers the dataset finder with _io)
