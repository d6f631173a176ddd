"""A synthetic benchmark family of any size, for benchmarks and scale tests.

:func:`generate_family` writes, into one folder, invented data files, a Croissant
descriptor for each dataset (written by :func:`croissant_lineage.croissant.describe.describe`) and
a family spec (``family.json``), so that the real pipeline runs on it unchanged::

    croissant-lineage link <folder>/family.json --out <lineage folder>

The family mirrors the shape of MMLU's (every kind of edge the linker reconstructs):

* ``syn-base`` (Parquet): the original benchmark, ~30 % of the items, in subjects of
  about 250 items (so that a bigger family has more subjects, as real ones do);
* ``syn-pro`` (JSON Lines): option expansion of base items (~25 %): the four options
  kept (half of the copies with spreadsheet damage: ``3.0/4``, ``1500``), six
  distractors added, options shuffled; stems copied as they are (75 %), with
  presentation changes (15 %: case, spaces) or with one word edited (10 %:
  found by fuzzy matching); 15 % of its items are its own (not selected for linking);
  2 % of the copies are duplicated with their options permuted;
* ``syn-redux`` (CSV): re-annotation of 10 % of the items, stems with stray spaces,
  options as a Python list literal, the key as an index, 5 % of the keys changed;
* ``syn-xx`` and ``syn-yy`` (Parquet): two translations of the same base items (~17.5 %
  each), joined by id;
* ``syn-zz``: a translation with no item data (documented coverage only).

Texts are made of invented words (stems capitalised and ending with ``?``, a fifth of
the options numbers); generic stems (shared by several items of a subject, told apart
only by their options) are planted in the base. ``truth.parquet``
lists the planted parent of every derived item (child dataset/item, parent
dataset/item and the kind of copy), so the linker's choices can be checked.
Same ``items`` and ``seed`` give byte-identical files.

With ``shape`` a key kind (``number``, ``text``, ``set``, ``code``), the family is one of
free-form items instead: a root set, its twins (with and without a content signal of
direction), a format conversion with a parent-id field, a perturbation, templated variants
and a translation, its truth recording what happened to each content of every child item
(:mod:`croissant_lineage.testing.shaped`)::

    generate_family(folder, 1_000, shape="number")
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from croissant_lineage._io import atomic_write_json, atomic_writer, read_json
from croissant_lineage._results import Result
from croissant_lineage.croissant.describe import DescribeOptions, describe
from croissant_lineage.errors import InputError, OutputExistsError
from croissant_lineage.testing.problems import SHAPES
from croissant_lineage.testing.shaped import Twin, write_shaped
from croissant_lineage.testing.words import Words, write_parquet

__all__ = ["FAMILY_SHAPES", "MANIFEST", "SyntheticFamily", "generate_family"]

#: The shapes :func:`generate_family` writes: the MMLU-like family and one per key kind.
FAMILY_SHAPES = ("choice", *SHAPES)

#: Name of the manifest :func:`generate_family` writes; a folder holding one may be replaced.
MANIFEST = "synthetic.json"
_GENERATOR = "croissant_lineage.testing.synthetic"

#: Share of the items in each dataset (the pro duplicates come on top).
_SHARES = {"syn-base": 0.30, "syn-pro": 0.245, "syn-redux": 0.10, "syn-xx": 0.1775, "syn-yy": 0.1775}
_SUBJECT_SIZE = 250
_GENERIC = (
    "Pick the statement that holds.",
    "Which one of these is not so?",
    "Choose the claim that is true of the case above.",
)
_SUFFIX = {"xx": "ek", "yy": "ola"}
_LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class SyntheticFamily(Result):
    """What :func:`generate_family` wrote.

    Attributes:
        folder: The family folder.
        spec: Path of its family spec (``family.json``), for ``link``.
        items: Items across all datasets.
        datasets: Items per dataset name.
        derived: Planted child -> parent pairs (rows of ``truth.parquet``).
        seed: The random seed.
        shape: ``choice`` (multiple choice, MMLU-like) or the key kind of a shaped family (:data:`FAMILY_SHAPES`).
        twins: A shaped family's twin dataset pairs (:class:`~croissant_lineage.testing.shaped.Twin`).
    """

    folder: Path
    spec: Path
    items: int
    datasets: dict[str, int]
    derived: int
    seed: int
    shape: str = "choice"
    twins: tuple[Twin, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (what ``synthetic.json`` holds, minus the marker); a shaped
        family's adds its ``shape`` and ``twins``."""
        out: dict[str, Any] = {
            "folder": str(self.folder),
            "spec": str(self.spec),
            "items": self.items,
            "datasets": dict(self.datasets),
            "derived": self.derived,
            "seed": self.seed,
        }
        if self.shape != "choice":
            out.update(shape=self.shape, twins=[t.to_dict() for t in self.twins])
        return out


def _translate(text: str, lang: str) -> str:
    """A deterministic stand-in for a translation: each word changes, the shape stays, and
    numbers stay as written (as real translations keep them)."""
    suffix = _SUFFIX[lang]
    return " ".join(w if any(c.isdigit() for c in w) else w[::-1] + suffix for w in text.split(" "))


def _present(text: str, kind: int) -> str:
    """A presentation change that normalisation erases (case, spaces)."""
    if kind == 0:
        return text.lower()
    if kind == 1:
        return text.replace(" ", "  ", 2) + " "
    return text.replace(" ", "\u00a0", 1)


def _damage(option: str) -> str:
    """Spreadsheet damage seen in real copies, which normalisation undoes:
    ``3/4`` -> ``3.0/4``, ``1,500`` -> ``1500``."""
    head, slash, tail = option.partition("/")
    if slash and head.isdigit() and tail.isdigit():
        return f"{head}.0/{tail}"
    return option.replace(",", "") if option.replace(",", "").isdigit() else option


def _edit(text: str, replacement: str) -> str:
    """Replace one word (the middle one): a small edit found by fuzzy matching."""
    words = text.split(" ")
    words[len(words) // 2] = replacement
    return " ".join(words)


def _holds_family(folder: Path) -> bool:
    """True when ``folder`` holds a family :func:`generate_family` wrote (its manifest)."""
    manifest = folder / MANIFEST
    try:
        return manifest.is_file() and read_json(manifest).get("generator") == _GENERATOR
    except (InputError, AttributeError):
        return False


def _check_folder(folder: Path, force: bool) -> None:
    if folder.exists() and not folder.is_dir():
        raise OutputExistsError("exists and is not a folder", path=folder)
    if not folder.is_dir() or not any(folder.iterdir()) or force:
        return
    if not _holds_family(folder):
        raise OutputExistsError(
            "folder exists, is not empty and holds no synthetic family",
            path=folder,
            hint="choose an empty folder or pass force=True",
        )


def generate_family(
    folder: str | Path, items: int = 10_000, *, seed: int = 0, force: bool = False, shape: str = "choice"
) -> SyntheticFamily:
    """Write a synthetic family of about ``items`` items (see module docstring).

    Args:
        folder: Destination; created if missing. A folder written by this function
            before is replaced; any other non-empty folder only with ``force``.
        items: Approximate number of items across all datasets (at least 100).
        seed: Random seed; same ``items``, ``seed`` and ``shape``, same bytes.
        force: Write into a non-empty folder that holds no synthetic family.
        shape: ``choice`` (the multiple-choice family above) or a key kind of
            :data:`SHAPES` (``number``, ``text``, ``set``, ``code``): a root set of such
            items, its twins, a format conversion, a perturbation, templated variants and
            a translation (:mod:`croissant_lineage.testing.shaped`).

    Returns:
        A :class:`SyntheticFamily` (paths and counts).

    Raises:
        InputError: ``items`` is below 100, or ``shape`` is not one of :data:`FAMILY_SHAPES`.
        OutputExistsError: ``folder`` holds other files and ``force`` is false.
    """
    if items < 100:
        raise InputError(f"items={items}: a synthetic family needs at least 100 items")
    if shape not in FAMILY_SHAPES:
        raise InputError(f"shape={shape!r}: a synthetic family's shape is one of {', '.join(FAMILY_SHAPES)}")
    out = Path(folder)
    _check_folder(out, force)
    if _holds_family(out):
        # A family written here before: its datasets (each described by a croissant.json, so
        # guarded like any dataset's files) are removed whole, then written anew.
        for name in (*_SHARES, *_written_datasets(out), "truth.parquet", "family.json", MANIFEST):
            target = out / name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            elif target.is_file():
                target.unlink()
    rng = np.random.default_rng(seed)
    if shape != "choice":
        shaped = write_shaped(out, rng, items, seed, shape)
        return _finish(out, shaped.counts, None, shaped.derived, seed, shape=shape, twins=shaped.twins)
    words = Words(rng)
    n = {name: max(4, round(share * items)) for name, share in _SHARES.items()}
    truth = _Truth()
    # The datasets are drawn in this order from one generator: same seed, same bytes.
    base = _write_base(out, rng, words, n["syn-base"])
    n_pro = _write_pro(out, rng, words, base, n["syn-pro"], truth)
    n_redux = _write_redux(out, rng, base, n["syn-redux"], truth)
    n_translated = _write_translations(out, rng, base, n["syn-xx"], truth)
    write_parquet(out / "truth.parquet", truth.columns)
    counts = {"syn-base": len(base.ids), "syn-pro": n_pro, "syn-redux": n_redux, "syn-xx": n_translated, "syn-yy": n_translated}
    return _finish(out, counts, _spec(items, seed), len(truth), seed)


def _finish(out: Path, counts: dict[str, int], spec: dict[str, Any] | None, derived: int, seed: int, *,
            shape: str = "choice", twins: tuple[Twin, ...] = ()) -> SyntheticFamily:
    """Describe each dataset, write the spec (unless written) and the manifest."""
    for name in counts:
        doc = describe(out / name, DescribeOptions(
            name=name, description=f"Synthetic dataset {name} (invented, seed {seed}).",
            license="CC0-1.0", split="test"))
        atomic_write_json(out / name / "croissant.json", doc)
    if spec is not None:
        atomic_write_json(out / "family.json", spec)
    result = SyntheticFamily(out, out / "family.json", sum(counts.values()), counts, derived, seed, shape, twins)
    atomic_write_json(out / MANIFEST, {"generator": _GENERATOR, **result.to_dict(), "folder": ".", "spec": "family.json"})
    return result


def _written_datasets(folder: Path) -> list[str]:
    """The dataset folders a family's manifest lists (kept inside ``folder``)."""
    try:
        names = read_json(folder / MANIFEST).get("datasets", {})
    except (InputError, AttributeError):
        return []
    return [n for n in names if isinstance(n, str) and n and "/" not in n and "\\" not in n and n not in (".", "..")]


class _Truth:
    """The planted child -> parent pairs (the columns of ``truth.parquet``)."""

    def __init__(self) -> None:
        self.columns: dict[str, list[str]] = {
            k: [] for k in ("child_dataset", "child_item", "parent_dataset", "parent_item", "kind")
        }

    def plant(self, child: str, citem: str, parent: str, pitem: str, kind: str) -> None:
        for key, value in zip(self.columns, (child, citem, parent, pitem, kind), strict=True):
            self.columns[key].append(value)

    def __len__(self) -> int:
        return len(self.columns["child_item"])


@dataclass(frozen=True)
class _Base:
    """The base benchmark's items, which every other dataset copies."""

    subject_names: list[str]
    ids: list[str]
    subjects: list[str]
    stems: list[str]
    options: list[list[str]]  # four per item
    keys: list[int]  # 0..3


def _four_options(options: list[list[str]]) -> dict[str, list[str]]:
    return {f"option_{c}": [o[k] for o in options] for k, c in enumerate("abcd")}


def _write_base(out: Path, rng: np.random.Generator, words: Words, nb: int) -> _Base:
    """``syn-base``: subjects of ~250 items; a few generic stems per subject."""
    n_subjects = max(2, round(nb / _SUBJECT_SIZE))
    subject_names = [f"{w}_{k:04d}" for k, w in enumerate(words.texts(n_subjects, 1, 1))]
    subj_of = np.sort(rng.integers(0, n_subjects, nb)).tolist()
    stems = words.questions(nb)
    for i in np.flatnonzero(rng.random(nb) < 0.03).tolist():
        stems[i] = _GENERIC[i % len(_GENERIC)]
    options = words.options(nb * 4)
    base_opts = [options[4 * i : 4 * i + 4] for i in range(nb)]
    base_keys = rng.integers(0, 4, nb).tolist()
    row_in_subject: dict[int, int] = {}
    base_ids = []
    for s in subj_of:
        base_ids.append(f"{subject_names[s]}/test/{row_in_subject.get(s, 0)}")
        row_in_subject[s] = row_in_subject.get(s, 0) + 1
    base = _Base(subject_names, base_ids, [subject_names[s] for s in subj_of], stems, base_opts, base_keys)
    write_parquet(
        out / "syn-base" / "test.parquet",
        {
            "sample_id": base.ids,
            "subject": base.subjects,
            "question": base.stems,
            **_four_options(base.options),
            "answer": [_LETTERS[k] for k in base.keys],
        },
    )
    return base


def _pro_stem(stem: str, draw: float, c: int, replacement: str) -> tuple[str, str]:
    """A copied stem and how it was copied: as is (75 %), presentation (15 %), edited."""
    if draw < 0.75 or stem in _GENERIC:
        return stem, "copy"
    if draw < 0.90:
        return _present(stem, c % 3), "presentation"
    return _edit(stem, replacement), "edit"


def _pro_row(qid: int, stem: str, opts: list[str], key: int, subject: str, src: str) -> dict[str, Any]:
    return {"question_id": qid, "question": stem, "options": opts, "answer": _LETTERS[key],
            "answer_index": key, "category": subject, "src": src}


def _write_pro(
    out: Path, rng: np.random.Generator, words: Words, base: _Base, npro: int, truth: _Truth
) -> int:
    """``syn-pro``: option expansion of base items, its own items and a few duplicates.

    Returns:
        Its item count.
    """
    nb = len(base.ids)
    n_copied = min(nb, round(npro * 0.85))
    copied = np.sort(rng.choice(nb, n_copied, replace=False)).tolist()
    own = npro - n_copied
    kinds = rng.random(n_copied)
    extra = words.options(n_copied * 6 + own * 10)
    fresh_stems = words.questions(own + n_copied)
    rows: list[dict[str, Any]] = []
    for c, b in enumerate(copied):
        stem, kind = _pro_stem(base.stems[b], kinds[c], c, fresh_stems[own + c].split(" ")[0].lower() + "x")
        kept = [_damage(o) for o in base.options[b]] if c % 2 else base.options[b]
        opts = kept + extra[6 * c : 6 * c + 6]
        order = rng.permutation(10).tolist()
        opts = [opts[k] for k in order]
        key = order.index(base.keys[b])
        subject = base.subjects[b]
        rows.append(_pro_row(len(rows), stem, opts, key, subject, f"ori-{subject}"))
        truth.plant("syn-pro", str(len(rows) - 1), "syn-base", base.ids[b], kind)
        if rng.random() < 0.02 or c == 1:  # a duplicate (at least one): options permuted
            perm = rng.permutation(10).tolist()
            dkey = perm.index(key)
            rows.append({**rows[-1], "question_id": len(rows), "options": [opts[k] for k in perm],
                         "answer": _LETTERS[dkey], "answer_index": dkey})
            truth.plant("syn-pro", str(len(rows) - 1), "syn-base", base.ids[b], "duplicate")
    off = n_copied * 6
    for k in range(own):
        subject = base.subject_names[int(rng.integers(0, len(base.subject_names)))]
        key = int(rng.integers(0, 10))
        opts = extra[off + 10 * k : off + 10 * k + 10]
        rows.append(_pro_row(len(rows), fresh_stems[k], opts, key, subject, f"new-{subject}"))
    with atomic_writer(out / "syn-pro" / "test.jsonl", "w") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return len(rows)


def _write_redux(out: Path, rng: np.random.Generator, base: _Base, n: int, truth: _Truth) -> int:
    """``syn-redux``: re-annotation, CSV, keys as indices, some keys changed.

    Returns:
        Its item count.
    """
    nb = len(base.ids)
    nr = min(nb, n)
    picked = np.sort(rng.choice(nb, nr, replace=False)).tolist()
    changed = (rng.random(nr) < 0.05).tolist()
    changed[0] = True  # at least one key changed
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["subject", "question", "choices", "answer", "error_type"])
    for row, (b, ch) in enumerate(zip(picked, changed, strict=True)):
        subject = base.subjects[b]
        key = (base.keys[b] + 1) % 4 if ch else base.keys[b]
        w.writerow([subject, base.stems[b] + (" " if b % 2 else ""), repr(base.options[b]), key,
                    "wrong_groundtruth" if ch else "ok"])
        truth.plant("syn-redux", f"{subject}/{row}", "syn-base", base.ids[b], "reannotation")
    with atomic_writer(out / "syn-redux" / "test.csv", "w") as fh:
        fh.write(buf.getvalue())
    return nr


def _write_translations(out: Path, rng: np.random.Generator, base: _Base, n: int, truth: _Truth) -> int:
    """``syn-xx``, ``syn-yy``: translations of the same base items, joined by id.

    Returns:
        The item count of each.
    """
    nb = len(base.ids)
    nt = min(nb, n)
    trans = np.sort(rng.choice(nb, nt, replace=False)).tolist()
    for lang in ("xx", "yy"):
        name = f"syn-{lang}"
        write_parquet(
            out / name / "test.parquet",
            {
                "sample_id": [base.ids[b] for b in trans],
                "subject": [base.subjects[b] for b in trans],
                "question": [_translate(base.stems[b], lang) for b in trans],
                **_four_options([[_translate(o, lang) for o in base.options[b]] for b in trans]),
                "answer": [_LETTERS[base.keys[b]] for b in trans],
            },
        )
        for b in trans:
            truth.plant(name, base.ids[b], "syn-base", base.ids[b], "translation")
    return nt


def _spec(items: int, seed: int) -> dict[str, Any]:
    four = ["option_a", "option_b", "option_c", "option_d"]

    def ds(name: str, title: str, roles: dict[str, Any], lang: str, **kw: Any) -> dict[str, Any]:
        return {"name": name, "iri": f"https://example.org/synthetic/{name}", "title": title,
                "descriptor": f"{name}/croissant.json", "record_set": "default", "roles": roles,
                "languages": [lang], **kw}

    base_roles = {"id": "sample_id", "subject": "subject", "stem": "question", "options": four, "key": "answer"}
    return {
        "name": "synthetic",
        "title": f"Synthetic benchmark family (~{items} items, seed {seed})",
        "description": "Invented items with every kind of edge; written by croissant_lineage.testing.synthetic.",
        "datasets": [
            ds("syn-base", "Synthetic base benchmark", base_roles, "en", date="2020-01-01"),
            ds("syn-pro", "Synthetic option-expanded copy",
               {"id": "question_id", "subject": "category", "stem": "question", "options": "options", "key": "answer"},
               "en", date="2021-01-01"),
            ds("syn-redux", "Synthetic re-annotation",
               {"id": "{subject}/{_row}", "subject": "subject", "stem": "question",
                "options": {"field": "choices", "parse": "python_list"}, "key": "answer"},
               "en", key_format="index", date="2021-06-01"),
            ds("syn-xx", "Synthetic translation xx", base_roles, "xx"),
            ds("syn-yy", "Synthetic translation yy", base_roles, "yy"),
            {"name": "syn-zz", "iri": "https://example.org/synthetic/syn-zz",
             "title": "Synthetic translation into 9 languages (no item data)"},
        ],
        "derivations": [
            {"child": "syn-pro", "parent": "syn-base", "activity": "option_expansion",
             "link": {"by": "text", "select": {"field": "src", "regex": "^ori-"},
                      "child_block": {"field": "src", "regex": "^ori-(.+)$"}, "parent_block": "subject",
                      "threshold": 85}},
            {"child": "syn-redux", "parent": "syn-base", "activity": "re_annotation", "link": {"by": "text", "threshold": 85}},
            {"child": "syn-xx", "parent": "syn-base", "activity": "translation", "link": {"by": "id"}},
            {"child": "syn-yy", "parent": "syn-base", "activity": "translation", "link": {"by": "id"}},
            {"child": "syn-zz", "parent": "syn-base", "activity": "translation", "coverage": "documented",
             "languages": 9, "note": "Documented coverage only."},
        ],
    }
