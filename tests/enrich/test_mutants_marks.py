"""Which descriptors this library wrote (issue 20): tests that kill the mutants of
``enrich.marks`` that mutmut left alive on 2026-12-01."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from croissant_lineage.croissant.descriptor import GENERATOR
from croissant_lineage.croissant.namespaces import CL_NS
from croissant_lineage.enrich.marks import ENRICHMENT_ID, is_our_descriptor
from croissant_lineage.prov.vocab import MARK

OURS = {"@index": MARK, "name": "added"}
ACTIVITY = {"@index": MARK, "@id": ENRICHMENT_ID}


@pytest.mark.parametrize(
    ("doc", "ours"),
    [
        # made by describe: the generator marker alone, no marked node
        ({"@context": {"cl": CL_NS}, f"{CL_NS}generatedBy": GENERATOR, "name": "x"}, True),
        # enriched: our activity node deep down (below a dict, then a list)
        ({"name": "x", "recordSet": [{"field": [{"name": "f"}, ACTIVITY]}]}, True),
        # a user's node that merely carries our @index is no mark of ours (issue 15, rule 13)
        ({"name": "x", "recordSet": [{"field": [{"name": "f"}, OURS]}]}, False),
        (dict(OURS), False),
        # a marked-looking object inside @context is no mark
        ({"@context": {"cl": CL_NS, "x": OURS}, "name": "x"}, False),
        # nothing of ours
        ({"name": "x", "recordSet": [{"field": [{"name": "f"}]}]}, False),
    ],
    ids=["describe", "deep-activity", "deep-user-index", "top-user-index", "mark-in-context", "foreign"],
)
def test_is_our_descriptor(tmp_path: Path, doc: Any, ours: bool) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps(doc))
    assert is_our_descriptor(path) is ours
