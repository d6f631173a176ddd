"""Regenerate the toy family's data files and descriptors (invented content).

The toy family has every kind of edge the library reconstructs:

* ``toy-base``   - the original benchmark (CSV, 2 subjects, 16 items);
* ``toy-pro``    - option expansion of 10 base items (JSONL): exact and fuzzy stem
  matches, added options, a key changed, a generic stem resolved by options, two
  identical copies (duplicates), two items of its own (not linked);
* ``toy-redux``  - re-annotation of 8 base items (CSV, ``;``-delimited, one typo);
* ``toy-fr``     - a French translation of 6 base items, joined by id (JSONL);
* ``toy-pro-v2`` - a later snapshot of toy-pro (Parquet): one key fixed, one option reordered;
* ``toy-xx``     - a translation into 5 languages with no item data (documented only);
* ``toy-math``   - free-form word problems whose numeric keys end a worked solution (``#### 12``);
* ``toy-math-perturbed`` - one number changed in some problems and the answer recomputed, one
  problem copied as it was (its key written ``12.5`` for ``$12.50``), linked by stem without blocks;
* ``toy-code``   - code problems: a prompt, a reference solution and the tests that grade it;
* ``toy-code-js`` - their translation into JavaScript (prompt, solution and tests), joined by id.

Run ``python examples/toy/make_toy.py`` from the repository root; output is deterministic.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from croissant_lineage._io import atomic_write_json
from croissant_lineage.croissant.describe import DescribeOptions, describe

HERE = Path(__file__).resolve().parent

BASE = [
    # subject, stem, options, key
    ("astronomy", "Which planet of the Zeta system has the shortest year?", ["Quill", "Rondo", "Sable", "Tarn"], "B"),
    ("astronomy", "How many moons does the planet Sable keep?", ["1", "2", "3", "4"], "C"),
    ("astronomy", "Which of the following is true?", ["Quill is blue", "Rondo is red", "Tarn is green", "Sable is gold"], "A"),
    ("astronomy", "Which of the following is true?", ["Zeta is a dwarf", "Zeta is a giant", "Zeta is binary", "Zeta is dark"], "C"),
    ("astronomy", "What fraction of Tarn's surface is ocean?", ["1/2", "1/3", "1/4", "3/4"], "D"),
    ("astronomy", "At what local time does the Rondo eclipse begin?", ["1:4", "2:30", "3:15", "6:45"], "A"),
    ("astronomy", "Which instrument first resolved the rings of Quill?", ["The Vell array", "The Orin dish", "The Kast scope", "The Mire lens"], "B"),
    ("astronomy", "What is the surface gravity of Sable relative to Quill?", ["Half", "Equal", "Double", "Triple"], "C"),
    ("geography", "What is the longest river on the isle of Wen?", ["Ash", "Birl", "Corr", "Dun"], "A"),
    ("geography", "Which city is the capital of the Wen highlands?", ["Elm", "Fyr", "Gale", "Holt"], "D"),
    ("geography", "How many lakes lie in the Dun basin?", ["$1000", "12", "7", "none"], "B"),
    ("geography", "Which wind brings rain to the western coast of Wen?", ["The Sirocca", "The Norr", "The Estwind", "The Calm"], "A"),
    ("geography", "Which mountain is the highest peak of Wen?", ["Mount Ira", "Mount Jol", "Mount Kel", "Mount Lor"], "C"),
    ("geography", "What share of Wen's people live on the coast?", ["10%", "25%", "50%", "> 75%"], "D"),
    ("geography", "Which crop grows best in the Birl valley?", ["Barley", "Rice", "Maize", "Flax"], "A"),
    ("geography", "Which sea lies east of the isle of Wen?", ["The Grey Sea", "The Green Sea", "The Still Sea", "The Salt Sea"], "B"),
]


def _pro_rows() -> list[dict]:
    rows = []

    def add(qid, base_i, stem=None, extra=(), order=None, key_text=None, src=None, category=None):
        subject, bstem, bopts, bkey = BASE[base_i] if base_i is not None else ("astronomy", "", [], "A")
        opts = list(bopts) + list(extra)
        if order:
            opts = [opts[i] for i in order]
        key_text = key_text or bopts[ord(bkey) - 65]
        rows.append({
            "question_id": qid,
            "question": stem or bstem,
            "options": opts,
            "answer": chr(65 + opts.index(key_text)),
            "category": category or ("physics" if subject == "astronomy" else "other"),
            "src": src or f"ori_toy-{subject}",
        })

    add(101, 0, extra=["Vale", "Wisp"], order=[4, 1, 0, 5, 3, 2])          # exact, 2 added, key inherited
    add(102, 1, stem="How many moons does planet Sable keep today?", extra=["5", "6"])  # fuzzy stem
    add(103, 2, extra=["Vale is white", "Wisp is grey"])                    # generic stem, resolved by options
    add(104, 4, extra=["2/3", "1/5"])                                       # fraction options
    add(105, 5, extra=["4:10", "5:00"], key_text="2:30")                   # key changed
    add(106, 8, extra=["Esk", "Fal"])                                       # duplicates: 106 and 107
    add(107, 8, extra=["Esk", "Fal"])
    add(108, 9, extra=["Iver", "Jarl", "Kip"])
    add(109, 13, extra=["75-100%", "60%"])                                  # an added option near the key
    add(110, 15, extra=["The Dark Sea"])
    add(111, None, stem="A probe leaves Quill at 3 km/s; how far does it go in an hour?",
        extra=["10,800 km", "3,600 km", "1,080 km", "108 km"], key_text="10,800 km", src="toy-new", category="physics")
    add(112, None, stem="Which season lasts longest on Tarn?",
        extra=["Spring", "Summer", "Autumn", "Winter"], key_text="Winter", src="toy-new", category="physics")
    return rows


def _write_csv(path: Path, header: list[str] | None, rows: list[list[str]], delimiter: str = ",") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, delimiter=delimiter, lineterminator="\n")
        if header:
            w.writerow(header)
        w.writerows(rows)


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


MATH = [
    # id, question, worked solution ending in the key
    ("m1", "Ada buys 3 boxes of 12 pencils. How many pencils does she have?", "3 * 12 = 36 pencils.\n#### 36"),
    ("m2", "A train travels 60 km each hour for 2.5 hours. How far does it go?", "60 * 2.5 = 150 km.\n#### 150"),
    ("m3", "Tom has $20 and spends $7.50 on lunch. How much money is left?", "20 - 7.50 = 12.50.\n#### $12.50"),
    ("m4", "A recipe needs 3/4 cup of sugar per cake. How much sugar do 4 cakes need?", "4 * 3/4 = 3 cups.\n#### 3"),
]
MATH_PERTURBED = [
    ("v1", "Ada buys 5 boxes of 12 pencils. How many pencils does she have?", "60"),
    ("v2", "A train travels 80 km each hour for 2.5 hours. How far does it go?", "200"),
    ("v3", "Tom has $20 and spends $7.50 on lunch. How much money is left?", "12.5"),
]
CODE = [
    ("Toy/0", "def add(a, b):\n    \"\"\"Return the sum of a and b.\"\"\"\n", "    return a + b\n",
     "def check(f):\n    assert f(2, 3) == 5\n"),
    ("Toy/1", "def is_even(n):\n    \"\"\"Whether n is even.\"\"\"\n", "    return n % 2 == 0\n",
     "def check(f):\n    assert f(4) and not f(3)\n"),
]
CODE_JS = [
    ("JS/0", "/* Return the sum of a and b. */\nconst add = (a, b) => {\n", "  return a + b;\n};\n",
     "const check = (f) => { console.assert(f(2, 3) === 5); };\n"),
    ("JS/1", "/* Whether n is even. */\nconst isEven = (n) => {\n", "  return n % 2 === 0;\n};\n",
     "const check = (f) => { console.assert(f(4) && !f(3)); };\n"),
]


def _write_new_shapes() -> None:
    """The free-form (numeric keys) and code datasets."""
    _write_jsonl(HERE / "toy-math" / "test.jsonl", [{"pid": i, "question": q, "solution": s} for i, q, s in MATH])
    _write_jsonl(HERE / "toy-math-perturbed" / "test.jsonl",
                 [{"id": i, "question": q, "answer": a} for i, q, a in MATH_PERTURBED])
    for name, rows in (("toy-code", CODE), ("toy-code-js", CODE_JS)):
        _write_jsonl(HERE / name / "test.jsonl", [
            {"task_id": t, "prompt": p, "canonical_solution": c, "test": x} for t, p, c, x in rows
        ])


def main() -> None:
    _write_new_shapes()
    for subject in ("astronomy", "geography"):
        rows = [[s, *o, k] for subj, s, o, k in BASE if subj == subject]
        _write_csv(HERE / "toy-base" / "test" / f"{subject}_test.csv", None, rows)
    pro = _pro_rows()
    _write_jsonl(HERE / "toy-pro" / "test.jsonl", pro)

    redux = []
    for i, label, proposal in [
        (0, "ok", ""), (1, "wrong_groundtruth", "2"), (2, "ok", ""), (3, "bad_question_clarity", ""),
        (5, "Wrong Groundtruth", "C"), (8, "OK", ""), (9, "no_correct_answer", "Ivel"), (13, "ok", ""),
    ]:
        subj, stem, opts, key = BASE[i]
        if i == 9:
            stem = "Which city is the captial of the Wen highlands?"  # typo: fuzzy match
        redux.append([stem, repr(opts), str(ord(key) - 65), label, "toy review", proposal, subj])
    _write_csv(HERE / "toy-redux" / "toy_redux.csv",
               ["question", "choices", "answer", "error_type", "source", "correct_answer", "subject"], redux, ";")

    fr_stems = {
        0: ("Quelle planète du système Zeta a l'année la plus courte ?", ["Quill", "Rondo", "Sable", "Tarn"]),
        1: ("Combien de lunes la planète Sable possède-t-elle ?", ["1", "2", "3", "4"]),
        4: ("Quelle fraction de la surface de Tarn est océanique ?", ["1/2", "1/3", "1/4", "3/4"]),
        8: ("Quel est le plus long fleuve de l'île de Wen ?", ["Ash", "Birl", "Corr", "Dun"]),
        13: ("Quelle part des habitants de Wen vit sur la côte ?", ["10 %", "25 %", "50 %", "> 75 %"]),
        15: ("Quelle mer se trouve à l'est de l'île de Wen ?", ["La mer Grise", "La mer Verte", "La mer Calme", "La mer Salée"]),
    }
    per_subject: dict[str, int] = {}
    ids = []
    for subj, *_ in BASE:
        ids.append(f"{subj}/test/{per_subject.get(subj, 0)}")
        per_subject[subj] = per_subject.get(subj, 0) + 1
    fr = [
        {"sample_id": ids[i], "subject": BASE[i][0], "question": s, "option_a": o[0], "option_b": o[1],
         "option_c": o[2], "option_d": o[3], "answer": BASE[i][3]}
        for i, (s, o) in sorted(fr_stems.items())
    ]
    _write_jsonl(HERE / "toy-fr" / "test.jsonl", fr)

    v2 = [dict(r) for r in pro]
    for r in v2:
        if r["question_id"] == 105:  # key fixed back to the original
            r["answer"] = chr(65 + r["options"].index("1:4"))
        if r["question_id"] == 107:  # duplicate's options permuted
            r["options"] = list(reversed(r["options"]))
            r["answer"] = chr(65 + r["options"].index("Ash"))
    (HERE / "toy-pro-v2").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(v2), HERE / "toy-pro-v2" / "test-00000-of-00001.parquet",
                   compression="zstd", write_statistics=False)

    configs = {
        "toy-base": DescribeOptions(name="toy-base", description="Toy base benchmark (invented).",
                                    license="CC0-1.0", include=["test/*.csv"],
                                    csv_columns=["question", "A", "B", "C", "D", "answer"],
                                    file_fields={"subject": r"^(.+)_test\.csv$"}, split="test"),
        "toy-pro": DescribeOptions(name="toy-pro", description="Toy option-expanded copy (invented).",
                                   license="CC0-1.0", split="test"),
        "toy-redux": DescribeOptions(name="toy-redux", description="Toy re-annotation (invented).",
                                     license="CC0-1.0", split="test"),
        "toy-fr": DescribeOptions(name="toy-fr", description="Toy French translation (invented).",
                                  license="CC0-1.0", split="test"),
        "toy-pro-v2": DescribeOptions(name="toy-pro-v2", description="Toy later snapshot (invented).",
                                      license="CC0-1.0", split="test"),
        "toy-math": DescribeOptions(name="toy-math", description="Toy word problems with numeric keys (invented).",
                                    license="CC0-1.0", split="test"),
        "toy-math-perturbed": DescribeOptions(name="toy-math-perturbed", license="CC0-1.0", split="test",
                                              description="Toy word problems with numbers changed (invented)."),
        "toy-code": DescribeOptions(name="toy-code", description="Toy code problems with tests (invented).",
                                    license="CC0-1.0", split="test"),
        "toy-code-js": DescribeOptions(name="toy-code-js", description="Toy code problems in JavaScript (invented).",
                                       license="CC0-1.0", split="test"),
    }
    for name, opts in configs.items():
        opts.version = "1.0.0"
        opts.date_published = "2021-01-01"
        opts.cite_as = f"@misc{{{name.replace('-', '_')}, title={{{opts.description}}}, note={{invented example}}}}"
        opts.url = f"https://example.org/toy/{name.removeprefix('toy-')}"
        atomic_write_json(HERE / name / "croissant.json", describe(HERE / name, opts))


if __name__ == "__main__":
    main()
