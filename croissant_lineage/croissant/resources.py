"""The file resources of a descriptor: which nodes are FileObjects or FileSets, and the local
path a ``contentUrl`` names (every reader of file URLs decides both the same way)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urlparse

from croissant_lineage.croissant.descriptor import as_list
from croissant_lineage.croissant.jsonld import JsonLdContext
from croissant_lineage.croissant.namespaces import CROISSANT_NS, SCHEMA_NS

__all__ = ["FILE_OBJECT_TYPES", "FILE_SET_TYPES", "local_path", "resource_kind"]

#: A URL scheme (``https:``, ``s3:``, ``hf:``...); a Windows drive letter is told apart.
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")
#: The IRIs a FileObject's ``@type`` expands to (Croissant's, and schema.org's older spellings).
FILE_OBJECT_TYPES = frozenset({f"{CROISSANT_NS}FileObject", f"{SCHEMA_NS}FileObject", "http://schema.org/FileObject"})
#: The IRIs a FileSet's ``@type`` expands to.
FILE_SET_TYPES = frozenset({f"{CROISSANT_NS}FileSet"})


def local_path(url: str) -> str | None:
    """The local path a ``contentUrl`` names, or None when it is a URL (``https:``, ``s3:``...).

    ``file://`` URLs are local paths; a Windows drive letter (``C:\\``) is not a scheme.
    """
    if url.startswith("file:"):
        return unquote(urlparse(url).path) or None
    if _SCHEME.match(url) and not re.match(r"^[A-Za-z]:[\\/]", url):
        return None
    return url


def resource_kind(node: dict[str, Any], ctx: JsonLdContext) -> str | None:
    """``"FileObject"``, ``"FileSet"``, or None for a node of neither type."""
    for t in as_list(node.get("@type")):
        iri = ctx.expand_iri(t, vocab=True).iri if isinstance(t, str) else None
        if iri in FILE_OBJECT_TYPES:
            return "FileObject"
        if iri in FILE_SET_TYPES:
            return "FileSet"
    return None
