"""Helpers for tests and benchmarks: the synthetic family generator."""
