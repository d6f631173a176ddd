"""What a :class:`~croissant_lineage.lineage.model.Lineage` says of its family and of its links, typed.

* :class:`FamilyInfo`: the family at dataset level (its datasets, derivations and language
  rules), built from a :class:`~croissant_lineage.family.spec.FamilySpec` by
  :func:`family_info` or read from a lineage folder's ``family.json``;
* :class:`LinkSummary`: the counts of a link (per derivation, per method), ``summary.json``.

Both are frozen; their ``to_dict()`` is exactly the JSON a lineage folder holds, and
``from_dict`` reads it back (keys a file lacks take their defaults).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from croissant_lineage.errors import SpecError
from croissant_lineage.family.spec import FamilySpec, LanguageRules
from croissant_lineage.lineage.keys import KEYS_UNREAD

__all__ = [
    "INPUTS_FILE",
    "DatasetInfo",
    "DerivationCounts",
    "DerivationInfo",
    "FamilyInfo",
    "LinkInputs",
    "LinkSummary",
    "ProposalCounts",
    "family_info",
]


class _ReadAsJson:
    """The mapping reads of the untyped form (``lineage.family["datasets"]``,
    ``lineage.summary.get("edges")``), kept for callers written against it: deprecated, they
    read :meth:`to_dict`; use the attributes."""

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def _json(self) -> dict[str, Any]:
        warnings.warn(
            f"reading {type(self).__name__} as a dict is deprecated: use its attributes (or to_dict())",
            DeprecationWarning, stacklevel=3,
        )
        return self.to_dict()

    def __getitem__(self, key: str) -> Any:
        return self._json()[key]

    def get(self, key: str, default: Any = None) -> Any:
        """Deprecated: ``to_dict().get(key, default)``."""
        return self._json().get(key, default)


def _str(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _int_map(value: object) -> dict[str, int]:
    return {str(k): _int(v) for k, v in value.items()} if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class DatasetInfo:
    """One dataset of a family, as a lineage folder keeps it."""

    name: str
    iri: str = ""
    title: str = ""
    date: str | None = None
    languages: tuple[str, ...] = ()
    coverage: str | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The dataset's entry of ``family.json``."""
        return {
            "name": self.name, "iri": self.iri, "title": self.title, "date": self.date,
            "languages": list(self.languages), "coverage": self.coverage, "note": self.note,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> DatasetInfo:
        langs = d.get("languages") or ()
        return cls(
            name=_str(d.get("name")), iri=_str(d.get("iri")), title=_str(d.get("title")),
            date=_opt_str(d.get("date")), languages=tuple(str(x) for x in langs if x is not None),
            coverage=_opt_str(d.get("coverage")), note=_opt_str(d.get("note")),
        )


@dataclass(frozen=True)
class DerivationInfo:
    """One derivation ``child <- parent`` of a family, as a lineage folder keeps it.

    Attributes:
        method: The link rule's ``by`` (``text``, ``id``, ``index``); None: documented only.
        child_field: The link rule's ``child_field`` (``id``/``index`` rules naming the parent
            id in another field). Known when built from a spec; not written to ``family.json``
            (None when read from it).
        activity_iri, activity_label: A spec-declared activity's IRI and label (None for
            the built-in kinds; written to ``family.json`` only when set).
    """

    child: str
    parent: str
    activity: str = ""
    coverage: str | None = None
    languages: int | None = None
    method: str | None = None
    threshold: float | None = None
    note: str | None = None
    child_field: str | None = field(default=None, compare=False)
    activity_iri: str | None = None
    activity_label: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The derivation's entry of ``family.json``."""
        out: dict[str, Any] = {
            "child": self.child, "parent": self.parent, "activity": self.activity,
            "coverage": self.coverage, "languages": self.languages, "method": self.method,
            "threshold": self.threshold, "note": self.note,
        }
        if self.activity_iri:
            out["activity_iri"], out["activity_label"] = self.activity_iri, self.activity_label
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> DerivationInfo:
        threshold = d.get("threshold")
        languages = d.get("languages")
        return cls(
            child=_str(d.get("child")), parent=_str(d.get("parent")), activity=_str(d.get("activity")),
            coverage=_opt_str(d.get("coverage")),
            languages=languages if isinstance(languages, int) and not isinstance(languages, bool) else None,
            method=_opt_str(d.get("method")),
            threshold=threshold if isinstance(threshold, (int, float)) and not isinstance(threshold, bool) else None,
            note=_opt_str(d.get("note")),
            activity_iri=_opt_str(d.get("activity_iri")),
            activity_label=_opt_str(d.get("activity_label")),
        )

    @property
    def joins_by_own_id(self) -> bool:
        """An ``id``/``index`` link on the child's own id (the two sides share their ids)."""
        return self.method in ("id", "index") and self.child_field is None


@dataclass(frozen=True)
class FamilyInfo(_ReadAsJson):
    """A family at dataset level: what a :class:`~croissant_lineage.lineage.model.Lineage` carries.

    Attributes:
        name, title: The family's.
        datasets: Its datasets, in spec order.
        derivations: Its derivations, in spec order.
        language_rules: The spec's :class:`LanguageRules`, ``(language tag, rules)`` pairs.
        path: The spec file it was built from (for error messages); not written.
    """

    name: str = ""
    title: str = ""
    datasets: tuple[DatasetInfo, ...] = ()
    derivations: tuple[DerivationInfo, ...] = ()
    language_rules: tuple[tuple[str, LanguageRules], ...] = ()
    path: Path | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """``family.json``: exactly what :func:`family_info` wrote before it was typed."""
        if self == FamilyInfo():
            return {}
        out: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "datasets": [d.to_dict() for d in self.datasets],
            "derivations": [r.to_dict() for r in self.derivations],
        }
        if self.language_rules:
            out["language_rules"] = {lang: {"scale_words": dict(r.scale_words)} for lang, r in self.language_rules}
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FamilyInfo:
        """Read ``family.json`` (a mapping; missing keys take their defaults)."""
        if not isinstance(d, Mapping):
            return cls()
        datasets = d.get("datasets") or []
        derivs = d.get("derivations") or []
        rules = d.get("language_rules") or {}
        return cls(
            name=_str(d.get("name")),
            title=_str(d.get("title")),
            datasets=tuple(DatasetInfo.from_dict(x) for x in datasets if isinstance(x, Mapping) and "name" in x),
            derivations=tuple(DerivationInfo.from_dict(x) for x in derivs if isinstance(x, Mapping)),
            language_rules=tuple(
                (str(lang), LanguageRules(tuple(sorted(_int_map((r or {}).get("scale_words")).items()))))
                for lang, r in rules.items() if isinstance(r, Mapping) or r is None
            ) if isinstance(rules, Mapping) else (),
        )

    @property
    def rules(self) -> dict[str, LanguageRules]:
        """:attr:`language_rules` by language tag."""
        return dict(self.language_rules)

    def dataset_names(self) -> list[str]:
        """The datasets' names, in order."""
        return [d.name for d in self.datasets]

    def dataset(self, name: str) -> DatasetInfo:
        """A dataset by name.

        Raises:
            SpecError: no such dataset.
        """
        for d in self.datasets:
            if d.name == name:
                return d
        raise SpecError(
            f"no dataset {name!r} in family {self.name!r}",
            path=self.path,
            hint=f"datasets are: {', '.join(self.dataset_names())}",
        )

    def iris(self) -> dict[str, str]:
        """Dataset name -> IRI."""
        return {d.name: d.iri for d in self.datasets}


def family_info(spec: FamilySpec) -> FamilyInfo:
    """The dataset-level view of a family spec that a :class:`Lineage` carries and its folder keeps."""
    return FamilyInfo(
        name=spec.name,
        title=spec.title,
        datasets=tuple(
            DatasetInfo(d.name, d.iri, d.title, d.date, tuple(d.languages), d.coverage, d.note)
            for d in spec.datasets.values()
        ),
        derivations=tuple(
            DerivationInfo(
                r.child, r.parent, r.activity, r.coverage, r.languages,
                r.link.by if r.link else None, r.link.threshold if r.link else None, r.note,
                child_field=_field_name(r.link.child_field) if r.link else None,
                activity_iri=r.activity_iri, activity_label=r.activity_label,
            )
            for r in spec.derivations
        ),
        language_rules=tuple(spec.language_rules.items()),
        path=spec.path,
    )


def _field_name(value: object) -> str | None:
    """A link rule's ``child_field`` as text (an expression is kept in its JSON spelling)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, sort_keys=True)


@dataclass(frozen=True)
class DerivationCounts:
    """The counts of one linked derivation (an entry of ``summary.json``'s ``derivations``)."""

    child: str
    parent: str
    activity: str
    children: int = 0
    selected: int = 0
    linked: int = 0
    by_method: dict[str, int] = field(default_factory=dict)
    unmatched: int = 0
    ambiguous: int = 0
    with_alternatives: int = 0
    key_inherited: int = 0
    key_changed: int = 0
    options_added: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {f.name: (dict(v) if isinstance(v := getattr(self, f.name), dict) else v) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> DerivationCounts:
        kw: dict[str, Any] = {f.name: d[f.name] for f in fields(cls) if f.name in d}
        if "by_method" in kw:
            kw["by_method"] = _int_map(kw["by_method"])
        return cls(**{"child": "", "parent": "", "activity": "", **kw})


@dataclass(frozen=True)
class ProposalCounts:
    """A discovered derivation's counts (an entry of a discovery's ``summary.json``)."""

    child: str
    parent: str
    activity: str
    child_items: int
    parent_items: int
    linked: int
    share: float
    parent_coverage: float
    evidence: dict[str, int | str] = field(default_factory=dict)
    also_matched: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: (dict(v) if isinstance(v := getattr(self, f.name), dict) else v) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ProposalCounts:
        kw: dict[str, Any] = {f.name: d.get(f.name) for f in fields(cls)}
        return cls(**kw)


@dataclass(frozen=True)
class LinkSummary(_ReadAsJson):
    """The counts of a linked family (``summary.json``, what ``link --json`` prints).

    Attributes:
        family: The family's name.
        items: Items per dataset.
        edges: Edges in all.
        derivations: Per derivation, in spec order: :class:`DerivationCounts` (a link) or
            :class:`ProposalCounts` (a discovery).
        duplicate_groups: Duplicate groups per dataset (None: not counted, as in a discovery).
        unmatched: Unmatched children in all.
        keys_unread: Per dataset, the items whose key the spec names but could not be read
            (datasets with none are left out); each is a ``CL-W002`` warning (:attr:`warnings`).
    """

    family: str = ""
    items: dict[str, int] = field(default_factory=dict)
    edges: int = 0
    derivations: tuple[DerivationCounts | ProposalCounts, ...] = ()
    duplicate_groups: dict[str, int] | None = None
    unmatched: int = 0
    keys_unread: dict[str, int] = field(default_factory=dict)

    @property
    def warnings(self) -> list[dict[str, Any]]:
        """One coded warning per dataset with unread keys (``summary.json``'s ``warnings``)."""
        return [
            {"code": KEYS_UNREAD, "dataset": name, "count": count,
             "message": f"{count} items of {name} have a key the spec names that could not be read"}
            for name, count in self.keys_unread.items()
        ]

    def to_dict(self) -> dict[str, Any]:
        """``summary.json`` without its generator mark (``{}`` for an empty summary)."""
        if self == LinkSummary():
            return {}
        out: dict[str, Any] = {
            "family": self.family,
            "items": dict(self.items),
            "edges": self.edges,
            "derivations": [d.to_dict() for d in self.derivations],
        }
        if self.duplicate_groups is not None:
            out["duplicate_groups"] = dict(self.duplicate_groups)
        out["unmatched"] = self.unmatched
        if self.keys_unread:
            out["keys_unread"] = dict(self.keys_unread)
            out["warnings"] = self.warnings
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LinkSummary:
        """Read ``summary.json`` (its ``generator`` mark ignored)."""
        if not isinstance(d, Mapping) or not d:
            return cls()
        derivs = [x for x in d.get("derivations") or [] if isinstance(x, Mapping)]
        dups = d.get("duplicate_groups")
        return cls(
            family=_str(d.get("family")),
            items=_int_map(d.get("items")),
            edges=_int(d.get("edges")),
            derivations=tuple(
                ProposalCounts.from_dict(x) if "share" in x else DerivationCounts.from_dict(x) for x in derivs
            ),
            duplicate_groups=_int_map(dups) if dups is not None else None,
            unmatched=_int(d.get("unmatched")),
            keys_unread=_int_map(d.get("keys_unread")),
        )


#: What a link read (:mod:`croissant_lineage.lineage.inputs`), in a lineage folder.
INPUTS_FILE = "inputs.json"


@dataclass(frozen=True)
class LinkInputs:
    """What a link read (``inputs.json``; see :mod:`croissant_lineage.lineage.inputs`).

    Attributes:
        family: Digest of the family's name and language rules.
        datasets: Dataset (with items) -> digest of its spec entry, descriptor and data
            files (None: they could not be read).
        derivations: ``child <- parent`` -> digest of the item derivation, in spec order.
    """

    family: str
    datasets: dict[str, str | None]
    derivations: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        """``inputs.json``."""
        return {"family": self.family, "datasets": dict(self.datasets), "derivations": dict(self.derivations)}

    @classmethod
    def from_dict(cls, d: Any) -> LinkInputs | None:
        """The inputs ``d`` records, or None when it is not an ``inputs.json``."""
        if not isinstance(d, dict) or not isinstance(d.get("family"), str):
            return None
        ds, dv = d.get("datasets"), d.get("derivations")
        if not isinstance(ds, dict) or not isinstance(dv, dict):
            return None
        if not all(v is None or isinstance(v, str) for v in ds.values()) or not all(isinstance(v, str) for v in dv.values()):
            return None
        return cls(d["family"], dict(ds), dict(dv))
