"""Verifying translated (and copied) items joined to their source items by id or index.

A translation joined by a declared id (Global-MMLU ``sample_id``, MMLU-ProX
``question_id_src``) or by a row-index convention (MMMLU) is only as good as the
convention. :func:`verify_translations` checks every such join instead of trusting it:

* the answer letter is the same, and so is the number of options;
* evidence that survives translation agrees (:mod:`croissant_lineage.linking.evidence`,
  numbers read in each dataset's declared language): numbers (``1,000`` = ``1 000`` = ``1000``),
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

Modules: ``evidence`` (tokens and their agreement score), ``probe`` (one join checked
against a source item), ``shifts`` (row-index shift detection and realignment), ``verify``
(the audit of a linked family), ``report`` (:class:`TranslationReport` and its tables).
"""

from __future__ import annotations

from croissant_lineage.audits.translations.evidence import (
    Evidence,
    NumberReader,
    evidence_score,
    extract_evidence,
    number_reader,
)
from croissant_lineage.audits.translations.probe import SUPPORT_SCORE, TEXT_SUPPORT_SCORE
from croissant_lineage.audits.translations.report import (
    GROUPS_SCHEMA,
    SHIFTS,
    SHIFTS_SCHEMA,
    STATUSES,
    VERIFICATION_SCHEMA,
    ItemVerification,
    ShiftResult,
    TranslationReport,
)
from croissant_lineage.audits.translations.shifts import detect_shift
from croissant_lineage.audits.translations.verify import (
    JOIN_METHODS,
    TRANSLATION_ACTIVITIES,
    verify_joins,
    verify_translations,
)

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
    "NumberReader",
    "ShiftResult",
    "TranslationReport",
    "detect_shift",
    "evidence_score",
    "extract_evidence",
    "number_reader",
    "verify_joins",
    "verify_translations",
]
