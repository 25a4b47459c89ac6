"""Gemini CLI session files (``~/.gemini/tmp/<project hash>/chats/session-*.jsonl``, and the older whole-file
``session-*.json`` ``ConversationRecord``): message records ``{id, timestamp, type: user|gemini|info|error|warning,
content, toolCalls, thoughts, tokens, model}``.

Invariant: the JSONL is replayed as Gemini CLI's own ``loadConversationRecord`` replays it — a record with an
``id`` already seen replaces it in place, ``{"$rewindTo": id}`` removes that message and all after it (all of them
when the id is unknown), ``{"$set": {...}}`` updates metadata and, with ``messages``, replaces the whole list (a
checkpoint) — with one difference: a checkpoint written after a chat compression (its list starts with the
``<state_snapshot>`` summary) keeps the records it replaced, so the run is read whole and the compression is
recorded where it happened (Gemini itself resumes from the compressed list). The surviving records, in order,
become the conversation.

Schema: google-gemini/gemini-cli ``packages/core/src/services/chatRecordingService.ts`` and
``chatRecordingTypes.ts`` (``MessageRecord``, ``ToolCallRecord``, ``TokensSummary``), ``utils/sessionUtils.ts``
(``convertSessionToClientHistory``: how the CLI rebuilds the model's history from a session).

- ``gemini`` records: text parts of ``content`` are the reply, thought parts (or ``thoughts``) its
  ``reasoning_content``; calls are the ``functionCall`` parts of ``content`` (newer sessions) or else
  ``toolCalls``; each call's result is the ``functionResponse`` of a later user record (newer sessions record tool
  responses that way) or else ``toolCalls[].result``. ``tokens.total`` (Gemini's ``totalTokenCount``: prompt,
  reply, thoughts and tool-use prompt of that call, so the window it filled) → ``usage_metadata.total_tokens``;
  ``tokens.input`` beside it. ``model`` → ``metadata["model"]``.
- Roles (``GEMINI_RULES``, after ``isIgnoredUserContent``): a user record starting with ``/`` or ``?`` is a CLI
  command the model never sees (skipped); ``<session_context>`` / ``<hook_context>`` text (and the older untagged "This is the Gemini CLI. We are setting
  up the context…") is injected context
  (internal), and so is "System: Please continue.", the request the CLI sends itself after an invalid stream;
  a user turn holding a ``<state_snapshot>`` is the summary Gemini CLI's chat compression put in place
  of the history (internal, a recorded compaction: ``tokens_before`` is the window of the latest model call before it; the
  file keeps no count for after it); other user text is a real request. ``info`` / ``error`` / ``warning`` records are CLI notices, not turns (skipped, with a reading).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compressor.formats import gemini_parts
from compressor.formats.gemini_parts import CallIds, Parts
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, type_name
from compressor.formats.roles import TurnRules
from compressor.formats.session_log import SessionLog, token_count
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "gemini-cli"
MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")
NOTICE_TYPES = ("info", "error", "warning")
#: User input the CLI handles itself (slash commands, help): never sent to the model.
COMMAND_PREFIXES = ("/", "?")
#: The environment context the CLI sends first (``utils/environmentContext.ts``; older versions left out the tag).
SESSION_CONTEXT = "This is the Gemini CLI. We are setting up the context for our chat."
#: What the CLI sends by itself to make the model go on after an invalid stream (``core/client.ts``
#: ``sendMessageStream``, ``continueOnFailedApiCall``): a user record nobody typed.
CONTINUE_PROMPT = "System: Please continue."
GEMINI_RULES = TurnRules(
    internal_prefixes=("<session_context>", "<hook_context>", SESSION_CONTEXT, CONTINUE_PROMPT)
)
#: The block Gemini CLI's compression summary is written in (``chatCompressionService.ts``).
SNAPSHOT_TAG = "<state_snapshot>"
NO_RESULT = "(no result was recorded for this call)"
METADATA_FIELDS = {
    "sessionId": "session_id",
    "projectHash": "project_hash",
    "startTime": "started_at",
    "lastUpdated": "last_updated",
    "summary": "summary",
    "kind": "kind",
}


def is_message_record(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and value.get("type") in MESSAGE_TYPES
        and "content" in value
        and "message" not in value
    )


def _is_control(value: Any) -> bool:
    return isinstance(value, dict) and (
        isinstance(value.get("$rewindTo"), str) or isinstance(value.get("$set"), dict)
    )


def _is_metadata(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("sessionId"), str)
        and isinstance(value.get("projectHash"), str)
    )


def looks_like(shape: Shape) -> bool:
    if shape.container == "object":
        raw = shape.raw
        return _is_metadata(raw) and isinstance(raw.get("messages"), list)
    head = shape.objects[:50]
    return any(_is_control(value) or _is_metadata(value) for value in head) or any(
        is_message_record(value) and value.get("type") == "gemini" for value in head
    )


class _Replay:
    """The session's surviving message records and metadata, after updates, rewinds and checkpoints."""

    def __init__(self, log: SessionLog) -> None:
        self.log = log
        self.records: dict[str, tuple[Loc, dict[str, Any]]] = {}
        self.meta: dict[str, Any] = {}

    def line(self, loc: Loc, value: Any) -> None:
        record = expect_dict(value, loc, "a session record")
        if isinstance(record.get("$rewindTo"), str):
            self.rewind(record["$rewindTo"])
        elif isinstance(record.get("id"), str):
            self.records[record["id"]] = (loc, record)
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            if isinstance(update.get("messages"), list):
                self.checkpoint(update["messages"], loc.key("$set").key("messages"))
            self.meta.update({key: item for key, item in update.items() if key != "messages"})
        elif _is_metadata(record):
            self.meta.update({key: item for key, item in record.items() if key != "messages"})
            if isinstance(record.get("messages"), list):
                self.add_all(record["messages"], loc.key("messages"))
        else:
            self.log.skip("records of no known kind")

    def rewind(self, message_id: str) -> None:
        ids = list(self.records)
        cut = ids.index(message_id) if message_id in ids else 0
        for removed in ids[cut:]:
            del self.records[removed]
        if len(ids) > cut:
            self.log.skip("messages removed by $rewindTo", len(ids) - cut)

    def checkpoint(self, messages: list[Any], loc: Loc) -> None:
        """A new message list. After a chat compression it starts with the summary: then the run is kept whole (the
        summary stays where the compression happened, the turns it replaced before it); else it replaces all."""
        if any(_is_summary(message) for message in messages):
            self.add_all(messages, loc)
            return
        before = set(self.records)
        self.records = {}
        self.add_all(messages, loc)
        gone = len(before - set(self.records))
        if gone:
            self.log.skip("messages a $set checkpoint left out", gone)

    def add_all(self, messages: list[Any], loc: Loc) -> None:
        for index, message in enumerate(messages):
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                self.records[message["id"]] = (loc.key(index), message)


class _Session:
    def __init__(self, log: SessionLog, records: list[tuple[Loc, dict[str, Any]]]) -> None:
        self.log = log
        self.records = records
        self.ids = CallIds("gemini")
        # Newer sessions send tool responses back as user records: those calls take their result from there.
        self.answered_later = {
            response["id"]
            for loc, record in records
            if record.get("type") == "user"
            for response in gemini_parts.split(record.get("content"), loc.key("content")).responses
            if isinstance(response.get("id"), str)
        }

    def run(self) -> None:
        for loc, record in self.records:
            kind = record.get("type")
            if kind == "user":
                self.user(record, loc)
            elif kind == "gemini":
                self.model(record, loc)
            elif kind in NOTICE_TYPES:
                self.log.skip(f"{kind} records (CLI notices)")
            else:
                self.log.skip(f"{kind} records")

    def user(self, record: dict[str, Any], loc: Loc) -> None:
        parts = gemini_parts.split(record.get("content"), loc.key("content"))
        for response in parts.responses:
            self.result(response, loc)
        text = "\n".join(parts.texts).strip()
        if parts.responses:
            if text or parts.other:  # media or text sent along with tool results
                self.log.add({"role": "user", "content": parts.content(), "internal": True}, loc)
        elif not text and not parts.other:
            self.log.skip("empty user records")
        elif text.startswith(COMMAND_PREFIXES):
            self.log.skip("CLI commands (never sent to the model)")
        elif SNAPSHOT_TAG in text:
            self.log.compaction(text, loc, tokens_before=self.log.last_reported_total())
        else:
            internal = GEMINI_RULES.kind(text) == "internal"
            self.log.add({"role": "user", "content": parts.content(), "internal": internal}, loc)

    def model(self, record: dict[str, Any], loc: Loc) -> None:
        parts = gemini_parts.split(record.get("content"), loc.key("content"))
        records = _tool_call_records(record.get("toolCalls"), loc.key("toolCalls"))
        calls = parts.calls or [
            {"id": call.get("id"), "name": call["name"], "args": call.get("args")} for call in records
        ]
        named = {str(call["name"]): [c for c in records if c["name"] == call["name"]] for call in calls}
        data: dict[str, Any] = {"role": "assistant", "content": parts.content()}
        tool_calls = []
        for call in calls:
            if not isinstance(call.get("id"), str) and named.get(str(call["name"])):
                call = {**call, "id": named[str(call["name"])].pop(0).get("id")}
            tool_calls.append(gemini_parts.tool_call(self.ids.call(call), call))
        if tool_calls:
            data["tool_calls"] = tool_calls
        reasoning = parts.thoughts or _thoughts(record.get("thoughts"))
        if reasoning:
            data["reasoning_content"] = "\n".join(reasoning)
        if not tool_calls and not reasoning and not data["content"]:
            self.log.skip("empty model records")
            return
        tokens = record.get("tokens")
        if tokens is not None:
            usage = _usage(expect_dict(tokens, loc.key("tokens"), "a tokens summary"), loc.key("tokens"))
            if usage is not None:
                data["usage_metadata"] = usage
        if isinstance(record.get("model"), str) and record["model"]:
            self.log.metadata["model"] = record["model"]
        self.log.add(data, loc)
        for index, call in enumerate(records):
            if call.get("id") in self.answered_later or call.get("result") is None:
                continue
            self.inline_result(call, loc.key("toolCalls").key(index))

    def result(self, response: dict[str, Any], loc: Loc, fallback: Any = None, status: Any = None) -> None:
        call_id = self.ids.response(response, fallback) or f"unpaired_{response.get('name')}"
        data: dict[str, Any] = {
            "role": "tool",
            "tool_call_id": call_id,
            "content": gemini_parts.response_text(response),
        }
        if isinstance(response.get("name"), str):
            data["name"] = response["name"]
        if isinstance(status, str):
            data["status"] = status
        self.log.add(data, loc)

    def inline_result(self, call: dict[str, Any], loc: Loc) -> None:
        result = call.get("result")
        parts: Parts = gemini_parts.split(result, loc.key("result"))
        texts = [gemini_parts.response_text(response) for response in parts.responses] + parts.texts
        response = {"id": call.get("id"), "name": call["name"], "response": {"output": "\n".join(texts)}}
        self.result(response, loc, fallback=call.get("id"), status=call.get("status"))


def _is_summary(record: Any) -> bool:
    if not isinstance(record, dict) or record.get("type") != "user":
        return False
    try:
        parts = gemini_parts.split(record.get("content"), Loc())
    except FormatProblem:
        return False
    return not parts.responses and any(SNAPSHOT_TAG in text for text in parts.texts)


def _tool_call_records(value: Any, loc: Loc) -> list[dict[str, Any]]:
    if value is None:
        return []
    out = []
    for index, call in enumerate(expect_list(value, loc, "tool calls")):
        call = expect_dict(call, loc.key(index), "a tool call record")
        if not isinstance(call.get("name"), str) or not call["name"]:
            raise FormatProblem(loc.key(index), "missing name")
        if call.get("id") is not None and not isinstance(call["id"], str):
            raise FormatProblem(loc.key(index).key("id"), f"must be a string, got {type_name(call['id'])}")
        out.append(call)
    return out


def _thoughts(value: Any) -> list[str]:
    out = []
    for thought in value or ():
        if isinstance(thought, dict):
            subject, description = thought.get("subject"), thought.get("description")
            text = f"**{subject}** {description}" if subject else description
            if isinstance(text, str) and text:
                out.append(text)
    return out


def _usage(tokens: dict[str, Any], loc: Loc) -> dict[str, Any] | None:
    for key in ("input", "output", "cached", "thoughts", "tool", "total"):
        if tokens.get(key) is not None and token_count(tokens[key]) is None:
            raise FormatProblem(loc.key(key), f"must be a number, got {type_name(tokens[key])}")
    prompt, total = token_count(tokens.get("input")), token_count(tokens.get("total"))
    if not prompt and not total:
        return None
    total = total or (prompt or 0) + (token_count(tokens.get("output")) or 0) + (
        token_count(tokens.get("thoughts")) or 0
    )
    usage = {"input_tokens": prompt or 0, "output_tokens": token_count(tokens.get("output")) or 0}
    if token_count(tokens.get("cached")):
        usage["cached_tokens"] = token_count(tokens.get("cached")) or 0
    return {**usage, "total_tokens": total}


def read(located: Iterable[tuple[Loc, Any]], *, name: str) -> Conversation:
    log = SessionLog(source_format=SOURCE_FORMAT, metadata={"agent": "gemini-cli"})
    replay = _Replay(log)
    for loc, value in located:
        replay.line(loc, value)
    for key, field in METADATA_FIELDS.items():
        if isinstance(replay.meta.get(key), str) and replay.meta[key]:
            log.metadata[field] = replay.meta[key]
    _Session(log, list(replay.records.values())).run()
    return log.conversation(name, unanswered=NO_RESULT)


def _read(shape: Shape) -> list[Conversation]:
    if shape.container == "object":  # the older whole-file ConversationRecord
        return [read([(Loc(), shape.raw)], name=shape.stem)]
    return [read(shape.located(), name=shape.stem)]


READER = Reader(name=SOURCE_FORMAT, looks_like=looks_like, read=_read)
