"""Items, edges and the lineage graph: the tables every later stage reads, and their Arrow schemas."""
