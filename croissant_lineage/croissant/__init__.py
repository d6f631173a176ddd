"""Croissant descriptors in, offline: the JSON-LD layer, descriptors, record reading, tables, describe."""
