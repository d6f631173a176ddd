"""Discovering undeclared derivations: roles without a spec, a corpus index of stems, proposals."""
