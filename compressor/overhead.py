"""Hidden overhead: what a run's reported usage holds beyond the messages its file shows (an agent's own system
prompt and tool definitions, e.g. ~18k tokens for Claude Code), carried as its own part of every window.

Invariant: measured once, at the first model call with reported usage (the fewest counted tokens, so the least
tokenizer drift): reported total − counted window up to that call, never negative.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .messages import Conversation
from .tokens import TokenCounter, get_counter, profile


@dataclass(frozen=True, kw_only=True)
class HiddenOverhead:
    tokens: int  # 0 when the file reports no usage, or no more than it shows
    at_index: int | None  # the assistant message whose usage was read
    reported: int
    counted: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "at_index": self.at_index,
            "reported": self.reported,
            "counted": self.counted,
        }


NONE = HiddenOverhead(tokens=0, at_index=None, reported=0, counted=0)


def hidden_overhead(
    conversation: Conversation, counter: str | TokenCounter = "cl100k_base"
) -> HiddenOverhead:
    """Reported usage minus the counted window (system, tools and messages up to that call) at the first call
    that reports usage; ``NONE`` when no message reports usage."""
    counter = get_counter(counter) if isinstance(counter, str) else counter
    for index, message in enumerate(conversation.messages):
        reported = message.reported_total_tokens
        if reported is None:
            continue
        tokens = profile(conversation, counter)
        counted = sum(tokens.system_tokens) + tokens.count_range(0, index + 1) + tokens.tools_tokens
        return HiddenOverhead(
            tokens=max(reported - counted, 0), at_index=index, reported=reported, counted=counted
        )
    return NONE
