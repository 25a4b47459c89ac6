"""Pydantic AI message histories: what ``result.all_messages_json()`` and ``ModelMessagesTypeAdapter.dump_json`` write,
a JSON list of ``ModelRequest`` (``kind: "request"``) and ``ModelResponse`` (``kind: "response"``) objects whose
``parts`` carry a ``part_kind``; also one message a line (JSONL), or the list wrapped in an object as people save it
(``{"messages": [...], "usage": ...}``; see ``WRAPPER_KEYS``). One conversation a history.

Invariant: every part is read as Pydantic AI's OpenAI Chat mapping sends it (``models/openai.py`` at 4fda389,
``_map_user_message`` and ``_MapModelResponseContext``): one assistant message per response, one message per
request part; a part kind this reader does not know is left out and counted, never guessed at.

Schema: pydantic/pydantic-ai ``pydantic_ai_slim/pydantic_ai/messages.py`` and ``usage.py`` at v1.0.0 (78f3b7a)
and at 4fda389 (after v2.33.0), with ``usage.py`` at 154fec5 for the older ``Usage`` (``request_tokens``,
``response_tokens``, ``total_tokens``) and ``vendor_details``/``vendor_id``.

- Request parts: ``system-prompt`` → system; ``user-prompt`` (content a string or a list of strings and
  ``text-content``, ``image-url``, ``binary``, ``audio-url``, ``document-url``, ``video-url``, ``uploaded-file``,
  ``cache-point`` items) → a user turn the user wrote; ``tool-return`` → a ``tool`` message for its
  ``tool_call_id`` (a non-string content as compact JSON; ``outcome: failed`` as ``{"error": …}``; files it returns
  follow in an internal user message, ``This is file <id>:``); ``retry-prompt`` → Pydantic AI's retry text
  (``RetryPromptPart.model_response`` as 4fda389 words it; 1.0 wrote ``N validation errors: <json>``), a ``tool``
  message when it names a tool, else an internal user turn.
  ``ModelRequest.instructions`` (Pydantic AI's ``instructions=``) are sent as a system message after the leading
  ones: the latest request's instructions are what the next call sends.
- Response parts: ``text`` joined by blank lines, ``tool-call`` (``args`` a JSON string or an object) as calls,
  ``thinking`` as ``reasoning_content``; ``builtin-tool-call``/``-return`` (run by the provider, sent back only to
  it) stay in the content as the objects they are; ``compaction`` is a compaction the provider made (its readable
  summary, or an encrypted one); a response with nothing to send (no text, call or provider tool) is left out as
  the OpenAI mapping leaves it out.
- Usage: ``input_tokens`` (older ``request_tokens``) includes cached tokens, so ``input_tokens + output_tokens``
  is the window that call saw plus its reply (SPEC §6's ``total_tokens``); only the older ``total_tokens`` is used
  when neither count is there. ``model_name`` and ``provider_name`` → metadata.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeGuard

from compressor.formats.building import check_usage, indexed
from compressor.formats.problems import (
    FormatProblem,
    Loc,
    expect_dict,
    expect_list,
    expect_name,
    short,
    type_name,
)
from compressor.formats.session_log import Entry, SessionLog, token_count
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "pydantic-ai"
KINDS = ("request", "response")
NO_RESULT = "(no result: the history ends before the tool returned)"
ENCRYPTED = "[compaction summary, encrypted by the provider]"
RETRY_TAIL = "\n\nFix the errors and try again."
#: Items of user content that are files (``MultiModalContent``), by ``kind``.
FILE_KINDS = ("image-url", "audio-url", "document-url", "video-url", "binary", "uploaded-file")
#: Keys a provider-run tool part keeps in the content (what is sent back; timestamps and provider data are not).
BUILTIN_KEYS = ("part_kind", "tool_name", "args", "tool_call_id", "content")
#: Media types Pydantic AI inlines as text rather than send as a file.
TEXT_LIKE = ("text/", "application/json", "application/xml", "application/yaml")


def _compact(value: Any) -> str:
    """JSON as pydantic_core's ``to_json`` writes it: no spaces, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def is_message(value: Any) -> bool:
    """A ModelRequest or ModelResponse: ``kind`` and a ``parts`` list whose items carry ``part_kind``."""
    if not isinstance(value, dict) or value.get("kind") not in KINDS:
        return False
    parts = value.get("parts")
    return isinstance(parts, list) and any(isinstance(part, dict) and "part_kind" in part for part in parts)


#: Keys a saved history is wrapped under, in the order one is read when several are there (``all_messages`` holds
#: ``new_messages``; ``message_history`` is what ``Agent.run`` takes); another key holding one is read when none is.
WRAPPER_KEYS = ("all_messages", "messages", "message_history", "history", "new_messages")


def _is_history(value: Any) -> bool:
    return isinstance(value, list) and any(map(is_message, value[:50]))


def wrapper_keys(value: dict[str, Any]) -> list[str]:
    """The keys of an object (not itself a message) that hold a history, the one to read first."""
    if is_message(value):
        return []
    held = [key for key, item in value.items() if _is_history(item)]
    return sorted(held, key=lambda key: WRAPPER_KEYS.index(key) if key in WRAPPER_KEYS else len(WRAPPER_KEYS))


def looks_like(shape: Shape) -> bool:
    if shape.container == "object":
        return bool(wrapper_keys(shape.raw))
    return any(map(is_message, shape.objects[:50]))


def _located(shape: Shape, log: SessionLog) -> Callable[[], Iterator[tuple[Loc, Any]]]:
    """Each message with where it is, as often as asked: the items of the wrapped list (the first of
    ``wrapper_keys``), or the shape's values."""
    if shape.container != "object":
        return shape.located
    first, *others = wrapper_keys(shape.raw)
    for key in others:
        log.skip(f"histories under another key than {first!r} (the object's {key!r})")
    items, base = shape.raw[first], Loc().key(first)
    return lambda: indexed(items, base)


# -- content ---------------------------------------------------------------------------------------------------------


def _identifier(item: dict[str, Any]) -> str:
    """The file's ``identifier`` (written beside it), else Pydantic AI's default: six hex digits of a sha1."""
    named = item.get("identifier")
    if isinstance(named, str) and named:
        return named
    source = item.get("url") or item.get("file_id") or item.get("data") or ""
    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else b""
    if item.get("kind") == "binary" and isinstance(source, str):
        data = _decoded(source) or data
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()[:6]


def _decoded(data: str) -> bytes | None:
    """Base64 bytes as Pydantic AI writes them (``ser_json_bytes='base64'``), or None when they are not."""
    try:
        return base64.b64decode(data, validate=True)
    except ValueError:  # binascii.Error is one
        return None


def _file_part(item: dict[str, Any], loc: Loc) -> dict[str, Any]:
    """One file as a content part: an image as ``image_url`` (a data URL for bytes), text-like bytes as text,
    anything else a placeholder naming it (its bytes are not priced here)."""
    kind = item["kind"]
    media = item.get("media_type")
    media = media if isinstance(media, str) else ""
    detail = (
        item.get("vendor_metadata", {}).get("detail")
        if isinstance(item.get("vendor_metadata"), dict)
        else None
    )
    if kind == "image-url" and isinstance(item.get("url"), str):
        image: dict[str, Any] = {"url": item["url"]}
        return {"type": "image_url", "image_url": {**image, "detail": detail} if detail else image}
    if kind == "binary":
        data = item.get("data")
        if not isinstance(data, str):
            raise FormatProblem(loc.key("data"), f"must be a base64 string, got {type_name(data)}")
        if media.startswith("image/"):
            image = {"url": f"data:{media};base64,{data}"}
            return {"type": "image_url", "image_url": {**image, "detail": detail} if detail else image}
        if media.startswith(TEXT_LIKE):
            raw = _decoded(data)
            text = raw.decode("utf-8", "replace") if raw is not None else None
            if text is not None:
                return {"type": "text", "text": text}
    return {"type": "text", "text": f"[Attached {media or kind}: {_identifier(item)}]"}


def _user_content(content: Any, loc: Loc, log: SessionLog) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    items = expect_list(content, loc, "user content")
    parts: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        where = loc.key(index)
        if isinstance(item, str):
            parts.append({"type": "text", "text": item})
            continue
        item = expect_dict(item, where, "user content")
        kind = item.get("kind")
        if kind == "text-content":
            text = item.get("content")
            if not isinstance(text, str):
                raise FormatProblem(where.key("content"), f"must be a string, got {type_name(text)}")
            parts.append({"type": "text", "text": text})
        elif kind in FILE_KINDS:
            parts.append(_file_part(item, where))
        elif kind != "cache-point":  # a cache point marks where a provider may cache, it is no content
            log.skip(f"{short(kind)} user content (a kind this reader does not know)")
    if all(part["type"] == "text" for part in parts):
        return "\n".join(part["text"] for part in parts)
    return parts


def _is_file(item: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(item, dict) and item.get("kind") in FILE_KINDS


def _tool_return(part: dict[str, Any], loc: Loc) -> tuple[str, list[dict[str, Any]]]:
    """A tool result's text (``model_response_str_and_user_content``) and the files it sends after it."""
    content = part.get("content")
    failed = part.get("outcome") == "failed"
    was_list = isinstance(content, list)
    items = content if isinstance(content, list) else [content]
    data = [item for item in items if not _is_file(item)]
    files: list[dict[str, Any]] = [item for item in items if _is_file(item)]
    value = data[0] if len(data) == 1 and (not was_list or files) else data if data else None
    text = "" if value is None else value if isinstance(value, str) else _compact(value)
    if not files:
        return (_compact({"error": text}) if failed else text), []
    pieces: list[str] = []
    sent: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        if _is_file(item):
            name = _identifier(item)
            pieces.append(f"See file {name}.")
            sent += [{"type": "text", "text": f"This is file {name}:"}, _file_part(item, loc.key(index))]
        else:
            pieces.append(item if isinstance(item, str) else _compact(item))
    if failed:
        references = [f"See file {_identifier(item)}." for item in files]
        return _compact([{"error": text}, *references]), sent
    return (_compact(pieces) if was_list else pieces[0]), sent


def retry_text(part: dict[str, Any]) -> str:
    """What Pydantic AI tells the model when it asks for a retry (``RetryPromptPart.model_response``)."""
    content, tool = part.get("content"), part.get("tool_name")
    if isinstance(content, str):
        description = content if tool else f"Validation feedback:\n{content}"
    elif isinstance(content, list):
        errors = []
        for error in content:
            if isinstance(error, dict):
                loc = error.get("loc")
                short_loc = not tool and isinstance(loc, list) and len(loc) <= 1
                error = {k: v for k, v in error.items() if k != "ctx" and not (short_loc and k == "input")}
            errors.append(error)
        plural = "s" if len(errors) != 1 else ""
        listed = json.dumps(errors, ensure_ascii=False, indent=2)
        description = f"{len(errors)} validation error{plural}:\n```json\n{listed}\n```"
    else:
        description = "" if content is None else _compact(content)
    return description + RETRY_TAIL


# -- messages --------------------------------------------------------------------------------------------------------


def _parts(message: dict[str, Any], loc: Loc) -> list[tuple[Loc, dict[str, Any], str]]:
    out = []
    for index, part in enumerate(expect_list(message.get("parts"), loc.key("parts"), "parts")):
        where = loc.key("parts").key(index)
        part = expect_dict(part, where, "a message part")
        kind = part.get("part_kind")
        if not isinstance(kind, str):
            raise FormatProblem(
                where.key("part_kind"), f"must be a string, got {type_name(kind)} {short(kind)}"
            )
        out.append((where, part, kind))
    return out


def _tool_name(part: dict[str, Any], loc: Loc) -> str:
    return expect_name(part, "tool_name", loc)


def _call_id(part: dict[str, Any], loc: Loc) -> str:
    return expect_name(part, "tool_call_id", loc)


def _text(part: dict[str, Any], loc: Loc) -> str:
    content = part.get("content")
    if not isinstance(content, str):
        raise FormatProblem(loc.key("content"), f"must be a string, got {type_name(content)}")
    return content


def _request(message: dict[str, Any], loc: Loc, log: SessionLog) -> None:
    files: list[dict[str, Any]] = []
    for where, part, kind in _parts(message, loc):
        if kind == "system-prompt":
            log.add({"role": "system", "content": _text(part, where)}, where)
        elif kind == "user-prompt" or (kind == "speech" and isinstance(part.get("content"), str)):
            log.add(
                {"role": "user", "content": _user_content(part.get("content"), where.key("content"), log)},
                where,
            )
        elif kind == "tool-return":
            text, returned = _tool_return(part, where.key("content"))
            files += returned
            data = {"role": "tool", "tool_call_id": _call_id(part, where), "name": _tool_name(part, where)}
            log.add({**data, "content": text}, where)
        elif kind == "retry-prompt":
            tool = part.get("tool_name")
            if isinstance(tool, str) and tool:
                log.add(
                    {
                        "role": "tool",
                        "tool_call_id": _call_id(part, where),
                        "name": tool,
                        "content": retry_text(part),
                    },
                    where,
                )
            else:
                log.add({"role": "user", "content": retry_text(part), "internal": True}, where)
        else:  # tool-availability-delta is rendered into the tool list, not sent as a message
            log.skip(f"{short(kind)} request parts (not sent as a message)")
    if files:
        log.add({"role": "user", "content": files, "internal": True}, loc)


def usage_metadata(usage: Any, loc: Loc) -> dict[str, Any] | None:
    """``RequestUsage`` (or the older ``Usage``) as ``usage_metadata``; None when it holds no count."""
    if usage is None:
        return None
    usage = check_usage(usage, loc)
    prompt = token_count(usage.get("input_tokens", usage.get("request_tokens")))
    reply = token_count(usage.get("output_tokens", usage.get("response_tokens")))
    total = (prompt or 0) + (reply or 0)
    if prompt is None and reply is None:
        total = token_count(usage.get("total_tokens")) or 0
    if not total:
        return None
    out: dict[str, Any] = {"input_tokens": prompt or 0, "output_tokens": reply or 0, "total_tokens": total}
    for key in ("cache_read_tokens", "cache_write_tokens"):
        if token_count(usage.get(key)):
            out[key] = usage[key]
    return out


def _response(message: dict[str, Any], loc: Loc, log: SessionLog) -> None:
    texts: list[str] = []
    content: list[dict[str, Any]] = []
    thinking: list[str] = []
    calls: list[dict[str, Any]] = []
    for where, part, kind in _parts(message, loc):
        if kind in ("text", "speech") and isinstance(part.get("content"), str):
            texts.append(part["content"])
            content.append({"type": "text", "text": part["content"]})
        elif kind == "thinking":
            thinking.append(_text(part, where))
        elif kind == "tool-call":
            args = part.get("args")
            if args is not None and not isinstance(args, str | dict):
                raise FormatProblem(
                    where.key("args"), f"must be a JSON string or an object, got {type_name(args)}"
                )
            arguments = args if isinstance(args, str) and args else _compact(args) if args else "{}"
            function = {"name": _tool_name(part, where), "arguments": arguments}
            calls.append({"id": _call_id(part, where), "type": "function", "function": function})
        elif kind in ("builtin-tool-call", "builtin-tool-return"):
            content.append({"type": kind, **{key: part[key] for key in BUILTIN_KEYS[1:] if key in part}})
        elif kind == "compaction":
            summary = part.get("content")
            readable = summary if isinstance(summary, str) else ""
            log.compaction(
                readable,
                where,
                tokens_before=log.last_reported_total(),
                encrypted=not readable,
                content=readable or ENCRYPTED,
            )
        else:  # files the model made are not sent back by the OpenAI mapping
            log.skip(f"{short(kind)} response parts (not sent back to the model)")
    if not content and not calls:
        log.skip("responses with nothing to send back (no text or tool call)")
        return
    rich = any(part["type"] != "text" for part in content)
    data: dict[str, Any] = {"role": "assistant", "content": content if rich else "\n\n".join(texts)}
    if calls:
        data["tool_calls"] = calls
    if thinking:
        data["reasoning_content"] = "\n\n".join(thinking)
    usage = usage_metadata(message.get("usage"), loc.key("usage"))
    if usage is not None:
        data["usage_metadata"] = usage
    for key in ("model_name", "provider_name", "finish_reason"):
        if isinstance(message.get(key), str) and message[key]:
            data[key] = message[key]
    log.metadata.update(
        {
            "model" if key == "model_name" else "provider": data[key]
            for key in ("model_name", "provider_name")
            if key in data
        }
    )
    log.add(data, loc)


def _instructions(located: Iterable[tuple[Loc, Any]]) -> str | None:
    latest = None
    for _, value in located:
        if isinstance(value, dict) and value.get("kind") == "request":
            text = value.get("instructions")
            latest = text if isinstance(text, str) and text.strip() else latest
    return latest


def read(shape: Shape) -> list[Conversation]:
    log = SessionLog(source_format=SOURCE_FORMAT, metadata={"agent": "pydantic-ai"})
    located = _located(shape, log)
    instructions = _instructions(located())
    for loc, value in located():
        message = expect_dict(value, loc, "a ModelRequest or ModelResponse")
        kind = message.get("kind")
        if kind == "request":
            _request(message, loc, log)
            if instructions is not None:
                _place_instructions(log, instructions, loc)
                instructions = None
        elif kind == "response":
            _response(message, loc, log)
        else:
            raise FormatProblem(
                loc.key("kind"), f"must be 'request' or 'response', got {type_name(kind)} {short(kind)}"
            )
    return [log.conversation(shape.stem, unanswered=NO_RESULT, unanswered_note="this reader's stand-in")]


def _place_instructions(log: SessionLog, instructions: str, loc: Loc) -> None:
    """After the leading system prompts, where the OpenAI mapping puts them; placed once the first request is read,
    before any compaction is recorded, so no recorded index moves."""
    lead = next(
        (index for index, entry in enumerate(log.entries) if entry.data.get("role") != "system"),
        len(log.entries),
    )
    log.entries.insert(lead, Entry({"role": "system", "content": instructions}, loc.key("instructions")))


READER = Reader(name=SOURCE_FORMAT, looks_like=looks_like, read=read)
