"""Linking a family as an Apache Beam pipeline (``pip install 'croissant-lineage[beam]'``).

:func:`~croissant_lineage.beam.pipeline.link_beam` runs the local linker's own functions
per block (:mod:`croissant_lineage.beam.blocks`) on any Beam runner and merges the parts
into the same :class:`~croissant_lineage.lineage.model.Lineage`. Importing this package
does not import ``apache_beam``; running a pipeline does.
"""
