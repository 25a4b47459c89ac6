"""The glossary's quantities and the window breakdown in words: a term's name, its tooltip (what it includes
and its formula), the parts of a window, and the one-line reading of a breakdown.

Invariant: pure — the language is a parameter; English formulas are ``compressor.glossary``'s own, Chinese ones
come from ``zh.FORMULAS``; every number is a field of the value given.
"""

from __future__ import annotations

from compressor.glossary import GLOSSARY, PartCode, TermCode
from compressor.window_parts import WindowBreakdown

from . import zh
from .catalog import part_names, percent, translate


def term_name(code: TermCode, language: str) -> str:
    return translate(language, f"term.{code}")


def formula(code: TermCode, language: str) -> str:
    """How the quantity is computed: the library's formula, or its Chinese reading."""
    if language == "zh":
        return zh.FORMULAS.get(code, GLOSSARY[code].formula)
    return GLOSSARY[code].formula


def term_help(code: TermCode, language: str) -> str:
    """A tooltip: what the quantity is and includes, then its formula (markdown)."""
    includes = GLOSSARY[code].includes
    parts = f" ({', '.join(part_names(language)[part] for part in includes)})" if includes else ""
    how = translate(language, "term.formula", formula=f"`{formula(code, language)}`")
    return f"{translate(language, f'term.{code}.help')}{parts}\n\n{how}"


def shown_parts(breakdown: WindowBreakdown) -> list[tuple[PartCode, int]]:
    """The parts a bar draws: the non-empty ones (a negative drift is told in words, not drawn)."""
    return [(code, tokens) for code, tokens in breakdown.parts if tokens > 0]


def breakdown_caption(breakdown: WindowBreakdown, language: str) -> str:
    """'14,936 of 16,000 tokens used (93.4%): 6.6% left, due now until compaction at 12,800.'"""
    until = (
        percent(breakdown.until_compaction_share)
        if breakdown.until_compaction_tokens
        else translate(language, "breakdown.due")
    )
    return translate(
        language,
        "breakdown.caption",
        total=breakdown.total_tokens,
        capacity=breakdown.capacity,
        used=percent(breakdown.used_share),
        left=percent(breakdown.left_share),
        until=until,
        threshold=breakdown.threshold,
    )


def parts_sentence(breakdown: WindowBreakdown, language: str) -> str:
    """'The window total is system 414 + span to compress 14,457 + ….' (the parts that hold tokens)."""
    names = part_names(language)
    parts = " + ".join(f"{names[code]} {tokens:,}" for code, tokens in shown_parts(breakdown))
    return translate(language, "breakdown.parts", parts=parts or "0")


def breakdown_notes(breakdown: WindowBreakdown, language: str) -> list[str]:
    """What else a reader must know about this window: over capacity, a counter that counts more than usage."""
    notes: list[str] = []
    if breakdown.over_tokens:
        notes.append(translate(language, "breakdown.over", over=breakdown.over_tokens))
    drift = breakdown.part("drift")
    if drift < 0:
        notes.append(translate(language, "breakdown.drift_negative", drift=-drift))
    return notes
