"""Model prediction archives as secondary witnesses for contested keys.

Three steps, each usable on its own:

1. :func:`admit` reads prediction archives (see :mod:`~croissant_lineage.audits.witnesses.archives`) and
   admits only the records that match the snapshot being judged: same item id, same
   options (exact text, same order) and same key letter. Every other record is counted
   under exactly one reason, checked in the order of :data:`REJECT_REASONS`.
2. :func:`~croissant_lineage.audits.witnesses.contested.contested_items` turns claims ``(finding id,
   item ref, proposed answer text)`` into the contested items of the snapshot (see
   :mod:`~croissant_lineage.audits.witnesses.contested`, which also routes findings through lineage).
3. :func:`tally` counts, on the contested items, which option each model picked, and
   returns per-model, per-item and pooled tallies and one :class:`WitnessEvidence` per
   (finding, item) for the findings module to store as evidence.

:func:`witness` runs 1-3 on an item table; :func:`witness_lineage` on a snapshot of a
linked family, routing findings through its edges
(:func:`croissant_lineage.workflows.witness_family` starts from a family spec, a data
folder, an archives folder and findings files: what the CLI calls).

Definitions (also in :data:`DEFINITIONS` and in every report):

* *graded* records of a model: records matching the snapshot item (id, options, key),
  whether or not the prediction is usable (admitted + null pred + pred out of range);
* *accuracy*: 100 x (admitted records whose pred equals the key) / graded; null and
  out-of-range predictions count as wrong (no random-guess fallback);
* *accuracy change*: accuracy with each contested item's key replaced by the proposed
  answer, minus accuracy (percentage points); items with conflicting proposals are left
  out;
* a model *prefers the proposed answer* when, over the contested items it answered
  (admitted records), it picked the proposed answer more often than the published key;
* *pooled ratio*: P / O, where P is the number of picks of the proposed answer summed
  over contested items and models, and O the picks an average other option gets,
  summed likewise: per item, picks of the options that are neither key nor proposed,
  divided by the number of such options. Items with no such option are left out of
  both sums. 1 means the proposed answer draws no more picks than a typical distractor.

Modules: ``archives`` (reading archives safely), ``admission``, ``contested`` (claims,
routed through lineage), ``tallies``, ``report`` (:class:`WitnessReport`), ``audit``
(:func:`witness`, :func:`witness_lineage`).
"""

from __future__ import annotations

from croissant_lineage.audits.witnesses.admission import (
    REJECT_REASONS,
    Admission,
    AdmissionRow,
    admit,
)
from croissant_lineage.audits.witnesses.archives import (
    ArchiveLimits,
    ArchiveMember,
    Prediction,
    inspect_archive,
    iter_archive,
    list_archives,
)
from croissant_lineage.audits.witnesses.audit import witness, witness_lineage
from croissant_lineage.audits.witnesses.contested import (
    ClaimRouting,
    Contested,
    ContestedClaim,
    ContestedItem,
    claims_from_findings,
    contested_items,
)
from croissant_lineage.audits.witnesses.report import (
    DEFINITIONS,
    ItemTallies,
    ItemTally,
    ModelTallies,
    ModelTally,
    PooledTally,
    WitnessEvidence,
    WitnessReport,
    with_witness_evidence,
)
from croissant_lineage.audits.witnesses.tallies import tally

__all__ = [
    "DEFINITIONS",
    "REJECT_REASONS",
    "Admission",
    "AdmissionRow",
    "ArchiveLimits",
    "ArchiveMember",
    "ClaimRouting",
    "Contested",
    "ContestedClaim",
    "ContestedItem",
    "ItemTallies",
    "ItemTally",
    "ModelTallies",
    "ModelTally",
    "PooledTally",
    "Prediction",
    "WitnessEvidence",
    "WitnessReport",
    "admit",
    "claims_from_findings",
    "contested_items",
    "inspect_archive",
    "iter_archive",
    "list_archives",
    "tally",
    "with_witness_evidence",
    "witness",
    "witness_lineage",
]
