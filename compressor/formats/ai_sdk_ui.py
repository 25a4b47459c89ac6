"""Vercel AI SDK ``UIMessage[]`` (what ``useChat`` holds and chat apps store: ``{id, role, parts}``), read by turning
each message into the ``ModelMessage``s the SDK's ``convertToModelMessages`` makes of it, then as ``formats.ai_sdk``
reads those. A JSON array, one message a line, or ``{"messages": [...]}`` (a stored chat).

Invariant: an assistant message is split at its ``step-start`` parts, one model call a step: the step's text,
reasoning and tool calls one assistant message, its tools' results one tool message after it; parts only the UI
shows (sources, data, step markers) never reach the model and are left out.

Schema: vercel/ai ``packages/ai/src/ui/ui-messages.ts`` and ``convert-to-model-messages.ts`` at ai@5.0.0 (87cbd3b)
and ed857f5; AI SDK 4's ``tool-invocation`` parts (``{toolInvocation: {state: call|partial-call|result,
toolCallId, toolName, args, result}}``, ``packages/ui-utils/src/types.ts`` at ai@4.3.19, 0679f48) the same way.

- Parts: ``text``, ``reasoning``, ``file`` (``mediaType``, ``url``); ``tool-<name>`` and ``dynamic-tool`` with
  ``toolCallId``, ``state``, ``input``, ``output``/``errorText``: a call once its input is complete; its result for
  ``output-available`` (a string as text, else JSON), ``output-error`` (the error text) and ``output-denied``;
  a call the provider ran keeps its result in the assistant message. A call with no result yet gets a stand-in.
- A message is taken only when its ``parts`` are the SDK's typed parts and it has no ``content`` (AI SDK 5), or
  when a part is one only the UI writes (``step-start``, ``tool-invocation``, ``dynamic-tool``, a ``tool-`` part
  with a ``toolCallId``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from compressor.formats.ai_sdk import looks_like_list_of, messages_under, read_messages
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, short, type_name
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "ai-sdk-ui"
ROLES = ("system", "user", "assistant")
#: Tool states whose input is complete: the call was sent (``input-streaming`` is still being written).
CALLED = (
    "input-available",
    "approval-requested",
    "approval-responded",
    "output-available",
    "output-error",
    "output-denied",
)
#: Parts an assistant step sends to the model; the rest (sources, data parts, custom parts) only the UI shows.
STEP_PARTS = ("text", "reasoning", "file", "dynamic-tool", "tool-invocation")


def _is_tool(part: dict[str, Any]) -> bool:
    kind = part.get("type")
    return kind == "dynamic-tool" or (
        isinstance(kind, str) and kind.startswith("tool-") and "toolCallId" in part
    )


def _ui_only(part: dict[str, Any]) -> bool:
    return part.get("type") in ("step-start", "tool-invocation") or _is_tool(part)


def is_message(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("role") not in ROLES:
        return False
    parts = value.get("parts")
    if not isinstance(parts, list) or not parts:
        return False
    typed = all(isinstance(part, dict) and isinstance(part.get("type"), str) for part in parts[:20])
    return typed and ("content" not in value or any(map(_ui_only, parts)))


def _messages(shape: Shape) -> list[Any] | None:
    return messages_under(shape, is_message)


def looks_like(shape: Shape) -> bool:
    return looks_like_list_of(shape, is_message)


# -- one UIMessage as model messages --------------------------------------------------------------------------------


def _tool(part: dict[str, Any]) -> dict[str, Any]:
    """A v5 tool part, or v4's ``toolInvocation``, as ``{toolCallId, toolName, state, input, …}``."""
    if part.get("type") == "tool-invocation":
        call = part.get("toolInvocation")
        call = call if isinstance(call, dict) else {}
        states = {"result": "output-available", "call": "input-available"}
        state = states.get(call["state"], "input-streaming") if isinstance(call.get("state"), str) else None
        return {**call, "state": state, "input": call.get("args", {}), "v4": True}
    name = (
        part.get("toolName") if part.get("type") == "dynamic-tool" else str(part.get("type"))[len("tool-") :]
    )
    return {**part, "toolName": name}


def _output(tool: dict[str, Any]) -> dict[str, Any] | None:
    """The result part the SDK makes of a tool part, or None while it has none."""
    state = tool.get("state")
    base = {"type": "tool-result", "toolCallId": tool.get("toolCallId"), "toolName": tool.get("toolName")}
    if tool.get("v4") and state == "output-available":
        return {**base, "result": tool.get("result")}
    if state == "output-available":
        value = tool.get("output")
        kind = "text" if isinstance(value, str) else "json"
        return {**base, "output": {"type": kind, "value": value}}
    if state == "output-error":
        return {**base, "output": {"type": "error-text", "value": str(tool.get("errorText") or "")}}
    if state == "output-denied":
        approval = tool.get("approval")
        reason = approval.get("reason") if isinstance(approval, dict) else None
        return {**base, "output": {"type": "error-text", "value": reason or "Tool call execution denied."}}
    return None


def _string(part: dict[str, Any], key: str, loc: Loc) -> str:
    value = part.get(key)
    if not isinstance(value, str) or (key == "toolCallId" and not value):
        raise FormatProblem(
            loc.key(key), f"must be a non-empty string, got {type_name(value)} {short(value)}"
        )
    return value


def _step(block: list[tuple[Loc, dict[str, Any]]], skipped: list[str]) -> Iterator[dict[str, Any]]:
    """One model call: its assistant message, then its results."""
    content: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for loc, part in block:
        kind = part.get("type")
        if kind in ("text", "reasoning"):
            content.append(
                {"type": kind, "text": part.get("text") if isinstance(part.get("text"), str) else ""}
            )
        elif kind == "file":
            content.append({"type": "file", "mediaType": part.get("mediaType"), "data": part.get("url")})
        else:
            tool = _tool(part)
            if tool.get("state") not in CALLED:
                skipped.append("tool calls still being written")
                continue
            where = loc.key("toolInvocation") if kind == "tool-invocation" else loc
            call_id, name = _string(tool, "toolCallId", where), _string(tool, "toolName", where)
            call = {"type": "tool-call", "toolCallId": call_id, "toolName": name}
            content.append(
                {**call, "input": tool.get("input", {}), "providerExecuted": tool.get("providerExecuted")}
            )
            result = _output(tool)
            if result is not None:
                (content if tool.get("providerExecuted") else results).append(result)
    if content:
        yield {"role": "assistant", "content": content}
    if results:
        yield {"role": "tool", "content": results}


def model_messages(message: dict[str, Any], loc: Loc, skipped: list[str]) -> Iterator[dict[str, Any]]:
    """``convertToModelMessages`` of one UIMessage."""
    role = message.get("role")
    parts = expect_list(message.get("parts"), loc.key("parts"), "parts")
    located = [
        (loc.key("parts").key(i), expect_dict(part, loc.key("parts").key(i), "a part"))
        for i, part in enumerate(parts)
    ]
    texts = [(where, part) for where, part in located if part.get("type") == "text"]
    if role == "system":
        yield {"role": "system", "content": "".join(_string(part, "text", where) for where, part in texts)}
    elif role == "user":
        sent: list[dict[str, Any]] = []
        for where, part in located:
            if part.get("type") == "text":
                sent.append({"type": "text", "text": _string(part, "text", where)})
            elif part.get("type") == "file":
                sent.append({"type": "file", "mediaType": part.get("mediaType"), "filename": part.get("filename"), "data": part.get("url")})  # fmt: skip
        yield {"role": "user", "content": sent}
    elif role == "assistant":
        block: list[tuple[Loc, dict[str, Any]]] = []
        for where, part in located:
            if part.get("type") in STEP_PARTS or _is_tool(part):
                block.append((where, part))
            elif part.get("type") == "step-start":
                yield from _step(block, skipped)
                block = []
            else:
                skipped.append(f"{short(part.get('type'))} parts (shown by the UI, not sent)")
        yield from _step(block, skipped)
    else:
        raise FormatProblem(
            loc.key("role"), f"unknown role {short(role)} (expected system, user or assistant)"
        )


def read(shape: Shape) -> list[Conversation]:
    messages = _messages(shape)
    located = (
        [(Loc().key("messages").key(index), value) for index, value in enumerate(messages)]
        if messages is not None
        else shape.located()
    )
    skipped: list[str] = []
    converted: list[tuple[Loc, Any]] = []
    for loc, value in located:
        message = expect_dict(value, loc, "a UIMessage")
        converted += [(loc, model) for model in model_messages(message, loc, skipped)]
    return [read_messages(converted, stem=shape.stem, source_format=SOURCE_FORMAT, skipped=skipped)]


READER = Reader(name=SOURCE_FORMAT, looks_like=looks_like, read=read)
