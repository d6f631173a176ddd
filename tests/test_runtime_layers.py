"""The layers hold when the code runs, not only in import-linter's reading of the source:
each stage, imported in a fresh interpreter, loads nothing of a stage above it; the package
loads no heavy library; a result prints without the stages it does not need."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

REPO = Path(__file__).resolve().parents[1]

#: The import-linter layers, top first: each a list of modules (siblings share a layer).
LAYERS = [
    re.findall(r"croissant_lineage[\w.]*", layer)
    for layer in tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]["contracts"][0]["layers"]
]

#: Libraries the package must not load on ``import croissant_lineage``.
HEAVY = ("rdflib", "apache_beam", "huggingface_hub", "mlcroissant", "matplotlib", "datasets", "pyarrow", "pandas")


def _fresh(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def _stages() -> list[tuple[str, list[str]]]:
    return [(m, [a for upper in LAYERS[:i] for a in upper]) for i, layer in enumerate(LAYERS) for m in layer]


#: Every module of the stage imported (optional extras that are not installed skipped).
_IMPORT_STAGE = """
import importlib, json, pkgutil, sys
stage, above = {stage!r}, {above!r}
root = importlib.import_module(stage)
names = [stage] + [m.name for m in pkgutil.walk_packages(getattr(root, "__path__", []), stage + ".")
                   if not m.name.endswith("__main__")]
for name in names:
    try:
        importlib.import_module(name)
    except ImportError as exc:  # an optional extra (apache_beam...) not installed here
        if (exc.name or "").startswith("croissant_lineage"):
            raise
print(json.dumps(sorted(m for m in sys.modules if any(m == a or m.startswith(a + ".") for a in above))))
"""


@pytest.mark.parametrize(("stage", "above"), _stages(), ids=[s for s, _ in _stages()])
def test_a_stage_loads_nothing_above_it(stage: str, above: list[str]) -> None:
    assert json.loads(_fresh(_IMPORT_STAGE.format(stage=stage, above=above))) == []


def test_importing_the_package_loads_no_stage_and_no_heavy_library() -> None:
    code = (
        "import json, sys, croissant_lineage, croissant_lineage.errors\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "ours = sorted(m for m in sys.modules if m.startswith('croissant_lineage'))\n"
        "print(json.dumps([heavy, ours, dir(croissant_lineage) == croissant_lineage.__all__]))"
    )
    heavy, ours, same_dir = json.loads(_fresh(code))
    assert heavy == []
    assert ours == ["croissant_lineage", "croissant_lineage._results", "croissant_lineage._version", "croissant_lineage.errors"]
    assert same_dir is True


def test_the_functions_named_like_their_modules_load_on_first_use() -> None:
    code = (
        "import sys, inspect, croissant_lineage as cl\n"
        "before = 'croissant_lineage.validate' in sys.modules\n"
        "import croissant_lineage.validate.codes, croissant_lineage.resolve\n"
        "print(before, inspect.isfunction(cl.validate), inspect.isfunction(cl.resolve))"
    )
    assert _fresh(code) == "False True True"


#: Each result type made in a fresh interpreter and shown (str, repr, HTML); then which
#: stages were loaded. The toy family is linked with the library's own builder, its items loaded here.
_SHOW = """
import json, sys
from pathlib import Path
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.linking.linker import link_family
from croissant_lineage.lineage.graph import relatives_of
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.routing import route_item
from croissant_lineage.findings.report import family_report
from croissant_lineage.findings.corrections import apply_corrections
from croissant_lineage.audits.translations import verify_translations
from croissant_lineage.validate import validate
toy = Path("examples/toy")
spec = load_family(toy / "family.json")
lin = link_family(spec, {d.name: load_items(d) for d in spec.datasets.values() if d.has_items})
found = load_findings(toy / "findings.yaml")
results = [
    lin, relatives_of(lin, "toy-pro:105"), route_item(lin, "toy-pro:109", found), family_report(lin, found),
    apply_corrections(lin, found, dataset="toy-pro"), verify_translations(lin),
    validate(toy / "findings.yaml"), found[0],
]
shown = {type(r).__name__: [len(str(r)), len(repr(r)), "\\n" in repr(r), len(r._repr_html_())] for r in results}
loaded = sorted({m.split(".")[1] for m in sys.modules if m.startswith("croissant_lineage.") and m.split(".")[1] in ("beam", "hub", "workflows", "cli")})
heavy = [m for m in ("apache_beam", "huggingface_hub", "matplotlib") if m in sys.modules]
print(json.dumps([shown, loaded, heavy]))
"""


def test_results_show_in_a_fresh_interpreter_without_beam_or_hub() -> None:
    shown, loaded, heavy = json.loads(_fresh(_SHOW.replace("", "")))
    assert set(shown) == {"Lineage", "Relatives", "Queue", "FamilyReport", "Corrections", "TranslationReport",
                          "ValidationReport", "Finding"}
    for name, (text, rep, multiline, html) in shown.items():
        assert text > 0 and html > 0, name
        assert rep <= 160 and not multiline, name  # a REPL repr is one line of summary
    assert loaded == []
    assert heavy == []


def test_every_renderer_names_a_result_type() -> None:
    """Renderers registered by a type's place resolve, once every module is loaded, to a
    type (a misspelt place would never render anything)."""
    code = (
        "import importlib, pkgutil, croissant_lineage as cl, croissant_lineage.render\n"
        "from croissant_lineage import _results\n"
        "for m in pkgutil.walk_packages(cl.__path__, 'croissant_lineage.'):\n"
        "    if m.name.endswith('__main__'):\n        continue\n"
        "    try:\n        importlib.import_module(m.name)\n"
        "    except ImportError as exc:\n        assert not (exc.name or '').startswith('croissant_lineage'), exc\n"
        "_results._resolve_pending()\n"
        "print([place for _, place, _ in _results._PENDING if not place.startswith('croissant_lineage.beam')])"
    )
    assert _fresh(code) == "[]"


def test_validating_a_plain_descriptor_loads_no_lineage_machinery() -> None:
    """The pre-commit hook's unit of work: one descriptor through the CLI, in a fresh interpreter."""
    code = (
        "import json, sys, contextlib, io\n"
        "from croissant_lineage.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = main(['validate', 'croissant_lineage/family/families/mmlu/descriptors/mmlu-2020.json'])\n"
        "stages = sorted({m.split('.')[1] for m in sys.modules if m.startswith('croissant_lineage.')})\n"
        "parts = [m for m in ('croissant_lineage.findings.routing', 'croissant_lineage.lineage.graph') if m in sys.modules]\n"
        f"libs = [m for m in {_NOT_FOR_A_DESCRIPTOR!r} if m in sys.modules]\n"
        "print(json.dumps([status, stages, parts, libs]))"
    )
    status, stages, parts, libs = json.loads(_fresh(code))
    assert status in (0, 1)  # it ran (valid or with issues), not a usage error
    for stage in ("lineage", "family", "linking", "findings", "prov", "enrich", "audits", "discovery", "hub", "beam",
                  "workflows"):
        assert stage not in stages, stage
    assert parts == []
    assert libs == []


#: What validating a plain descriptor does not need, and mlcroissant does not load either (so
#: it would be paid on top of ``import mlcroissant``): the family spec's JSON Schema
#: validator, pyarrow's Parquet reader, the lineage checks, the card and family checks.
_NOT_FOR_A_DESCRIPTOR = (
    "apache_beam", "jsonschema", "pyarrow.parquet", "croissant_lineage.validate.lineage",
    "croissant_lineage.validate.card", "croissant_lineage.validate.family", "croissant_lineage.validate.findings",
    "croissant_lineage.croissant.limits", "croissant_lineage.croissant.describe",
)


def test_validating_a_family_spec_still_loads_its_checks() -> None:
    """The other side of the lazy imports: a family spec given with a descriptor brings its checks."""
    code = (
        "import json, sys, contextlib, io\n"
        "from croissant_lineage.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = main(['validate', 'examples/toy/family.json', 'croissant_lineage/family/families/mmlu/descriptors/mmlu-2020.json'])\n"
        "print(json.dumps([status, [m for m in ('croissant_lineage.validate.family', 'jsonschema') if m in sys.modules]]))"
    )
    status, loaded = json.loads(_fresh(code))
    assert status in (0, 1)
    assert loaded == ["croissant_lineage.validate.family", "jsonschema"]


def test_a_command_imports_only_its_own_modules() -> None:
    code = (
        "import json, sys\n"
        "from croissant_lineage.cli import build_parser, _commands_of\n"
        "build_parser(_commands_of(['resolve', 'x:1', 'here']))\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('croissant_lineage.cli.'))))"
    )
    assert json.loads(_fresh(code)) == [
        "croissant_lineage.cli.flags", "croissant_lineage.cli.options", "croissant_lineage.cli.resolve",
    ]  # the flag registry is what options declares its flags from


def test_resolve_of_one_item_loads_no_rdflib_and_no_prov(toy_lineage, tmp_path: Path) -> None:
    """``croissant-lineage resolve`` of one item, in a fresh interpreter: it reads the enriched
    files with pyarrow; the PROV-O layer, rdflib, SciPy and the writers of enrich stay unloaded."""
    from croissant_lineage.enrich import enrich_family

    out = tmp_path / "enriched"
    enrich_family(toy_lineage, REPO / "examples" / "toy" / "family.json", out)
    code = (
        "import json, sys, contextlib, io\n"
        "from croissant_lineage.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as text:\n"
        f"    status = main(['resolve', 'toy-base:astronomy/test/0', {str(out)!r}, '--json'])\n"
        "loaded = [m for m in ('rdflib', 'scipy', 'tqdm', 'mlcroissant', 'croissant_lineage.prov',\n"
        "          'croissant_lineage.enrich.family', 'croissant_lineage.enrich.descriptor') if m in sys.modules]\n"
        "print(json.dumps([status, json.loads(text.getvalue())['item']['ref'], loaded]))"
    )
    status, ref, loaded = json.loads(_fresh(code))
    assert (status, ref, loaded) == (0, "toy-base:astronomy/test/0", [])
