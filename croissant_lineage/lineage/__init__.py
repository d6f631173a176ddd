"""Items, edges and the lineage graph: the tables every later stage reads, every Arrow schema of the package, and following an option along edges."""
