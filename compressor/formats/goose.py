"""Goose (block/goose) sessions: the one-file-per-session JSONL of Goose before 1.10 (``<id>.jsonl``: the session's
metadata on the first line, then one Message a line; before March 2025 Messages from the first line on, in the older
``~/.config/goose/sessions``), the messages of its ``sessions.db`` (read by ``goose_store``, rows in the same Message
shape) and of a ``session export`` (``goose_export``). One conversation a session.

Invariant: every stored message is kept, in order, as Goose's OpenAI formatter sends it to a model
(``providers/formats/openai/messages.rs`` at e216e6d): text parts joined, ``thinking`` as ``reasoning_content``, each ``toolRequest`` an
assistant tool call, each ``toolResponse`` a ``tool`` message with its call's id; UI-only content is left out.

Schema (read at block/goose commits 0164300 and dbec165 of ``crates/goose/src/session/session_manager.rs``, schema
versions 5 and 9; e3e6f12 ``session/storage.rs`` and decaa9d ``session/legacy.rs`` for the JSONL; 6416fe7
``conversation/message.rs``, b5a6949 ``conversation/tool_result_serde.rs``, 4e2d003 ``message.rs`` of 2025 for the
older content types; 331a842 ``context_mgmt/mod.rs`` for what a compaction writes).

- A Message is ``{id?, role: user|assistant, created, content: [..], metadata: {userVisible, agentVisible}}``
  (older files lack id and metadata: both visible). Content items are tagged by ``type``: ``text``, ``image``
  (``data``, ``mimeType``), ``toolRequest {id, toolCall}``, ``toolResponse {id, toolResult}``, ``thinking``, and
  UI-only ``redactedThinking``, ``frontendToolRequest``, ``toolConfirmationRequest``, ``actionRequired``,
  ``systemNotification``, ``jsonRenderSpec`` and the older ``contextLengthExceeded``, ``summarizationRequested``,
  ``conversationCompacted``. ``toolCall``/``toolResult`` are ``{status: success, value}`` or
  ``{status: error, error}``; a result's value is ``{content: [...], isError}`` (older: the content list itself).
  Text a tool marks for the user only (``annotations.audience`` without ``assistant``) never reaches the model;
  neither does what ``conversation::fix_conversation`` (08dc478) takes out: a response to no earlier request, a
  request in a user message, a response in an assistant one (each counted in a reading). A ``reasoning`` item
  (newer Goose, for DeepSeek-like APIs; its fields not read from the source) gives its ``text`` as reasoning; a type
  this reader does not know is left out and counted, so a newer Goose's file still reads.
- Visibility: a message hidden from both the user and the agent was archived by Goose and is left out. Goose
  compacts by hiding every earlier message from the agent (they are kept here: the run whole), adding the summary as
  a user message only the agent sees, an agent-only assistant message telling the model to continue, and a copy of
  the latest request. That summary is a recorded compaction; the copy is internal when the original is still in
  the run. Other agent-only user messages (a tool pair's ``[Historical tool call summary]``, nudges) are internal.
- A tool request Goose could not parse reaches the model as a ``tool`` message ``Error: …``; an errored result as
  ``The tool call returned the following error:`` and the error, as Goose's formatter writes them.
- Usage: Goose keeps token counts per session only (``total_tokens``, the provider's last call, and the
  ``accumulated_*`` sums) → ``metadata["session_usage"]``; no message carries usage, so windows are counted.
  ``model_config_json`` gives the model and its ``context_limit`` (→ ``metadata["context_window"]``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, short, type_name
from compressor.formats.runs import RunBuilder, json_text, token_count
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "goose"
ROLES = ("user", "assistant")
#: Content Goose shows in its UI but never sends to a model (a frontend tool's request is run by the UI; Goose's
#: ``fix_conversation`` takes it out of what it sends).
UI_ONLY = (
    "frontendToolRequest",
    "redactedThinking",
    "toolConfirmationRequest",
    "actionRequired",
    "systemNotification",
    "jsonRenderSpec",
    "contextLengthExceeded",
    "summarizationRequested",
    "conversationCompacted",
)
CONTENT_TYPES = ("text", "image", "toolRequest", "toolResponse", "thinking", "reasoning", *UI_ONLY)
#: How Goose starts the summary of one tool call and its result (``context_mgmt::summarize_tool_call``).
TOOL_SUMMARY_PREFIX = "[Historical tool call summary]"
#: Goose's words before an error (``providers/formats/openai``).
REQUEST_ERROR = "Error: "
RESULT_ERROR = "The tool call returned the following error:\n"
IMAGE_IN_RESULT = "This tool result included an image that is uploaded in the next message."
IMAGE_IN_REPLY = "[Image content removed - not supported in assistant messages]"
#: Session token counts Goose records (session_manager ``Session``).
USAGE_KEYS = (
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "accumulated_total_tokens",
    "accumulated_input_tokens",
    "accumulated_output_tokens",
)
#: Session facts kept as metadata (Goose's name → metadata key).
SESSION_FIELDS = {
    "working_dir": "working_dir",
    "session_type": "session_type",
    "schedule_id": "schedule_id",
    "provider_name": "provider",
    "created_at": "created_at",
    "updated_at": "updated_at",
}
REPEATED = {"repeats": "the latest request, which Goose carries past its compaction"}


class _Session:
    """One session's messages, read in order into a RunBuilder."""

    def __init__(self, run: RunBuilder) -> None:
        self.run = run
        # the index of an agent-only user message: a compaction summary if an agent-only reply follows it
        self.summary: int | None = None
        self.request = ""  # the text of the latest real request kept in the run
        self.repeat: str | None = None  # a request a compaction carried past itself, expected once after it
        self.reasoning = ""  # thinking of an assistant message with nothing else, sent with the next one
        self.requested: set[str] = set()  # ids of the tool requests so far

    def message(self, value: Any, loc: Loc) -> None:
        data = expect_dict(value, loc, "a Goose message")
        role = data.get("role")
        if role not in ROLES:
            raise FormatProblem(loc.key("role"), f"unknown role {short(role)} (expected user or assistant)")
        items = expect_list(data.get("content"), loc.key("content"), "the message content")
        user_visible, agent_visible = _visibility(data.get("metadata"), loc.key("metadata"))
        if not user_visible and not agent_visible:
            self.run.skip("messages Goose archived (hidden from user and agent)")
            return
        extras = {key: data[key] for key in ("id", "created") if isinstance(data.get(key), str | int)}
        agent_only = not user_visible
        if role == "assistant":
            self._assistant(items, loc.key("content"), extras, agent_only=agent_only)
        else:
            self.reasoning = ""
            self._user(items, loc.key("content"), extras, agent_only=agent_only)

    def _user(self, items: list[Any], loc: Loc, extras: dict[str, Any], *, agent_only: bool) -> None:
        parts: list[dict[str, Any]] = []
        tools: list[dict[str, Any]] = []
        for item_loc, item in _items(items, loc):
            kind = item["type"]
            if kind == "text":
                if _for_agent(item) and item.get("text"):
                    parts.append({"type": "text", "text": _text(item, item_loc)})
            elif kind == "image":
                parts.append(_image(item, item_loc))
            elif kind == "toolResponse" and _call_id(item, item_loc) in self.requested:
                tools.extend(_tool_result(item, item_loc))
            elif kind == "toolResponse":
                self.run.skip("tool responses to no request")  # Goose's fix_tool_calling drops them too
            else:
                self.run.skip(_skipped(kind))
        if parts:
            self._request(parts, extras, loc, agent_only=agent_only)
        for tool in tools:
            self.run.add(tool, loc)

    def _request(
        self, parts: list[dict[str, Any]], extras: dict[str, Any], loc: Loc, *, agent_only: bool
    ) -> None:
        content: str | list[dict[str, Any]] = parts
        if all(part["type"] == "text" for part in parts):
            content = "\n".join(part["text"] for part in parts)
        data: dict[str, Any] = {**extras, "role": "user", "content": content}
        text = content if isinstance(content, str) else ""
        if agent_only:
            data["internal"] = True
            if not text.lstrip().startswith(TOOL_SUMMARY_PREFIX):
                self.summary = len(self.run.messages)
        elif self.repeat is not None and text == self.repeat:
            data.update(internal=True, metadata=dict(REPEATED))
        elif text:
            self.request = text
        self.repeat = None
        self.run.add(data, loc)

    def _assistant(self, items: list[Any], loc: Loc, extras: dict[str, Any], *, agent_only: bool) -> None:
        texts: list[str] = []
        reasoning: list[str] = [self.reasoning] if self.reasoning else []
        calls: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        for item_loc, item in _items(items, loc):
            kind = item["type"]
            if kind == "text":
                if _for_agent(item) and item.get("text"):
                    texts.append(_text(item, item_loc))
            elif kind == "thinking":
                reasoning.append(json_text(item.get("thinking", "")))
            elif kind == "reasoning" and isinstance(item.get("text"), str):
                reasoning.append(item["text"])
            elif kind == "image":
                texts.append(IMAGE_IN_REPLY)
            elif kind == "toolRequest":
                call, error = _tool_call(item, item_loc)
                self.requested.add(_call_id(item, item_loc))
                if call is not None:
                    calls.append(call)
                if error is not None:
                    errors.append(error)
            else:
                self.run.skip(_skipped(kind))
        if not texts and not calls and not errors:
            self.reasoning = "".join(reasoning)
            if not items:
                self.run.skip("empty messages")
            return
        self.reasoning = ""
        if texts or calls:
            data: dict[str, Any] = {**extras, "role": "assistant", "content": "\n".join(texts)}
            if calls:
                data["tool_calls"] = calls
            if reasoning:
                data["reasoning_content"] = "".join(reasoning)
            if agent_only and self.summary == len(self.run.messages) - 1:
                self._compacted()
            self.run.add(data, loc)
        for error in errors:
            self.run.add(error, loc)

    def _compacted(self) -> None:
        """The agent-only user message just before this agent-only reply was Goose's compaction summary."""
        assert self.summary is not None
        self.run.record_compaction(self.run.messages[self.summary].text, index=self.summary)
        self.summary = None
        self.repeat = self.request or None


def _visibility(metadata: Any, loc: Loc) -> tuple[bool, bool]:
    if metadata is None:
        return True, True
    metadata = expect_dict(metadata, loc, "message metadata")
    flags = []
    for key in ("userVisible", "agentVisible"):
        flag = metadata.get(key, True)
        if not isinstance(flag, bool):
            raise FormatProblem(loc.key(key), f"must be true or false, got {type_name(flag)} {short(flag)}")
        flags.append(flag)
    return flags[0], flags[1]


def _items(items: list[Any], loc: Loc) -> Iterable[tuple[Loc, dict[str, Any]]]:
    for index, item in enumerate(items):
        item_loc = loc.key(index)
        item = expect_dict(item, item_loc, "a content item")
        kind = item.get("type")
        if not isinstance(kind, str):
            raise FormatProblem(item_loc.key("type"), f"a content type must be a string, got {short(kind)}")
        yield item_loc, item


def _skipped(kind: str) -> str:
    return (
        f"{kind} content"
        if kind in CONTENT_TYPES
        else f"{short(kind)} content (a type this reader does not know)"
    )


def _for_agent(item: dict[str, Any]) -> bool:
    """Content Goose sends the model: no ``annotations.audience``, or one that names the assistant."""
    annotations = item.get("annotations")
    audience = annotations.get("audience") if isinstance(annotations, dict) else None
    return not isinstance(audience, list) or "assistant" in audience


def _text(item: dict[str, Any], loc: Loc) -> str:
    text = item.get("text")
    if not isinstance(text, str):
        raise FormatProblem(loc.key("text"), f"must be a string, got {type_name(text)}")
    return text


def _image(item: dict[str, Any], loc: Loc) -> dict[str, Any]:
    data, mime = item.get("data"), item.get("mimeType")
    if not isinstance(data, str) or not isinstance(mime, str):
        raise FormatProblem(loc, "an image needs data and mimeType strings")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}


def _outcome(value: Any, loc: Loc) -> tuple[Any, str | None]:
    """``{status: success, value}`` → (value, None); ``{status: error, error}`` → (None, the error)."""
    result = expect_dict(value, loc, "a Goose tool result")
    status = result.get("status")
    if status == "success":
        return result.get("value"), None
    if status == "error":
        return None, json_text(result.get("error", ""))
    raise FormatProblem(loc.key("status"), f"must be success or error, got {short(status)}")


def _call_id(item: dict[str, Any], loc: Loc) -> str:
    call_id = item.get("id")
    if not isinstance(call_id, str) or not call_id:
        raise FormatProblem(loc.key("id"), f"a tool call id must be a non-empty string, got {short(call_id)}")
    return call_id


def _tool_call(item: dict[str, Any], loc: Loc) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A request as (the assistant's tool call, None), or (None, the tool message Goose sends for its error)."""
    call_id = _call_id(item, loc)
    value, error = _outcome(item.get("toolCall"), loc.key("toolCall"))
    if error is not None:
        return None, {"role": "tool", "tool_call_id": call_id, "content": REQUEST_ERROR + error}
    call = expect_dict(value, loc.key("toolCall").key("value"), "a tool call")
    name = call.get("name")
    if not isinstance(name, str) or not name:
        raise FormatProblem(loc.key("toolCall").key("value").key("name"), "a tool call needs a name")
    arguments = call.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        arguments = {"value": arguments}  # the pre-rmcp form allowed any value (tool_result_serde)
    text = json.dumps(arguments, ensure_ascii=False) if arguments is not None else "{}"
    return {"id": call_id, "type": "function", "name": name, "arguments": text}, None


def _tool_result(item: dict[str, Any], loc: Loc) -> list[dict[str, Any]]:
    """The tool message for a response, then a user message per image in it (Goose uploads them so)."""
    call_id = _call_id(item, loc)
    value, error = _outcome(item.get("toolResult"), loc.key("toolResult"))
    if error is not None:
        return [{"role": "tool", "tool_call_id": call_id, "content": RESULT_ERROR + error}]
    where = loc.key("toolResult").key("value")
    result: dict[str, Any] = {}
    if isinstance(value, list):
        parts = value
    else:
        result = expect_dict(value, where, "a tool result")
        parts = expect_list(result.get("content", []), where.key("content"), "tool result content")
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    for index, part in enumerate(parts):
        part = expect_dict(part, where.key(index), "a tool result part")
        if not _for_agent(part):
            continue
        kind = part.get("type")
        if kind == "text":
            texts.append(json_text(part.get("text", "")))
        elif kind == "image":
            texts.append(IMAGE_IN_RESULT)
            images.append({"role": "user", "content": [_image(part, where.key(index))], "internal": True})
        elif kind == "resource":
            resource = part.get("resource")
            resource = resource if isinstance(resource, dict) else {}
            texts.append(json_text(resource.get("text", f"[Binary content: {resource.get('uri', '')}]")))
        else:
            texts.append("")
    tool: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": " ".join(texts)}
    if result.get("isError") is True:
        tool["is_error"] = True
    return [tool, *images]


def session_metadata(session: dict[str, Any], session_id: str) -> dict[str, Any]:
    """What Goose records of a session (its row, or a JSONL file's first line), as conversation metadata."""
    metadata: dict[str, Any] = {"agent": "goose", "session_id": session_id}
    for key, name in SESSION_FIELDS.items():
        if isinstance(session.get(key), str) and session[key]:
            metadata[name] = session[key]
    usage = {key: token_count(session.get(key)) for key in USAGE_KEYS}
    if any(count is not None for count in usage.values()):
        metadata["session_usage"] = {key: count for key, count in usage.items() if count is not None}
    config = session.get("model_config")
    if isinstance(config, dict):
        if isinstance(config.get("model_name"), str) and config["model_name"]:
            metadata["model"] = config["model_name"]
        window = token_count(config.get("context_limit"))
        if window:
            metadata["context_window"] = window
    return metadata


def _name(session: dict[str, Any], session_id: str) -> str:
    for key in ("name", "description"):  # Goose renamed description to name (schema v4)
        if isinstance(session.get(key), str) and session[key].strip():
            return str(session[key])
    return session_id


def from_messages(
    session: dict[str, Any], session_id: str, located: Iterable[tuple[Loc, Any]], *, loc: Loc | None = None
) -> Conversation:
    run = RunBuilder(
        name=_name(session, session_id),
        source_format=SOURCE_FORMAT,
        metadata=session_metadata(session, session_id),
    )
    reader = _Session(run)
    for message_loc, value in located:
        reader.message(value, message_loc)
    return run.conversation(loc)


# -- the JSONL file of Goose before 1.10 -------------------------------------------------------------


def is_header(value: Any) -> bool:
    """The first line of a Goose session file: its ``SessionMetadata`` (never a message)."""
    return (
        isinstance(value, dict)
        and "message_count" in value
        and ("working_dir" in value or "description" in value or "name" in value)
        and "role" not in value
    )


#: The keys of a serialized Message (``id`` is null when unset): a line with any other key is no Goose message.
MESSAGE_KEYS = frozenset({"id", "role", "created", "content", "metadata"})


def is_message(value: Any) -> bool:
    """A Message as Goose writes one a line: its own keys only, an integer ``created``, typed content items."""
    if not isinstance(value, dict) or value.get("role") not in ROLES or not value.keys() <= MESSAGE_KEYS:
        return False
    created, content = value.get("created"), value.get("content")
    if not isinstance(created, int) or isinstance(created, bool) or not isinstance(content, list):
        return False
    return all(isinstance(item, dict) and item.get("type") in CONTENT_TYPES for item in content[:20])


def _looks_like(shape: Shape) -> bool:
    """A session file: its metadata line first, or (Goose before its March 2025 metadata line, in the older
    ``~/.config/goose/sessions``) Goose messages from the first line on."""
    if shape.container != "lines" or not shape.objects:
        return False
    return is_header(shape.objects[0]) or all(map(is_message, shape.objects[:50]))


def _read_lines(shape: Shape) -> list[Conversation]:
    if not is_header(shape.objects[0]):  # Goose reads a first line that is no metadata as a message
        return [from_messages({}, shape.stem, shape.located())]
    located = iter(shape.located())
    loc, header = next(located)
    session_id = header.get("id") if isinstance(header.get("id"), str) else shape.stem
    return [from_messages(header, session_id or shape.stem, located, loc=loc)]


READER = Reader(name=SOURCE_FORMAT, looks_like=_looks_like, read=_read_lines)
