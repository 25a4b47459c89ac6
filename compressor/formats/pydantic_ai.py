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
- Interrupted requests (``state: interrupted``, v2: the tool results gathered when a run was cancelled or raised
  before the request went out): one that ends the history was never sent and is left out (counted); one the history
  goes on after was sent once the run went on (merged into the next request, or sent again when the run resumed
  without a prompt).
- The history is cleaned as Pydantic AI cleans it before every request (``pydantic_ai_history``): a tool result
  with no call before it is left out (counted), a call no later request answers gets Pydantic AI's placeholder
  result where Pydantic AI puts it, consecutive requests are one turn with their results first; only the calls of a
  response ending the history get this reader's stand-in.
- Usage: ``input_tokens`` (older ``request_tokens``) includes cached tokens, so ``input_tokens + output_tokens``
  is the window that call saw plus its reply (SPEC §6's ``total_tokens``); only the older ``total_tokens`` is used
  when neither count is there. ``model_name`` and ``provider_name`` → metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from compressor.formats import pydantic_ai_history as history
from compressor.formats.building import check_usage, indexed
from compressor.formats.problems import (
    FormatProblem,
    Loc,
    expect_name,
    short,
    type_name,
)
from compressor.formats.pydantic_ai_content import compact, retry_text, tool_return, user_content
from compressor.formats.pydantic_ai_history import Message
from compressor.formats.session_log import Entry, SessionLog, token_count
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "pydantic-ai"
NO_RESULT = "(no result: the history ends before the tool returned)"
ENCRYPTED = "[compaction summary, encrypted by the provider]"
#: Keys a provider-run tool part keeps in the content (what is sent back; timestamps and provider data are not).
BUILTIN_KEYS = ("part_kind", "tool_name", "args", "tool_call_id", "content")


def is_message(value: Any) -> bool:
    """A ModelRequest or ModelResponse: ``kind`` and a ``parts`` list whose items carry ``part_kind``."""
    if not isinstance(value, dict) or value.get("kind") not in history.KINDS:
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


# -- messages --------------------------------------------------------------------------------------------------------


def _tool_name(part: dict[str, Any], loc: Loc) -> str:
    return expect_name(part, "tool_name", loc)


def _call_id(part: dict[str, Any], loc: Loc) -> str:
    return expect_name(part, "tool_call_id", loc)


def _text(part: dict[str, Any], loc: Loc) -> str:
    content = part.get("content")
    if not isinstance(content, str):
        raise FormatProblem(loc.key("content"), f"must be a string, got {type_name(content)}")
    return content


def _request(message: Message, log: SessionLog) -> None:
    """One request's parts in order; the files its tool returns hold follow them in one internal user message."""
    files: list[dict[str, Any]] = []
    for part in message.parts:
        _request_part(part.loc, part.data, part.kind, log, files)
    if files:
        log.add({"role": "user", "content": files, "internal": True}, message.loc)


def _request_part(
    where: Loc, part: dict[str, Any], kind: str, log: SessionLog, files: list[dict[str, Any]]
) -> None:
    if kind == "system-prompt":
        log.add({"role": "system", "content": _text(part, where)}, where)
    elif kind == "user-prompt" or (kind == "speech" and isinstance(part.get("content"), str)):
        log.add(
            {"role": "user", "content": user_content(part.get("content"), where.key("content"), log)},
            where,
        )
    elif kind == "tool-return":
        text, returned = tool_return(part, where.key("content"))
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


def _response(response: Message, log: SessionLog) -> None:
    """Reads one response (one assistant message, or none when it has nothing to send)."""
    message, loc = response.data, response.loc
    texts: list[str] = []
    content: list[dict[str, Any]] = []
    thinking: list[str] = []
    calls: list[dict[str, Any]] = []
    for where, part, kind in ((part.loc, part.data, part.kind) for part in response.parts):
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
            arguments = args if isinstance(args, str) and args else compact(args) if args else "{}"
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


def _interrupted(value: Any) -> bool:
    """A request the run was cancelled or failed while gathering (``ModelRequest.state``, v2), not sent as it is."""
    return isinstance(value, dict) and value.get("kind") == "request" and value.get("state") == "interrupted"


@dataclass(frozen=True)
class _Survey:
    """What the reading needs from the whole history before its first message is read."""

    #: The latest instructions a sent request carries: what the next call sends.
    instructions: str | None
    #: Where the history's last message is, when it is an interrupted request (never sent); else -1.
    unsent: int


def _survey(located: Iterable[tuple[Loc, Any]]) -> _Survey:
    latest = earlier = None
    count = 0
    last: Any = None
    for _, value in located:
        count, last = count + 1, value
        if not (isinstance(value, dict) and value.get("kind") == "request"):
            continue
        text = value.get("instructions")
        earlier, latest = latest, text if isinstance(text, str) and text.strip() else latest
    unsent = count - 1 if _interrupted(last) else -1
    return _Survey(instructions=earlier if unsent >= 0 else latest, unsent=unsent)


def read(shape: Shape) -> list[Conversation]:
    log = SessionLog(source_format=SOURCE_FORMAT, metadata={"agent": "pydantic-ai"})
    located = _located(shape, log)
    survey = _survey(located())
    messages = history.parse(located())
    if survey.unsent >= 0:
        log.skip("interrupted requests ending the history (never sent to the model)")
        messages = messages[: survey.unsent]
    instructions = survey.instructions
    for message in history.clean(messages, log):
        if message.kind == "response":
            _response(message, log)
            continue
        _request(message, log)
        if instructions is not None:
            _place_instructions(log, instructions, message.loc)
            instructions = None
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
