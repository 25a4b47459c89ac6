"""Chat message lists: openJiuwen, OpenAI and Anthropic arrays, their ``{"messages", "tools"}`` objects, JSONL.

Invariant: a message list becomes one Conversation whose leading system messages are ``system``;
the format name only labels the input, every list goes through the same tolerant conversion.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from compressor.formats import anthropic
from compressor.formats.building import build_conversation, build_message, build_tools, indexed, taking
from compressor.formats.lines import Lines
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, type_name
from compressor.formats.shape import Reader, Shape
from compressor.markers import memory_summary
from compressor.message_pack import MessagePack
from compressor.messages import Conversation, Message, Reading, RecordedCompaction

#: Keys only openJiuwen's own message models write.
_OPENJIUWEN_KEYS = frozenset({"usage_metadata", "metadata"})


def _is_flat_call(call: Any) -> bool:
    return isinstance(call, dict) and "name" in call and "function" not in call


def message_format(items: Iterable[Any], obj: dict[str, Any] | None = None) -> str:
    """``anthropic``, ``openjiuwen`` (flat tool calls or openJiuwen-only fields) or ``openai``."""
    if obj is not None and obj.get("system") not in (None, "", []):
        return "anthropic"
    found = "openai"
    for message in items:  # one pass, nothing held: a parsed file's values may be made as they are read
        if not isinstance(message, dict):
            continue
        if anthropic.is_anthropic(message):
            return "anthropic"
        if found == "openai":
            calls = message.get("tool_calls")
            if _OPENJIUWEN_KEYS & message.keys() or (
                isinstance(calls, list) and any(map(_is_flat_call, calls))
            ):
                found = "openjiuwen"
    return found


def convert_messages(
    located: Iterable[tuple[Loc, Any]], *, anthropic_blocks: bool, first: Sequence[Message] = ()
) -> MessagePack:
    """Messages in order, packed after ``first``; Anthropic content blocks are unfolded when the list uses them."""
    out = MessagePack(first)
    legacy = _LegacyFunctions()
    for loc, item in located:
        # Most chat turns are exactly a role and a text: packed as they are, the Message they make is not built.
        if type(item) is dict and len(item) == 2 and not anthropic_blocks:
            role, content = item.get("role"), item.get("content")
            if type(role) is str and type(content) is str and out.append_text(Message, role, content):
                continue
        data = expect_dict(item, loc, "a message")
        if anthropic_blocks:
            out.extend(anthropic.convert_message(data, loc))
        else:
            out.append_built(build_message(legacy.modernise(data, len(out) - len(first)), loc, lean=False))
    return out


def _is_custom(value: Any) -> bool:
    """A custom tool's call or definition (``{"type": "custom", "custom": {name, input | description…}}``)."""
    return isinstance(value, dict) and value.get("type") == "custom" and isinstance(value.get("custom"), dict)


def _flat_custom(value: dict[str, Any]) -> dict[str, Any]:
    """A custom tool call or definition held flat, as the Responses reader holds a ``custom_tool_call``: a
    function whose arguments are the call's free-text ``input``, as the model wrote it."""
    custom = value["custom"]
    rest = {key: item for key, item in value.items() if key not in ("custom", "type")}
    if "input" in custom:
        extra = {key: item for key, item in custom.items() if key != "input"}
        return {**rest, **extra, "type": "function", "arguments": custom["input"]}
    return {**rest, **custom}


class _LegacyFunctions:
    """OpenAI's retired function calling (assistant ``function_call``, role ``function``) as tool calls.

    Those messages carry no call id, so each call gets ``legacy_call_<position>`` and a function result
    answers the oldest unanswered call of the same name.
    """

    def __init__(self) -> None:
        self.pending: dict[str, list[str]] = {}

    def modernise(self, data: dict[str, Any], position: int) -> dict[str, Any]:
        calls = data.get("tool_calls")
        if data.get("role") == "assistant" and isinstance(calls, list) and any(map(_is_custom, calls)):
            data = {**data, "tool_calls": [_flat_custom(c) if _is_custom(c) else c for c in calls]}
        call = data.get("function_call")
        if data.get("role") == "assistant" and isinstance(call, dict) and not data.get("tool_calls"):
            call_id = f"legacy_call_{position}"
            self.pending.setdefault(str(call.get("name")), []).append(call_id)
            rest = {key: value for key, value in data.items() if key != "function_call"}
            return {**rest, "tool_calls": [{"id": call_id, "type": "function", "function": call}]}
        if data.get("role") == "function":
            waiting = self.pending.get(str(data.get("name")))
            call_id = waiting.pop(0) if waiting else f"legacy_call_{data.get('name')}"
            return {**data, "role": "tool", "tool_call_id": call_id}
        return data


def with_model(conversation: Conversation, model: Any) -> Conversation:
    """The conversation with the model its file names (a request's ``model``, a saved reply's) as metadata."""
    if not isinstance(model, str) or not model.strip():
        return conversation
    return conversation.model_copy(update={"metadata": {**conversation.metadata, "model": model}})


def replied_model(messages: MessagePack) -> Any:
    """The ``model`` of the last assistant message that names one (Anthropic replies saved as returned)."""
    for message in reversed(messages):
        model = (message.model_extra or {}).get("model") if message.role == "assistant" else None
        if isinstance(model, str):
            return model
    return None


def with_memory_blocks(conversation: Conversation) -> Conversation:
    """An openJiuwen list with the compactions openJiuwen made recorded: each ``<memory_block_current>`` user
    turn (its summary, and the window the reply before it reported)."""
    recorded: list[RecordedCompaction] = []
    before: int | None = None
    for index, message in enumerate(conversation.messages):
        if message.role == "assistant" and message.reported_total_tokens is not None:
            before = message.reported_total_tokens
        elif message.role == "user" and (summary := memory_summary(message.content)) is not None:
            recorded.append(
                RecordedCompaction(index=index, source="openjiuwen", summary=summary, tokens_before=before)
            )
    if not recorded:
        return conversation
    readings = [*conversation.readings, Reading(code="recorded_compactions", count=len(recorded))]
    return conversation.model_copy(update={"recorded_compactions": recorded, "readings": readings})


def from_list(
    items: list[Any], base: Loc, *, name: str, source_format: str | None = None, consume: bool = False
) -> Conversation:
    """A bare array of messages; ``consume`` empties the list as it goes (only for a list the loader parsed)."""
    detected = message_format(items)
    located = taking(items, base) if consume else indexed(items, base)
    messages = convert_messages(located, anthropic_blocks=detected == "anthropic")
    conversation = build_conversation(
        messages, [], name=name, source_format=source_format or detected, loc=base
    )
    return _finished(conversation, detected, replied_model(messages) if detected == "anthropic" else None)


def _finished(conversation: Conversation, detected: str, model: Any) -> Conversation:
    """The read list with what its format adds: openJiuwen's memory blocks as compactions, and the model the file
    names (``model``)."""
    if detected == "openjiuwen":
        conversation = with_memory_blocks(conversation)
    return with_model(conversation, model)


def _flat_tools(value: Any) -> Any:
    return [_flat_custom(t) if _is_custom(t) else t for t in value] if isinstance(value, list) else value


def from_object(
    obj: dict[str, Any], base: Loc, *, name: str, source_format: str | None = None
) -> Conversation:
    """``{"messages": [...], "tools": [...]}``, optionally with an Anthropic top-level ``system``."""
    messages_loc = base.key("messages")
    items = expect_list(obj.get("messages"), messages_loc, "messages")
    detected = message_format(items, obj)
    system = anthropic.system_messages(obj.get("system"), base.key("system"))
    messages = convert_messages(
        indexed(items, messages_loc), anthropic_blocks=detected == "anthropic", first=system
    )
    tools = build_tools(_flat_tools(obj.get("tools")), base.key("tools"))
    conversation = build_conversation(
        messages, tools, name=name, source_format=source_format or detected, loc=base
    )
    return _finished(conversation, detected, obj.get("model"))


def from_lines(lines: Sequence[tuple[int, Any]], *, name: str, consume: bool = False) -> Conversation:
    """A JSONL file with one message per line; errors name the line. ``consume`` empties ``Lines`` as it goes
    (only lines the loader parsed itself)."""
    detected = message_format(value for _, value in lines)
    messages = convert_messages(_located_lines(lines, consume), anthropic_blocks=detected == "anthropic")
    conversation = build_conversation(messages, [], name=name, source_format="jsonl")
    return _finished(conversation, detected, replied_model(messages) if detected == "anthropic" else None)


def _located_lines(lines: Sequence[tuple[int, Any]], consume: bool) -> Iterator[tuple[Loc, Any]]:
    # Taken, each raw value goes as its message is built next.
    pairs = lines.taking() if consume and isinstance(lines, Lines) else iter(lines)
    return ((Loc(line=number), value) for number, value in pairs)


def _read_messages(shape: Shape) -> list[Conversation]:
    if shape.container == "array":
        return [from_list(shape.raw, Loc(), name=shape.stem, consume=shape.consume)]
    return [from_lines(shape.lines, name=shape.stem, consume=shape.consume)]


def _read_numbered(shape: Shape) -> list[Conversation]:
    """Several ``{"messages": ...}`` objects: one conversation each, named ``<stem> #<index>``."""
    out: list[Conversation] = []
    for index, (loc, item) in enumerate(shape.located()):
        if not isinstance(item, dict):
            raise FormatProblem(loc, f"expected a conversation object, got {type_name(item)}")
        source_format = "jsonl" if loc.line is not None else None
        out.append(from_object(item, loc, name=f"{shape.stem} #{index}", source_format=source_format))
    return out


#: ``{"messages": [...], "tools": [...]}``.
OBJECT_READER = Reader(
    name="messages-object",
    looks_like=lambda shape: shape.container == "object" and "messages" in shape.raw,
    read=lambda shape: [from_object(shape.raw, Loc(), name=shape.stem)],
)
#: A message list: a JSON array of messages or JSONL with one message per line (a single object is one line).
MESSAGES_READER = Reader(
    name="messages",
    looks_like=lambda shape: shape.container != "object" and shape.any_has("role"),
    read=_read_messages,
)
#: An Anthropic message list (blocks only it uses, or replies saved as returned): before the Responses reader,
#: which would take a saved reply's ``type: message`` for one of its items.
ANTHROPIC_READER = Reader(
    name="anthropic-messages",
    looks_like=lambda shape: (
        shape.container != "object"
        and any("role" in value and anthropic.is_anthropic(value) for value in shape.objects[:200])
    ),
    read=_read_messages,
)
#: Several ``{"messages": ...}`` conversations in an array or in JSONL lines.
NUMBERED_READER = Reader(
    name="conversations",
    looks_like=lambda shape: shape.container != "object" and shape.any_has("messages"),
    read=_read_numbered,
)
