"""The text views of :class:`~croissant_lineage.discovery.propose.Discovery` and
:class:`~croissant_lineage.discovery.family.FamilyDiscovery` (``croissant-lineage discover``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from croissant_lineage._results import register_text

if TYPE_CHECKING:
    from croissant_lineage.discovery.content import ContentComparison
    from croissant_lineage.discovery.family import FamilyDiscovery, Relation
    from croissant_lineage.discovery.propose import Discovery


__all__ = ["content_lines", "discovery_text", "family_discovery_text", "twin_lines"]

#: The item contents, in the order the summary lists them (record fields follow).
_CONTENTS = ("stem", "options", "key", "solution", "tests")
#: Statuses in the order the summary lists them (others after, by name).
_STATUSES = ("copied", "edited", "recomputed", "translated", "added", "dropped", "absent", "expanded", "contracted")
#: Record fields listed by name at most; the rest are counted.
_MAX_FIELDS = 8


def _statuses(counts: dict[str, int]) -> str:
    order = {s: i for i, s in enumerate(_STATUSES)}
    return ", ".join(f"{s} {n}" for s, n in sorted(counts.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))


def content_lines(contents: ContentComparison | None) -> list[str]:
    """A proposal's per-content evidence (what ``discover.json`` holds as its ``contents``): for
    the stem, options, key, solution and tests, then each record field, how many pairs copied,
    edited, recomputed, translated, added or dropped it. Empty when contents were not compared."""
    if contents is None or not contents.contents:
        return []
    items = [f"{c} {_statuses(contents.contents[c])}" for c in _CONTENTS if contents.contents.get(c)]
    lines = [f"  contents ({contents.pairs} pairs): {'; '.join(items)}"] if items else []
    fields = sorted(c for c in contents.contents if c.startswith("field:"))
    if fields:
        shown = "; ".join(f"{c.removeprefix('field:')} {_statuses(contents.contents[c])}" for c in fields[:_MAX_FIELDS])
        more = f"; and {len(fields) - _MAX_FIELDS} more" if len(fields) > _MAX_FIELDS else ""
        lines.append(f"  fields ({contents.records_compared} records): {shown}{more}")
    return lines


def _signal(r: Relation) -> str:
    """The content evidence between twins, in words (the counts ``discover.json`` holds)."""
    c: dict[str, Any] = r.counts
    a_more, b_more = c.get(f"{r.a}_answers_expanded", 0), c.get(f"{r.b}_answers_expanded", 0)
    parts = [f"answers differ on {c.get('answers_differ', 0)} pairs ({r.a}'s hold {r.b}'s and more on {a_more}, "
             f"{r.b}'s hold {r.a}'s and more on {b_more})"]
    recomputed = c.get("stems_recomputed", 0)
    if recomputed:
        parts.append(f"stems differ only in their numbers on {recomputed} (values found in other datasets: "
                     f"{r.a}'s on {c.get(f'{r.a}_values_elsewhere', 0)}, {r.b}'s on {c.get(f'{r.b}_values_elsewhere', 0)})")
    parts.append(f"stems edited on {c.get('stems_edited', 0)}; same ids {c.get('same_id', 0)}")
    return "; ".join(parts)


def twin_lines(twins: list[Relation], status: dict[str, str]) -> list[str]:
    """Each pair of twins (each holds >= 95 % of the other's items): the parent the content
    decides, with its rule, or ``direction undecided`` (and how the pair is related otherwise),
    then the content signal between them."""
    if not twins:
        return []
    lines = ["twins (each holds the other's items):"]
    for r in twins:
        if r.parent is None:
            head = r.rule if r.rule.startswith("direction undecided") else f"direction undecided ({r.rule})"
        else:
            head = f"{r.parent} is the parent ({r.rule.removeprefix('twins: ')})"
        other = status.get(f"{r.a} ~ {r.b}")
        extra = f"; no derivation proposed: {other}" if other and other != "direction undecided" else ""
        lines.append(f"  {r.a} ~ {r.b}: {head}{extra}")
        lines.append(f"    content: {_signal(r)}")
    return lines


@register_text("croissant_lineage.discovery.propose:Discovery")
def discovery_text(result: Discovery) -> str:
    """Roles guessed, derivations proposed (with their counts and per-content evidence),
    refusals and loners."""
    lines = [f"corpus index: {result.index['rows']} items ({'reused' if result.index['reused'] else 'built'})"]
    for name, guess in result.roles.items():
        if guess.ok:
            roles = ", ".join(f"{r}={v!r}" for r, v in guess.roles.items())
            lines.append(f"{name}: roles {roles} (key {guess.key_format})")
        else:
            lines.append(f"{name}: roles not inferred: {guess.refused}")
    for p in result.proposals:
        ev = p.evidence
        if "paired_by" in ev:  # a translation (no same-language relative)
            lines.append(
                f"{p.child} <- {p.parent}: {p.activity} (paired by {ev['paired_by']}); {p.linked} of {p.child_items} "
                f"items linked ({100 * p.share:.1f} %); translation-surviving tokens agree on {ev['evidence_agrees']}, "
                f"disagree on {ev['evidence_disagrees']}, absent on {ev['no_evidence']}; "
                f"option counts differ on {ev['option_count_differs']}"
            )
            continue
        lines.append(
            f"{p.child} <- {p.parent}: {p.activity}; {p.linked} of {p.child_items} items linked "
            f"({100 * p.share:.1f} %), {ev['parents_reached']} of {p.parent_items} parent items; "
            f"exact stems {ev['exact_stem']}, edited {ev['stem_edited']}, options added on {ev['options_added']}, "
            f"keys changed {ev['key_changed']}, same ids {ev['same_id']}, ambiguous {ev['ambiguous']}"
        )
        if p.rule:
            lines.append(f"  rule: {p.rule}")
        if p.runner_up:
            lines.append(f"  runner-up: {p.runner_up['parent']} ({p.runner_up['score']})")
        if p.also_matched:
            top = ", ".join(f"{d} {n}" for d, n in list(p.also_matched.items())[:5])
            lines.append(f"  also matched (same children): {top}")
        lines += content_lines(p.contents)
    for name in result.no_relative:
        lines.append(f"{name}: no relative in the corpus: no derivation proposed")
    if result.out is not None:
        lines.append(f"wrote {result.out}/family-fragment.json, lineage/ (edges method: discovered), discover.json, index/")
    return "\n".join(lines)


@register_text("croissant_lineage.discovery.family:FamilyDiscovery")
def family_discovery_text(result: FamilyDiscovery) -> str:
    """Per dataset its proposed parent, activity, the rule that decided the direction and the
    per-content evidence; the twins with their direction (or undecided) and content signal; the
    other related pairs left without a derivation (siblings, undecided) and the loners."""
    lines = [f"stem index: {result.index['rows']} items ({'reused' if result.index['reused'] else 'built'})"]
    for p in result.proposals:
        choice = result.choices[p.child]
        lines.append(
            f"{p.child} <- {p.parent}: {p.activity}; {p.linked} of {p.child_items} items linked ({100 * p.share:.1f} %), "
            f"{p.evidence['parents_reached']} of {p.parent_items} parent items"
        )
        lines.append(f"  direction: {choice['rule']}")
        if p.runner_up:
            lines.append(f"  runner-up: {p.runner_up['parent']} ({p.runner_up['score']} items)")
        if choice.get("tied_with"):
            lines.append(f"  {choice['choice']} (tied with {', '.join(choice['tied_with'])})")
        lines += content_lines(p.contents)
    for child, choice in result.choices.items():
        for why in ("cycle", "dropped"):
            if why in choice:
                lines.append(f"{child}: no parent ({choice[why]})")
    lines += twin_lines(result.twins, result.status)
    for r in result.relations:
        if r.counts.get("twins"):
            continue  # listed with the twins
        status = result.status.get(f"{r.a} ~ {r.b}")
        if status == "direction undecided":
            lines.append(f"{r.a} ~ {r.b} ({r.kind}): {r.rule}")
        elif status is not None and status.startswith("related through"):
            lines.append(f"{r.a} ~ {r.b} ({r.kind}): {status}")
    for name in result.no_relative:
        lines.append(f"{name}: no relative in the family: no derivation proposed")
    if result.out is not None:
        lines.append(f"wrote {result.out}/family-fragment.json, lineage/ (edges method: discovered), discover.json, index/")
    return "\n".join(lines)
