"""Discover MMLU-Pro's parent with the MMLU family's derivations removed, and compare with ``link``.

Run from the repository root (``--family-only``: section 0 alone; ``--sizes 1000000``: only
the index scale run of section 6)::

    CROISSANT_LINEAGE_DATA=/path/to/shared/data python3 benchmarks/bench_discover.py [--out DIR]

0. The whole MMLU family spec with every derivation removed (datasets only) is given to
   :func:`croissant_lineage.discovery.family.discover_family`: per declared derivation with
   item data, whether its parent is found, the activity declared and guessed, and recall and
   precision of the discovered edges against ``link``'s edges with the declared rule (every
   disagreeing edge in ``OUT/family-disagreements.tsv``); MMLU-Pro items whose ``src`` is
   not ``ori_mmlu-*`` linked to MMLU (must be 0); wall and CPU time, peak RSS.
1. The shipped MMLU family spec is copied with every derivation removed and without the
   MMLU-Pro line (``mmlu-pro*``, ``mmlu-prox-lite-en``): datasets only, the corpus.
2. :func:`croissant_lineage.discovery.discover` runs on MMLU-Pro's descriptor (roles inferred)
   against that corpus: index build (then reuse), proposals, edges.
3. The declared derivation ``mmlu-pro <- mmlu`` is linked with the declared rule
   (:func:`croissant_lineage.linking.linker.link_derivation`), and the discovered edges are
   compared with its edges: recall, precision, and every disagreement listed in
   ``OUT/disagreements.tsv``; discovered edges of MMLU-Pro items whose ``src`` is not
   ``ori_mmlu-*`` are counted.
4. ``--synthetic N`` (default 10,000; 0 skips): the synthetic family
   (:func:`croissant_lineage.testing.synthetic.generate_family`) with its base dataset as the
   corpus and the four derived datasets as unknowns (roles inferred): per derivation, the
   activity guessed against the one declared, and precision and recall of the discovered
   edges against the planted truth (``truth.parquet``), overall and per kind of copy.
   The re-annotation's inferred id is its row number (no id field), so its truth ids
   (``subject/row``) are compared by row.
5. Translations without a model (``--no-translations`` skips): for Global-MMLU (es, fr, ja,
   ru) and MMMLU zh-CN, :func:`croissant_lineage.discovery.translations.discover_translation`
   against MMLU, once with the datasets' ids as they are (paired by ids or positions) and
   once with the ids replaced by row numbers (paired by translation-surviving tokens
   only); precision and recall against ``link``'s edges with the declared spec. The
   synthetic family's translations are scored the same way, tokens only.
6. ``--sizes N,N``: the stem index over synthetic corpora of N invented stems: build and
   query time (10,000 near-copies), recall of the copied row, peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from croissant_lineage.discovery.propose import discover
from croissant_lineage.family.shipped import builtin_family_path
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.linking.linker import link_derivation
from croissant_lineage.testing.synthetic import generate_family

CHILD = "mmlu-pro"
PRO_LINE = ("mmlu-pro", "mmlu-pro@2025-08-03", "mmlu-pro@2025-10-01", "mmlu-prox-lite-en")


def _family_json() -> Path:
    path = builtin_family_path("mmlu")
    assert path is not None
    return path


def stripped_spec(folder: Path) -> Path:
    """The MMLU family spec with no derivations and without the MMLU-Pro line."""
    src = _family_json()
    doc = json.loads(src.read_text(encoding="utf-8"))
    datasets = []
    for d in doc["datasets"]:
        if d["name"] in PRO_LINE or "descriptor" not in d:
            continue
        d = dict(d, descriptor=str((src.parent / d["descriptor"]).resolve()))
        datasets.append(d)
    out = folder / "mmlu-datasets-only.json"
    out.write_text(json.dumps({"name": "mmlu-stripped", "datasets": datasets, "derivations": []}, indent=1), encoding="utf-8")
    return out


def declared_edges(data_dir: str) -> tuple[set[tuple[str, str]], dict[str, str]]:
    """``link``'s edges of ``mmlu-pro <- mmlu`` with the declared rule, and MMLU-Pro's ``src``."""
    spec = load_family("mmlu")
    deriv = next(d for d in spec.derivations if d.child == CHILD and d.parent == "mmlu")
    child = load_items(spec.dataset(CHILD), data_dir=data_dir)
    parent = load_items(spec.dataset("mmlu"), data_dir=data_dir)
    edges, _, _ = link_derivation(deriv, child, parent)
    pairs = set(zip(edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist(), strict=True))
    src = {i: json.loads(r).get("src", "") for i, r in zip(child.column("item").to_pylist(), child.column("record").to_pylist(), strict=True)}
    return pairs, src


def _synthetic_corpus(folder: Path) -> tuple[Path, list[Path], dict[str, str]]:
    """The synthetic spec's base dataset alone (the corpus), the derived descriptors, declared activities."""
    doc = json.loads((folder / "family.json").read_text(encoding="utf-8"))
    base = [dict(d, descriptor=str((folder / d["descriptor"]).resolve())) for d in doc["datasets"] if d["name"] == "syn-base"]
    corpus = folder.parent / "synthetic-corpus.json"
    corpus.write_text(json.dumps({"name": "synthetic-corpus", "datasets": base, "derivations": []}, indent=1), encoding="utf-8")
    declared = {d["child"]: d["activity"] for d in doc["derivations"] if d.get("coverage") != "documented"}
    return corpus, [folder / name / "croissant.json" for name in declared], declared


def _item_key(dataset: str, item: str) -> str:
    # syn-redux has no id field: discovery numbers its rows, the truth says subject/row.
    return item.rsplit("/", 1)[-1] if dataset == "syn-redux" else item


def synthetic(items: int, work: Path) -> Path:
    """Discovery on the synthetic family against its planted truth (section 4 of the docstring)."""
    import pyarrow.parquet as pq

    fam = generate_family(work / "synthetic", items=items)
    corpus, unknown, declared = _synthetic_corpus(fam.folder)
    t = time.perf_counter()
    result = discover(unknown, [corpus], out=work / "synthetic-discovered")
    print(f"\nsynthetic family, {fam.items:,} items: discover of {len(unknown)} datasets against syn-base "
          f"in {time.perf_counter() - t:.1f} s")
    guessed = {p.child: p for p in result.proposals}
    truth = pq.read_table(fam.folder / "truth.parquet").to_pylist()
    planted = {(r["child_dataset"], _item_key(r["child_dataset"], r["child_item"])): r for r in truth}
    e = result.lineage.edges
    found = {
        (c, _item_key(c, i)): p
        for c, i, p in zip(e.column("child_dataset").to_pylist(), e.column("child_item").to_pylist(),
                           e.column("parent_item").to_pylist(), strict=True)
    }
    print("| derivation | declared | guessed | truth edges | discovered | correct | recall | precision |")
    print("|---|---|---|---|---|---|---|---|")
    for child, activity in declared.items():
        want = {k: r for k, r in planted.items() if k[0] == child}
        got = {k: p for k, p in found.items() if k[0] == child}
        ok = sum(1 for k, p in got.items() if k in want and want[k]["parent_item"] == p)
        guess = guessed[child].activity if child in guessed else "(no relative)"
        print(f"| {child} <- syn-base | {activity} | {guess} | {len(want)} | {len(got)} | {ok} | "
              f"{_pct(ok, len(want))} | {_pct(ok, len(got))} |")
    print("\nper kind of copy (planted truth):")
    print("| kind | truth edges | discovered | correct | recall | precision |")
    print("|---|---|---|---|---|---|")
    kinds = sorted({r["kind"] for r in truth})
    for kind in kinds:
        want = {k: r for k, r in planted.items() if r["kind"] == kind}
        got = {k: p for k, p in found.items() if k in want}
        ok = sum(1 for k, p in got.items() if want[k]["parent_item"] == p)
        print(f"| {kind} | {len(want)} | {len(got)} | {ok} | {_pct(ok, len(want))} | {_pct(ok, len(got))} |")
    stray = sum(1 for k in found if k not in planted)
    print(f"| (items with no planted parent) | 0 | {stray} | 0 | - | - |")
    return fam.folder


def _rows_as_ids(table):
    """The table with its item ids replaced by row numbers (nothing left to join on but the text)."""
    import pyarrow as pa

    i = table.schema.get_field_index("item")
    return table.set_column(i, table.schema.field(i), pa.array([f"row-{k}" for k in range(table.num_rows)], pa.string()))


def _score_translation(label: str, child, parent, truth: dict[str, str], languages: dict) -> None:
    """One row per way of pairing: the pairs ``discover_translation`` makes, against ``truth``."""
    from croissant_lineage.discovery.translations import discover_translation

    cids = child.column("item").to_pylist()
    pids = parent.column("item").to_pylist()
    for variant, table in (("ids as given", child), ("tokens only", _rows_as_ids(child))):
        t = time.perf_counter()
        best, tried = discover_translation("child", table, {"parent": parent}, {"child": languages.get("child"), "parent": languages.get("parent")})
        secs = time.perf_counter() - t
        m = best or (tried[-1] if tried else None)
        if m is None:
            print(f"| {label} | {variant} | - | 0 | 0 | {_pct(0, len(truth))} | - | no | {secs:.1f} s |")
            continue
        ok = sum(1 for i, j, _ in m.pairs if truth.get(cids[i]) == pids[j])
        print(f"| {label} | {variant} | {m.how} | {len(m.pairs)} | {ok} | {_pct(ok, len(truth))} | {_pct(ok, len(m.pairs))} | "
              f"{'yes' if best is not None else 'no'} | {secs:.1f} s |")


def translations(data_dir: str | None, syn_folder: Path | None) -> None:
    """Section 5 of the docstring."""
    print("\ntranslations without a model (pairs against link's edges with the declared spec):")
    print("| child <- parent | child ids | paired by | pairs | correct | recall | precision | proposed | time |")
    print("|---|---|---|---|---|---|---|---|---|")
    if data_dir:
        spec = load_family("mmlu")
        parent = load_items(spec.dataset("mmlu"), data_dir=data_dir)
        for name in ("global-mmlu-es", "global-mmlu-fr", "global-mmlu-ja", "global-mmlu-ru", "mmmlu-zh-cn"):
            ds = spec.dataset(name)
            deriv = next(d for d in spec.derivations if d.child == name)
            child = load_items(ds, data_dir=data_dir)
            edges, _, _ = link_derivation(deriv, child, parent)
            truth = dict(zip(edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist(), strict=True))
            if name.startswith("mmmlu"):  # the ids discovery infers ({Subject}/{ID}), not the spec's
                child = child.set_column(child.schema.get_field_index("item"), child.schema.field("item"),
                                         pa_array([i.replace("/test/", "/") for i in child.column("item").to_pylist()]))
                truth = {c.replace("/test/", "/"): p for c, p in truth.items()}
            _score_translation(f"{name} <- mmlu", child, parent, truth, {"child": ds.languages[0] if ds.languages else None, "parent": "en"})
    if syn_folder is not None:
        import pyarrow.parquet as pq

        from croissant_lineage.family.spec import load_family as _load

        syn = _load(syn_folder / "family.json")
        parent = load_items(syn.dataset("syn-base"))
        planted = pq.read_table(syn_folder / "truth.parquet").to_pylist()
        for name in ("syn-xx", "syn-yy"):
            truth = {r["child_item"]: r["parent_item"] for r in planted if r["child_dataset"] == name}
            _score_translation(f"{name} <- syn-base", load_items(syn.dataset(name)), parent, truth, {})


def pa_array(values: list[str]):
    import pyarrow as pa

    return pa.array(values, pa.string())


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.2f} %" if d else "-"


def stripped_family(folder: Path) -> Path:
    """The whole MMLU family spec with every derivation removed (datasets only)."""
    src = _family_json()
    doc = json.loads(src.read_text(encoding="utf-8"))
    datasets = [dict(d, descriptor=str((src.parent / d["descriptor"]).resolve())) for d in doc["datasets"] if "descriptor" in d]
    out = folder / "mmlu-family-datasets-only.json"
    out.write_text(json.dumps({"name": "mmlu-stripped", "datasets": datasets, "derivations": []}, indent=1), encoding="utf-8")
    return out


def _edge_pairs(edges, child: str, parent: str) -> dict[str, str]:
    cols = (edges.column(k).to_pylist() for k in ("child_dataset", "parent_dataset", "child_item", "parent_item"))
    return {c: p for cd, pd, c, p in zip(*cols, strict=True) if (cd, pd) == (child, parent)}


def family(out: Path, data_dir: str) -> None:
    """Section 0: the whole MMLU family, every derivation removed, discovered all against all
    (:func:`croissant_lineage.discovery.family.discover_family`), scored per declared derivation
    against ``link``'s edges with the declared spec."""
    from croissant_lineage.discovery.family import discover_family

    spec_path = stripped_family(out)
    t, c = time.perf_counter(), time.process_time()
    result = discover_family(spec_path, data_dir=data_dir, out=out / "family-discovered")
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"discover --family on the stripped MMLU family ({result.index['rows']:,} items, index reused={result.index['reused']}): "
          f"{wall:.0f} s wall, {cpu:.0f} s CPU, peak RSS {rss:.0f} MB (load average {os.getloadavg()[0]:.1f})")
    print(str(result))
    declared_spec = load_family("mmlu")
    found = {p.child: p for p in result.proposals}
    rows = ["child\tdeclared_parent\tdiscovered_parent\tchild_item\tdeclared_parent_item\tdiscovered_parent_item"]
    print("\n| derivation (declared) | parent found | activity declared | guessed | link's edges | discovered | agree | recall | precision |")
    print("|---|---|---|---|---|---|---|---|---|")
    src: dict[str, str] = {}
    for d in declared_spec.derivations:
        cd, pd = declared_spec.dataset(d.child), declared_spec.dataset(d.parent)
        if d.coverage == "documented" or not (cd.has_items and pd.has_items):
            continue
        child = load_items(cd, data_dir=data_dir)
        edges, _, _ = link_derivation(d, child, load_items(pd, data_dir=data_dir))
        want = _edge_pairs(edges, d.child, d.parent)
        p = found.get(d.child)
        got = _edge_pairs(result.lineage.edges, d.child, d.parent) if p is not None else {}
        agree = sum(1 for k, v in got.items() if want.get(k) == v)
        guessed = p.activity if p is not None else "-"
        parent_found = "yes" if p is not None and p.parent == d.parent else f"no ({p.parent if p else 'none'})"
        print(f"| {d.child} <- {d.parent} | {parent_found} | {d.activity} | {guessed} | {len(want):,} | {len(got):,} | {agree:,} | "
              f"{_pct(agree, len(want))} | {_pct(agree, len(got))} |")
        for k in sorted(set(want) | set(got)):
            if want.get(k) != got.get(k):
                rows.append(f"{d.child}\t{d.parent}\t{p.parent if p else ''}\t{k}\t{want.get(k, '')}\t{got.get(k, '')}")
        if d.child == CHILD:
            src = {i: json.loads(r).get("src", "") for i, r in zip(child.column("item").to_pylist(), child.column("record").to_pylist(), strict=True)}
    e = result.lineage.edges
    stray = sum(
        1 for cd, pd, ci in zip(*(e.column(k).to_pylist() for k in ("child_dataset", "parent_dataset", "child_item")), strict=True)
        if cd == CHILD and pd == "mmlu" and not src.get(ci, "").startswith("ori_mmlu-")
    )
    print(f"\nMMLU-Pro items whose src is not ori_mmlu-* linked to MMLU: {stray}")
    (out / "family-disagreements.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"disagreements: {len(rows) - 1} edges (listed in {out / 'family-disagreements.tsv'})")


def _invented_stems(n: int, seed: int = 18) -> list[str]:
    """``n`` distinct-looking stems of 8-24 invented words (a 20,000-word vocabulary)."""
    import random

    rng = random.Random(seed)
    syll = [c + v for c in "bcdfghjklmnprstvz" for v in "aeiou"]
    vocab = sorted({"".join(rng.choice(syll) for _ in range(rng.randint(2, 4))) for _ in range(25_000)})[:20_000]
    return [" ".join(rng.choices(vocab, k=rng.randint(8, 24))) for _ in range(n)]


def scale(sizes: list[int], queries: int = 10_000) -> None:
    """Scale: the stem index over a synthetic corpus of each size (invented stems,
    normalised as the linker does), then ``queries`` near-copies (one word replaced) looked
    up: build and query time, recall of the copied row among the candidates, peak RSS."""
    import random

    from croissant_lineage.discovery.index import build_index
    from croissant_lineage.linking.normalize import normalize_stem

    print("\n| corpus stems | build (wall / CPU) | postings | queries | query (wall / CPU) | copied row found | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        stems = _invented_stems(n)
        t, c = time.perf_counter(), time.process_time()
        norm = [normalize_stem(x) for x in stems]
        del stems
        index = build_index(["synthetic"] * n, [str(i) for i in range(n)], norm)
        build = (time.perf_counter() - t, time.process_time() - c)
        rng = random.Random(1)
        rows = [rng.randrange(n) for _ in range(queries)]
        probes = []
        for j in rows:
            words = norm[j].split()
            words[rng.randrange(len(words))] = "zzqx"
            probes.append(" ".join(words))
        t, c = time.perf_counter(), time.process_time()
        found = sum(1 for j, q in zip(rows, probes, strict=True) if any(x.row == j for x in index.candidates(q, threshold=85.0)))
        query = (time.perf_counter() - t, time.process_time() - c)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"| {n:,} | {build[0]:.0f} s / {build[1]:.0f} s | {index.keys.size:,} | {queries:,} | {query[0]:.1f} s / {query[1]:.1f} s | "
              f"{_pct(found, queries)} | {rss:,.0f} MB (load average {os.getloadavg()[0]:.1f}) |", flush=True)
        del index, norm


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="folder to write (default: a temporary folder)")
    ap.add_argument("--synthetic", type=int, default=10_000, metavar="N",
                    help="items of the synthetic family (default 10,000; 0 skips it)")
    ap.add_argument("--no-mmlu", action="store_true", help="skip the MMLU parts (no shared data needed)")
    ap.add_argument("--no-translations", action="store_true", help="skip the translation section")
    ap.add_argument("--family-only", action="store_true",
                    help="run only section 0 (the whole MMLU family stripped of its derivations); its peak RSS is the run's")
    ap.add_argument("--sizes", metavar="N,N", help="only the index scale run, on synthetic corpora of these sizes "
                    "(e.g. 1000000,10000000); peak RSS is the largest size's")
    args = ap.parse_args()
    if args.sizes:
        scale([int(x) for x in args.sizes.split(",")])
        return 0
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-discover-"))
    out.mkdir(parents=True, exist_ok=True)
    if not args.no_mmlu:
        data_dir = os.environ.get("CROISSANT_LINEAGE_DATA")
        if not data_dir:
            print("set CROISSANT_LINEAGE_DATA to the shared data folder (or pass --no-mmlu)", file=sys.stderr)
            return 2
        family(out, data_dir)
        if args.family_only:
            return 0
        mmlu(out, data_dir)
    syn_folder = synthetic(args.synthetic, out) if args.synthetic else None
    if not args.no_translations:
        translations(None if args.no_mmlu else os.environ.get("CROISSANT_LINEAGE_DATA"), syn_folder)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


def mmlu(out: Path, data_dir: str) -> None:
    """MMLU-Pro's parent rediscovered in the stripped MMLU family (sections 1-3 of the docstring)."""
    spec = stripped_spec(out)
    descriptor = _family_json().parent / "descriptors" / "mmlu-pro.json"
    times = {}
    for run in ("build", "reuse"):
        t = time.perf_counter()
        result = discover([descriptor], [spec], out=out / "discovered", data_dir=data_dir)
        times[run] = time.perf_counter() - t
        print(f"discover ({run} index: reused={result.index['reused']}, {result.index['rows']} corpus items): {times[run]:.1f} s")
    for p in result.proposals:
        print(json.dumps(p.to_dict()))
    print("roles:", json.dumps(result.roles[CHILD].to_dict()))
    edges = result.lineage.edges
    found = {
        (c, p)
        for c, p, pd in zip(edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist(), edges.column("parent_dataset").to_pylist(), strict=True)
        if pd == "mmlu"
    }
    found_other = edges.num_rows - len(found)
    declared, src = declared_edges(data_dir)
    agree = found & declared
    recall = len(agree) / len(declared) if declared else 0.0
    precision = len(agree) / len(found) if found else 0.0
    not_ori = sorted(c for c, _ in found if not src.get(c, "").startswith("ori_mmlu-"))
    print(f"declared edges (link, mmlu-pro <- mmlu): {len(declared)}")
    print(f"discovered edges to mmlu: {len(found)} (to other parents: {found_other})")
    print(f"recall {100 * recall:.2f} %  precision {100 * precision:.2f} %")
    print(f"discovered edges of items whose src is not ori_mmlu-*: {len(not_ori)}")
    dec_by_child = dict(declared)
    found_by_child = dict(found)
    rows = ["child_item\tsrc\tdeclared_parent\tdiscovered_parent"]
    for c in sorted(set(dec_by_child) | set(found_by_child)):
        if dec_by_child.get(c) != found_by_child.get(c):
            rows.append(f"{c}\t{src.get(c, '')}\t{dec_by_child.get(c, '')}\t{found_by_child.get(c, '')}")
    (out / "disagreements.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"disagreements: {len(rows) - 1} (listed in {out / 'disagreements.tsv'})")


if __name__ == "__main__":
    sys.exit(main())
