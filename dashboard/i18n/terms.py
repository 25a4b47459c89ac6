"""The glossary's quantities and the window breakdown in words: a term's name, its tooltip (what it includes
and its formula), the parts of a window, and the one-line reading of a breakdown.

Invariant: pure — the language is a parameter; English formulas are ``compressor.glossary``'s own, Chinese ones
come from ``zh.FORMULAS``; every number is a field of the value given.
"""

from __future__ import annotations

from compressor.glossary import GLOSSARY, PartCode, TermCode
from compressor.spans import Span
from compressor.window_parts import WindowBreakdown

from . import zh
from .catalog import counted, part_names, percent, translate


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
    """'14,936 of 16,000 tokens used (93.4%): 6.6% left, and the window has reached the threshold of 12,800.'"""
    values = {
        "total": breakdown.total_tokens,
        "capacity": breakdown.capacity,
        "used": percent(breakdown.used_share),
        "left": percent(breakdown.left_share),
        "threshold": breakdown.threshold,
    }
    if not breakdown.until_compaction_tokens:
        return translate(language, "breakdown.caption_reached", **values)
    return translate(language, "breakdown.caption", until=percent(breakdown.until_compaction_share), **values)


def span_ranges(span: Span, language: str) -> str:
    """'preserved prefix: #0 (1 message) · span to compress: #1–#43 (43 messages) · protected tail: none'."""
    names = part_names(language)

    def one(part: str, bounds: tuple[int, int]) -> str:
        start, end = bounds
        if end <= start:
            return translate(language, "span.range_empty", part=names[part])
        where = f"#{start}" if end - start == 1 else f"#{start}–#{end - 1}"
        count = counted(end - start, "message", language)
        return translate(language, "span.range", part=names[part], where=where, count=count)

    return " · ".join([one("prefix", span.prefix), one("span", span.compress), one("tail", span.tail)])


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
