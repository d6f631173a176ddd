"""The README is kept true by tests: every block is run or says why not, the table of contents
matches the headings, and the command reference (docs/cli.md) matches the parser.

The blocks themselves run in the golden test (tests/test_golden_outputs.py, through
tests/golden/readme.py): the quick start as the toy job, the real-data blocks as the mmlu job.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from tests.golden import readme

REPO = Path(__file__).resolve().parents[1]
TEXT = readme.README.read_text(encoding="utf-8")
TOC_START, TOC_END = "<!-- toc -->", "<!-- /toc -->"


def _anchor(heading: str) -> str:
    """The anchor GitHub (and mkdocs' toc extension, for these headings) gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def table_of_contents(text: str) -> str:
    """The list of ``##`` sections, as links, outside code blocks."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    heads = re.findall(r"^## (.+)$", prose, flags=re.M)
    return "\n".join(f"- [{h}](#{_anchor(h)})" for h in heads)


def test_table_of_contents_matches_the_headings() -> None:
    assert TOC_START in TEXT and TOC_END in TEXT
    current = TEXT.split(TOC_START, 1)[1].split(TOC_END, 1)[0].strip()
    assert current == table_of_contents(TEXT), "python3 -m tests.test_readme rewrites it"


def test_every_block_is_run_or_says_why_not() -> None:
    found = readme.all_blocks()
    assert {b.page for b in found} >= {"README.md", "docs/python.md"}
    for block in found:
        assert block.marker is not None, f"{block.where}: mark it readme-test: GROUP or skip REASON"
        if block.group is None:
            assert len(block.marker.split()) > 2, f"{block.where}: give the reason for skipping"
        else:
            assert block.group in readme.GROUPS, f"{block.where}: {block.marker}"
    groups = [b.group for b in found]
    assert "toy" in groups and "mmlu" in groups and "page" in groups


def test_the_main_jobs_are_the_readmes() -> None:
    """The golden groups run from README.md only: moving a block to a page would change what runs."""
    for name in readme.GOLDEN:
        assert {b.page for b in readme.group(name)} == {"README.md"}, name


def test_a_block_on_a_page_is_found_with_its_page_and_line() -> None:
    text = "# t\n\n<!-- readme-test: skip a reason given -->\n```bash\nls\n```\n\n```python\nx = 1\n```\n"
    first, second = readme.blocks(text, "docs/t.md")
    assert (first.where, first.group, first.marker) == ("docs/t.md:5", None, "skip a reason given")
    assert (second.where, second.marker) == ("docs/t.md:9", None)


def test_quick_start_runs_the_toy_job_and_real_data_block_links_first() -> None:
    (toy,) = readme.group("toy")
    assert toy.commands() == ["bash examples/toy/run.sh out/toy"]
    first = readme.group("mmlu")[0]
    assert first.commands()[0].startswith("croissant-lineage link mmlu --data-dir ../shared/data")


def test_python_block_checks_its_documented_values() -> None:
    (py,) = [b for b in readme.group("mmlu") if b.lang == "python"]
    assert "assert (rel.ancestors[0].path[0].options_added) == 6" in py.python_script()


def test_install_prefix_is_the_only_part_not_run() -> None:
    block = readme.Block("bash", "python3 -m pip install -e . && bash x.sh \\\n  out\n# c\n\nls\n", "toy", 1)
    assert block.commands() == ["bash x.sh out", "ls"]


def _gen_cli():  # docs/ is not a package
    spec = importlib.util.spec_from_file_location("gen_cli", REPO / "docs" / "gen_cli.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_command_reference_is_up_to_date() -> None:
    gen = _gen_cli()
    assert (REPO / "docs" / "cli.md").read_text(encoding="utf-8") == gen.render(), (
        "docs/cli.md is out of date: python3 docs/gen_cli.py"
    )


@pytest.mark.parametrize("command", ["link", "validate", "findings import redux"])
def test_command_reference_has_each_command(command: str) -> None:
    assert f"`croissant-lineage {command}`" in (REPO / "docs" / "cli.md").read_text(encoding="utf-8")


if __name__ == "__main__":  # python3 -m tests.test_readme: rewrite the table of contents
    head, rest = TEXT.split(TOC_START, 1)
    tail = rest.split(TOC_END, 1)[1]
    readme.README.write_text(f"{head}{TOC_START}\n{table_of_contents(TEXT)}\n{TOC_END}{tail}", encoding="utf-8")
    sys.stdout.write("README.md: table of contents rewritten\n")
