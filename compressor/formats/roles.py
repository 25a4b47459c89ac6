"""How a user turn is meant: a real request, internal (harness reminders, injected context, notifications), or a
tool result that arrived as user text. Each format module states its agent's rules as a ``TurnRules`` value.

Invariant: classification reads only the turn's text; a reader marks an internal turn with ``Message.internal``
and turns a tool result into a ``tool`` message, so spans and the trigger see the run as its agent meant it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

TurnKind = Literal["request", "internal", "tool_result"]


@dataclass(frozen=True)
class TurnRules:
    """One agent's user turns.

    ``internal_prefixes``: text starting with one of these (after leading whitespace) was written by the harness.
    ``internal_tags``: text made only of these XML-ish blocks (``<tag>…</tag>``, whitespace between) is injected
    context. ``tool_result``: a pattern matching a tool result the agent sends back as user text.
    """

    internal_prefixes: tuple[str, ...] = ()
    internal_tags: tuple[str, ...] = ()
    tool_result: re.Pattern[str] | None = None

    def kind(self, text: str) -> TurnKind:
        stripped = text.lstrip()
        if self.tool_result is not None and self.tool_result.match(stripped):
            return "tool_result"
        if stripped.startswith(self.internal_prefixes) or (
            self.internal_tags and _only_tags(stripped, self.internal_tags)
        ):
            return "internal"
        return "request"


def _only_tags(text: str, tags: tuple[str, ...]) -> bool:
    """Whether ``text`` is one or more of the ``tags`` blocks and nothing else (an empty text is not)."""
    if not text:
        return False
    rest = text
    while rest:
        for tag in tags:
            opening, closing = f"<{tag}>", f"</{tag}>"
            if rest.startswith(opening):
                end = rest.find(closing)
                if end < 0:
                    return False
                rest = rest[end + len(closing) :].lstrip()
                break
        else:
            return False
    return True
