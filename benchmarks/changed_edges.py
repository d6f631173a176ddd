"""Every lineage edge whose parent changed between two links of the same family.

Links the family with the old code (a ``git worktree`` of ``--old-commit``, linked in a
subprocess with that tree first on ``PYTHONPATH``) unless ``--old`` names a lineage
folder it already wrote, and with the code of this tree (unless ``--new`` names a
folder), then writes a Markdown report: every edge whose parent changed (child, old
parent and its text, new parent and its text, the class of the change), counts by
class, and the edges that kept their parent but changed their option map, ``key_inherited``
or the number of options copied.

    python3 benchmarks/changed_edges.py --data-dir ../shared/data --out benchmarks/changed_edges.md
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from croissant_lineage.linking.normalize import normalize_option, normalize_stem  # noqa: E402

#: The commit before the linking rules of exact copies, one child per parent, option pairing, missing-value words and mojibake repair.
OLD_COMMIT = "15564f8"
_LINK = "import sys; from croissant_lineage.cli import main; sys.exit(main())"


def run_link(tree: Path, family: str, data_dir: str, out: Path) -> None:
    """``croissant-lineage link`` with the package of ``tree``, in a subprocess."""
    env = dict(os.environ, PYTHONPATH=str(tree), CROISSANT_LINEAGE_DATA=data_dir)
    cmd = [sys.executable, "-c", _LINK, "link", family, "--data-dir", data_dir, "--out", str(out), "-q", "--force"]
    subprocess.run(cmd, cwd=tree, env=env, check=True)


def old_lineage(commit: str, family: str, data_dir: str, work: Path) -> Path:
    """Link ``family`` with the code of ``commit`` (a temporary git worktree)."""
    tree = work / "old-tree"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), commit], check=True,
                   capture_output=True)
    try:
        run_link(tree, family, data_dir, work / "old")
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=True)
    return work / "old"


def _items(folder: Path) -> dict[tuple[str, str], dict[str, Any]]:
    t = pq.read_table(folder / "items.parquet", columns=["dataset", "item", "stem", "options", "key"])
    return {(r["dataset"], r["item"]): r for r in t.to_pylist()}


def _edges(folder: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    t = pq.read_table(folder / "edges.parquet")
    return {(r["child_dataset"], r["child_item"], r["parent_dataset"]): r for r in t.to_pylist()}


def _unmatched(folder: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    t = pq.read_table(folder / "unmatched.parquet")
    return {(r["child_dataset"], r["child_item"], r["parent_dataset"]): r for r in t.to_pylist()}


def _text(item: dict[str, Any] | None) -> str:
    """An item as one line: stem, then its options with the key marked ``*``."""
    if item is None:
        return "(none)"
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    opts = " | ".join(
        ("*" if item["key"] == letters[i] else "") + repr(o)[1:-1] for i, o in enumerate(item["options"] or [])
    )
    return f"{item['stem']!r} [{opts}]".replace("\n", " ")


def _same_bytes(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return bool(a["stem"] == b["stem"] and a["options"] == b["options"])


def _classify(key: tuple[str, str, str], old: dict[str, Any], new: dict[str, Any] | None,
              old_claims: Counter[tuple[str, str, str]], items: dict[tuple[str, str], dict[str, Any]]) -> str:
    """Which rule moved an edge: 1 when the new parent is a byte-identical copy and the
    old one was not; 2 when the old parent had several children of a
    ``re_release``/``copy`` derivation (or the child lost its parent); 1 when both
    parents share the child's normalised stem; else the option evidence among near
    fuzzy stems."""
    cds, ci, pds = key
    child = items[(cds, ci)]
    if new is not None and _same_bytes(child, items[(pds, new["parent_item"])]) and not _same_bytes(
        child, items[(pds, old["parent_item"])]
    ):
        return "rule 1: exact copy wins among parents sharing the stem"
    if new is None or (old["activity"] in ("re_release", "copy") and old_claims[(cds, pds, old["parent_item"])] > 1):
        return "rule 2: one child per parent"
    stems = {normalize_stem(items[(pds, p)]["stem"]) for p in (old["parent_item"], new["parent_item"])}
    if stems == {normalize_stem(child["stem"])}:
        return "rule 1: exact copy wins among parents sharing the stem"
    return "fuzzy: option evidence (bytes, then case, then folded) among near stems"


def _flip_class(old: dict[str, Any], edge: dict[str, Any], items: dict[tuple[str, str], dict[str, Any]]) -> str:
    """Which rule changed an edge that kept its parent: 5 when text was repaired, 4 when
    a child option "nan" or "" is now paired, else 3 (case-exact, one-to-one pairing)."""
    child = items[(edge["child_dataset"], edge["child_item"])]
    if edge["text_repaired"]:
        return "rule 5: mojibake repaired (ftfy)"
    nan_paired = [
        i for i, o in enumerate(child["options"] or [])
        if normalize_option(o) in ("nan", "") and edge["option_map"][i] >= 0 and old["option_map"][i] < 0
    ]
    if nan_paired:
        return "rule 4: 'nan' is text ('nan' or '' is pandas' copy of a missing-value word)"
    return "rule 3: case-exact and one-to-one option pairing"


def report(old_dir: Path, new_dir: Path) -> str:
    """The Markdown report comparing the lineage folders ``old_dir`` and ``new_dir``."""
    items = _items(new_dir)
    old_e, new_e = _edges(old_dir), _edges(new_dir)
    new_u = _unmatched(new_dir)
    old_claims = Counter((k[0], k[2], e["parent_item"]) for k, e in old_e.items())
    moved: list[tuple[str, tuple[str, str, str], dict[str, Any], dict[str, Any] | None]] = []
    for key in sorted(set(old_e) | set(new_e)):
        o, n = old_e.get(key), new_e.get(key)
        if o is not None and n is not None and o["parent_item"] == n["parent_item"]:
            continue
        if o is None:
            assert n is not None
            moved.append(("newly linked", key, {"parent_item": None}, n))
        else:
            moved.append((_classify(key, o, n, old_claims, items), key, o, n))
    flips = []
    for key in sorted(set(old_e) & set(new_e)):
        o, n = old_e[key], new_e[key]
        if o["parent_item"] == n["parent_item"] and (
            o["key_inherited"] != n["key_inherited"] or o["options_copied"] != n["options_copied"]
            or o["option_map"] != n["option_map"]
        ):
            flips.append((_flip_class(o, n, items), key, o, n))
    lines = [
        "# Edges changed by the linking rules 1-5 (exact copy first, one child per parent, option pairing, missing-value words, mojibake)",
        "",
        f"Old: the lineage linked at commit {OLD_COMMIT}; new: this branch. Generated by",
        "`benchmarks/changed_edges.py` from two `croissant-lineage link mmlu` folders. Texts: the stem,",
        "then the options (`*` marks the key).",
        "",
        "## Counts",
        "",
        "| change | edges |",
        "|---|---|",
    ]
    for cls, n in sorted(Counter(c for c, *_ in moved).items()):
        lines.append(f"| parent changed: {cls} | {n} |")
    for cls, n in sorted(Counter(c for c, *_ in flips).items()):
        lines.append(f"| same parent, option map, key_inherited or options copied changed: {cls} | {n} |")
    trans = Counter(f"{o['key_inherited']} -> {n['key_inherited']}" for _, _, o, n in flips
                    if o["key_inherited"] != n["key_inherited"])
    for t, n in sorted(trans.items()):
        lines.append(f"| key_inherited {t} | {n} |")
    lines += ["", "## Edges whose parent changed", ""]
    for cls, (cds, ci, pds), o, n in moved:
        lines += [
            f"### {cds}:{ci} ({cls})",
            "",
            f"- child: {_text(items.get((cds, ci)))}",
            f"- old parent {pds}:{o['parent_item']}: {_text(items.get((pds, o['parent_item'])))}",
        ]
        if n is None:
            u = new_u.get((cds, ci, pds), {})
            lines.append(f"- new: unmatched ({u.get('reason')}; best candidate {u.get('best_parent_item')})")
        else:
            lines.append(f"- new parent {pds}:{n['parent_item']} ({n['method']} {n['score']}, alternatives "
                         f"{n['alternatives']}): {_text(items.get((pds, n['parent_item'])))}")
        lines.append("")
    lines += ["## Same parent, option map, key_inherited or options copied changed", "",
              "| child | parent | class | key_inherited | options copied | option map |", "|---|---|---|---|---|---|"]
    for cls, (cds, ci, pds), o, n in flips:
        lines.append(f"| {cds}:{ci} | {pds}:{n['parent_item']} | {cls} | {o['key_inherited']} -> "
                     f"{n['key_inherited']} | {o['options_copied']} -> {n['options_copied']} | "
                     f"{o['option_map']} -> {n['option_map']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="mmlu")
    ap.add_argument("--data-dir", default=os.environ.get("CROISSANT_LINEAGE_DATA", str(REPO.parent / "shared" / "data")))
    ap.add_argument("--old", type=Path, help="lineage folder linked by the old code (default: link it now)")
    ap.add_argument("--old-commit", default=OLD_COMMIT)
    ap.add_argument("--new", type=Path, help="lineage folder linked by this tree (default: link it now)")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "changed_edges.md")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        old = args.old or old_lineage(args.old_commit, args.family, args.data_dir, work)
        new = args.new
        if new is None:
            new = work / "new"
            run_link(REPO, args.family, args.data_dir, new)
        args.out.write_text(report(old, new), encoding="utf-8")
    print(args.out)


if __name__ == "__main__":
    main()
