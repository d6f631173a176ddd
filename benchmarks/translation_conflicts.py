"""Evidence conflicts of the translation checks, per translated dataset, in its declared
language and with its language tag swapped to one that has no rules.

Links the family's translation, copy and filter joins (``id``/``index`` rules) once, then
verifies them (:func:`croissant_lineage.audits.translations.verify_joins`) twice: with
each dataset's declared language, and with every child dataset's language swapped to
``--swap`` (default ``sv``: no rules in the family spec, not covered by text2num, and a
language where ``mil`` means a 10 km mile). Prints a Markdown table (conflicts per 1,000
joined items) and writes every conflicting item, with both texts, to ``--out`` so that a
reader can tell real conflicts from false alarms.

Usage::

    PYTHONPATH=. python3 benchmarks/translation_conflicts.py --data-dir /work/shared/data \\
        --out benchmarks/translation_conflicts.md
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage.audits.translations import TRANSLATION_ACTIVITIES, verify_joins
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.linking.linker import link_derivation


def _link(family: str, data_dir: str) -> tuple[Any, pa.Table, pa.Table]:
    spec = load_family(family)
    derivs = [
        d for d in spec.item_derivations()
        if d.activity in TRANSLATION_ACTIVITIES and d.link is not None and d.link.by in ("id", "index")
    ]
    names = sorted({d.child for d in derivs} | {d.parent for d in derivs})
    tables = {n: load_items(spec.dataset(n), data_dir=data_dir) for n in names}
    edges = pa.concat_tables([link_derivation(d, tables[d.child], tables[d.parent])[0] for d in derivs])
    return spec, pa.concat_tables([tables[n] for n in names]), edges


def _texts(items: pa.Table) -> dict[tuple[str, str], str]:
    cols = [items.column(c).to_pylist() for c in ("dataset", "item", "stem", "options")]
    return {(d, i): " | ".join([s or "", *(o or [])]) for d, i, s, o in zip(*cols, strict=True)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="mmlu")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--swap", default="sv", help="language tag with no rules (default: sv)")
    ap.add_argument("--out", type=Path, help="Markdown file listing every conflict with both texts")
    args = ap.parse_args()
    spec, items, edges = _link(args.family, args.data_dir)
    declared = {d.name: list(d.languages) for d in spec.datasets.values()}
    children = sorted(set(edges.column("child_dataset").to_pylist()))
    swapped = {**declared, **{c: [args.swap] for c in children}}
    texts = _texts(items)
    lines = ["| dataset | language | joined | conflicts | per 1,000 | swapped to | conflicts | per 1,000 |",
             "|---|---|---:|---:|---:|---|---:|---:|"]
    listing: list[str] = []
    results = {}
    for label, langs in (("declared", declared), ("swapped", swapped)):
        report = verify_joins(edges, items, languages=langs, language_rules=spec.language_rules)
        rows = report.items.to_pylist()
        results[label] = (Counter(r["child_dataset"] for r in rows),
                          Counter(r["child_dataset"] for r in rows if r["status"] == "evidence_conflict"))
        listing.append(f"\n## {label} languages\n")
        for r in rows:
            if r["status"] != "evidence_conflict":
                continue
            listing.append(
                f"- `{r['child_dataset']}:{r['child_item']}` ({(langs.get(r['child_dataset']) or ['?'])[0]}, "
                f"score {r['evidence_score']})\n  - child: {texts[(r['child_dataset'], r['child_item'])][:400]!r}\n"
                f"  - parent: {texts[(r['parent_dataset'], r['parent_item'])][:400]!r}"
            )
    for c in children:
        n = results["declared"][0][c]
        k1, k2 = results["declared"][1][c], results["swapped"][1][c]
        lines.append(f"| {c} | {declared[c][0] if declared[c] else '-'} | {n} | {k1} | {1000 * k1 / n:.1f} | "
                     f"{args.swap} | {k2} | {1000 * k2 / n:.1f} |")
    print("\n".join(lines))
    if args.out:
        args.out.write_text("# Evidence conflicts, every one with both texts\n\n" + "\n".join(lines) + "\n"
                            + "\n".join(listing) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
