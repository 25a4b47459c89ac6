"""What ``analyze()`` reads of a conversation under every setting: each message's role and internal flag, the last
real user turn, how far kept tool results reach back, the census; per counter, the hidden overhead and summaries.

Invariant: nothing here depends on the compressor's settings; each value is built once and kept on the (frozen)
conversation beside its token profiles, so a change of settings rebuilds none of it and a copy starts without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .census import MessageCounts, count_messages
from .messages import Conversation
from .overhead import HiddenOverhead, hidden_overhead
from .spans import call_reach, last_user_index
from .tokens import TokenCounter


@dataclass(frozen=True)
class RunFacts:
    """The conversation's messages as every analysis of it reads them, whatever the settings."""

    roles: tuple[str, ...]
    #: 1 for each internal message, 0 for the others: a byte each (a tuple took 8, 0.2x a file of short messages)
    internal: bytes
    last_user_index: int
    #: ``spans.call_reach`` of the messages: the keep count's tool boundary in one look-up per step (read only)
    reach: Sequence[int]


@dataclass(frozen=True)
class CountedFacts:
    """What one counter makes of the conversation beyond its token profile."""

    hidden_overhead: HiddenOverhead
    #: tokens of each recorded compaction's summary, in ``recorded_compactions`` order
    summary_tokens: tuple[int, ...]


def run_facts(conversation: Conversation) -> RunFacts:
    """The conversation's ``RunFacts``, built once and kept on the conversation."""
    cached = conversation._profiles.get("run-facts")
    if isinstance(cached, RunFacts):
        return cached
    messages = conversation.messages
    roles: list[str] = []
    internal = bytearray()
    for message in messages:  # one pass: a packed run makes each message again at every read
        roles.append(message.role)
        internal.append(message.is_internal)
    built = RunFacts(
        roles=tuple(roles),
        internal=bytes(internal),
        last_user_index=last_user_index(messages),
        reach=call_reach(messages),
    )
    conversation._profiles["run-facts"] = built
    return built


def message_counts(conversation: Conversation) -> MessageCounts:
    """``census.count_messages`` of the conversation, counted once and kept on it (only a view asks for it, so
    a first analysis does not pay for it)."""
    cached = conversation._profiles.get("message-counts")
    if isinstance(cached, MessageCounts):
        return cached
    built = count_messages(conversation)
    conversation._profiles["message-counts"] = built
    return built


def counted_facts(conversation: Conversation, counter: TokenCounter) -> CountedFacts:
    """The conversation's ``CountedFacts`` for a counter, built once per counter name and kept on it."""
    key = f"counted-facts:{counter.name}"
    cached = conversation._profiles.get(key)
    if isinstance(cached, CountedFacts):
        return cached
    built = CountedFacts(
        hidden_overhead=hidden_overhead(conversation, counter),
        summary_tokens=tuple(
            counter.tok(compaction.summary) for compaction in conversation.recorded_compactions
        ),
    )
    conversation._profiles[key] = built
    return built
