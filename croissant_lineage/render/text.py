"""Text views of the result types: what the CLI prints (``str(result)``).

Each renderer is registered for its type with
:func:`croissant_lineage._results.register_text`.
"""

from __future__ import annotations
