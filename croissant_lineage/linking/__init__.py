"""Linking: normalising, option alignment, matching and duplicates (child item -> parent item)."""
