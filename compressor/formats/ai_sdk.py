"""Vercel AI SDK messages as TypeScript agents save them: ``ModelMessage[]`` (AI SDK 5 and later; ``CoreMessage[]``
of AI SDK 4), a JSON array, one message a line, or ``{"messages": [...]}``. One conversation a list.

Invariant: each message is read as the SDK's OpenAI Chat provider sends it (``convert-to-openai-chat-messages.ts``):
text parts joined, ``tool-call`` parts as calls, each ``tool-result`` a ``tool`` message for its ``toolCallId``; a
part this reader does not send is left out and counted. A list is taken only when a part has the SDK's own keys
(``toolCallId``, an ``image`` part's ``image``, a ``file`` part's ``data`` with a media type).

Schema: vercel/ai ``packages/provider-utils/src/types/`` (``model-message.ts``, ``content-part.ts``,
``*-model-message.ts``) at ed857f5, ``packages/ai/core/prompt/content-part.ts`` and ``tool-result-content.ts`` at
ai@4.3.19 (0679f48); the OpenAI provider's ``convert-to-openai-chat-messages.ts`` at both.

- Roles ``system`` (content a string), ``user`` (a string or ``text``/``image``/``file`` parts), ``assistant`` (a
  string or ``text``, ``reasoning``, ``tool-call``, ``file``, ``tool-result`` … parts) and ``tool``
  (``tool-result`` parts). A call's arguments are ``input`` (5+) or ``args`` (4), sent as ``JSON.stringify``; a
  result's ``output`` (5+) is ``{type: text|json|error-text|error-json|content|execution-denied, value}``: text
  as it is, the rest as JSON; the older ``result`` (4) is sent as ``JSON.stringify(result)``, a string quoted too.
- ``reasoning`` → ``reasoning_content``. A call the provider ran (``providerExecuted``) and its result in the
  assistant message stay in the content as the parts they are. Images are ``image_url`` parts (base64 as a data
  URL); other files a placeholder naming them. Tool approvals, custom parts and the model's own files are left out.
- No message carries usage: windows are counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from compressor.formats.problems import (
    FormatProblem,
    Loc,
    expect_dict,
    expect_list,
    expect_name,
    expect_text,
    short,
    type_name,
)
from compressor.formats.session_log import SessionLog
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "ai-sdk"
ROLES = ("system", "user", "assistant", "tool")
NO_RESULT = "(no result: the messages end before the tool answered)"
#: Base64 openings of the image types the SDK detects (``detectMediaType``), for a data URL's media type.
IMAGE_SIGNATURES = (
    ("iVBORw", "image/png"),
    ("/9j/", "image/jpeg"),
    ("R0lGOD", "image/gif"),
    ("UklGR", "image/webp"),
)
#: Keys the content keeps of a part the provider ran.
PROVIDER_KEYS = ("type", "toolCallId", "toolName", "input", "args", "output", "result")


def _compact(value: Any) -> str:
    """``JSON.stringify``: no spaces; ``undefined`` (absent) is ``{}`` for a call's input."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def is_sdk_part(part: Any) -> bool:
    """A content part only the AI SDK writes: a tool part with ``toolCallId``, an ``image`` part holding ``image``,
    or a ``file`` part with ``data`` and a media type. (Its ``reasoning`` parts are not enough: Roo Code's
    Anthropic blocks have the same shape.)"""
    if not isinstance(part, dict):
        return False
    kind = part.get("type")
    if kind in ("tool-call", "tool-result"):
        return "toolCallId" in part
    if kind == "image":
        return "image" in part
    return kind == "file" and "data" in part and ("mediaType" in part or "mimeType" in part)


def is_message(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("role") not in ROLES:
        return False
    content = value.get("content")
    return isinstance(content, list) and any(map(is_sdk_part, content))


def messages_under(shape: Shape, is_one: Callable[[Any], bool]) -> list[Any] | None:
    """An object's ``messages`` list when one of its first 50 items passes ``is_one`` (the SDKs' ``{messages}``)."""
    if shape.container == "object":
        messages = shape.raw.get("messages")
        return messages if isinstance(messages, list) and any(map(is_one, messages[:50])) else None
    return None


def looks_like_list_of(shape: Shape, is_one: Callable[[Any], bool]) -> bool:
    """A list (or an object's ``messages`` list) with one of its first 50 items passing ``is_one``."""
    if shape.container == "object":
        return messages_under(shape, is_one) is not None
    return any(map(is_one, shape.objects[:50]))


def _messages(shape: Shape) -> list[Any] | None:
    return messages_under(shape, is_message)


def looks_like(shape: Shape) -> bool:
    return looks_like_list_of(shape, is_message)


# -- parts -----------------------------------------------------------------------------------------------------------


def _media_type(part: dict[str, Any]) -> str:
    media = part.get("mediaType", part.get("mimeType"))
    return media if isinstance(media, str) else ""


def _image(data: str, media: str) -> dict[str, Any]:
    if data.startswith(("http://", "https://", "data:")):
        return {"type": "image_url", "image_url": {"url": data}}
    if "/" not in media:  # only the top-level type (``image``) or none: name it from the bytes
        media = next((kind for prefix, kind in IMAGE_SIGNATURES if data.startswith(prefix)), "image/png")
    return {"type": "image_url", "image_url": {"url": f"data:{media};base64,{data}"}}


def _file(part: dict[str, Any], loc: Loc) -> dict[str, Any]:
    """A user file: an image as ``image_url``, inline text as text, anything else a placeholder."""
    media, data = _media_type(part), part.get("data")
    if isinstance(data, dict):  # AI SDK 6's tagged data: {type: data|url|reference|text, …}
        tag = data.get("type")
        if tag == "text" and isinstance(data.get("text"), str):
            return {"type": "text", "text": data["text"]}
        data = data.get("data") if tag == "data" else data.get("url") if tag == "url" else None
    if isinstance(data, str) and media.startswith("image"):
        return _image(data, media)
    name = part.get("filename")
    return {
        "type": "text",
        "text": f"[Attached {media or 'file'}: {name if isinstance(name, str) else 'file'}]",
    }


def _user_content(content: Any, loc: Loc, log: SessionLog) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for index, part in enumerate(expect_list(content, loc, "content")):
        where = loc.key(index)
        part = expect_dict(part, where, "a content part")
        kind = part.get("type")
        if kind == "text":
            parts.append({"type": "text", "text": expect_text(part, "text", where)})
        elif kind == "image":
            image = part.get("image")
            if not isinstance(image, str):
                raise FormatProblem(
                    where.key("image"), f"must be a URL or base64 string, got {type_name(image)}"
                )
            parts.append(_image(image, _media_type(part) or "image"))
        elif kind == "file":
            parts.append(_file(part, where))
        else:
            log.skip(f"{short(kind)} user parts (a type this reader does not send)")
    if all(part["type"] == "text" for part in parts):
        return "\n".join(part["text"] for part in parts)
    return parts


def _call_id(part: dict[str, Any], loc: Loc) -> str:
    return expect_name(part, "toolCallId", loc)


def output_text(part: dict[str, Any], loc: Loc) -> str:
    """A tool result as the OpenAI provider sends it: ``output`` (5+) by its type, else ``JSON.stringify(result)``."""
    if "output" not in part:
        return _compact(part.get("result"))
    output = expect_dict(part.get("output"), loc.key("output"), "a tool output")
    kind, value = output.get("type"), output.get("value")
    if kind in ("text", "error-text"):
        return value if isinstance(value, str) else _compact(value)
    if kind == "execution-denied":
        reason = output.get("reason")
        return reason if isinstance(reason, str) else "Tool call execution denied."
    if kind in ("json", "error-json", "content"):
        return _compact(value)
    raise FormatProblem(loc.key("output").key("type"), f"unknown tool output type {short(kind)}")


# -- messages --------------------------------------------------------------------------------------------------------


def _assistant(content: Any, loc: Loc, log: SessionLog) -> dict[str, Any] | None:
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    text: list[str] = []
    kept: list[dict[str, Any]] = []
    reasoning: list[str] = []
    calls: list[dict[str, Any]] = []
    for index, part in enumerate(expect_list(content, loc, "content")):
        where = loc.key(index)
        part = expect_dict(part, where, "a content part")
        kind = part.get("type")
        if kind == "text":
            text.append(expect_text(part, "text", where))
        elif kind == "reasoning":
            reasoning.append(expect_text(part, "text", where))
        elif kind in ("tool-call", "tool-result") and (part.get("providerExecuted") or kind == "tool-result"):
            _call_id(part, where)
            kept.append({key: part[key] for key in PROVIDER_KEYS if key in part})
        elif kind == "tool-call":
            arguments = part["input"] if "input" in part else part.get("args", {})
            function = {"name": expect_text(part, "toolName", where), "arguments": _compact(arguments)}
            calls.append({"id": _call_id(part, where), "type": "function", "function": function})
        else:
            log.skip(f"{short(kind)} assistant parts (a type this reader does not send)")
    joined = "".join(text)
    data: dict[str, Any] = {
        "role": "assistant",
        "content": [{"type": "text", "text": joined}, *kept] if kept else joined,
    }
    if calls:
        data["tool_calls"] = calls
    if reasoning:
        data["reasoning_content"] = "".join(reasoning)
    return data if joined or kept or calls or reasoning else None


def _tool(content: Any, loc: Loc, log: SessionLog) -> None:
    for index, part in enumerate(expect_list(content, loc, "tool content")):
        where = loc.key(index)
        part = expect_dict(part, where, "a tool result")
        if part.get("type") != "tool-result":
            log.skip(f"{short(part.get('type'))} tool parts (not a result)")
            continue
        data = {"role": "tool", "tool_call_id": _call_id(part, where), "content": output_text(part, where)}
        if isinstance(part.get("toolName"), str):
            data["name"] = part["toolName"]
        log.add(data, where)


def read_messages(
    located: Iterable[tuple[Loc, Any]],
    *,
    stem: str,
    source_format: str = SOURCE_FORMAT,
    skipped: Iterable[str] = (),
) -> Conversation:
    """One conversation of ModelMessages; ``skipped`` names what the caller already left out (for the reading)."""
    log = SessionLog(source_format=source_format, metadata={"agent": "ai-sdk"})
    for kind in skipped:
        log.skip(kind)
    for loc, value in located:
        message = expect_dict(value, loc, "a message")
        role, content = message.get("role"), message.get("content")
        where = loc.key("content")
        if role == "system":
            text = content if isinstance(content, str) else _user_content(content, where, log)
            log.add({"role": "system", "content": text}, loc)
        elif role == "user":
            log.add({"role": "user", "content": _user_content(content, where, log)}, loc)
        elif role == "assistant":
            data = _assistant(content, where, log)
            if data is None:
                log.skip("empty assistant messages")
            else:
                log.add(data, loc)
        elif role == "tool":
            _tool(content, where, log)
        else:
            raise FormatProblem(
                loc.key("role"), f"unknown role {short(role)} (expected one of {', '.join(ROLES)})"
            )
    return log.conversation(stem, unanswered=NO_RESULT, unanswered_note="this reader's stand-in")


def read(shape: Shape) -> list[Conversation]:
    messages = _messages(shape)
    if messages is not None:
        located = [(Loc().key("messages").key(index), value) for index, value in enumerate(messages)]
        return [read_messages(located, stem=shape.stem)]
    return [read_messages(shape.located(), stem=shape.stem)]


READER = Reader(name=SOURCE_FORMAT, looks_like=looks_like, read=read)
