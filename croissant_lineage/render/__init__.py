"""Human-readable views: text, HTML, plots and pictures. Nothing below imports this package.

Importing it registers the text and HTML renderers of the result types with
:mod:`croissant_lineage._results` (``html``, ``text``). It does not import matplotlib:
:mod:`~croissant_lineage.render.plots` and :mod:`~croissant_lineage.render.picture` are
imported on use, and a picture's HTML view registers itself with its type.
"""

from croissant_lineage.render import discovery, html, text  # noqa: F401  (registers the renderers)
