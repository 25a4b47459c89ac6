"""A Pydantic AI history as Pydantic AI sends it: its ``_clean_message_history`` (pydantic/pydantic-ai
``_agent_graph.py`` at 4fda389, ``_agent_graph/history.py`` later), run on the history before every model request.

Invariant: ``clean`` returns the messages the next request was built from, in order, each part with where the file
has it (a result Pydantic AI made up is placed at the response whose call it answers); nothing is guessed.

The passes, in Pydantic AI's order:

1. A tool result (a ``tool-return``, or a ``retry-prompt`` naming a tool) whose call no earlier response made is
   left out (``_drop_orphaned_tool_results``; counted); a request it empties is left out, unless it ends the history.
2. A call no later request answers, walking in order (a result answers only a call still open; a call reusing an
   open call's id closes that one unanswered), is answered with ``INTERRUPTED_RESULT``
   (``_repair_dangling_tool_calls``), placed after the tool results of the request that follows, or in a request of
   its own when a response or nothing follows. The request step repairs the last response too
   (``repair_last_response=True``); only a response that ends the history keeps its calls open, for the reader's
   stand-in (no request was built after it).
3. Consecutive requests whose instructions agree (one empty, or equal) are one request, its ``tool-return`` and
   ``retry-prompt`` parts first in a stable order (``_merge_consecutive_messages``, ``_tool_results_first_sort_key``);
   consecutive responses no API made (no ``model_name``, ``provider_name`` or ``provider_response_id``) are one.

Histories written before v2.10.0 (passes 1 and 2 arrived in pydantic/pydantic-ai#6319, 86029861b, 2026-07-14; the
merge is older, in v2.0.0 already): they are read the same way, which is right, because then Pydantic AI sent the
history as it was and every provider refuses a tool result with no call before it and a call with no result after
it (Anthropic's ``tool_result`` needs its ``tool_use``, OpenAI Responses says "No tool call found for function call
output", OpenAI Chat needs a ``tool`` message for each ``tool_call_id``). A history that went on past such a spot
holds none, so the passes change nothing in it; what is left is a response ending the history, which keeps its open
calls in both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, short, type_name
from compressor.formats.session_log import SessionLog

KINDS = ("request", "response")
#: What Pydantic AI sends for a call no request answers (``messages.INTERRUPTED_TOOL_RETURN_CONTENT``).
INTERRUPTED_RESULT = "The tool call was interrupted before a result was produced."
#: A response with none of these was not made by an API (Pydantic AI merges such neighbours).
API_KEYS = ("provider_response_id", "provider_name", "model_name")


@dataclass(frozen=True)
class Part:
    loc: Loc
    data: dict[str, Any]
    kind: str


@dataclass(frozen=True)
class Message:
    """One request or response as sent: its fields, its parts, and where it is in the file."""

    loc: Loc
    data: dict[str, Any]
    parts: tuple[Part, ...]

    @property
    def kind(self) -> str:
        return str(self.data["kind"])


def answers_a_call(part: dict[str, Any], kind: str) -> bool:
    """A tool result (Pydantic AI's ``_is_tool_result_part``): a tool return, or a retry prompt naming a tool."""
    return kind == "tool-return" or (kind == "retry-prompt" and isinstance(part.get("tool_name"), str))


def _call_id(part: Part) -> str | None:
    value = part.data.get("tool_call_id")
    return value if isinstance(value, str) else None


def _calls(message: Message) -> list[Part]:
    return [part for part in message.parts if part.kind == "tool-call" and _call_id(part) is not None]


def _results(message: Message) -> list[Part]:
    return [
        part for part in message.parts if answers_a_call(part.data, part.kind) and _call_id(part) is not None
    ]


def parse(located: Iterable[tuple[Loc, Any]]) -> list[Message]:
    """Each value as a message with its parts checked; a problem names the field."""
    out = []
    for loc, value in located:
        message = expect_dict(value, loc, "a ModelRequest or ModelResponse")
        kind = message.get("kind")
        if kind not in KINDS:
            raise FormatProblem(
                loc.key("kind"), f"must be 'request' or 'response', got {type_name(kind)} {short(kind)}"
            )
        parts = []
        for index, part in enumerate(expect_list(message.get("parts"), loc.key("parts"), "parts")):
            where = loc.key("parts").key(index)
            part = expect_dict(part, where, "a message part")
            part_kind = part.get("part_kind")
            if not isinstance(part_kind, str):
                raise FormatProblem(
                    where.key("part_kind"), f"must be a string, got {type_name(part_kind)} {short(part_kind)}"
                )
            parts.append(Part(where, part, part_kind))
        out.append(Message(loc, message, tuple(parts)))
    return out


def clean(messages: list[Message], log: SessionLog) -> list[Message]:
    """The three passes, in order."""
    return _merge(_repair(_drop_orphans(messages, log)))


def _drop_orphans(messages: list[Message], log: SessionLog) -> list[Message]:
    seen: set[str] = set()
    out = []
    for position, message in enumerate(messages):
        seen.update(str(_call_id(part)) for part in _calls(message))
        orphans = [part for part in _results(message) if _call_id(part) not in seen]
        if not orphans:
            out.append(message)
            continue
        log.skip("tool results answering no earlier call (Pydantic AI leaves them out)", len(orphans))
        dropped = {id(part) for part in orphans}
        kept = tuple(part for part in message.parts if id(part) not in dropped)
        if kept or (message.kind == "request" and position == len(messages) - 1):
            out.append(replace(message, parts=kept))
    return out


def _dangling(messages: list[Message]) -> dict[int, list[Part]]:
    """The calls no later result answers, by the index of their response (Pydantic AI's ordered walk)."""
    open_calls: dict[str, tuple[int, Part]] = {}
    dangling: dict[int, list[Part]] = {}
    for index, message in enumerate(messages):
        if message.kind == "response":
            for part in _calls(message):
                call_id = str(_call_id(part))
                if call_id in open_calls:
                    shadowed = open_calls[call_id]
                    dangling.setdefault(shadowed[0], []).append(shadowed[1])
                open_calls[call_id] = (index, part)
        else:
            for part in _results(message):
                open_calls.pop(str(_call_id(part)), None)
    for index, part in open_calls.values():
        dangling.setdefault(index, []).append(part)
    if messages and messages[-1].kind == "response":  # no request was built after it
        dangling.pop(len(messages) - 1, None)
    return dangling


def _placeholder(call: Part) -> Part:
    data = {
        "part_kind": "tool-return",
        "tool_name": call.data.get("tool_name"),
        "tool_call_id": call.data["tool_call_id"],
        "content": INTERRUPTED_RESULT,
    }
    return Part(call.loc, data, "tool-return")


def _own_request(parts: list[Part], at: Loc) -> Message:
    return Message(at, {"kind": "request", "parts": []}, tuple(parts))


def _repair(messages: list[Message]) -> list[Message]:
    dangling = _dangling(messages)
    if not dangling:
        return messages
    out: list[Message] = []
    made: list[Part] = []
    for index, message in enumerate(messages):
        if message.kind == "response":
            if made:
                out.append(_own_request(made, made[0].loc))
            made = [_placeholder(call) for call in dangling.get(index, [])]
        elif made:
            parts = message.parts
            at = next(
                (
                    n + 1
                    for n in range(len(parts) - 1, -1, -1)
                    if answers_a_call(parts[n].data, parts[n].kind)
                ),
                0,
            )
            message = replace(message, parts=(*parts[:at], *made, *parts[at:]))
            made = []
        out.append(message)
    if made:
        out.append(_own_request(made, made[0].loc))
    return out


def _instructions(message: Message) -> Any:
    return message.data.get("instructions")


def _joins(last: Message, message: Message) -> bool:
    if last.kind != message.kind:
        return False
    if message.kind == "request":
        first, then = _instructions(last), _instructions(message)
        return not first or not then or first == then
    return all(side.data.get(key) is None for side in (last, message) for key in API_KEYS)


def _merge(messages: list[Message]) -> list[Message]:
    out: list[Message] = []
    for message in messages:
        if not out or not _joins(out[-1], message):
            out.append(message)
            continue
        last = out[-1]
        parts = (*last.parts, *message.parts)
        if message.kind == "request":
            parts = tuple(sorted(parts, key=lambda part: part.kind not in ("tool-return", "retry-prompt")))
            data = {**last.data, "instructions": _instructions(last) or _instructions(message)}
            out[-1] = Message(last.loc, data, parts)
        else:
            out[-1] = replace(last, parts=parts)
    return out
