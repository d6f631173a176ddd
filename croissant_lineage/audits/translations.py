"""Verifying translated (and copied) items joined to their source items by id or index.

A translation joined by a declared id (Global-MMLU ``sample_id``, MMLU-ProX
``question_id_src``) or by a row-index convention (MMMLU) is only as good as the
convention. :func:`verify_translations` checks every such join instead of trusting it:

* the answer letter is the same, and so is the number of options;
* language-independent evidence agrees: numbers (``1,000`` = ``1 000`` = ``1000``),
  formulas (LaTeX commands, tokens such as ``H2O`` or ``x2``), and, where they survive
  translation, Latin-script names and acronyms (same-language copies, and texts mostly
  in another script: a Latin word in a Japanese or Russian item was copied from the
  source). Tokens are weighted by how rare they are among the source items of the same
  subject (a ``2020`` on every moral-scenarios item proves nothing), and the score
  (0-100) is the weighted share of the smaller side's tokens found on the other side;
  only token classes present on both sides are compared.

Each joined item gets a status (:data:`STATUSES`): ``verified`` (letter, option count
and evidence agree), ``consistent`` (letter and count agree; no comparable evidence),
``evidence_conflict``, ``key_differs``, ``options_differ``, ``no_key``, or
``misaligned`` (the join points at the wrong source item and a shifted row index finds
the right one). Per dataset and subject the row index is shifted by each of
:data:`SHIFTS`; a subject is reported as misaligned when one shift clearly beats no
shift (see :func:`detect_shift`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from typing import Any

import pandas as pd
import pyarrow as pa
from rapidfuzz import fuzz

from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import join_ref
from croissant_lineage.linking.normalize import normalize_stem

__all__ = [
    "GROUPS_SCHEMA",
    "JOIN_METHODS",
    "SHIFTS",
    "SHIFTS_SCHEMA",
    "STATUSES",
    "SUPPORT_SCORE",
    "TEXT_SUPPORT_SCORE",
    "TRANSLATION_ACTIVITIES",
    "VERIFICATION_SCHEMA",
    "Evidence",
    "ItemVerification",
    "ShiftResult",
    "TranslationReport",
    "detect_shift",
    "evidence_score",
    "extract_evidence",
    "verify_joins",
    "verify_translations",
]

#: Activities whose item joins are verified here.
TRANSLATION_ACTIVITIES = ("translation", "copy", "filter")
#: Link methods that trust a convention (and so need verifying).
JOIN_METHODS = ("id", "index")
#: Row-index shifts tried per subject.
SHIFTS = tuple(range(-5, 6))
#: Token evidence score (0-100) at or above which evidence supports a join.
SUPPORT_SCORE = 50.0
#: Stem similarity (0-100) at or above which a same-language copy supports a join.
TEXT_SUPPORT_SCORE = 80.0
#: A per-item realignment outside a misaligned subject needs this much evidence.
STRONG_SCORE = 80.0
#: Least summed token weight on each side for evidence to count.
MIN_EVIDENCE_WEIGHT = 0.5

#: Per-item statuses, best first.
STATUSES = (
    "verified",
    "consistent",
    "evidence_conflict",
    "options_differ",
    "key_differs",
    "misaligned",
    "no_key",
)

VERIFICATION_SCHEMA = pa.schema([
    pa.field("child_dataset", pa.string(), nullable=False),
    pa.field("child_item", pa.string(), nullable=False),
    pa.field("parent_dataset", pa.string(), nullable=False),
    pa.field("parent_item", pa.string(), nullable=False),
    pa.field("activity", pa.string()),
    pa.field("method", pa.string()),
    pa.field("language", pa.string()),
    pa.field("subject", pa.string()),
    pa.field("child_key", pa.string()),
    pa.field("parent_key", pa.string()),
    pa.field("key_match", pa.bool_()),  # None when a key is missing
    pa.field("child_options", pa.int32()),
    pa.field("parent_options", pa.int32()),
    pa.field("options_match", pa.bool_()),
    pa.field("evidence", pa.string()),  # "text" (same-language stem similarity), "tokens", None: none
    pa.field("evidence_tokens", pa.int32()),  # comparable tokens on the child side (tokens only)
    pa.field("evidence_score", pa.float64()),  # 0-100; None: no comparable evidence
    pa.field("status", pa.string(), nullable=False),  # one of STATUSES
    pa.field("best_shift", pa.int32()),  # 0 unless misaligned
    pa.field("realigned_parent", pa.string()),  # the parent item at best_shift
])

_COUNT_COLUMNS = ("joined", *STATUSES, "key_match")

GROUPS_SCHEMA = pa.schema([
    pa.field("dataset", pa.string(), nullable=False),
    pa.field("parent_dataset", pa.string()),
    pa.field("activity", pa.string()),
    pa.field("language", pa.string()),
    pa.field("subject", pa.string()),
    *(pa.field(c, pa.int64()) for c in _COUNT_COLUMNS),
    pa.field("shift", pa.int32()),  # detected index shift; None when aligned or undetermined
])

SHIFTS_SCHEMA = pa.schema([
    pa.field("dataset", pa.string(), nullable=False),
    pa.field("parent_dataset", pa.string()),
    pa.field("subject", pa.string()),
    pa.field("items", pa.int64()),  # joined items whose parent id ends in a row index
    pa.field("comparable", pa.int64()),  # of those, items with evidence on the child side
    pa.field("tested", pa.bool_()),  # shifts tried (False: no shift could beat none clearly)
    pa.field("agree", pa.list_(pa.int64())),  # per shift of SHIFTS (empty if not tested): key and evidence agree
    pa.field("agree_at_zero", pa.int64()),
    pa.field("best_shift", pa.int32()),
    pa.field("agree_at_best", pa.int64()),
    pa.field("misaligned", pa.bool_()),
])

# ---------------------------------------------------------------------------- evidence

_NUMBER = re.compile(r"\d+(?:[,.\u00a0\u202f ]\d{3}(?!\d))*(?:[.,]\d+)?")
# Scale words after a number, in the languages of the MMLU family ("1.7 million",
# "170万", "1,2 млн", "mil millones"); the number is multiplied out.
_SCALES = {
    "thousand": 3, "million": 6, "millions": 6, "billion": 9, "billions": 9, "trillion": 12,
    "mil millones": 9, "millones": 6, "millón": 6, "mil": 3, "milliard": 9, "milliards": 9,
    "mille": 3, "тыс": 3, "млн": 6, "млрд": 9, "миллион": 6, "миллиона": 6, "миллионов": 6,
    "миллиард": 9, "миллиарда": 9, "миллиардов": 9, "千": 3, "万": 4, "萬": 4, "亿": 8, "億": 8,
}
_SCALE = re.compile(
    r"\s?(" + "|".join(re.escape(w) for w in sorted(_SCALES, key=len, reverse=True)) + r")(?![A-Za-z])",
    re.IGNORECASE,
)
_DECIMAL_PART = re.compile(r"[.,](\d+)$")
_GROUP_END = re.compile(r"[,.\u00a0\u202f ]\d{3}$")
_NON_DIGIT = re.compile(r"\D")
_LATEX = re.compile(r"\\[A-Za-z]+")
# Latin-script words are delimited by ASCII letters and digits only: in Chinese or
# Japanese text a copied acronym sits right next to other letters ("实质GDP").
_FORMULA = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]+[0-9][A-Za-z0-9]*")
_CAPITALISED = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z]+(?![A-Za-z0-9])")
#: Letters looked at to tell the script of a text.
_SCRIPT_SAMPLE = 400
_LETTER = re.compile(r"[^\W\d_]")
_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f\u1e00-\u1eff]")
_SENTENCE_START = frozenset(".?!:;\"'“”‘’«»()[]")


def _canonical_number(text: str) -> str:
    """``1,000`` / ``1 000`` / ``1.000`` -> ``1000``; ``0,50`` / ``0.5`` -> ``0.5``; ``3.0`` -> ``3``."""
    if text.isdigit():
        return text.lstrip("0") or "0"
    m = _DECIMAL_PART.search(text)
    if m and not _GROUP_END.search(text):
        whole, frac = text[: m.start()], m.group(1).rstrip("0")
    else:
        whole, frac = text, ""
    digits = _NON_DIGIT.sub("", whole).lstrip("0") or "0"
    return f"{digits}.{frac}" if frac else digits


def _scaled(number: str, exponent: int) -> str:
    value = (Decimal(number) * (Decimal(10) ** exponent)).normalize()
    return format(value, "f")


@dataclass(frozen=True)
class Evidence:
    """Language-independent tokens of one item (stem and options).

    Attributes:
        tokens: Class-prefixed tokens: ``n:`` numbers (``1,000`` and ``1 000`` -> ``n:1000``,
            ``0,50`` -> ``n:0.5``, ``3.0`` -> ``n:3``, ``1.7 million`` and ``170万`` ->
            ``n:1700000``),
            ``f:`` formulas (LaTeX commands, letter-digit tokens), ``w:`` Latin-script
            acronyms and capitalised words not starting a sentence (lower-cased).
        latin_share: Share of the letters in Latin script among the text's first 400
            characters, 0-1 (1 when there are none).
    """

    tokens: frozenset[str]
    latin_share: float

    def comparable(self, names: bool) -> frozenset[str]:
        """The tokens to compare: all, or without the ``w:`` class when ``names`` is false."""
        return self.tokens if names else frozenset(t for t in self.tokens if not t.startswith("w:"))


def extract_evidence(stem: str | None, options: Iterable[str] | None = ()) -> Evidence:
    """Extract the tokens that survive translation from an item's texts.

    Args:
        stem: The question text.
        options: The option texts.

    Returns:
        An :class:`Evidence` (texts in NFKC, so full-width digits count as digits).
    """
    text = unicodedata.normalize("NFKC", "\n".join([stem or "", *(options or ())]))
    tokens: set[str] = set()
    for m in _NUMBER.finditer(text):
        number = _canonical_number(m.group())
        scale = _SCALE.match(text, m.end())
        if scale:
            number = _scaled(number, _SCALES[scale.group(1).lower()])
        tokens.add("n:" + number)
    tokens.update("f:" + w for w in _LATEX.findall(text))
    tokens.update("f:" + w for w in _FORMULA.findall(text))
    for m in _CAPITALISED.finditer(text):
        w = m.group()
        if w.isupper():
            tokens.add("w:" + w)
            continue
        if len(w) < 3:
            continue
        i = m.start() - 1
        while i >= 0 and text[i] in " \t":
            i -= 1
        if i >= 0 and text[i] not in _SENTENCE_START and text[i] != "\n":
            tokens.add("w:" + w.lower())
    sample = text[:_SCRIPT_SAMPLE]
    if sample.isascii():
        share = 1.0
    else:
        letters = len(_LETTER.findall(sample))
        share = len(_LATIN_LETTER.findall(sample)) / letters if letters else 1.0
    return Evidence(frozenset(tokens), round(share, 4))


def evidence_score(
    child: frozenset[str], parent: frozenset[str], weight: Callable[[str], float] = lambda t: 1.0
) -> float | None:
    """Weighted agreement of two token sets, 0-100.

    Only token classes (the prefix before ``:``) present on both sides are compared. The
    score is the weight of the shared tokens over the smaller side's total weight.

    Args:
        child / parent: Comparable tokens of each side (see :meth:`Evidence.comparable`).
        weight: Token -> weight (rarer tokens weigh more).

    Returns:
        The score rounded to 2 decimals, or None when either side's compared weight is
        below :data:`MIN_EVIDENCE_WEIGHT` (no comparable evidence).
    """
    classes = {t[:2] for t in child} & {t[:2] for t in parent}
    if not classes:
        return None
    c = [t for t in child if t[:2] in classes]
    p = [t for t in parent if t[:2] in classes]
    wc = sum(weight(t) for t in c)
    wp = sum(weight(t) for t in p)
    if min(wc, wp) < MIN_EVIDENCE_WEIGHT:
        return None
    shared = sum(weight(t) for t in set(c) & set(p))
    return round(100.0 * shared / min(wc, wp), 2)


class _Weights:
    """Inverse document frequency of tokens among one parent dataset's subject, built
    the first time a group is asked for."""

    def __init__(self, members: Mapping[tuple[str, str | None], Sequence[_Item]]):
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


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class ItemVerification:
    """The verification of one joined item (a row of :data:`VERIFICATION_SCHEMA`).

    Attributes:
        child_ref / parent_ref: Item refs of the translation and its source.
        status: One of :data:`STATUSES`.
        key_match: Same answer letter (None when a key is missing).
        options_match: Same number of options.
        evidence_score: 0-100, None when there is no comparable evidence.
        best_shift / realigned_parent: For ``misaligned`` items, the row shift and the
            ref of the source item it leads to (None otherwise).
    """

    child_ref: str
    parent_ref: str
    status: str
    activity: str | None
    method: str | None
    language: str | None
    subject: str | None
    child_key: str | None
    parent_key: str | None
    key_match: bool | None
    options_match: bool
    evidence_score: float | None
    evidence_tokens: int = 0
    best_shift: int = 0
    realigned_parent: str | None = None

    @property
    def verified(self) -> bool:
        """True when the status is ``verified``."""
        return self.status == "verified"


@dataclass(frozen=True)
class ShiftResult:
    """Row-index shift test of one subject (a row of :data:`SHIFTS_SCHEMA`)."""

    dataset: str
    parent_dataset: str
    subject: str | None
    items: int
    agree: tuple[int, ...]
    best_shift: int
    misaligned: bool

    @property
    def agree_at_zero(self) -> int:
        """Items whose key and evidence agree without a shift."""
        return self.agree[SHIFTS.index(0)]

    @property
    def agree_at_best(self) -> int:
        """Items whose key and evidence agree at :attr:`best_shift`."""
        return self.agree[SHIFTS.index(self.best_shift)]


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


@dataclass(frozen=True)
class TranslationReport:
    """What :func:`verify_translations` returns.

    Attributes:
        items: One row per verified join (:data:`VERIFICATION_SCHEMA`).
        groups: Counts per dataset, language and subject (:data:`GROUPS_SCHEMA`).
        totals: The same counts per dataset and language (``subject`` None).
        shifts: The shift test per dataset and subject (:data:`SHIFTS_SCHEMA`).
    """

    items: pa.Table
    groups: pa.Table
    totals: pa.Table
    shifts: pa.Table

    @cached_property
    def _by_child(self) -> dict[str, ItemVerification]:
        out: dict[str, ItemVerification] = {}
        for r in self.items.to_pylist():
            v = _row_to_verification(r)
            out.setdefault(v.child_ref, v)
        return out

    def verification_for(self, child_ref: str) -> ItemVerification | None:
        """The verification of a joined item by its ref (``global-mmlu-ja:professional_law/test/1225``).

        Returns:
            The :class:`ItemVerification` of its first join, or None when the item was
            not joined by a verified derivation (documented coverage only, or linked by text).
        """
        return self._by_child.get(child_ref)

    def by_status(self, status: str) -> list[ItemVerification]:
        """Joined items with one status, in table order."""
        return [v for v in self._by_child.values() if v.status == status]

    def key_differences(self) -> list[ItemVerification]:
        """Items whose answer letter differs from their (correctly joined) source's."""
        return self.by_status("key_differs")

    def misaligned_subjects(self) -> list[ShiftResult]:
        """Subjects whose row-index join is shifted, in table order."""
        return [s for s in _shift_results(self.shifts) if s.misaligned]

    def to_pandas(self) -> pd.DataFrame:
        """The per-item table as a DataFrame (``groups``, ``totals`` and ``shifts`` are
        Arrow tables with their own ``to_pandas()``)."""
        return self.items.to_pandas()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``totals``, ``groups``, ``shifts`` (misaligned subjects only) and
        ``exceptions`` (items neither ``verified`` nor ``consistent``)."""
        keep = pa.compute.invert(pa.compute.is_in(self.items.column("status"), pa.array(["verified", "consistent"])))
        shifts = self.shifts.filter(self.shifts.column("misaligned"))
        return {
            "totals": self.totals.to_pylist(),
            "groups": self.groups.to_pylist(),
            "shifts": shifts.to_pylist(),
            "exceptions": self.items.filter(keep).to_pylist(),
        }

    def _repr_html_(self) -> str:
        """Compact HTML view for Jupyter."""
        from croissant_lineage.render.html import to_html

        return to_html(self)


def _row_to_verification(r: Mapping[str, Any]) -> ItemVerification:
    return ItemVerification(
        child_ref=join_ref(r["child_dataset"], r["child_item"]),
        parent_ref=join_ref(r["parent_dataset"], r["parent_item"]),
        status=r["status"],
        activity=r["activity"],
        method=r["method"],
        language=r["language"],
        subject=r["subject"],
        child_key=r["child_key"],
        parent_key=r["parent_key"],
        key_match=r["key_match"],
        options_match=bool(r["options_match"]),
        evidence_score=r["evidence_score"],
        evidence_tokens=r["evidence_tokens"] or 0,
        best_shift=r["best_shift"] or 0,
        realigned_parent=(
            None if r["realigned_parent"] is None else join_ref(r["parent_dataset"], r["realigned_parent"])
        ),
    )


def _shift_results(table: pa.Table) -> list[ShiftResult]:
    return [
        ShiftResult(
            dataset=r["dataset"],
            parent_dataset=r["parent_dataset"],
            subject=r["subject"],
            items=r["items"],
            agree=tuple(r["agree"]),
            best_shift=r["best_shift"],
            misaligned=r["misaligned"],
        )
        for r in table.to_pylist()
    ]


# ------------------------------------------------------------------------ verification

_ROW_INDEX = re.compile(r"^(.*?)(\d+)$")


class _Item:
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


def _shifted(item: str, shift: int) -> str | None:
    if shift == 0:
        return item
    m = _ROW_INDEX.match(item)
    if not m:
        return None
    row = int(m.group(2)) + shift
    return f"{m.group(1)}{row}" if row >= 0 else None


@dataclass(frozen=True)
class _Probe:
    """One child item checked against one (possibly shifted) parent item."""

    parent_item: str
    key_match: bool | None
    score: float | None
    supports: bool | None  # evidence supports the join (None: no comparable evidence)

    @property
    def agrees(self) -> bool:
        return self.key_match is True and self.supports is True


def _realign(probes: Sequence[_Probe | None], zero: _Probe, subject_shift: int | None) -> tuple[int, str | None]:
    """The shift and source item a contradicted join should have pointed at, if any.

    In a misaligned subject: the shifted source with the same key and the best supporting
    evidence, else the subject's shift when the key agrees there. Elsewhere only a join
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
        if p is not None and p.key_match is True:
            return subject_shift, p.parent_item
    return 0, None


def _language(languages: Mapping[str, Sequence[str]], dataset: str) -> str | None:
    langs = languages.get(dataset) or ()
    return langs[0] if langs else None


class _Checker:
    """Items of the datasets involved, their evidence, and the token weights."""

    def __init__(self, items: pa.Table):
        self.index: dict[tuple[str, str], _Item] = {}
        groups: dict[tuple[str, str | None], list[_Item]] = defaultdict(list)
        cols = [items.column(c).to_pylist() for c in ("dataset", "item", "subject", "stem", "options", "key")]
        for ds, it, subj, stem, opts, key in zip(*cols, strict=True):
            item = _Item(subj, key, stem, list(opts or ()))
            self.index[(ds, it)] = item
            groups[(ds, subj)].append(item)
        self.weights = _Weights(groups)

    def probe(self, child: _Item, pds: str, pid: str | None, mode: str) -> _Probe | None:
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
        return _Probe(pid, key_match, score, supports)


def _status(zero: _Probe, options_match: bool, realigned: str | None) -> str:
    if realigned is not None:
        return "misaligned"
    if zero.key_match is None:
        return "no_key"
    if not zero.key_match:
        return "key_differs"
    if not options_match:
        return "options_differ"
    if zero.supports is None:
        return "consistent"
    return "verified" if zero.supports else "evidence_conflict"


@dataclass
class _Join:
    row: dict[str, Any]
    child: _Item
    parent: _Item
    language: str | None
    subject: str | None
    mode: str
    ntok: int
    probes: list[_Probe | None]  # per shift of SHIFTS; only index 0 until shifts are tried

    @property
    def zero(self) -> _Probe:
        p = self.probes[SHIFTS.index(0)]
        assert p is not None
        return p

    @property
    def group(self) -> tuple[str, str, str | None]:
        return (self.row["child_dataset"], self.row["parent_dataset"], self.subject)


def _shift_test(joins: Sequence[_Join], checker: _Checker) -> tuple[pa.Table, dict[tuple[str, str | None], int]]:
    """Per dataset and subject: items agreeing per shift, and the misaligned subjects.

    Shifts are tried only where one could beat no shift clearly: when the items with
    evidence on the child side (the most that can agree at any shift) exceed those
    agreeing unshifted by the margin :func:`detect_shift` asks for. Joins in other
    subjects get their shifted probes only when their key differs (for realignment).
    """
    groups: dict[tuple[str, str, str | None], list[_Join]] = defaultdict(list)
    for j in joins:
        if _ROW_INDEX.match(j.row["parent_item"]) is not None:
            groups[j.group].append(j)
    rows: dict[str, list[Any]] = {f.name: [] for f in SHIFTS_SCHEMA}
    shifted: dict[tuple[str, str | None], int] = {}
    for key in sorted(groups, key=lambda k: (k[0], k[1], str(k[2]))):
        members = groups[key]
        n = len(members)
        at_zero = sum(j.zero.agrees for j in members)
        comparable = sum(1 for j in members if j.mode == "text" or j.ntok > 0)
        tested = comparable - at_zero >= max(2, math.ceil(n / 4))
        agree: list[int] = []
        best, misaligned = 0, False
        if tested:
            for j in members:
                _probe_shifts(j, checker)
            agree = [sum(1 for j in members if (p := j.probes[i]) is not None and p.agrees) for i in range(len(SHIFTS))]
            best, misaligned = detect_shift(agree, n)
        if misaligned:
            shifted[(key[0], key[2])] = best
        for k, v in (
            ("dataset", key[0]), ("parent_dataset", key[1]), ("subject", key[2]), ("items", n),
            ("comparable", comparable), ("tested", tested), ("agree", agree), ("agree_at_zero", at_zero),
            ("best_shift", best), ("agree_at_best", agree[SHIFTS.index(best)] if agree else at_zero),
            ("misaligned", misaligned),
        ):
            rows[k].append(v)
    for j in joins:
        if j.zero.key_match is False:
            _probe_shifts(j, checker)
    return pa.table(rows, schema=SHIFTS_SCHEMA), shifted


def _probe_shifts(j: _Join, checker: _Checker) -> None:
    for i, s in enumerate(SHIFTS):
        if s != 0 and j.probes[i] is None:
            j.probes[i] = checker.probe(j.child, j.row["parent_dataset"], _shifted(j.row["parent_item"], s), j.mode)


def verify_joins(
    edges: pa.Table,
    items: pa.Table,
    *,
    languages: Mapping[str, Sequence[str]] | None = None,
) -> TranslationReport:
    """Verify the translation/copy/filter joins of an edges table.

    Evidence per join: for a same-language copy (both languages known and equal) the
    similarity of the normalised stems (RapidFuzz ratio; supports at
    :data:`TEXT_SUPPORT_SCORE`); otherwise the token score of :func:`evidence_score`
    (supports at :data:`SUPPORT_SCORE`), with Latin-script names compared only when
    the translation is mostly in another script.

    Args:
        edges: Lineage edges (``EDGES_SCHEMA``); only those with an activity in
            :data:`TRANSLATION_ACTIVITIES` and a method in :data:`JOIN_METHODS` are used.
        items: Items of every dataset the edges name (``ITEMS_SCHEMA``); all items of
            each parent dataset are used for the shift test and token weights.
        languages: Dataset -> language codes (first one used); unknown languages count
            as different from every other.

    Returns:
        A :class:`TranslationReport`; joins whose child or parent item is not in
        ``items`` are left out.
    """
    languages = languages or {}
    mask = pa.compute.and_(
        pa.compute.is_in(edges.column("activity"), pa.array(TRANSLATION_ACTIVITIES)),
        pa.compute.is_in(edges.column("method"), pa.array(JOIN_METHODS)),
    )
    sel = edges.filter(mask).select(
        ["child_dataset", "child_item", "parent_dataset", "parent_item", "activity", "method"]
    ).to_pylist()
    needed = sorted({r["child_dataset"] for r in sel} | {r["parent_dataset"] for r in sel})
    rows = items.filter(pa.compute.is_in(items.column("dataset"), pa.array(needed, pa.string())))
    checker = _Checker(rows)

    joins: list[_Join] = []
    for r in sel:
        child = checker.index.get((r["child_dataset"], r["child_item"]))
        parent = checker.index.get((r["parent_dataset"], r["parent_item"]))
        if child is None or parent is None:
            continue
        clang, plang = _language(languages, r["child_dataset"]), _language(languages, r["parent_dataset"])
        if clang is not None and clang == plang:
            mode = "text"
        else:
            mode = "names" if child.evidence.latin_share < 0.5 else "tokens"
        probes: list[_Probe | None] = [None] * len(SHIFTS)
        probes[SHIFTS.index(0)] = checker.probe(child, r["parent_dataset"], r["parent_item"], mode)
        ntok = 0 if mode == "text" else len(child.evidence.comparable(mode == "names"))
        joins.append(_Join(r, child, parent, clang, child.subject or parent.subject, mode, ntok, probes))
    shifts, subject_shift = _shift_test(joins, checker)

    out: dict[str, list[Any]] = {f.name: [] for f in VERIFICATION_SCHEMA}
    for j in joins:
        r, zero = j.row, j.zero
        best_shift, realigned = 0, None
        if zero.key_match is False or zero.supports is False:
            best_shift, realigned = _realign(j.probes, zero, subject_shift.get((r["child_dataset"], j.subject)))
        options_match = j.child.options == j.parent.options
        evidence = None if zero.score is None else ("text" if j.mode == "text" else "tokens")
        for k, v in (
            ("child_dataset", r["child_dataset"]), ("child_item", r["child_item"]),
            ("parent_dataset", r["parent_dataset"]), ("parent_item", r["parent_item"]),
            ("activity", r["activity"]), ("method", r["method"]), ("language", j.language),
            ("subject", j.subject), ("child_key", j.child.key), ("parent_key", j.parent.key),
            ("key_match", zero.key_match), ("child_options", j.child.options),
            ("parent_options", j.parent.options), ("options_match", options_match),
            ("evidence", evidence), ("evidence_tokens", j.ntok), ("evidence_score", zero.score),
            ("status", _status(zero, options_match, realigned)),
            ("best_shift", best_shift), ("realigned_parent", realigned),
        ):
            out[k].append(v)
    table = pa.table(out, schema=VERIFICATION_SCHEMA)
    groups = _count(table, subject_shift, by_subject=True)
    totals = _count(table, subject_shift, by_subject=False)
    return TranslationReport(items=table, groups=groups, totals=totals, shifts=shifts)


def _count(table: pa.Table, subject_shift: Mapping[tuple[str, str | None], int], *, by_subject: bool) -> pa.Table:
    counts: dict[tuple[Any, ...], Counter[str]] = {}
    cols = ("child_dataset", "parent_dataset", "activity", "language", "subject", "status", "key_match")
    for ds, pds, act, lang, subj, status, km in zip(*(table.column(c).to_pylist() for c in cols), strict=True):
        key = (ds, pds, act, lang, subj if by_subject else None)
        tally = counts.setdefault(key, Counter())
        tally["joined"] += 1
        tally[status] += 1
        tally["key_match"] += km is True
    rows: dict[str, list[Any]] = {f.name: [] for f in GROUPS_SCHEMA}
    for key in sorted(counts, key=lambda k: tuple(str(x) for x in k)):
        ds, pds, act, lang, subj = key
        for name, v in zip(("dataset", "parent_dataset", "activity", "language", "subject"), key, strict=True):
            rows[name].append(v)
        for c in _COUNT_COLUMNS:
            rows[c].append(counts[key][c])
        rows["shift"].append(subject_shift.get((ds, subj)) if by_subject else None)
    return pa.table(rows, schema=GROUPS_SCHEMA)


def verify_translations(lineage: Lineage) -> TranslationReport:
    """Verify every translation, copy and filter join of a linked family.

    Args:
        lineage: The linked family (its ``items``, ``edges`` and
            ``family["datasets"][*]["languages"]`` are used).

    Returns:
        A :class:`TranslationReport` (see :func:`verify_joins`).
    """
    languages = {d["name"]: list(d.get("languages") or ()) for d in lineage.family.get("datasets", [])}
    return verify_joins(lineage.edges, lineage.items, languages=languages)
