"""What a conversation holds, counted: real and internal user turns, assistant turns, tool calls and results,
and how well they pair; and the readings a loader made, in plain English (the dashboard words the same codes).

Invariant: counts read the conversation only; nothing is tokenised here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .messages import Conversation, Reading

#: English for each reading code a loader records; ``{count}`` is the reading's count, ``{detail}`` its detail.
READING_TEXT: dict[str, str] = {
    "tool_results_from_user_text": "{count} tool results arrived as user text and were read as tool results",
    "internal_user_turns": "{count} user turns were written by the agent's harness and were read as internal",
    "recorded_compactions": "{count} compactions the agent made itself are recorded in the file",
    "demonstration_turns_skipped": "{count} demonstration turns were left out",
    "tool_calls_from_text": "{count} tool calls were read from the assistant's text",
    "truncated_tail": "the file ends in a partial record (still being written?); read up to the last whole one",
    "lines_skipped": "{count} lines that are not part of the conversation were skipped ({detail})",
    "chunks_joined": "{count} streamed chunks were joined into messages",
    "model_from_file": "the file names the model: {detail}",
    "events_skipped": "{count} events that are not conversation turns were skipped ({detail})",
    "batched_tool_results": "{count} tool calls share the one result the file gives for their batch",
    "tool_outputs_pruned": "{count} tool results the agent later cleared from its context are read as first sent",
    "results_filled_in": "{count} tool calls have no result in the file and were given the result {detail}",
    "summaries_encrypted": "{count} recorded compactions keep their summary encrypted (only the provider can read it)",
}


def describe_reading(reading: Reading) -> str:
    template = READING_TEXT.get(reading.code, "{detail}" if reading.detail else reading.code)
    return template.format(count=reading.count, detail=reading.detail)


@dataclass(frozen=True, kw_only=True)
class MessageCounts:
    real_user: int
    internal_user: int
    assistant: int
    tool: int
    tool_calls: int
    unmatched_tool_calls: int
    unmatched_tool_results: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "real_user": self.real_user,
            "internal_user": self.internal_user,
            "assistant": self.assistant,
            "tool": self.tool,
            "tool_calls": self.tool_calls,
            "unmatched_tool_calls": self.unmatched_tool_calls,
            "unmatched_tool_results": self.unmatched_tool_results,
        }


def count_messages(conversation: Conversation) -> MessageCounts:
    """The context messages by kind, with tool calls that got no result and results that answer no call."""
    messages = conversation.messages
    called: set[str] = set()
    answered: set[str] = set()
    unmatched_results = 0
    for message in messages:
        called.update(message.call_ids)
        if message.role == "tool":
            if message.tool_call_id in called:
                answered.add(str(message.tool_call_id))
            else:
                unmatched_results += 1
    calls = [call_id for message in messages for call_id in message.call_ids]
    return MessageCounts(
        real_user=sum(1 for m in messages if m.is_real_user),
        internal_user=sum(1 for m in messages if m.is_internal),
        assistant=sum(1 for m in messages if m.role == "assistant"),
        tool=sum(1 for m in messages if m.role == "tool"),
        tool_calls=len(calls),
        unmatched_tool_calls=sum(1 for call_id in calls if call_id not in answered),
        unmatched_tool_results=unmatched_results,
    )
