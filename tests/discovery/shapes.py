"""Small families of free-form problems for discovery, written as CSV files with descriptors and a
spec (derivations left out), with the truth of every derivation: dataset -> (parent, activity,
child row -> parent row).

:func:`write_problems` writes a root set of word problems and, from it, a re-annotated twin
(same questions and date, answers with a check inserted), a reformatted copy (renamed fields,
later date), a number-perturbed version (values changed, answers recomputed), templated
variants (50 rewritten questions per parent row) and drills naming their parent's row in a
``source_idx`` field, and an excerpt of the twin (its last 50 items, with the twin's answers).
:func:`write_mirrors` writes two twins with no content signal.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

from croissant_lineage.croissant.describe import describe

ADJECTIVES = ["quiet", "crowded", "ancient", "sunny", "windy", "narrow", "golden", "frozen", "hidden", "busy",
              "distant", "foggy", "green", "muddy", "rocky", "silver", "sleepy", "tall", "wide", "wooden"]
PLACES = ["market", "library", "harbor", "garden", "museum", "station", "bakery", "school", "river", "forest",
          "castle", "bridge", "valley", "island", "village", "temple", "factory", "meadow", "canyon", "orchard"]
NAMES = ["Ada", "Bruno", "Cleo", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas",
         "Kofi", "Lucia", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sami", "Tove"]
THINGS = ["apples", "marbles", "stamps", "coins", "books", "pencils", "shells", "cards", "tiles", "beads",
          "kites", "lamps", "maps", "nails", "ropes", "seeds", "spoons", "tickets", "whistles", "zippers"]
EVENTS = ["storm", "parade", "festival", "holiday", "concert", "eclipse", "harvest", "regatta", "fair", "auction"]

ROOT_DATE, LATER = "2023-01-01", "2023-06-01"
ITEMS = 100
VARIANTS = 50
TEMPLATED_PARENTS = 4
DRILLS_PER_PARENT = 2
ANSWER = {"field": "answer", "kind": "text"}


def _problems(n: int) -> list[dict[str, Any]]:
    rng = random.Random(40)
    rows = []
    for i in range(n):
        a, b = rng.randint(20, 90), rng.randint(2, 15)
        words = {"adj": rng.choice(ADJECTIVES), "place": rng.choice(PLACES), "name": NAMES[i % 20],
                 "things": THINGS[(i // 20 + 3 * i) % 20], "event": rng.choice(EVENTS)}
        rows.append({**words, "a": a, "b": b})
    return rows


def _stem(p: dict[str, Any], a: int, b: int) -> str:
    return (f"In the {p['adj']} {p['place']}, {p['name']} collects {a} {p['things']} and gives {b} of them away "
            f"before the {p['event']}. How many {p['things']} does {p['name']} keep?")


def _write(folder: Path, rows: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True)
    with (folder / "test.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    (folder / "croissant.json").write_text(json.dumps(describe(folder)), encoding="utf-8")
    return folder / "croissant.json"


def _dataset(name: str, descriptor: Path, date: str, stem: str = "question", key: dict[str, str] = ANSWER) -> dict[str, Any]:
    return {"name": name, "iri": f"https://example.org/{name}", "descriptor": str(descriptor), "date": date,
            "roles": {"id": "{_row}", "stem": stem, "key": dict(key)}}


def _spec(folder: Path, name: str, datasets: list[dict[str, Any]]) -> Path:
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"name": name, "datasets": datasets, "derivations": []}), encoding="utf-8")
    return path


def write_problems(folder: Path) -> tuple[Path, dict[str, tuple[str, str, dict[int, int]]]]:
    """The family of word problems (see the module docstring): its spec and its truth."""
    probs = _problems(ITEMS)
    root = [{"question": _stem(p, p["a"], p["b"]), "answer": str(p["a"] - p["b"])} for p in probs]
    twin = [{"question": r["question"], "answer": f"{r['answer']} (check: {p['a']} - {p['b']} = {r['answer']})"}
            for r, p in zip(root, probs, strict=True)]
    copy = [{"problem": r["question"], "solution": r["answer"], "source": "root release"} for r in root]
    perturbed = [{"question": _stem(p, p["a"] + 7, p["b"] + 1), "answer": str(p["a"] + 7 - p["b"] - 1)} for p in probs]
    templated = [{"question": f"Variant {k} of exercise {j}: {root[j]['question']}", "answer": root[j]["answer"]}
                 for j in range(TEMPLATED_PARENTS) for k in range(VARIANTS)]
    drills = [{"question": f"Drill {k} for {probs[j]['name']}: subtract {probs[j]['b']} from {probs[j]['a']}, "
                           f"then say it aloud {k + 2} times.",
               "answer": root[j]["answer"], "source_idx": str(j)}
              for j in range(ITEMS // DRILLS_PER_PARENT) for k in range(DRILLS_PER_PARENT)]
    datasets = [
        _dataset("root", _write(folder / "root", root), ROOT_DATE),
        _dataset("twin", _write(folder / "twin", twin), ROOT_DATE),
        _dataset("copy", _write(folder / "copy", copy), LATER, stem="problem", key={"field": "solution", "kind": "text"}),
        _dataset("perturbed", _write(folder / "perturbed", perturbed), LATER),
        _dataset("templated", _write(folder / "templated", templated), LATER),
        _dataset("drills", _write(folder / "drills", drills), LATER),
        _dataset("excerpt", _write(folder / "excerpt", twin[ITEMS // 2:]), LATER),
    ]
    same = {i: i for i in range(ITEMS)}
    truth = {
        "twin": ("root", "re_annotation", same),
        "copy": ("root", "format_conversion", same),
        "perturbed": ("root", "perturbation", same),
        "templated": ("root", "templated_variants", {r: r // VARIANTS for r in range(len(templated))}),
        "drills": ("root", "templated_variants", {r: r // DRILLS_PER_PARENT for r in range(len(drills))}),
        "excerpt": ("twin", "filter", {r: ITEMS // 2 + r for r in range(ITEMS // 2)}),
    }
    return _spec(folder, "problems", datasets), truth


def write_mirrors(folder: Path) -> Path:
    """Two twins with the same items, contents and date: nothing says which came first."""
    root = [{"question": _stem(p, p["a"], p["b"]), "answer": str(p["a"] - p["b"])} for p in _problems(40)]
    return _spec(folder, "mirrors", [_dataset("left", _write(folder / "left", root), ROOT_DATE),
                                     _dataset("right", _write(folder / "right", root), ROOT_DATE)])
