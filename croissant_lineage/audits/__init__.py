"""Audits over a linked family: snapshot history, translations, model witnesses. Each takes a Lineage."""
