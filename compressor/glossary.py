"""The named quantities every view shows: one code per concept, what it includes, and how it is computed.

Invariant: each number a page, table, chart or report shows is one of these terms (or a part of the window
breakdown); renderers word the codes in their language, and the formulas are the library's own arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

TermCode = Literal[
    "window_total",
    "context_sent",
    "context_tokens",
    "span_to_compress",
    "hidden_overhead",
    "memory_block",
    "reinjection",
    "threshold",
    "min_span",
    "capacity",
    "left",
    "until_compaction",
    "peak_read",
    "peak_sent",
]
#: The parts a window total is made of, in the order a breakdown draws them (``compressor.window_parts``).
PartCode = Literal["system", "tools", "hidden", "prefix", "span", "tail", "unanchored", "rest", "drift"]


@dataclass(frozen=True, kw_only=True)
class Term:
    """One quantity: its code, the parts of the window it includes, its formula and an English sentence."""

    code: TermCode
    includes: tuple[PartCode, ...]
    formula: str
    definition: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "includes": list(self.includes),
            "formula": self.formula,
            "definition": self.definition,
        }


_WINDOW: tuple[PartCode, ...] = ("system", "tools", "hidden", "prefix", "span", "tail")

GLOSSARY: dict[TermCode, Term] = {
    term.code: term
    for term in (
        Term(
            code="window_total",
            includes=_WINDOW,
            formula=(
                "count(system + context) + count(tools) [+ hidden overhead in a replay]; with reported usage: "
                "the last reported total + characters / 3 of every later message"
            ),
            definition="What the trigger compares with its threshold: everything the next model call reads.",
        ),
        Term(
            code="context_sent",
            includes=_WINDOW,
            formula="the window total after any compaction at this call",
            definition="The window a replayed model call sends, once a compaction at that call is applied.",
        ),
        Term(
            code="context_tokens",
            includes=("prefix", "span", "tail"),
            formula="count(context)",
            definition=(
                "The context messages only (no system messages, no tools): what the benefit check compares "
                "before and after a compaction."
            ),
        ),
        Term(
            code="span_to_compress",
            includes=("span",),
            formula="count(context[last user request + 1 : tail start])",
            definition="The messages after the last real user request and before the kept tail.",
        ),
        Term(
            code="hidden_overhead",
            includes=("hidden",),
            formula="reported usage − count(system + messages up to that call) − count(tools), at the first call with usage",
            definition="What a run's reported usage holds beyond what its file shows (an agent's own prompt and tools).",
        ),
        Term(
            code="memory_block",
            includes=(),
            formula="count([the <memory_block_current> message])",
            definition="The one message that replaces the compressed span.",
        ),
        Term(
            code="reinjection",
            includes=(),
            formula="count([the recovered-context message])",
            definition="The message that re-adds the files the compressed span had read.",
        ),
        Term(
            code="threshold",
            includes=(),
            formula="max(int(context_max × trigger_context_ratio), 1)",
            definition="The window total at which the trigger fires.",
        ),
        Term(
            code="min_span",
            includes=(),
            formula="int(context_max × min_target_context_ratio)",
            definition="The smallest span to compress worth a compaction.",
        ),
        Term(
            code="capacity",
            includes=(),
            formula="context_max",
            definition="The tokens the model's context window holds.",
        ),
        Term(
            code="left",
            includes=(),
            formula="max(context_max − window total, 0) / context_max",
            definition="The share of the capacity still free.",
        ),
        Term(
            code="until_compaction",
            includes=(),
            formula="max(threshold − window total, 0) / context_max",
            definition="The share of the capacity the window can still grow by before the trigger fires.",
        ),
        Term(
            code="peak_read",
            includes=_WINDOW,
            formula="max over model calls of the window total the trigger read",
            definition="The largest window total of a run, before any compaction at that call: the threshold's quantity.",
        ),
        Term(
            code="peak_sent",
            includes=_WINDOW,
            formula="max over model calls of the context sent",
            definition="The largest window a run sends to its model, after compactions.",
        ),
    )
}


def term(code: TermCode) -> Term:
    """The term named ``code``."""
    return GLOSSARY[code]
