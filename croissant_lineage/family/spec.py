"""The family spec: which datasets form a benchmark family and how they derive.

A family spec is a JSON or YAML file checked against ``schemas/family.schema.json``.
It names each dataset, its Croissant descriptor, the RecordSet holding its items, the
fields that play the roles *id*, *subject*, *stem*, *options* and *key*, and the
derivations between datasets, each with an activity kind and how to link items.

The MMLU family ships with the package: ``load_family("mmlu")``.

Role values:
    * ``"question"``: a field's short name;
    * ``["A", "B", "C", "D"]``: several fields (options only); null values are dropped;
    * ``"{subject}/test/{_row}"``: a template over field names, ``_row`` (0-based row
      in the file) and ``_file``;
    * ``{"field": "src", "regex": "^ori_mmlu-(.+)$"}``: a field through a regex (group 1);
      with ``"replace": "HumanEval/\\1"`` the match expanded by that template instead;
    * ``{"field": "choices", "parse": "python_list"}``: a list written as a Python literal.

Options are optional. The key role may be an object that gives the key's **kind**
(:data:`KEY_KINDS`): ``{"field": "answer", "kind": "number", "pattern": "####\\s*(.+)$",
"tolerance": 0.001}``. ``option`` (the default: a letter or index, read by ``key_format``),
``text``, ``number``, ``set`` (several acceptable answers: a list field, or a text cut at
``separator``) or ``tests`` (the key field is a reference solution, graded by the tests
of the ``tests`` role). ``pattern`` extracts the key from a longer field (``re.search``):
its group named ``key`` if it has one, else group 1, else the whole match. The roles
``solution`` (a worked solution or rationale) and ``tests`` are optional text roles.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from croissant_lineage._io import (
    DuplicateKeyError,
    check_document_size,
    load_yaml,
    loads_json,
    note_dataset,
    read_text,
)
from croissant_lineage._results import is_uri
from croissant_lineage.croissant.hub import parse_hub_id
from croissant_lineage.errors import ArgumentError, InputError, SpecError
from croissant_lineage.family.shipped import builtin_families, builtin_family_path

if TYPE_CHECKING:
    import jsonschema

__all__ = [
    "ACTIVITIES",
    "ANNOTATION_ACTIVITIES",
    "KEY_KINDS",
    "ONE_CHILD_PER_PARENT",
    "TRANSLATION_ACTIVITIES",
    "VERSION_ACTIVITIES",
    "DatasetSpec",
    "Derivation",
    "FamilySpec",
    "LanguageRules",
    "LinkRule",
    "as_spec",
    "iri_problems",
    "item_iri_prefix",
    "load_family",
    "parse_family",
]

#: Activity kinds of a derivation (dataset level and item level). What an edge did to each
#: content (stem, options, key, solution, tests) is read from the items, whatever the name
#: (the edges' ``<content>_status`` columns); the names say what the maintainers did:
#: ``perturbation`` (values in the stem changed, the answer recomputed),
#: ``templated_variants`` (many children per parent, generated from a template),
#: ``paraphrase`` (the stem reworded), ``format_conversion`` (a copy under new field
#: names or another file format), ``test_augmentation`` (tests added to code items);
#: ``re_annotation`` covers keys and worked solutions alike (the edge statuses say which).
ACTIVITIES = (
    "copy",
    "filter",
    "option_expansion",
    "re_release",
    "re_annotation",
    "translation",
    "snapshot",
    "code_translation",
    "perturbation",
    "templated_variants",
    "paraphrase",
    "format_conversion",
    "test_augmentation",
)

# The groupings of the activity kinds the later stages act on, each declared once here.

#: Activities whose child is a later version of the same items (a snapshot chain, the
#: versions a re-review queue folds into one row).
VERSION_ACTIVITIES = ("snapshot", "re_release")

#: Activities where a parent item has at most one child item.
ONE_CHILD_PER_PARENT = ("re_release", "copy", "format_conversion")

#: Activities whose joins the translation audit verifies.
TRANSLATION_ACTIVITIES = ("translation", "copy", "filter", "format_conversion")

#: Activities that re-annotate items (the family report's re-annotation counts).
ANNOTATION_ACTIVITIES = ("re_annotation",)

#: Translations: the child's texts are in another (natural or programming) language.
TRANSLATION_KINDS = ("translation", "code_translation")

#: Kinds of a key (the key role's ``kind``): an option letter or index; a text; a number
#: (read from "1,000", "$18", "18.0", "3/4", "1e3"; equal under the ``tolerance``); a set
#: of acceptable answers; a reference solution graded by tests.
KEY_KINDS = ("option", "text", "number", "set", "tests")

#: The key role object's own properties (the others are the field expression's).
_KEY_PROPS = ("kind", "pattern", "tolerance", "separator")


def _schema() -> dict[str, Any]:
    text = resources.files("croissant_lineage").joinpath("schemas/family.schema.json").read_text("utf-8")
    return dict(json.loads(text))


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset of a family.

    Attributes:
        name: Short name used in item refs (``mmlu-pro``); no ``:``.
        iri: The dataset's IRI (its Hub or repository URL).
        descriptor: Path to its Croissant descriptor (absolute), or None when the
            dataset has no item data here (documented coverage only) or is on the Hub.
        hub_id: A Hugging Face dataset id (``owner/name``) given as ``descriptor`` in the
            spec, written ``hf://owner/name`` (a bare ``owner/name`` is a path): its Croissant and files are downloaded when items are loaded.
        record_set: RecordSet holding the items.
        roles: Role -> field expression (see module docstring).
        key_format: For an ``option`` key: ``letter`` (A, B...), ``index`` (0-based) or
            ``text`` (the option's text).
        key_kind: The key's kind (:data:`KEY_KINDS`); None when no key role is given.
        key_pattern: A regex the key is extracted with (group ``key``, else 1, else all).
        key_tolerance: Absolute tolerance under which two ``number`` keys are equal.
        key_separator: For a ``set`` key written as one text: what separates the answers.
        where: Field -> value filters applied after reading (e.g. ``{"split": "test"}``).
        files_relative_to_data_dir: Resolve the descriptor's file URLs against the
            ``--data-dir`` given at link time instead of the descriptor's folder.
        loader: For a Hub id: ``croissant`` (the Hub's generated Croissant and the files
            it lists, the default) or ``datasets`` (``datasets.load_dataset``, with its
            cache and ``HF_HUB_OFFLINE``; ``record_set`` is then the config name).
    """

    name: str
    iri: str
    title: str = ""
    descriptor: Path | None = None
    record_set: str | None = None
    roles: dict[str, Any] = field(default_factory=dict)
    key_format: str = "letter"
    key_kind: str | None = None
    key_pattern: str | None = None
    key_tolerance: float = 0.0
    key_separator: str | None = None
    where: dict[str, Any] = field(default_factory=dict)
    date: str | None = None
    languages: tuple[str, ...] = ()
    coverage: str = "items"  # "items" | "documented"
    note: str = ""
    files_relative_to_data_dir: bool = False
    hub_id: str | None = None
    loader: str = "croissant"

    @property
    def has_items(self) -> bool:
        return self.descriptor is not None or self.hub_id is not None


@dataclass(frozen=True)
class LinkRule:
    """How items of a child dataset find their parent item.

    Attributes:
        by: ``text`` (normalised stem, then fuzzy), ``id`` (a child field equals the parent
            item id) or ``index`` (like ``id``, for row-index conventions whose alignment
            must be verified).
        child_field: For ``id``/``index``: the child expression giving the parent id
            (default: the child's own item id).
        select: Only child items whose field matches: ``{"field": f, "regex": r}``.
        child_block / parent_block: Expressions giving the blocking key (default:
            subject on both sides; None disables blocking).
        threshold: Minimum fuzzy score (0-100) to accept a link.
    """

    by: str = "text"
    child_field: Any = None
    select: dict[str, str] | None = None
    child_block: Any = "subject"
    parent_block: Any = "subject"
    threshold: float = 85.0


@dataclass(frozen=True)
class LanguageRules:
    """Evidence rules of one language, as data (the spec's ``language_rules``).

    Attributes:
        scale_words: Words that multiply the number before them, with their power of ten
            (``("万", 4)``), sorted.
    """

    scale_words: tuple[tuple[str, int], ...] = ()


def rules_for(rules: dict[str, LanguageRules], language: str | None) -> LanguageRules | None:
    """The rules of a language tag: its own, else its primary subtag's (``zh`` for ``zh-CN``)."""
    if not language:
        return None
    found = rules.get(language)
    return found if found is not None else rules.get(language.split("-")[0])


@dataclass(frozen=True)
class Derivation:
    """A dataset-level derivation ``child <- parent`` with its activity.

    Attributes:
        child / parent: Dataset names.
        activity: One of :data:`ACTIVITIES`.
        link: How child items find their parent item (None: documented only).
        coverage: ``items`` (linked item by item) or ``documented``.
        note: Free text from the spec.
        languages: For a documented translation: how many languages it covers.
        child_languages / parent_languages: The two datasets' declared languages
            (filled in by :func:`parse_family`; empty: not declared).
        language_rules: The spec's :class:`LanguageRules` of those languages, by tag.
        key_tolerance: The larger of the two datasets' ``number`` key tolerances.
        activity_iri / activity_label: For an activity the spec declares (not one of
            :data:`ACTIVITIES`): its IRI (PROV-O class) and label; None for the built-in kinds.
    """

    child: str
    parent: str
    activity: str
    link: LinkRule | None = None
    coverage: str = "items"  # "items" | "documented"
    note: str = ""
    languages: int | None = None
    child_languages: tuple[str, ...] = ()
    parent_languages: tuple[str, ...] = ()
    language_rules: dict[str, LanguageRules] = field(default_factory=dict)
    key_tolerance: float = 0.0
    activity_iri: str | None = None
    activity_label: str | None = None

    @property
    def is_translation(self) -> bool:
        """Are the child's texts a translation of the parent's?

        True when the activity is ``translation`` or ``code_translation``, unless both datasets declare their
        languages and declare the same ones (a "translation" into the parent's own
        language, whose texts can be compared as copies). Linking pairs the options of a
        translation by position and does not compare stems.
        """
        langs = (self.child_languages, self.parent_languages)
        return self.activity in TRANSLATION_KINDS and (not all(langs) or langs[0] != langs[1])


@dataclass(frozen=True)
class FamilySpec:
    """A benchmark family: datasets and derivations.

    Attributes:
        name: Family name.
        path: The spec file it was read from.
        datasets: By name, in file order.
        derivations: In file order.
        language_rules: Per-language evidence rules, by language tag.
    """

    name: str
    path: Path | None
    datasets: dict[str, DatasetSpec]
    derivations: tuple[Derivation, ...]
    title: str = ""
    description: str = ""
    language_rules: dict[str, LanguageRules] = field(default_factory=dict)

    def dataset(self, name: str) -> DatasetSpec:
        """Return a dataset by name.

        Raises:
            SpecError: no such dataset.
        """
        try:
            return self.datasets[name]
        except KeyError:
            raise SpecError(
                f"no dataset {name!r} in family {self.name!r}",
                path=self.path,
                hint=f"datasets are: {', '.join(self.datasets)}",
            ) from None

    def item_derivations(self) -> list[Derivation]:
        """Derivations with item data on both sides, parents before children."""
        order = {n: i for i, n in enumerate(self.topological_order())}
        items = [d for d in self.derivations if d.coverage == "items" and d.link is not None]
        return sorted(items, key=lambda d: (order[d.child], order[d.parent]))

    def topological_order(self) -> list[str]:
        """Dataset names with every parent before its children.

        Raises:
            SpecError: the derivations form a cycle.
        """
        parents: dict[str, list[str]] = {n: [] for n in self.datasets}
        for d in self.derivations:
            parents[d.child].append(d.parent)
        done: list[str] = []
        state: dict[str, int] = {}

        def visit(n: str, trail: list[str]) -> None:
            if state.get(n) == 2:
                return
            if state.get(n) == 1:
                raise SpecError(f"derivation cycle: {' -> '.join([*trail, n])}", path=self.path)
            state[n] = 1
            for p in parents[n]:
                visit(p, [*trail, n])
            state[n] = 2
            done.append(n)

        for n in self.datasets:
            visit(n, [])
        return done


#: The schema's ``format`` keywords, enforced (jsonschema only annotates ``uri`` unless a
#: checker for it is installed): a dataset ``iri`` must be an absolute URI.
@functools.cache
def _formats() -> jsonschema.FormatChecker:
    import jsonschema  # (here: reading a lineage's family needs no schema check)

    checker = jsonschema.FormatChecker(formats=())
    checker.checks("uri")(is_uri)
    return checker


def parse_family(doc: Any, path: Path | None = None) -> FamilySpec:
    """Build a :class:`FamilySpec` from a parsed JSON/YAML document.

    Descriptor paths are resolved relative to the spec's folder.

    Raises:
        SpecError: the document does not follow the schema, or names unknown datasets.
    """
    import jsonschema

    try:
        jsonschema.validate(doc, _schema(), format_checker=_formats())
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise SpecError(f"at {where}: {exc.message}", path=path) from None
    base = path.parent if path else Path.cwd()
    datasets: dict[str, DatasetSpec] = {}
    for d in doc["datasets"]:
        if d["name"] in datasets:
            raise SpecError(f"dataset {d['name']!r} is declared twice", path=path)
        datasets[d["name"]] = _dataset_spec(d, base, path)
    rules = {
        lang: LanguageRules(tuple(sorted((r.get("scale_words") or {}).items())))
        for lang, r in sorted((doc.get("language_rules") or {}).items())
    }
    declared = doc.get("activities") or {}
    for name in declared:
        if name in ACTIVITIES:
            raise SpecError(f"activities/{name}: a built-in activity kind; declare another name", path=path)
    derivations = [_derivation(i, r, datasets, path, rules, declared) for i, r in enumerate(doc.get("derivations", []))]
    spec = FamilySpec(
        name=doc["name"],
        path=path,
        datasets=datasets,
        derivations=tuple(derivations),
        title=doc.get("title", ""),
        description=doc.get("description", ""),
        language_rules=rules,
    )
    spec.topological_order()
    problems = iri_problems(datasets.values())
    if problems:
        raise SpecError(problems[0], path=path, hint="give each dataset an IRI with at most one '#'; no item dataset's IRI extended by another's items")
    return spec


def item_iri_prefix(dataset_iri: str) -> str:
    """What an item IRI of the dataset starts with: the dataset's IRI and ``#`` (a trailing
    ``#`` of the dataset's IRI is not doubled); when the dataset's IRI has a fragment already
    (``.../Global-MMLU#en``), that fragment and ``/`` (``.../Global-MMLU#en/``). An item IRI
    so never holds two ``#``: a fragment cannot hold one (RFC 3986)."""
    base = dataset_iri.rstrip("#")
    return f"{base}/" if "#" in base else f"{base}#"


def iri_problems(datasets: Iterable[DatasetSpec]) -> list[str]:
    """Why the datasets' IRIs cannot give every item an IRI of its own with one ``#``.

    An item's IRI is its dataset's IRI and a fragment naming the item
    (:func:`item_iri_prefix`: ``#`` and the id, or, when
    the dataset's IRI has a fragment already, ``/`` and the id inside that fragment). So a
    dataset IRI may hold one ``#``, not two; and of two datasets with items, the item IRIs
    of one must not start with the other's (``X`` and ``X#en``: item ``en/3`` of ``X``
    would be item ``3`` of ``X#en``).
    """
    out: list[str] = []
    prefixes: list[tuple[str, str]] = []
    for d in datasets:
        base = d.iri.rstrip("#")
        if base.count("#") > 1:
            out.append(f"dataset {d.name!r}: IRI {d.iri} holds two '#' (its items' IRIs would hold three)")
            continue
        if d.has_items:
            prefixes.append((d.name, item_iri_prefix(d.iri)))
    for name, prefix in prefixes:
        for other, longer in prefixes:
            if other != name and longer.startswith(prefix):
                out.append(f"datasets {name!r} and {other!r}: the item IRIs of {other!r} start with those of "
                           f"{name!r} ({prefix}), so two items could share an IRI")
    return out


def _dataset_spec(d: dict[str, Any], base: Path, path: Path | None) -> DatasetSpec:
    """One ``datasets`` entry; a descriptor path is resolved against ``base``."""
    desc = d.get("descriptor")
    if isinstance(desc, str) and "\x00" in desc:
        raise SpecError(f"dataset {d['name']!r}: descriptor path holds a NUL byte", path=path)
    hub_id = parse_hub_id(desc) if desc else None
    if d.get("loader") == "datasets" and hub_id is None:
        raise SpecError(f"dataset {d['name']!r}: loader 'datasets' needs a Hub id (hf://owner/name) as descriptor", path=path)
    if desc and not {"id", "stem"} <= set(d.get("roles", {})):
        raise SpecError(f"dataset {d['name']!r} needs at least the roles id and stem", path=path)
    local = (base / desc).resolve() if desc and not hub_id else None
    if local is not None:
        note_dataset(local)  # a dataset the spec names: none of its files is replaced, read or not
    roles = dict(d.get("roles", {}))
    key = roles.get("key")
    key_props: dict[str, Any] = {}
    if isinstance(key, dict) and set(key) & set(_KEY_PROPS):
        key_props = {k: key[k] for k in _KEY_PROPS if k in key}
        roles["key"] = {k: v for k, v in key.items() if k not in _KEY_PROPS}
        if set(roles["key"]) == {"field"}:
            roles["key"] = roles["key"]["field"]
    kind = key_props.get("kind", "option") if "key" in roles else None
    if kind == "tests" and "tests" not in roles:
        raise SpecError(f"dataset {d['name']!r}: a key of kind 'tests' needs the role tests (the field holding them)", path=path)
    if "pattern" in key_props:
        _check_pattern(d["name"], key_props["pattern"], path)
    return DatasetSpec(
        name=d["name"],
        iri=d["iri"],
        title=d.get("title", ""),
        descriptor=local,
        hub_id=hub_id,
        record_set=d.get("record_set"),
        roles=roles,
        key_format=d.get("key_format", "letter"),
        key_kind=kind,
        key_pattern=key_props.get("pattern"),
        key_tolerance=float(key_props.get("tolerance", 0.0)),
        key_separator=key_props.get("separator"),
        where=dict(d.get("where", {})),
        date=d.get("date"),
        languages=tuple(d.get("languages", ())),
        coverage="items" if desc else "documented",
        note=d.get("note", ""),
        files_relative_to_data_dir=bool(d.get("files_relative_to_data_dir", False)),
        loader=d.get("loader", "croissant"),
    )


def _check_pattern(name: str, pattern: str, path: Path | None) -> None:
    """Refuse a key pattern that does not compile."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise SpecError(f"dataset {name!r}: key pattern does not compile: {exc}", path=path) from None


def _link_rule(lk: dict[str, Any]) -> LinkRule:
    return LinkRule(
        by=lk.get("by", "text"),
        child_field=lk.get("child_field"),
        select=lk.get("select"),
        child_block=lk.get("child_block", "subject"),
        parent_block=lk.get("parent_block", "subject"),
        threshold=float(lk.get("threshold", 85.0)),
    )


def _derivation(
    i: int, r: dict[str, Any], datasets: dict[str, DatasetSpec], path: Path | None,
    rules: dict[str, LanguageRules] | None = None,
    declared: dict[str, dict[str, str]] | None = None,
) -> Derivation:
    """Derivation ``i`` of the spec, checked against its datasets and the declared activities."""
    for side in ("child", "parent"):
        if r[side] not in datasets:
            raise SpecError(
                f"derivations/{i}: {side} {r[side]!r} is not a dataset of this family", path=path
            )
    own = (declared or {}).get(r["activity"])
    if r["activity"] not in ACTIVITIES and own is None:
        raise SpecError(
            f"derivations/{i}: unknown activity {r['activity']!r}", path=path,
            hint=f"use one of {', '.join(ACTIVITIES)}, or declare it under activities with an iri and a label",
        )
    both_items = datasets[r["child"]].has_items and datasets[r["parent"]].has_items
    coverage = r.get("coverage", "items" if both_items else "documented")
    if coverage == "items" and not both_items:
        raise SpecError(
            f"derivations/{i}: item coverage needs item data on both sides; "
            "mark it \"coverage\": \"documented\"",
            path=path,
        )
    return Derivation(
        child=r["child"],
        parent=r["parent"],
        activity=r["activity"],
        link=_link_rule(r.get("link", {})) if coverage == "items" else None,
        coverage=coverage,
        note=r.get("note", ""),
        languages=r.get("languages"),
        child_languages=datasets[r["child"]].languages,
        parent_languages=datasets[r["parent"]].languages,
        language_rules={
            lang: found
            for lang in (*datasets[r["child"]].languages, *datasets[r["parent"]].languages)
            if (found := rules_for(rules or {}, lang)) is not None
        },
        key_tolerance=max(datasets[r["child"]].key_tolerance, datasets[r["parent"]].key_tolerance),
        activity_iri=own["iri"] if own else None,
        activity_label=own["label"] if own else None,
    )


def as_spec(family: object, param: str = "family") -> FamilySpec:
    """A family given as a :class:`FamilySpec`, a built-in name (``"mmlu"``) or a spec path,
    as a spec: the one conversion every public function taking a family uses.

    Raises:
        ArgumentError: ``family`` is none of these (the message names ``param``).
        InputError, SpecError: as :func:`load_family`.
    """
    if isinstance(family, FamilySpec):
        return family
    if isinstance(family, (str, os.PathLike)):
        return load_family(Path(family) if not isinstance(family, str) else family)
    raise ArgumentError(
        f"{param} must be a FamilySpec, a family name or a spec path, not {type(family).__name__}",
        hint="give a shipped family's name (mmlu) or the path of its family.json",
    )


def load_family(name_or_path: str | Path) -> FamilySpec:
    """Load a family spec: a built-in name (``"mmlu"``) or a JSON/YAML file path.

    Raises:
        InputError: the file is missing or does not parse (an object holding a key twice too).
        SizeLimitError: the file is larger than :data:`croissant_lineage._io.reads.MAX_DOCUMENT_BYTES`.
        SpecError: it parses but is not a valid family spec.
    """
    path = builtin_family_path(str(name_or_path)) or Path(name_or_path)
    if not path.exists():
        raise InputError(
            "family spec not found",
            path=path,
            hint=f"give a spec file or one of: {', '.join(builtin_families())}",
        )
    check_document_size(path, "family spec")
    text, _ = read_text(path)
    try:
        doc = loads_json(text) if path.suffix == ".json" else load_yaml(text)
    except DuplicateKeyError as exc:
        raise InputError(exc.msg, path=path, hint="keep one of the two values") from None
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise InputError(f"does not parse: {exc}".splitlines()[0], path=path) from None
    return parse_family(doc, path)
