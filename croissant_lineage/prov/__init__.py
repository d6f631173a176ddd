"""PROV-O: the provenance graph of a linked family and its serialisations."""
