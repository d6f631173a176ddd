"""Checking a row-index join against the texts, and re-linking it by a detected shift.

A ``by: index`` link rule trusts a row-index convention (MMMLU row *n* translates MMLU
row *n* of the same subject). The convention can be wrong for a whole subject: MMMLU
zh-cn ``high_school_world_history`` row 109 translates MMLU row 106. This module holds
the detection that both linking and the ``translations`` audit use:

* a :class:`Checker` probes one child item against one (possibly shifted) parent item:
  same answer letter, and evidence that agrees (for a same-language copy the stems'
  similarity; for a translation the tokens of :mod:`croissant_lineage.linking.evidence`,
  read in each dataset's declared language);
* :func:`detect_shift` picks, per subject, the row shift of :data:`SHIFTS` that clearly
  beats no shift;
* :func:`realign` picks the parent a contradicted join should have pointed at.

:func:`check_index_matches` applies them at link time: in a subject whose alignment is
disproved, each join that does not agree unshifted is re-linked by the shift that
agrees (edge method ``index+shift``; score: the evidence score; the declared parent
kept as the edge's alternative), or, where no shift explains it, demoted to
``unverified`` (never a confident wrong edge). Outside such subjects a single join is
disproved only when its key differs and its evidence conflicts.
"""

from __future__ import annotations

import math
import re
import threading
import weakref
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import pyarrow as pa
from rapidfuzz import fuzz

from croissant_lineage.family.spec import Derivation, rules_for
from croissant_lineage.linking.evidence import (
    Evidence,
    NumberReader,
    evidence_score,
    extract_evidence,
    extract_evidence_many,
    number_reader,
)
from croissant_lineage.linking.normalize import normalize_stem

if TYPE_CHECKING:
    from croissant_lineage.linking.match import Match
    from croissant_lineage.linking.sides import Side

__all__ = [
    "SHIFTED_METHOD",
    "SHIFTS",
    "STRONG_SCORE",
    "SUPPORT_SCORE",
    "TEXT_SUPPORT_SCORE",
    "UNVERIFIED_METHOD",
    "Checker",
    "JoinItem",
    "Probe",
    "TokenWeights",
    "check_index_matches",
    "detect_shift",
    "needs_shift_test",
    "probe_mode",
    "read_probe_evidence",
    "readers_for",
    "realign",
    "shifted_item",
]


#: Row-index shifts tried per subject.
SHIFTS = tuple(range(-5, 6))


#: Token evidence score (0-100) at or above which evidence supports a join.
SUPPORT_SCORE = 50.0


#: Stem similarity (0-100) at or above which a same-language copy supports a join.
TEXT_SUPPORT_SCORE = 80.0


#: A per-item realignment outside a misaligned subject needs this much evidence.
STRONG_SCORE = 80.0


#: Edge method of an index join re-linked by a detected row shift.
SHIFTED_METHOD = "index+shift"


#: Edge method of an index join whose alignment is disproved and that no shift explains.
UNVERIFIED_METHOD = "unverified"


class TokenWeights:
    """Inverse document frequency of tokens among one parent dataset's subject, built
    the first time a group is asked for (once, whichever of the threads sharing them asks
    first: the others wait for it)."""

    def __init__(self, members: Mapping[tuple[str, str | None], Sequence[JoinItem]]):
        self._members = members
        self._fns: dict[tuple[str, str | None], Callable[[str], float]] = {}
        self._lock = threading.RLock()

    def read(self, groups: Iterable[tuple[str, str | None]]) -> None:
        """Read in one :meth:`JoinItem.read_evidence` call the evidence of the members of
        ``groups`` whose weights are not built yet (what :meth:`for_group` of each would read
        one group at a time: the column-wide gates and their patterns run once, not per group)."""
        with self._lock:
            pending = [k for k in dict.fromkeys(groups) if k not in self._fns]
            JoinItem.read_evidence([item for k in pending for item in self._members.get(k, ())])

    def for_group(self, dataset: str, subject: str | None) -> Callable[[str], float]:
        """Token -> weight among the items of ``dataset`` in ``subject``."""
        fn = self._fns.get((dataset, subject))
        if fn is not None:
            return fn
        with self._lock:
            fn = self._fns.get((dataset, subject))
            return fn if fn is not None else self._build(dataset, subject)

    def _build(self, dataset: str, subject: str | None) -> Callable[[str], float]:
        members = self._members.get((dataset, subject), ())
        JoinItem.read_evidence(members)
        n = len(members)
        df: Counter[str] = Counter()
        for item in members:
            df.update(item.evidence.tokens)
        cache: dict[str, float] = {}

        def weight(t: str) -> float:
            w = cache.get(t)
            if w is None:
                w = cache[t] = math.log((n + 1) / (df.get(t, 0) + 1))
            return w

        self._fns[(dataset, subject)] = weight
        return weight


class JoinItem:
    """One item; its evidence (read in its dataset's language) and normalised stem are
    computed on first use."""

    def __init__(
        self, subject: str | None, key: str | None, stem: str | None, option_texts: list[str],
        reader: NumberReader | None = None,
    ):
        self.subject = subject
        self.key = key
        self.stem = stem
        self.option_texts = option_texts
        self.reader = reader

    @property
    def options(self) -> int:
        return len(self.option_texts)

    @cached_property
    def evidence(self) -> Evidence:
        return extract_evidence(self.stem, self.option_texts, reader=self.reader)

    @staticmethod
    def read_evidence(items: Sequence[JoinItem]) -> None:
        """Compute the :attr:`evidence` of those of ``items`` that have none yet, per number
        reader in one :func:`extract_evidence_many` call (equal to one ``extract_evidence``
        per item)."""
        pending: dict[NumberReader | None, list[JoinItem]] = defaultdict(list)
        for item in items:
            if "evidence" not in item.__dict__:
                pending[item.reader].append(item)
        for reader, group in pending.items():
            found = extract_evidence_many([(i.stem, i.option_texts) for i in group], reader=reader)
            for item, evidence in zip(group, found, strict=True):
                item.__dict__["evidence"] = evidence  # the cached_property's slot

    @cached_property
    def norm_stem(self) -> str:
        return normalize_stem(self.stem)


@dataclass(frozen=True)
class Probe:
    """One child item checked against one (possibly shifted) parent item."""

    parent_item: str
    key_match: bool | None
    score: float | None
    supports: bool | None  # evidence supports the join (None: no comparable evidence)

    @property
    def agrees(self) -> bool:
        return self.key_match is True and self.supports is True


class Checker:
    """Items of the datasets involved, their evidence, and the token weights.

    Args:
        items: Item tables' rows (``dataset``, ``item``, ``subject``, ``stem``,
            ``options``, ``key``).
        readers: Dataset -> how its numbers are read (its declared language); datasets
            not named read digits only.
    """

    def __init__(self, items: pa.Table, readers: Mapping[str, NumberReader] | None = None):
        readers = readers or {}
        self.index: dict[tuple[str, str], JoinItem] = {}
        groups: dict[tuple[str, str | None], list[JoinItem]] = defaultdict(list)
        cols = [items.column(c).to_pylist() for c in ("dataset", "item", "subject", "stem", "options", "key")]
        for ds, it, subj, stem, opts, key in zip(*cols, strict=True):
            item = JoinItem(subj, key, stem, list(opts or ()), readers.get(ds))
            self.index[(ds, it)] = item
            groups[(ds, subj)].append(item)
        self.weights = TokenWeights(groups)

    def extended(self, items: pa.Table, readers: Mapping[str, NumberReader]) -> Checker:
        """A checker of this one's items plus ``items`` (of other datasets), sharing this
        one's items, their evidence and token weights (a parent's evidence is read once for
        all the derivations that check joins to it)."""
        more = Checker(items, readers)
        out = Checker.__new__(Checker)
        out.index = {**self.index, **more.index}
        out.weights = self.weights
        return out

    def probe(self, child: JoinItem, pds: str, pid: str | None, mode: str) -> Probe | None:
        """Check ``child`` against parent ``pid`` with evidence ``mode`` (text / tokens / names)."""
        parent = self.index.get((pds, pid)) if pid is not None else None
        if parent is None or pid is None:
            return None
        key_match = None if not child.key or not parent.key else child.key == parent.key
        if mode == "text":
            score: float | None = round(fuzz.ratio(child.norm_stem, parent.norm_stem), 2)
            supports = None if score is None else score >= TEXT_SUPPORT_SCORE
        else:
            names = mode == "names"
            weight = self.weights.for_group(pds, parent.subject)
            score = evidence_score(child.evidence.comparable(names), parent.evidence.comparable(names), weight)
            supports = None if score is None else score >= SUPPORT_SCORE
        return Probe(pid, key_match, score, supports)


def probe_mode(child: JoinItem, child_language: str | None, parent_language: str | None) -> str:
    """``text`` for a same-language copy (both languages known and equal); otherwise
    ``names`` when the child is mostly in another script (Latin names then survive), else
    ``tokens``."""
    if _same_language(child_language, parent_language):
        return "text"
    return "names" if child.evidence.latin_share < 0.5 else "tokens"


def read_probe_evidence(children: Sequence[JoinItem], child_language: str | None, parent_language: str | None) -> None:
    """Read in one batch the evidence :func:`probe_mode` asks of each of ``children`` (none
    for a same-language copy)."""
    if not _same_language(child_language, parent_language):
        JoinItem.read_evidence(children)


def _same_language(child_language: str | None, parent_language: str | None) -> bool:
    return child_language is not None and child_language == parent_language


def detect_shift(agree: Sequence[int], items: int) -> tuple[int, bool]:
    """Pick the row shift that best aligns a subject, and whether it clearly beats none.

    Args:
        agree: Per shift of :data:`SHIFTS`, the items whose key and evidence agree.
        items: Items tested.

    Returns:
        ``(best_shift, misaligned)``: the best shift (ties go to the smallest shift in
        absolute value, 0 first), and True when it is not 0, at least 2 items agree there,
        and it beats no shift by at least max(2, a quarter of the items).
    """
    order = sorted(range(len(SHIFTS)), key=lambda i: (-agree[i], abs(SHIFTS[i]), SHIFTS[i]))
    best = SHIFTS[order[0]]
    at_best, at_zero = agree[order[0]], agree[SHIFTS.index(0)]
    clearly = at_best >= 2 and at_best - at_zero >= max(2, math.ceil(items / 4))
    return best, best != 0 and clearly


def needs_shift_test(items: int, comparable: int, at_zero: int) -> bool:
    """Can a shift beat no shift clearly? Only when the items with evidence (the most
    that can agree at any shift) exceed those agreeing unshifted by :func:`detect_shift`'s
    margin."""
    return comparable - at_zero >= max(2, math.ceil(items / 4))


_ROW_INDEX = re.compile(r"^(.*?)(\d+)$")


def shifted_item(item: str, shift: int) -> str | None:
    """The item id ``shift`` rows away (``law/test/109``, -3 -> ``law/test/106``); None
    when the id does not end in a row number or the row would be negative."""
    if shift == 0:
        return item
    m = _ROW_INDEX.match(item)
    if not m:
        return None
    row = int(m.group(2)) + shift
    return f"{m.group(1)}{row}" if row >= 0 else None


def realign(probes: Sequence[Probe | None], zero: Probe, subject_shift: int | None) -> tuple[int, str | None]:
    """The shift and source item a contradicted join should have pointed at, if any.

    In a misaligned subject: the shifted source with the same key and the best supporting
    evidence, else the subject's shift when the key agrees there and the evidence does not
    conflict. Elsewhere only a join
    whose key differs, with no supporting evidence, moves, and only to a source with the
    same key and evidence of at least :data:`STRONG_SCORE` (tokens) or
    :data:`TEXT_SUPPORT_SCORE` (text).
    """
    if subject_shift is None and (zero.key_match is not False or zero.supports is True):
        return 0, None
    cands = [
        (p.score or 0.0, -abs(s), s, p.parent_item)
        for s, p in zip(SHIFTS, probes, strict=True)
        if s != 0 and p is not None and p.agrees
        and (subject_shift is not None or (p.score or 0.0) >= STRONG_SCORE)
    ]
    if cands:
        _score, _near, shift, parent = max(cands)
        return shift, parent
    if subject_shift is not None:
        p = probes[SHIFTS.index(subject_shift)]
        if p is not None and p.key_match is True and p.supports is not False:
            return subject_shift, p.parent_item
    return 0, None


def readers_for(deriv: Derivation) -> dict[str, NumberReader]:
    """How the child's and the parent's numbers are read: each in its first declared
    language, with that language's rules from the spec."""
    out: dict[str, NumberReader] = {}
    for name, langs in ((deriv.parent, deriv.parent_languages), (deriv.child, deriv.child_languages)):
        lang = langs[0] if langs else None
        rules = rules_for(deriv.language_rules, lang)
        out[name] = number_reader(lang, rules.scale_words if rules else ())
    return out


@dataclass
class _Join:
    match: Match
    child: JoinItem
    mode: str
    probes: list[Probe | None]

    @property
    def zero(self) -> Probe:
        p = self.probes[SHIFTS.index(0)]
        assert p is not None
        return p


def check_index_matches(
    deriv: Derivation, child: Side, parent: Side, matches: Sequence[Match]
) -> Sequence[Match]:
    """Check the matches of a ``by: index`` rule against the texts; re-link or demote.

    Per subject the row shift is tested (:func:`needs_shift_test`, :func:`detect_shift`).
    A join is disproved when its subject is misaligned and it does not agree unshifted
    (same key and supporting evidence), or when its key differs and its evidence
    conflicts. A disproved join moves to the parent :func:`realign` finds (method
    :data:`SHIFTED_METHOD`, score: the evidence score there, 0 when the texts there have
    no comparable evidence and the key and the subject's shift decided; the declared
    parent as its alternative), else it keeps its parent with method :data:`UNVERIFIED_METHOD`
    (score: the unshifted evidence score, 0 when there is none).

    Args:
        deriv: The derivation (its rule, activity and the datasets' languages).
        child, parent: The two sides.
        matches: The index matches, in child order.

    Returns:
        The matches (the sequence given, for other rules), unchanged for joins that hold.
    """
    if deriv.link is None or deriv.link.by != "index" or not matches:
        return matches
    matches = list(matches)  # read three times below: one Match object each
    checker = _checker(deriv, child, parent)
    clang = deriv.child_languages[0] if deriv.child_languages else None
    plang = deriv.parent_languages[0] if deriv.parent_languages else None
    groups: dict[str | None, list[_Join]] = defaultdict(list)
    items = [checker.index[(deriv.child, child.ids[m.child])] for m in matches]
    read_probe_evidence(items, clang, plang)
    if not _same_language(clang, plang):  # the token weights the unshifted probes ask, read at once
        declared = (checker.index.get((deriv.parent, parent.ids[m.parent])) for m in matches)
        checker.weights.read((deriv.parent, p.subject) for p in declared if p is not None)
    for m, item in zip(matches, items, strict=True):
        mode = probe_mode(item, clang, plang)
        probes: list[Probe | None] = [None] * len(SHIFTS)
        probes[SHIFTS.index(0)] = checker.probe(item, deriv.parent, parent.ids[m.parent], mode)
        groups[item.subject or checker.index[(deriv.parent, parent.ids[m.parent])].subject].append(
            _Join(m, item, mode, probes)
        )
    index = _RowIndex(parent.ids)
    out: list[Match] = []
    for subject in sorted(groups, key=str):
        out.extend(_check_group(groups[subject], checker, deriv.parent, index))
    return sorted(out, key=lambda m: m.child)


class _RowIndex(Mapping[str, int]):
    """Parent item id -> row, built the first time a disproved join is re-linked (most
    derivations have none)."""

    def __init__(self, ids: Sequence[str]):
        self._ids = ids

    @cached_property
    def _rows(self) -> dict[str, int]:
        return {pid: j for j, pid in enumerate(self._ids)}

    def __getitem__(self, pid: str) -> int:
        return self._rows[pid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


#: Per parent side, the checker of its items per (dataset name, number reader): built by
#: the first index derivation to it, extended by each (freed with the side).
_PARENT_CHECKERS: weakref.WeakKeyDictionary[Side, dict[tuple[str, NumberReader], Checker]] = (
    weakref.WeakKeyDictionary()
)
_CHECKERS_LOCK = threading.Lock()


def _checker(deriv: Derivation, child: Side, parent: Side) -> Checker:
    """The checker of a derivation's two sides; the parent's part shared with the other
    derivations to the same parent side."""
    readers = readers_for(deriv)
    cols = ["item", "subject", "stem", "options", "key"]

    def items(side: Side, name: str) -> pa.Table:
        return side.table.select(cols).append_column("dataset", pa.array([name] * len(side), pa.string()))

    key = (deriv.parent, readers[deriv.parent])
    with _CHECKERS_LOCK:  # derivations linked on several threads share one parent checker
        cached = _PARENT_CHECKERS.setdefault(parent, {})
        base = cached.get(key)
        if base is None:
            base = cached[key] = Checker(items(parent, deriv.parent), {deriv.parent: readers[deriv.parent]})
    return base.extended(items(child, deriv.child), {deriv.child: readers[deriv.child]})


def _check_group(joins: list[_Join], checker: Checker, pds: str, index: Mapping[str, int]) -> list[Match]:
    """One subject's joins: shift test, then each disproved join re-linked or demoted."""
    n = len(joins)
    at_zero = sum(j.zero.agrees for j in joins)
    comparable = sum(1 for j in joins if j.mode == "text" or j.child.evidence.comparable(j.mode == "names"))
    subject_shift: int | None = None
    if needs_shift_test(n, comparable, at_zero):
        for j in joins:
            _probe_all(j, checker, pds)
        agree = [sum(1 for j in joins if (p := j.probes[i]) is not None and p.agrees) for i in range(len(SHIFTS))]
        best, misaligned = detect_shift(agree, n)
        subject_shift = best if misaligned else None
    out: list[Match] = []
    for j in joins:
        zero = j.zero
        disproved = (subject_shift is not None and not zero.agrees) or (
            zero.key_match is False and zero.supports is False
        )
        if not disproved:
            out.append(j.match)
            continue
        _probe_all(j, checker, pds)
        shift, new_parent = realign(j.probes, zero, subject_shift)
        if new_parent is not None and new_parent in index:
            p = j.probes[SHIFTS.index(shift)]
            score = p.score if p is not None and p.score is not None else 0.0
            out.append(replace(
                j.match, parent=index[new_parent], method=SHIFTED_METHOD, score=score,
                alternatives=(j.match.parent,),
            ))
        else:
            out.append(replace(j.match, method=UNVERIFIED_METHOD, score=zero.score or 0.0))
    return out


def _probe_all(j: _Join, checker: Checker, pds: str) -> None:
    declared = j.zero.parent_item
    for i, s in enumerate(SHIFTS):
        if s != 0 and j.probes[i] is None:
            j.probes[i] = checker.probe(j.child, pds, shifted_item(declared, s), j.mode)
