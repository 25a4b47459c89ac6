"""What a conversation holds, counted: real and internal user turns, assistant turns, tool calls and results,
and how well they pair; and the readings a loader made, in plain English (the dashboard words the same codes).

Invariant: counts read the conversation only; nothing is tokenised here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .messages import Conversation, Reading

#: English for each reading code a loader records, as (one, many): ``{count}`` is the reading's count,
#: ``{detail}`` its detail; the first form is used when the count is 1.
READING_TEXT: dict[str, tuple[str, str]] = {
    "tool_results_from_user_text": (
        "{count} tool result arrived as user text and was read as a tool result",
        "{count} tool results arrived as user text and were read as tool results",
    ),
    "internal_user_turns": (
        "{count} user turn was written by the agent's harness and was read as internal",
        "{count} user turns were written by the agent's harness and were read as internal",
    ),
    "recorded_compactions": (
        "{count} compaction the agent made itself is recorded in the file",
        "{count} compactions the agent made itself are recorded in the file",
    ),
    "demonstration_turns_skipped": (
        "{count} demonstration turn was left out",
        "{count} demonstration turns were left out",
    ),
    "tool_calls_from_text": (
        "{count} tool call was read from the assistant's text",
        "{count} tool calls were read from the assistant's text",
    ),
    "truncated_tail": (
        "the file ends in a partial record (still being written?); read up to the last whole one",
        "the file ends in a partial record (still being written?); read up to the last whole one",
    ),
    "lines_skipped": (
        "{count} line that is not part of the conversation was skipped ({detail})",
        "{count} lines that are not part of the conversation were skipped ({detail})",
    ),
    "chunks_joined": (
        "{count} streamed chunk was joined into its message",
        "{count} streamed chunks were joined into messages",
    ),
    "model_from_file": ("the file names the model: {detail}", "the file names the model: {detail}"),
    "events_skipped": (
        "{count} event that is not a conversation turn was skipped ({detail})",
        "{count} events that are not conversation turns were skipped ({detail})",
    ),
    "batched_tool_results": (
        "{count} tool call shares the one result the file gives for its batch",
        "{count} tool calls share the one result the file gives for their batch",
    ),
    "tool_outputs_pruned": (
        "{count} tool result the agent later cleared from its context is read as first sent",
        "{count} tool results the agent later cleared from its context are read as first sent",
    ),
    "results_filled_in": (
        "{count} tool call has no result in the file and was given the result {detail}",
        "{count} tool calls have no result in the file and were given the result {detail}",
    ),
    "summaries_encrypted": (
        "{count} recorded compaction keeps its summary encrypted (only the provider can read it)",
        "{count} recorded compactions keep their summary encrypted (only the provider can read it)",
    ),
    "prompts_not_recorded": (
        "{count} turn's prompt is not in the file (headless output does not print it): an empty request stands for it",
        "{count} turns' prompts are not in the file (headless output does not print them): an empty request stands "
        "for each",
    ),
    "api_errors_left_out": (
        "{count} model call failed: the error the agent wrote in its reply's place is left out (no reply came, and "
        "the agent never sends it to the model)",
        "{count} model calls failed: the errors the agent wrote in their replies' place are left out (no reply "
        "came, and the agent never sends them to the model)",
    ),
    "synthetic_replies_left_out": (
        '{count} reply the agent wrote itself without calling the model (such as "No response requested.") is '
        "left out: no window was sent there, so it is no model call",
        '{count} replies the agent wrote itself without calling the model (such as "No response requested.") '
        "are left out: no window was sent there, so they are no model calls",
    ),
    "context_items_included": (
        "{count} context item the person attached (a file, a selection, search results) is kept in their turn, in "
        "front of their words, as the agent sends it to the model",
        "{count} context items the person attached (files, selections, search results) are kept in their turns, in "
        "front of their words, as the agent sends them to the model",
    ),
    "usage_after_compaction_stale": (
        "{count} usage report after the agent's first own compaction measured the compacted window; it is read "
        "as stale for the whole run shown here",
        "{count} usage reports after the agent's first own compaction measured the compacted window; they are "
        "read as stale for the whole run shown here",
    ),
    "rewound_lines_left_out": (
        "{count} line of a branch the session left (a rewind or an edited prompt) is left out: the agent went on "
        "from an earlier turn without it",
        "{count} lines of branches the session left (a rewind or an edited prompt) are left out: the agent went on "
        "from an earlier turn without them",
    ),
    "tool_results_paired_by_order": (
        "{count} tool result carried no call id and was read as the answer to the oldest call before it",
        "{count} tool results carried no call id and were read as the answers to the oldest calls before them",
    ),
    "kept_messages_read_again": (
        "{count} message a compaction kept is read again after its summary: the agent sent it in the window after "
        "the compaction",
        "{count} messages compactions kept are read again after their summaries: the agent sent them in the windows "
        "after the compactions",
    ),
}


def describe_reading(reading: Reading) -> str:
    forms = READING_TEXT.get(reading.code)
    if forms is None:
        return reading.detail or reading.code
    return forms[0 if reading.count == 1 else 1].format(count=reading.count, detail=reading.detail)


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
    called: set[str] = set()
    answered: set[str] = set()
    calls: list[str] = []
    real_user = internal_user = assistant = tool = unmatched_results = 0
    # One pass; a role is read once and a user turn classified once (``is_internal`` is "user and not real").
    for message in conversation.messages:
        if message.tool_calls:
            call_ids = message.call_ids
            called.update(call_ids)
            calls.extend(call_ids)
        role = message.role
        if role == "user":
            if message.is_real_user:
                real_user += 1
            else:
                internal_user += 1
        elif role == "assistant":
            assistant += 1
        elif role == "tool":
            tool += 1
            if message.tool_call_id in called:
                answered.add(str(message.tool_call_id))
            else:
                unmatched_results += 1
    return MessageCounts(
        real_user=real_user,
        internal_user=internal_user,
        assistant=assistant,
        tool=tool,
        tool_calls=len(calls),
        unmatched_tool_calls=sum(1 for call_id in calls if call_id not in answered),
        unmatched_tool_results=unmatched_results,
    )
