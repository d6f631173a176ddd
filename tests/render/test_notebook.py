"""The walkthrough notebook runs on the real data and shows what it promises.

``examples/walkthrough.ipynb`` is executed here with nbclient (its own kernel links the
family itself: the session fixtures cannot reach a notebook kernel), so it never goes
stale. Its outputs must include the family picture and the re-review queue of MMLU-Pro
3542.
"""

from __future__ import annotations

import ast
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _code(path: Path) -> str:
    cells = json.loads(path.read_text("utf-8"))["cells"]
    lines = ("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return "\n".join(ln for cell in lines for ln in cell.splitlines() if not ln.startswith("%"))  # no magics


@pytest.mark.parametrize("path", [Path(__file__).resolve().parents[2] / "examples" / "walkthrough.ipynb",
                                  DOCS / "walkthrough.ipynb"], ids=["examples", "docs"])
def test_the_walkthrough_uses_the_public_api_only(path: Path) -> None:
    """``import croissant_lineage as cl`` and its names: no module of the package below it."""
    import croissant_lineage as cl

    tree = ast.parse(_code(path))
    internal = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("croissant_lineage.")]
    internal += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names if a.name.startswith("croissant_lineage.")]
    assert internal == []
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and getattr(n.value, "id", "") == "cl"}
    assert used and used <= set(cl.__all__), sorted(used - set(cl.__all__))


nbformat = pytest.importorskip("nbformat", reason="the notebook test needs the test extra (nbclient)")
nbclient = pytest.importorskip("nbclient", reason="the notebook test needs the test extra (nbclient)")
pytest.importorskip("ipykernel", reason="the notebook test needs the test extra (ipykernel)")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NOTEBOOK = EXAMPLES / "walkthrough.ipynb"


def _outputs(nb, mime: str) -> list[str]:
    return [o["data"][mime] for c in nb.cells if c.cell_type == "code" for o in c.outputs if mime in o.get("data", {})]


@pytest.mark.realdata
@pytest.mark.slow
def test_walkthrough_executes_and_shows_3542(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CROISSANT_LINEAGE_DATA", str(shared_data))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit the notebook without outputs"
    client = nbclient.NotebookClient(
        nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(EXAMPLES)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors

    pictures = [svg for svg in _outputs(nb, "image/svg+xml") if "Family of mmlu-pro:3542" in svg]
    assert pictures, "the family picture of mmlu-pro:3542 is missing"
    ET.fromstring(pictures[0])  # valid XML
    queues = [h for h in _outputs(nb, "text/html") if "Re-review queue for mmlu-pro:3542" in h]
    assert queues, "the queue table of mmlu-pro:3542 is missing"
    for ref in ("mmlu-pro:3542", "mmlu-redux:college_chemistry/99", "global-mmlu-ja:college_chemistry/test/86"):
        assert ref in queues[0]
        dataset, _, item = ref.partition(":")
        assert dataset in pictures[0] and item in pictures[0]
    # the toy family is shown the same way
    assert any("Family of toy-pro:101" in svg for svg in _outputs(nb, "image/svg+xml"))
