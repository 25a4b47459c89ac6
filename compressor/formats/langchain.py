"""LangChain message histories: ``messages_to_dict`` output (``{"type": "human", "data": {...}}`` per message, what
``FileChatMessageHistory`` and the SQL/Redis chat histories store) and LangChain's serialised objects
(``dumpd``: ``{"lc": 1, "type": "constructor", "id": [..., "HumanMessage"], "kwargs": {...}}``, as LangSmith and
LangGraph write them); a list of them, JSONL, or ``{"messages": [...]}``.

Invariant: one conversation per history, its messages in order; a message's type decides its role, never its text.

Schema: langchain-ai/langchain ``libs/core/langchain_core/messages/`` — ``utils.py`` (``message_to_dict``,
``_message_from_dict``: types ``human``, ``ai``, ``system``, ``chat``, ``function``, ``tool``, ``remove`` and the
``…MessageChunk`` ones), ``ai.py`` (``tool_calls: [{name, args, id}]``, ``usage_metadata: {input_tokens,
output_tokens, total_tokens}``), ``tool.py`` (``tool_call_id``, ``status``), ``chat.py`` (``role``); and
``load/serializable.py`` (``to_json``: the ``lc`` constructor form, fields under ``kwargs``).

- Roles: ``human`` → user, ``ai`` → assistant, ``system`` → system, ``tool`` / ``function`` → tool (a function message
  answers the call before it of its name), ``chat`` → its ``role`` when that is one of ours.
- Calls: ``tool_calls`` (LangChain's own, ``args`` an object), else ``additional_kwargs.tool_calls`` (the provider's
  OpenAI form). Content blocks of type ``tool_use`` repeat those calls (Anthropic) and are left out of the text.
- Usage: ``usage_metadata`` is kept as it is: its ``total_tokens`` (input + output of that call) is the window
  openJiuwen reads (openJiuwen's own messages are LangChain's). The model: ``response_metadata.model_name``.
- ``remove`` messages (LangGraph's instruction to drop a message) are left out, with a reading.
- Compactions: LangChain 1.x's ``SummarizationMiddleware`` (``langchain/agents/middleware/summarization.py``)
  removes the history (``RemoveMessage(REMOVE_ALL_MESSAGES)``) and puts a human message in its place, ``Here is a
  summary of the conversation to date:`` marked ``additional_kwargs.lc_source = "summarization"``: an internal turn
  and a recorded compaction.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_name, type_name
from compressor.formats.session_log import SessionLog
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "langchain"
#: ``message_to_dict`` types and the role each becomes (None: left out).
TYPES: dict[str, str | None] = {
    "human": "user",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
    "function": "tool",
    "chat": "chat",
    "remove": None,
}
#: Class names of the ``lc`` constructor form, by type (the ``…Chunk`` classes are the same messages, streamed).
CLASSES: dict[str, str] = {
    "HumanMessage": "human",
    "AIMessage": "ai",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "function",
    "ChatMessage": "chat",
    "RemoveMessage": "remove",
}
CHAT_ROLES = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "system": "system",
}
NO_RESULT = "(no result: the history ends before the tool answered)"
#: How ``SummarizationMiddleware._build_new_messages`` opens the summary message.
SUMMARY_PREFIX = "Here is a summary of the conversation to date:"


def _kind(value: Any) -> tuple[str, dict[str, Any]] | None:
    """(type, fields) of one LangChain message in either form, or None when it is not one."""
    if not isinstance(value, dict):
        return None
    kind, data = value.get("type"), value.get("data")
    if isinstance(kind, str) and isinstance(data, dict) and "content" in data:
        base = (
            kind.removesuffix("MessageChunk").lower() if kind.endswith("MessageChunk") else kind
        )  # AIMessageChunk
        return (base, data) if base in TYPES else None
    ident, kwargs = value.get("id"), value.get("kwargs")
    if (
        value.get("lc") == 1
        and kind == "constructor"
        and isinstance(ident, list)
        and isinstance(kwargs, dict)
    ):
        name = ident[-1] if ident and isinstance(ident[-1], str) else ""
        found = CLASSES.get(name.removesuffix("Chunk"))
        return (found, kwargs) if found is not None else None
    return None


def _is_summary(data: dict[str, Any]) -> bool:
    """The summary ``SummarizationMiddleware`` put in place of the history it removed (``lc_source``)."""
    extra = data.get("additional_kwargs")
    return isinstance(extra, dict) and extra.get("lc_source") == "summarization"


def is_message(value: Any) -> bool:
    return _kind(value) is not None


def _history(shape: Shape) -> Sequence[Any] | None:
    if shape.container == "object":
        messages = shape.raw.get("messages")
        return messages if isinstance(messages, list) and any(map(is_message, messages[:50])) else None
    return shape.objects if any(map(is_message, shape.objects[:50])) else None


def _content(data: dict[str, Any], kind: str, loc: Loc) -> str | list[Any]:
    content = data.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise FormatProblem(loc.key("content"), f"must be a string or a list, got {type_name(content)}")
    if kind == "ai":  # tool_use blocks are the message's tool_calls again
        content = [
            part for part in content if not (isinstance(part, dict) and part.get("type") == "tool_use")
        ]
    return content


def _check_id(value: Any, loc: Loc) -> None:
    """A call id is a string, or null (LangChain's ``ToolCall.id`` is optional)."""
    if value is not None and not isinstance(value, str):
        raise FormatProblem(loc, f"must be a string or null, got {type_name(value)}")


def _calls(data: dict[str, Any], loc: Loc) -> list[dict[str, Any]]:
    calls = data.get("tool_calls")
    out: list[dict[str, Any]] = []
    if isinstance(calls, list) and calls:
        for number, call in enumerate(calls):
            where = loc.key("tool_calls").key(number)
            call = expect_dict(call, where, "a tool call")
            _check_id(call.get("id"), where.key("id"))
            expect_name(call, "name", where)
            arguments = call.get("args")
            text = (
                arguments if isinstance(arguments, str) else json.dumps(arguments or {}, ensure_ascii=False)
            )
            out.append(
                {"id": call.get("id"), "type": "function", "name": call.get("name"), "arguments": text}
            )
        return out
    extra = data.get("additional_kwargs")
    provider = extra.get("tool_calls") if isinstance(extra, dict) else None
    return [call for call in provider if isinstance(call, dict)] if isinstance(provider, list) else []


def read(history: Iterable[tuple[Loc, Any]], *, stem: str) -> Conversation:
    log = SessionLog(source_format=SOURCE_FORMAT, metadata={"agent": "langchain"})
    last_call: dict[str, str] = {}  # a function message answers the latest call of its name
    for loc, value in history:
        found = _kind(value)
        if found is None:
            log.skip("entries that are not LangChain messages")
            continue
        kind, data = found
        role = TYPES[kind]
        if role is None:
            log.skip("remove messages (an instruction to drop a message)")
            continue
        where = loc.key("data") if "data" in value else loc.key("kwargs")
        if role == "chat":
            named = data.get("role")
            role = CHAT_ROLES.get(named) if isinstance(named, str) else None
            if role is None:
                raise FormatProblem(
                    where.key("role"), f"a chat message's role {named!r} is not user, assistant or system"
                )
        entry: dict[str, Any] = {"role": role, "content": _content(data, kind, where)}
        if isinstance(data.get("name"), str) and data["name"]:
            entry["name"] = data["name"]
        if role == "assistant":
            calls = _calls(data, where)
            if calls:
                entry["tool_calls"] = calls
                last_call.update({str(call.get("name")): str(call.get("id")) for call in calls})
            if isinstance(data.get("usage_metadata"), dict):
                entry["usage_metadata"] = data["usage_metadata"]
            meta = data.get("response_metadata")
            model = meta.get("model_name") or meta.get("model") if isinstance(meta, dict) else None
            if isinstance(model, str) and model:
                log.metadata["model"] = model
        elif role == "user" and _is_summary(data) and isinstance(entry["content"], str):
            text = entry["content"]
            summary = text.removeprefix(SUMMARY_PREFIX).lstrip("\n")
            log.compaction(summary, loc, tokens_before=log.last_reported_total(), content=text)
            continue
        elif role == "tool":
            call_id = data.get("tool_call_id")
            _check_id(call_id, where.key("tool_call_id"))
            if kind == "function" and not call_id:
                call_id = last_call.get(str(data.get("name")))
            entry["tool_call_id"] = call_id
            if isinstance(data.get("status"), str):
                entry["status"] = data["status"]
        log.add(entry, loc)
    return log.conversation(stem, unanswered=NO_RESULT)


def _read(shape: Shape) -> list[Conversation]:
    if shape.container == "object":
        messages = shape.raw.get("messages") or []
        located = [(Loc().key("messages").key(number), value) for number, value in enumerate(messages)]
        return [read(located, stem=shape.stem)]
    return [read(shape.located(), stem=shape.stem)]


READER = Reader(name=SOURCE_FORMAT, looks_like=lambda shape: _history(shape) is not None, read=_read)
