"""docs/spec.md's table of where the HumanEval example findings reach is what ``route`` gives
on the real files (``python3 -m tests.test_spec_routes`` rewrites it from them)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.routing import Queue, route
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.workflows import link

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "spec.md"
FINDINGS = REPO / "examples" / "humaneval" / "findings.yaml"
START, END = "<!-- humaneval-routes -->", "<!-- /humaneval-routes -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def routes_table(lineage: Lineage) -> str:
    """One line per (finding, item reached): what ``route`` says of each example finding."""
    lines = ["| finding | item | reached by | status | certainty | note |", "|---|---|---|---|---|---|"]
    for finding in load_findings(FINDINGS):
        queue: Queue = route(lineage, finding)
        for r in queue.rows:
            lines.append(f"| `{finding.id}` ({finding.target}, {finding.kind}) | `{r.ref}` | "
                         f"{_cell(r.transformation) or 'the finding'} | {r.status} | {r.certainty} | {_cell(r.note)} |")
    return "\n".join(lines)


def page_table(text: str | None = None) -> str:
    text = PAGE.read_text(encoding="utf-8") if text is None else text
    return text.split(START, 1)[1].split(END, 1)[0].strip()


@pytest.fixture(scope="module")
def humaneval(shared_data: Path) -> Lineage:
    return link("humaneval", data_dir=shared_data)


def test_the_page_table_is_what_route_gives(humaneval: Lineage) -> None:
    assert page_table() == routes_table(humaneval), "docs/spec.md is out of date: python3 -m tests.test_spec_routes"


def test_the_example_findings_route_as_a_reviewer_expects(humaneval: Lineage) -> None:
    findings = {f.id: f for f in load_findings(FINDINGS)}
    assert {f.target for f in findings.values()} == {"stem", "tests", "key"}
    rows = {(fid, r.ref.partition(":")[0]): r for fid, f in findings.items() for r in route(humaneval, f).rows}
    langs = ("cpp", "go", "java", "js", "rust")
    for fid in findings:
        assert rows[fid, "humaneval"].status == "added"
        assert all(rows[fid, f"humaneval-x-{lang}"].status == "inherited" for lang in ["python", *langs])
        assert {rows[fid, f"humaneval-x-{lang}"].certainty for lang in langs} == {"probable"}  # translated: not compared
    # the Python rows are a copy: the prompt and the solution copied (certain), the tests' harness rewritten
    assert rows["he-find-zero-prompt", "humaneval-x-python"].certainty == "certain"
    assert rows["he-wrong-solution", "humaneval-x-python"].certainty == "certain"
    weak = rows["he-weak-tests", "humaneval-x-python"]
    assert (weak.certainty, weak.rank) == ("probable", 2) and "tests edited at copy" in weak.note
    assert "key translated" in rows["he-wrong-solution", "humaneval-x-rust"].note


def test_the_page_names_every_example_finding() -> None:
    table = page_table()
    assert [f.id for f in load_findings(FINDINGS) if f"`{f.id}`" not in table] == []


if __name__ == "__main__":  # python3 -m tests.test_spec_routes: rewrite the table from the real files
    from tests.conftest import SHARED_DATA

    text = PAGE.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    PAGE.write_text(f"{head}{START}\n{routes_table(link('humaneval', data_dir=SHARED_DATA))}\n{END}{tail}",
                    encoding="utf-8")
    sys.stdout.write("docs/spec.md: HumanEval routes table rewritten\n")
