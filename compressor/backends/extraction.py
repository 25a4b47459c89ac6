"""What the offline backend reads as narrative from the messages a compaction replaces: the task, the tool calls
with their outcome, the latest statements, findings, pending items, an earlier summary and where to resume.

Invariant: pure and deterministic; lists are kept newest first up to a cap and each line is capped in length.
The evidence (paths, commands, errors, identifiers) is not read here: it comes from the artifact ledger.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..messages import Message, ToolCall
from ..quality.recognisers import flat
from .redaction import defused

#: Tool calls listed at most in the completed-work section, and characters kept per narrative line.
MAX_ITEMS = 12
LINE_CHARS = 200

# -- small text helpers ----------------------------------------------------------------------------


def _line(text: str, limit: int = LINE_CHARS) -> str:
    return flat(text, limit)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


_SHELL_PROMPT = re.compile(r"^\S*[$#>]$")


def last_line(text: str) -> str:
    """The last meaningful line of a command's output (a bare shell prompt is not one)."""
    lines = (line.strip() for line in reversed(text.splitlines()))
    return next((line for line in lines if line and not _SHELL_PROMPT.match(line)), "")


def _argument_text(call: ToolCall) -> str:
    arguments = call.parsed_arguments()
    if not arguments:
        return _line(defused(call.arguments), 80)
    pairs = [f"{key}={_line(defused(str(value)), 60)}" for key, value in list(arguments.items())[:3]]
    more = ", …" if len(arguments) > 3 else ""
    return ", ".join(pairs) + more


# -- extraction ------------------------------------------------------------------------------------

_PENDING = re.compile(r"^\s*(?:[-*]\s*\[ \]|todo\b|next\b|then\b|remaining\b|still need|need to)", re.I)
_FACT = re.compile(
    r"\b(fix(?:ed)?|root cause|because|decided|found|turns out|caused by|works|passe[sd]|confirmed)\b", re.I
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_MEMORY_SUMMARY = re.compile(r"<summary>\s*(.*?)\s*</summary>", re.S | re.I)


@dataclass
class Narrative:
    """The story of the compacted messages, before it is laid out as sections.

    Lists are already capped, oldest first; ``calls_total`` counts every tool call.
    """

    counts: dict[str, int] = field(default_factory=lambda: {"user": 0, "assistant": 0, "tool": 0})
    task: str = ""
    calls: list[str] = field(default_factory=list)
    calls_total: int = 0
    statements: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    earlier_summary: list[str] = field(default_factory=list)
    results: dict[str, str] = field(default_factory=dict)  # call id → its (defused) result text
    resume: str = ""


class _Recent:
    """The ``cap`` distinct items mentioned last, collected while walking the messages newest first."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._newest_first: dict[str, None] = {}

    @property
    def full(self) -> bool:
        return len(self._newest_first) >= self.cap

    def add(self, items: Iterable[str]) -> None:
        """One message's items, in the order the message gives them (not even read once the cap is met)."""
        if self.full:
            return
        for item in reversed(list(items)):
            if self.full:
                return
            if item:
                self._newest_first.setdefault(item, None)

    def newest(self) -> list[str]:
        """The items collected, ordered by their last mention."""
        return list(self._newest_first)[::-1]


def conversation_of(messages: Sequence[Message]) -> list[Message]:
    """The messages to summarise: no system messages, and not the final prompt message."""
    body = [m for m in messages if m.role != "system"]
    if body and body[-1].role == "user":
        body = body[:-1]
    return body


def _sentences(text: str) -> list[str]:
    return [_line(s) for s in _SENTENCE_SPLIT.split(text) if s.strip()]


def narrate(messages: list[Message]) -> Narrative:
    """Two walks: the tool results oldest first (the outcomes of calls), then the rest newest first, reading a
    message only while a capped list can still take its items."""
    found = Narrative()
    results = found.results
    latest_user = -1
    for index, message in enumerate(messages):
        if message.role in found.counts:
            found.counts[message.role] += 1
        if message.is_real_user:
            latest_user = index
        elif message.role == "tool" and message.tool_call_id:
            results[message.tool_call_id] = defused(message.text)

    pending, facts = _Recent(MAX_ITEMS), _Recent(MAX_ITEMS)
    calls: list[str] = []  # newest first
    statements: list[str] = []  # newest first
    summary_seen = False
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.is_real_user:
            if index == latest_user:
                text = defused(message.text)
                found.task = text.strip()
                pending.add(s for s in _sentences(text) if _PENDING.search(s))
        elif message.is_internal:
            if summary_seen:
                continue
            summary = _MEMORY_SUMMARY.search(defused(message.text))
            if summary:
                summary_seen = True
                found.earlier_summary = [
                    _line(s)
                    for s in summary.group(1).splitlines()
                    if s.strip() and not s.lstrip().startswith("#")
                ][:8]
        elif message.role == "assistant":
            if len(statements) < 3 or not facts.full or (index > latest_user and not pending.full):
                text = defused(message.text)
                if text.strip():
                    if len(statements) < 3:
                        statements.append(_line(text, 300))
                    sentences = _sentences(text)
                    facts.add(s for s in sentences if _FACT.search(s))
                    if index > latest_user:
                        pending.add(s for s in sentences if _PENDING.search(s))
            tool_calls = message.tool_calls or ()
            found.calls_total += len(tool_calls)
            listed: list[str] = []
            for call in tool_calls:
                if len(calls) + len(listed) >= MAX_ITEMS:
                    break
                result = results.get(call.id)
                outcome = _line(_first_line(result), 100) if result is not None else "no result yet"
                listed.append(f"{call.name}({defused(_argument_text(call))}) → {outcome}")
            calls.extend(reversed(listed))
    found.pending = pending.newest()
    found.facts = facts.newest()
    found.calls = calls[:MAX_ITEMS][::-1]
    found.statements = statements[::-1]
    found.resume = _resume_point(messages, results)
    return found


def _newest_call(messages: list[Message], call_id: str) -> ToolCall | None:
    """The call with this id that an assistant message made last."""
    for message in reversed(messages):
        if message.role == "assistant":
            for call in reversed(message.tool_calls or ()):
                if call.id == call_id:
                    return call
    return None


def _resume_point(messages: list[Message], results: dict[str, str]) -> str:
    if not messages:
        return "Nothing was compacted; continue from the messages kept after this summary."
    last = messages[-1]
    if last.role == "tool":
        call = _newest_call(messages, last.tool_call_id or "")
        name = f"{call.name}({defused(_argument_text(call))})" if call else "a tool"
        return f"The last step was {name}, which returned: {_line(_first_line(defused(last.text)), 160)}"
    if last.role == "assistant" and last.tool_calls:
        waiting = [f"{c.name}({defused(_argument_text(c))})" for c in last.tool_calls if c.id not in results]
        if waiting:
            return "Waiting for the results of: " + "; ".join(waiting)
    if last.role == "assistant" and last.text.strip():
        return f"The last assistant statement was: {_line(defused(last.text), 300)}"
    return "Continue the active task (section 1) from the latest messages kept after this summary."
