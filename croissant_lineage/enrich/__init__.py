"""Writing lineage back into Croissant descriptors: marks, one descriptor, a family, the files beside it."""
