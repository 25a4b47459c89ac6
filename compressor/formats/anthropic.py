"""Anthropic Messages API content blocks, turned into openJiuwen-shaped messages.

Invariant: ``tool_use`` blocks become assistant tool calls (arguments JSON-dumped), each ``tool_result``
block becomes one ``tool`` message placed before what is left of its user message, nothing else is dropped.
Thinking blocks are kept beside the content (``thinking_blocks``, ``reasoning_content``), never priced as text.

Usage, when a message carries one, becomes ``usage_metadata`` with ``input_tokens`` = the whole prompt
(``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``), ``output_tokens``, and
``total_tokens`` = their sum, i.e. the window the reply saw plus the reply (what openJiuwen records).
"""

from __future__ import annotations

import json
from typing import Any

from compressor.formats.building import build_message, check_usage, is_number
from compressor.formats.problems import FormatProblem, Loc, type_name
from compressor.messages import Message

#: Block types that only the Anthropic shape has: their presence makes a message list Anthropic.
# A tuple, not a set: membership must not hash values read from the input (they may be lists).
ANTHROPIC_BLOCK_TYPES: tuple[str, ...] = ("tool_use", "tool_result", "thinking", "redacted_thinking")

_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def has_blocks(data: dict[str, Any]) -> bool:
    """Whether a message's content holds blocks only the Anthropic shape uses."""
    content = data.get("content")
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") in ANTHROPIC_BLOCK_TYPES for block in content
    )


def is_saved_reply(data: dict[str, Any]) -> bool:
    """A reply kept as the API returned it (``type: message`` with ``stop_reason``; no Responses item has one)."""
    return data.get("type") == "message" and "stop_reason" in data


def is_anthropic(data: dict[str, Any]) -> bool:
    """Whether a message is in the Anthropic shape: blocks only it uses, or a saved reply."""
    return has_blocks(data) or is_saved_reply(data)


def join_text(parts: list[Any]) -> str | list[Any]:
    """Plain text blocks joined by newlines (priced the same as the list); anything richer stays a list."""
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and set(part) <= {"type", "text"} and part.get("type") == "text":
            if not isinstance(part.get("text"), str):
                return list(parts)
            texts.append(part["text"])
        else:
            return list(parts)
    return "\n".join(texts)


def usage_metadata(usage: Any, loc: Loc) -> dict[str, Any]:
    """Anthropic ``usage`` as openJiuwen-style ``usage_metadata`` (see the module docstring)."""
    usage = check_usage(usage, loc)
    numbers: dict[str, int] = {}
    for key in _USAGE_FIELDS:
        value = usage.get(key)
        numbers[key] = int(value) if is_number(value) else 0
    prompt = (
        numbers["input_tokens"] + numbers["cache_read_input_tokens"] + numbers["cache_creation_input_tokens"]
    )
    return {
        "input_tokens": prompt,
        "output_tokens": numbers["output_tokens"],
        "total_tokens": prompt + numbers["output_tokens"],
        "cache_read_input_tokens": numbers["cache_read_input_tokens"],
        "cache_creation_input_tokens": numbers["cache_creation_input_tokens"],
    }


def system_messages(value: Any, loc: Loc) -> list[Message]:
    """The top-level ``system`` (a string or text blocks) as one system message."""
    if value is None or value == "" or value == []:
        return []
    if isinstance(value, str):
        return [build_message({"role": "system", "content": value}, loc)]
    if isinstance(value, list):
        return [build_message({"role": "system", "content": join_text(value)}, loc)]
    raise FormatProblem(loc, f"must be a string or a list of text blocks, got {type_name(value)}")


def tool_call(block: dict[str, Any], loc: Loc) -> dict[str, Any]:
    """A ``tool_use`` block as a flat tool call."""
    for key in ("id", "name"):
        value = block.get(key)
        if not isinstance(value, str) or not value:
            raise FormatProblem(
                loc, f"tool_use block missing {key}" if not value else f"{key} must be a string"
            )
    extra = {k: v for k, v in block.items() if k not in ("type", "id", "name", "input")}
    arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
    return {**extra, "id": block["id"], "type": "function", "name": block["name"], "arguments": arguments}


def tool_result_message(block: dict[str, Any], loc: Loc, extras: dict[str, Any]) -> Message:
    """A ``tool_result`` block as a ``tool`` message answering ``tool_use_id``."""
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str) or not call_id:
        raise FormatProblem(loc, "tool_result block missing tool_use_id")
    content = block.get("content")
    if isinstance(content, list):
        content = join_text(content)
    elif content is not None and not isinstance(content, str):
        raise FormatProblem(
            loc.key("content"), f"must be a string or a list of blocks, got {type_name(content)}"
        )
    extra = {k: v for k, v in block.items() if k not in ("type", "tool_use_id", "content")}
    return build_message(
        {**extras, **extra, "role": "tool", "tool_call_id": call_id, "content": content}, loc
    )


def convert_message(data: dict[str, Any], loc: Loc) -> list[Message]:
    """One Anthropic message as one or more of ours (a user turn with tool results becomes several)."""
    content = data.get("content")
    if not isinstance(content, list):
        if data.get("role") == "assistant" and data.get("usage") is not None:
            plain = {k: v for k, v in data.items() if k != "usage"}
            data = {**plain, "usage_metadata": usage_metadata(data["usage"], loc.key("usage"))}
        return [build_message(data, loc)]
    extras = {k: v for k, v in data.items() if k not in ("role", "content", "usage")}
    content_loc = loc.key("content")
    role = data.get("role")
    if role == "assistant":
        return [_assistant(data, content, content_loc, extras, loc)]
    if role != "user":
        return [build_message(data, loc)]
    messages: list[Message] = []
    rest: list[Any] = []
    for index, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") == "tool_result":
            messages.append(tool_result_message(block, content_loc.key(index), extras))
        else:
            rest.append(block)
    if rest or not messages:
        messages.append(build_message({**extras, "role": "user", "content": join_text(rest)}, loc))
    return messages


def _assistant(
    data: dict[str, Any], content: list[Any], content_loc: Loc, extras: dict[str, Any], loc: Loc
) -> Message:
    parts: list[Any] = []
    calls: list[dict[str, Any]] = []
    thinking: list[dict[str, Any]] = []
    for index, block in enumerate(content):
        block_loc = content_loc.key(index)
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_use":
            calls.append(tool_call(block, block_loc))
        elif kind in ("thinking", "redacted_thinking"):
            if kind == "thinking" and not isinstance(block.get("thinking", ""), str):
                raise FormatProblem(block_loc.key("thinking"), "must be a string")
            thinking.append(block)
        elif kind == "tool_result":
            raise FormatProblem(block_loc, "a tool_result block belongs in a user message")
        else:
            parts.append(block)
    message: dict[str, Any] = {**extras, "role": "assistant", "content": join_text(parts)}
    existing = data.get("tool_calls")
    if calls:
        message["tool_calls"] = [*(existing if isinstance(existing, list) else []), *calls]
    if thinking:
        # Kept beside the content, not in it: earlier turns' thinking is not resent to the model.
        message["thinking_blocks"] = thinking
        message["reasoning_content"] = "\n".join(
            b.get("thinking", "") for b in thinking if b["type"] == "thinking"
        )
    if data.get("usage") is not None:
        message["usage_metadata"] = usage_metadata(data["usage"], loc.key("usage"))
    return build_message(message, loc)
