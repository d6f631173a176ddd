"""One joined item checked against one (possibly shifted) source item: key, option count
and evidence."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pyarrow as pa
from rapidfuzz import fuzz

from croissant_lineage.audits.translations.evidence import (
    Evidence,
    evidence_score,
    extract_evidence,
)
from croissant_lineage.audits.translations.report import SHIFTS
from croissant_lineage.linking.normalize import normalize_stem

__all__ = [
    "SUPPORT_SCORE",
    "TEXT_SUPPORT_SCORE",
    "Checker",
    "Join",
    "JoinItem",
    "Probe",
    "TokenWeights",
]


#: Token evidence score (0-100) at or above which evidence supports a join.
SUPPORT_SCORE = 50.0


#: Stem similarity (0-100) at or above which a same-language copy supports a join.
TEXT_SUPPORT_SCORE = 80.0


class TokenWeights:
    """Inverse document frequency of tokens among one parent dataset's subject, built
    the first time a group is asked for."""

    def __init__(self, members: Mapping[tuple[str, str | None], Sequence[JoinItem]]):
        self._members = members
        self._fns: dict[tuple[str, str | None], Callable[[str], float]] = {}

    def for_group(self, dataset: str, subject: str | None) -> Callable[[str], float]:
        fn = self._fns.get((dataset, subject))
        if fn is not None:
            return fn
        members = self._members.get((dataset, subject), ())
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
    """One item; its evidence and normalised stem are computed on first use."""

    def __init__(self, subject: str | None, key: str | None, stem: str | None, option_texts: list[str]):
        self.subject = subject
        self.key = key
        self.stem = stem
        self.option_texts = option_texts

    @property
    def options(self) -> int:
        return len(self.option_texts)

    @cached_property
    def evidence(self) -> Evidence:
        return extract_evidence(self.stem, self.option_texts)

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
    """Items of the datasets involved, their evidence, and the token weights."""

    def __init__(self, items: pa.Table):
        self.index: dict[tuple[str, str], JoinItem] = {}
        groups: dict[tuple[str, str | None], list[JoinItem]] = defaultdict(list)
        cols = [items.column(c).to_pylist() for c in ("dataset", "item", "subject", "stem", "options", "key")]
        for ds, it, subj, stem, opts, key in zip(*cols, strict=True):
            item = JoinItem(subj, key, stem, list(opts or ()))
            self.index[(ds, it)] = item
            groups[(ds, subj)].append(item)
        self.weights = TokenWeights(groups)

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


@dataclass
class Join:
    row: dict[str, Any]
    child: JoinItem
    parent: JoinItem
    language: str | None
    subject: str | None
    mode: str
    ntok: int
    probes: list[Probe | None]  # per shift of SHIFTS; only index 0 until shifts are tried

    @property
    def zero(self) -> Probe:
        p = self.probes[SHIFTS.index(0)]
        assert p is not None
        return p

    @property
    def group(self) -> tuple[str, str, str | None]:
        return (self.row["child_dataset"], self.row["parent_dataset"], self.subject)
