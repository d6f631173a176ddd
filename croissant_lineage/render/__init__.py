"""Human-readable views: text, HTML, plots and pictures. Nothing below imports this package.

Importing it registers the text and HTML renderers of the result types with
:mod:`croissant_lineage._results`.
"""

from croissant_lineage.render import html, text  # noqa: F401  (registers the renderers)
