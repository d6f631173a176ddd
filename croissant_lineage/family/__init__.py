"""The family spec: which datasets form a benchmark family, their roles and derivations; shipped families."""
