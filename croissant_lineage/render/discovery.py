"""The text views of :class:`~croissant_lineage.discovery.propose.Discovery` and
:class:`~croissant_lineage.discovery.family.FamilyDiscovery` (``croissant-lineage discover``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from croissant_lineage._results import register_text

if TYPE_CHECKING:
    from croissant_lineage.discovery.family import FamilyDiscovery
    from croissant_lineage.discovery.propose import Discovery


__all__ = ["discovery_text", "family_discovery_text"]


@register_text("croissant_lineage.discovery.propose:Discovery")
def discovery_text(result: Discovery) -> str:
    """Roles guessed, derivations proposed (with their counts), refusals and loners."""
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
    for name in result.no_relative:
        lines.append(f"{name}: no relative in the corpus: no derivation proposed")
    if result.out is not None:
        lines.append(f"wrote {result.out}/family-fragment.json, lineage/ (edges method: discovered), discover.json, index/")
    return "\n".join(lines)


@register_text("croissant_lineage.discovery.family:FamilyDiscovery")
def family_discovery_text(result: FamilyDiscovery) -> str:
    """Per dataset its proposed parent, activity and the rule that decided the direction; the
    related pairs left without a derivation (siblings, undecided) and the loners."""
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
    for child, choice in result.choices.items():
        for why in ("cycle", "dropped"):
            if why in choice:
                lines.append(f"{child}: no parent ({choice[why]})")
    for r in result.relations:
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
