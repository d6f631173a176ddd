"""Synthetic families of any shape: free-form keys and the derivations real families use.

:func:`write_shaped` writes (for :func:`croissant_lineage.testing.synthetic.generate_family`
with ``shape`` one of :data:`~croissant_lineage.testing.problems.SHAPES`) a root dataset of
invented problems (:mod:`croissant_lineage.testing.problems`) and six derivatives, all with
``{_row}`` item ids (0-based row numbers), and the truth of every child item:

* ``syn-root`` (Parquet): the original problems, dated 2022-01-01;
* ``syn-annotated`` (Parquet): its **twin with a content signal**: the same items and date,
  sub-answers inserted into each solution (code: tests added), so content says which came
  first;
* ``syn-mirror`` (JSON Lines): its **twin without a signal**: the same items and date,
  every content equal;
* ``syn-converted`` (JSON Lines): a **format conversion** of a tenth of the items (new
  field names, rows shuffled, number keys written in another form, set keys as one text
  cut at ``|`` in reverse order), whose ``source_id`` field is the parent's id (a
  **parent-id field**; the rows' own ``{_row}`` ids are not the parent's);
* ``syn-perturbed`` (JSON Lines): a **perturbation** of a tenth of the items: one number
  of the stem changed, the key, solution and tests recomputed (found by fuzzy matching);
* ``syn-variants`` (Parquet): **templated variants**: 50 rewritten problems per parent
  (about a tenth of the items), each row naming its parent's row in ``parent_row``;
* ``syn-xx`` (Parquet): a **translation** of the first tenth of the rows (code: into
  JavaScript, ``code_translation``), joined by row.

``truth.parquet`` has one row per child item: its parent, the intended activity
(``kind``), the activity the spec declares (``activity``), the fate of each content
(``stem``, ``options``, ``key``, ``solution``, ``tests``: one of :data:`FATES`) and
``key_same`` (the child's key equals the parent's as the key readers compare them; null
where a translation makes them incomparable: set and code keys).

A fate is what the derivation did as the data shows it: a content the derivation edited
or recomputed that came out equal to the parent's (a variant whose answer is its parent's,
a perturbed code item whose tests' integer division gives the same results) is
``copied``. :func:`fate_status` names the ``<content>_status`` an edge of the linker holds
for a fate (the two vocabularies differ in one word: ``recomputed`` is a key status only).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from croissant_lineage._io import atomic_write_json, atomic_writer
from croissant_lineage.family.spec import ACTIVITIES
from croissant_lineage.testing.problems import (
    KEY_KIND,
    Contents,
    Problem,
    contents,
    same_key,
)
from croissant_lineage.testing.words import Words, write_parquet

__all__ = [
    "FATES",
    "FORMAT_CONVERSION",
    "PERTURBATION",
    "TEMPLATED_VARIANTS",
    "ShapedOutput",
    "Twin",
    "fate_status",
    "spec_activity",
    "write_shaped",
]

# The activities of the derivations, in one place. Where the spec's ACTIVITIES lacks one,
# the spec declares the closest existing activity (``_CLOSEST``) and the truth keeps the
# intended one in its ``kind`` column.
PERTURBATION = "perturbation"
TEMPLATED_VARIANTS = "templated_variants"
FORMAT_CONVERSION = "format_conversion"
RE_ANNOTATION = "re_annotation"
COPY = "copy"
_CLOSEST = {PERTURBATION: RE_ANNOTATION, TEMPLATED_VARIANTS: RE_ANNOTATION, FORMAT_CONVERSION: COPY}

#: What a derivation did to one content of an item.
FATES = ("copied", "edited", "recomputed", "translated", "added", "dropped", "absent")

#: Contents whose ``recomputed`` fate the linker reads as ``edited``: it compares the
#: key alone against the stem to tell a recomputed content from an edited one.
_EDITED_WHEN_RECOMPUTED = ("stem", "options", "solution", "tests")


def fate_status(content: str, fate: str) -> str:
    """The ``<content>_status`` of the edge that carries a content of fate ``fate``:
    the fate itself, except a recomputed stem, options, solution or tests (``edited``)."""
    if fate == "recomputed" and content in _EDITED_WHEN_RECOMPUTED:
        return "edited"
    return fate


#: Templated variants per parent.
VARIANTS_PER_PARENT = 50
_OPS = ("times", "plus", "minus", "per")
_CONTENTS = ("stem", "options", "key", "solution", "tests")
_TRUTH = ("child_dataset", "child_item", "parent_dataset", "parent_item", "kind", "activity", *_CONTENTS)
_ROOT = "syn-root"


def spec_activity(activity: str) -> str:
    """The activity the spec declares for ``activity``: itself once the spec knows it."""
    return activity if activity in ACTIVITIES else _CLOSEST.get(activity, activity)


#: Field names per shape: the root's layout and the converted copy's.
_LAYOUT = {
    "number": ({"stem": "question", "solution": "answer"},
               {"stem": "problem", "solution": "worked", "key": "final"}),
    "text": ({"stem": "question", "options": "options", "key": "answer", "solution": "rationale"},
             {"stem": "prompt", "options": "choices", "key": "target", "solution": "explanation"}),
    "set": ({"stem": "question", "key": "answers", "solution": "rationale"},
            {"stem": "query", "key": "accepted", "solution": "reasoning"}),
    "code": ({"stem": "prompt", "key": "canonical_solution", "tests": "test"},
             {"stem": "text", "key": "reference", "tests": "checks"}),
}


@dataclass(frozen=True)
class Twin:
    """Two datasets with the same items and date.

    Attributes:
        datasets: The two dataset names.
        older: The one content shows came first; None when no content says.
        signal: The content that tells the direction (None: none).
    """

    datasets: tuple[str, str]
    older: str | None
    signal: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (as the manifest holds it)."""
        return {"datasets": list(self.datasets), "older": self.older, "signal": self.signal}


@dataclass(frozen=True)
class ShapedOutput:
    """What :func:`write_shaped` wrote: item counts, the truth's rows, the twins."""

    counts: dict[str, int]
    derived: int
    twins: tuple[Twin, ...]


class _Truth:
    def __init__(self, shape: str) -> None:
        self.shape = shape
        self.columns: dict[str, list[Any]] = {k: [] for k in (*_TRUTH, "key_same")}

    def plant(self, child: str, row: int, parent_row: int, kind: str, fates: dict[str, str],
              c: Contents, p: Contents, *, translated: bool = False) -> None:
        absent = {"options": self.shape != "text", "solution": False, "tests": self.shape != "code"}
        row_values = {"child_dataset": child, "child_item": str(row), "parent_dataset": _ROOT,
                      "parent_item": str(parent_row), "kind": kind, "activity": spec_activity(kind)}
        key_same = same_key(self.shape, c, p, translated=translated)
        for content in _CONTENTS:
            fate = "absent" if absent.get(content) else fates.get(content, "copied")
            if fate in ("edited", "recomputed") and _equal(content, c, p, key_same):
                fate = "copied"  # changed by the derivation, equal to the parent's all the same
            row_values[content] = fate
        for k, v in row_values.items():
            self.columns[k].append(v)
        self.columns["key_same"].append(key_same)

    def __len__(self) -> int:
        return len(self.columns["child_item"])


def _spaced(text: Any) -> str:
    return " ".join(str(text).split())


def _equal(content: str, c: Contents, p: Contents, key_same: bool | None) -> bool:
    """The child's ``content`` equals the parent's as the linker compares it (stems
    case-folded, solutions and tests with white space collapsed, keys by their reader)."""
    if content == "key":
        return bool(key_same)
    if content == "stem":
        return _spaced(c.stem).casefold() == _spaced(p.stem).casefold()
    if content == "options":
        return c.options == p.options
    mine, theirs = getattr(c, content), getattr(p, content)
    return mine is not None and theirs is not None and _spaced(mine) == _spaced(theirs)


def _row(c: Contents, layout: dict[str, str], shape: str, *, key_text: Any = None) -> dict[str, Any]:
    """One row's fields (the number key lives in the root layout's solution)."""
    row: dict[str, Any] = {layout["stem"]: c.stem}
    if "options" in layout:
        row[layout["options"]] = c.options
    if "key" in layout:
        row[layout["key"]] = c.key if key_text is None else key_text
    if "solution" in layout:
        row[layout["solution"]] = c.solution
    if "tests" in layout:
        row[layout["tests"]] = c.tests
    return row


def _columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    return {k: [r[k] for r in rows] for k in rows[0]}


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with atomic_writer(path, "w") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def _problems(rng: np.random.Generator, words: Words, n: int, ops: list[str] | None = None) -> list[Problem]:
    names = words.texts(n, 1, 1)
    leads, tails, notes = words.texts(n, 6, 14), words.texts(n, 4, 10), words.texts(n, 3, 8)
    a = rng.integers(2, 100, n).tolist()
    b = rng.integers(2, 100, n).tolist()
    op = ops or [_OPS[int(k)] for k in rng.integers(0, len(_OPS), n)]
    return [Problem(names[i], leads[i], tails[i], notes[i][:1].upper() + notes[i][1:], a[i], b[i], op[i])
            for i in range(n)]


def _sizes(items: int) -> tuple[int, int, int]:
    """Root items (each twin has as many), items of the converted, perturbed and
    translated sets, and the templated variants' parents."""
    root = max(20, round(0.2 * items))
    part = max(4, min(root, round(0.1 * items)))
    return root, part, max(1, min(root, round(0.1 * items / VARIANTS_PER_PARENT)))


def write_shaped(out: Path, rng: np.random.Generator, items: int, seed: int, shape: str) -> ShapedOutput:
    """Write the datasets and ``truth.parquet`` of a family of ``shape`` (module docstring).

    Also writes the family spec (``family.json``).

    Returns:
        The counts, the number of truth rows and the twin pairs.
    """
    words = Words(rng)
    vocab = words.words
    n_root, n_part, n_parents = _sizes(items)
    root_p = _problems(rng, words, n_root)
    root = [contents(p, shape, vocab, form=i) for i, p in enumerate(root_p)]
    layout = _LAYOUT[shape][0]
    truth = _Truth(shape)
    write_parquet(out / _ROOT / "test.parquet", _columns([_row(c, layout, shape) for c in root]))

    annotated = [contents(p, shape, vocab, form=i, annotated=True) for i, p in enumerate(root_p)]
    write_parquet(out / "syn-annotated" / "test.parquet", _columns([_row(c, layout, shape) for c in annotated]))
    signal = {"tests": "edited"} if shape == "code" else {"solution": "edited"}
    for i, c in enumerate(annotated):
        truth.plant("syn-annotated", i, i, RE_ANNOTATION, signal, c, root[i])
    _jsonl(out / "syn-mirror" / "test.jsonl", [_row(c, layout, shape) for c in root])
    for i, c in enumerate(root):
        truth.plant("syn-mirror", i, i, COPY, {}, c, root[i])

    _write_converted(out, rng, shape, root_p, root, vocab, n_part, truth)
    n_perturbed = _write_perturbed(out, rng, shape, root_p, root, vocab, n_part, truth)
    n_variants = _write_variants(out, rng, words, shape, root_p, root, n_parents, truth)
    translated = [contents(p, shape, vocab, form=i, translated=True) for i, p in enumerate(root_p[:n_part])]
    write_parquet(out / "syn-xx" / "test.parquet", _columns([_row(c, layout, shape) for c in translated]))
    fate = "translated" if shape != "number" else "copied"
    kind = "code_translation" if shape == "code" else "translation"
    for i, c in enumerate(translated):
        truth.plant("syn-xx", i, i, kind, {"stem": "translated", "options": "translated", "key": fate,
                                           "solution": "translated", "tests": "translated"},
                    c, root[i], translated=True)
    write_parquet(out / "truth.parquet", truth.columns)
    counts = {_ROOT: n_root, "syn-annotated": n_root, "syn-mirror": n_root, "syn-converted": n_part,
              "syn-perturbed": n_perturbed, "syn-variants": n_variants, "syn-xx": n_part}
    twins = (
        Twin((_ROOT, "syn-annotated"), _ROOT, "tests added" if shape == "code" else "sub-answers inserted into the solution"),
        Twin((_ROOT, "syn-mirror"), None, None),
    )
    atomic_write_json(out / "family.json", _spec(shape, items, seed))
    return ShapedOutput(counts, len(truth), twins)


def _write_converted(out: Path, rng: np.random.Generator, shape: str, root_p: list[Problem],
                     root: list[Contents], vocab: list[str], n: int, truth: _Truth) -> None:
    """A format conversion: new field names, shuffled rows, the parent's id in ``source_id``."""
    layout = _LAYOUT[shape][1]
    picked = rng.permutation(np.sort(rng.choice(len(root), n, replace=False))).tolist()
    rows = []
    for row, b in enumerate(picked):
        c = root[b]
        key_text: Any = None
        if shape == "number":  # the same value written in another form
            key_text = contents(root_p[b], shape, vocab, form=b + 1).key
        elif shape == "set":  # one text, answers in reverse order
            key_text = "|".join(reversed(c.key))
        rows.append({"source_id": str(b), **_row(c, layout, shape, key_text=key_text)})
        truth.plant("syn-converted", row, b, FORMAT_CONVERSION, {},
                    Contents(c.stem, c.options, key_text if shape == "number" else c.key, c.solution, c.tests), c)
    _jsonl(out / "syn-converted" / "test.jsonl", rows)


def _write_perturbed(out: Path, rng: np.random.Generator, shape: str, root_p: list[Problem],
                     root: list[Contents], vocab: list[str], n: int, truth: _Truth) -> int:
    """A perturbation: the stem's first number changed, the answer recomputed."""
    layout = _LAYOUT[shape][0]
    picked = np.sort(rng.choice(len(root), n, replace=False)).tolist()
    deltas = rng.integers(1, 10, n).tolist()
    rows = []
    fates = {"stem": "edited", "options": "recomputed", "key": "recomputed", "solution": "recomputed",
             "tests": "recomputed"}
    for row, (b, d) in enumerate(zip(picked, deltas, strict=True)):
        c = contents(root_p[b].perturbed(d), shape, vocab, form=b)
        rows.append(_row(c, layout, shape))
        truth.plant("syn-perturbed", row, b, PERTURBATION, fates, c, root[b])
    _jsonl(out / "syn-perturbed" / "test.jsonl", rows)
    return len(rows)


def _write_variants(out: Path, rng: np.random.Generator, words: Words, shape: str, root_p: list[Problem],
                    root: list[Contents], n_parents: int, truth: _Truth) -> int:
    """Templated variants: 50 rewritten problems per parent, ``parent_row`` naming it."""
    layout = _LAYOUT[shape][0]
    parents = np.sort(rng.choice(len(root), n_parents, replace=False)).tolist()
    fates = {"stem": "edited", "options": "recomputed", "key": "recomputed", "solution": "recomputed",
             "tests": "recomputed"}
    rows: list[dict[str, Any]] = []
    for b in parents:
        fresh = _problems(rng, words, VARIANTS_PER_PARENT, [root_p[b].op] * VARIANTS_PER_PARENT)
        for p in fresh:
            c = contents(Problem(root_p[b].name, p.lead, p.tail, p.note, p.a, p.b, p.op), shape, words.words,
                         form=len(rows))
            rows.append({"parent_row": b, **_row(c, layout, shape)})
            truth.plant("syn-variants", len(rows) - 1, b, TEMPLATED_VARIANTS, fates, c, root[b])
    write_parquet(out / "syn-variants" / "test.parquet", _columns(rows))
    return len(rows)


def _roles(shape: str, layout: dict[str, str], *, converted: bool = False) -> dict[str, Any]:
    key: dict[str, Any] = {"field": layout.get("key", layout.get("solution")), "kind": KEY_KIND[shape]}
    if shape == "number" and not converted:
        key["pattern"] = r"####\s*(.+)$"
    if shape == "number":
        key["tolerance"] = 1e-6
    if shape == "set" and converted:
        key["separator"] = "|"
    roles: dict[str, Any] = {"id": "{_row}", "stem": layout["stem"], "key": key}
    for role in ("options", "solution", "tests"):
        if role in layout:
            roles[role] = layout[role]
    return roles


def _spec(shape: str, items: int, seed: int) -> dict[str, Any]:
    root_layout, conv_layout = _LAYOUT[shape]
    roles = _roles(shape, root_layout)
    lang, other = ("python", "js") if shape == "code" else ("en", "xx")

    def ds(name: str, title: str, date: str, *, lang: str = lang, r: dict[str, Any] = roles) -> dict[str, Any]:
        return {"name": name, "iri": f"https://example.org/synthetic-{shape}/{name}", "title": title,
                "descriptor": f"{name}/croissant.json", "record_set": "default", "roles": r,
                "languages": [lang], "date": date}

    text = {"by": "text", "child_block": None, "parent_block": None, "threshold": 85}

    def der(child: str, activity: str, link: dict[str, Any], note: str) -> dict[str, Any]:
        out = {"child": child, "parent": _ROOT, "activity": spec_activity(activity), "link": link, "note": note}
        if spec_activity(activity) != activity:
            out["note"] = f"{note} (intended activity: {activity})"
        return out

    return {
        "name": f"synthetic-{shape}",
        "title": f"Synthetic {shape}-key benchmark family (~{items} items, seed {seed})",
        "description": "Invented problems with a computed answer; written by croissant_lineage.testing.shaped.",
        "datasets": [
            ds(_ROOT, "Synthetic root benchmark", "2022-01-01"),
            ds("syn-annotated", "Synthetic twin, solutions annotated", "2022-01-01"),
            ds("syn-mirror", "Synthetic twin, unchanged", "2022-01-01"),
            ds("syn-converted", "Synthetic format conversion", "2022-06-01",
               r=_roles(shape, conv_layout, converted=True)),
            ds("syn-perturbed", "Synthetic perturbation", "2023-01-01"),
            ds("syn-variants", "Synthetic templated variants", "2023-06-01"),
            ds("syn-xx", "Synthetic translation", "2023-03-01", lang=other),
        ],
        "derivations": [
            der("syn-annotated", RE_ANNOTATION, text, "Same items and date; sub-answers inserted (code: tests added)."),
            der("syn-mirror", COPY, text, "Same items and date, every content equal."),
            der("syn-converted", FORMAT_CONVERSION, {"by": "id", "child_field": "source_id"},
                "New field names; source_id is the parent's id."),
            der("syn-perturbed", PERTURBATION, text, "One number of the stem changed; the answer recomputed."),
            der("syn-variants", TEMPLATED_VARIANTS, {"by": "id", "child_field": "parent_row"},
                f"{VARIANTS_PER_PARENT} rewritten problems per parent; parent_row is the parent's row."),
            der("syn-xx", "code_translation" if shape == "code" else "translation", {"by": "id"},
                "Rows in the parent's order, joined by row."),
        ],
    }

