"""Audit findings: the model, files, Parquet, importers, routing, corrections, carry-forward, report."""
