"""Crush (charmbracelet/crush) sessions: the ``crush.db`` SQLite store in a project's data folder (``.crush/``), tables
``sessions`` (title, message_count, prompt_tokens, completion_tokens, cost, summary_message_id, parent_session_id)
and ``messages`` (session_id, role user|assistant|tool, parts JSON, model, provider, is_summary_message). One
conversation a session that has messages.

Invariant: the database is only read (``stores.Store.connect``); messages are taken as Crush's ``ListMessagesBySession``
takes them (``created_at``, seconds, the row id breaking ties) and rebuilt as its ``preparePrompt`` and
``Message.ToAIMessage`` send them; a part Crush cannot read (unknown type, wrong field type) names its row.

Schema: charmbracelet/crush at 37f36e9 (2026-08-21): ``internal/db/migrations/*.sql`` (20250424 initial tables;
summary_message_id 20250515, provider 20250627, is_summary_message 20250810, todos 20250812: later columns may
be absent), ``internal/message/message.go`` (b82d7d0: ``marshalParts``, each part ``{"type", "data"}``),
``internal/message/content.go`` (5e1cd7e: the part structs and ``ToAIMessage``), ``internal/agent/agent.go``
(9efc08c: ``preparePrompt``, ``getSessionMessages``, ``Summarize``). Older Crush (``internal/llm/agent``, until
fa7fe6b) wrote the same parts and the same summary, without ``is_summary_message``.

- A user message sends its first text part trimmed, then its text attachments (``binary`` parts of a ``text/`` type)
  in ``<file>`` blocks, then each bang-mode ``shell_command`` as ``$ command`` with its output; other ``binary``
  parts go as files (images as data URLs). ``image_url`` parts are never sent. A message made only of shell
  commands (the person ran them in Crush, asking nothing) is internal, and so is the request Crush queues itself
  after summarising mid-task ("The previous session was interrupted because it got too long…").
- An assistant message sends its first text part trimmed, its first reasoning part and its tool calls; one with
  none of them (cancelled, or failed with an API error, before any reply) is left out. A ``tool`` message holds
  ``tool_result`` parts, each a tool message here; a result to no call is left out, and a call with no result is
  answered by Crush's own error, as ``preparePrompt`` does. An error result sends its content; a media result its data.
- Compaction: ``Summarize`` writes the summary as an assistant message (``is_summary_message``) and points the
  session's ``summary_message_id`` at it; later calls start from it, sent as a *user* message. It is read so: an
  internal user message carrying the summary, recorded as a compaction, the history before it kept whole. A summary
  that failed (finish ``error``) never became the start and stays an assistant message.
- Usage: Crush keeps token counts per session only (``prompt_tokens`` and ``completion_tokens`` of the latest call,
  which it compares with the context window; ``cost`` summed, in dollars) → ``metadata["session_usage"]`` and
  ``metadata["total_cost_usd"]``; no message carries usage, so windows are counted. The model of the first reply
  → ``metadata["model"]``. Crush's per-call todo reminder and system prompt are not stored and not added.

Places: Crush keeps one database per project (``.crush/crush.db`` in the nearest project folder, or
``options.data_directory``); its global data folder holds only ``projects.json``, so there is no standard place.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from compressor.formats.problems import (
    FormatProblem,
    Loc,
    expect_dict,
    expect_list,
    expect_text,
    short,
)
from compressor.formats.roles import TurnRules
from compressor.formats.runs import RunBuilder, token_count
from compressor.formats.source import check_depth
from compressor.formats.stores import Store, StoreReader, rows
from compressor.messages import Conversation, Reading

SOURCE_FORMAT = "crush"
TABLES = frozenset({"sessions", "messages"})
COLUMNS = frozenset({"id", "session_id", "role", "parts"})
PART_TYPES = (
    "reasoning",
    "text",
    "image_url",
    "binary",
    "tool_call",
    "tool_result",
    "finish",
    "shell_command",
)
#: What ``PromptWithTextAttachments`` writes before the files a person attached.
ATTACHED = "\n<system_info>The files below have been attached by the user, consider them in your response</system_info>\n"
#: The result ``syntheticToolResultsForOrphanedCalls`` sends for a call that has none.
INTERRUPTED = "tool call was interrupted and did not produce a result, you may retry this call if the result is still needed"
#: What ``ToAIMessage`` sends for a media result whose data is not base64.
MEDIA_FAILED = "[Image data could not be loaded]"
CRUSH_RULES = TurnRules(
    internal_prefixes=(
        "The previous session was interrupted because it got too long, the initial user request was:",
    )
)
SUMMARISED = "end_turn"  # the finish reason of a summary that became the session's start
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")

Part = tuple[Loc, str, dict[str, Any]]


@dataclass
class StoredMessage:
    """One ``messages`` row: its columns and its parts, each with where it came from."""

    row: dict[str, Any]
    parts: list[Part]
    loc: Loc

    def of(self, kind: str) -> list[Part]:
        return [part for part in self.parts if part[1] == kind]

    def first(self, kind: str, key: str) -> str:
        """A field of the first part of ``kind`` ("" without one), as ``Message.Content()`` and the like take it."""
        found = self.of(kind)
        return expect_text(found[0][2], key, found[0][0], required=False) if found else ""


def _parts(text: Any, loc: Loc) -> list[Part]:
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else text
    except (ValueError, RecursionError):
        raise FormatProblem(loc, "not valid JSON") from None
    check_depth(value, loc)
    out: list[Part] = []
    for index, item in enumerate(expect_list(value, loc, "the message parts")):
        item_loc = loc.key(index)
        item = expect_dict(item, item_loc, "a part")
        kind = item.get("type")
        if kind not in PART_TYPES:
            raise FormatProblem(item_loc.key("type"), f"unknown Crush part type {short(kind)}")
        data = item.get("data")
        out.append(
            (
                item_loc.key("data"),
                str(kind),
                {} if data is None else expect_dict(data, item_loc, "part data"),
            )
        )
    return out


def _decoded(data: dict[str, Any], loc: Loc) -> bytes:
    """A ``binary`` part's ``Data`` (Go's ``[]byte``: base64 in JSON)."""
    try:
        return base64.b64decode(expect_text(data, "Data", loc, required=False), validate=True)
    except (binascii.Error, ValueError):
        raise FormatProblem(loc.key("Data"), "not base64") from None


def _is_base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


class _Session:
    """One session's messages, in order, read into a RunBuilder as Crush sends them."""

    def __init__(self, run: RunBuilder, messages: list[StoredMessage], summary_id: Any) -> None:
        self.run = run
        self.messages = messages
        self.summary_id = summary_id
        self.calls = {
            expect_text(data, "id", loc, required=False)
            for m in messages
            if m.row.get("role") == "assistant"
            for loc, _, data in m.of("tool_call")
        }
        self.results = {
            expect_text(data, "tool_call_id", loc, required=False)
            for m in messages
            if m.row.get("role") == "tool"
            for loc, _, data in m.of("tool_result")
        }
        self.filled = 0

    def read(self) -> Conversation:
        for message in self.messages:
            role = message.row.get("role")
            if self._is_summary(message):
                self._summary(message)
            elif role == "user":
                self._user(message)
            elif role == "assistant":
                self._assistant(message)
            elif role == "tool":
                self._tool(message)
            else:
                self.run.skip(f"{short(role)} messages")  # ToAIMessage sends nothing for them
        if self.filled:
            self.run.extra_readings.append(
                Reading(code="results_filled_in", count=self.filled, detail=f'"{INTERRUPTED}"')
            )
        return self.run.conversation()

    def _is_summary(self, message: StoredMessage) -> bool:
        if message.row.get("role") != "assistant":
            return False
        if self.summary_id is not None and message.row.get("id") == self.summary_id:
            return True
        return bool(message.row.get("is_summary_message")) and message.first("finish", "reason") == SUMMARISED

    def _summary(self, message: StoredMessage) -> None:
        summary = message.first("text", "text").strip()
        index = len(self.run.messages)
        self.run.add(
            {"role": "user", "content": summary, "id": message.row.get("id"), "internal": True}, message.loc
        )
        self.run.record_compaction(summary, index=index)

    def _user(self, message: StoredMessage) -> None:
        text = message.first("text", "text").strip()
        attached, files = _attachments(message)
        if attached:
            text += ATTACHED + "".join(attached)
        typed = bool(text)
        for loc, _, shell in message.of("shell_command"):
            output = _ANSI.sub("", expect_text(shell, "output", loc, required=False))
            said = f"$ {expect_text(shell, 'command', loc, required=False)}\n{output}\n(exit code {shell.get('exit_code', 0)})"
            text = f"{text}\n\n{said}" if text else said
        if not text and not files:
            self.run.skip("empty user messages")
            return
        content: str | list[dict[str, Any]] = text
        if files:
            content = [*([{"type": "text", "text": text}] if text else []), *files]
        data: dict[str, Any] = {"role": "user", "content": content, "id": message.row.get("id")}
        if (not typed and not files) or CRUSH_RULES.kind(text) == "internal":
            data["internal"] = True  # only shell commands the person ran, or a request Crush queued itself
        self.run.add(data, message.loc)

    def _assistant(self, message: StoredMessage) -> None:
        text = message.first("text", "text")
        reasoning = message.first("reasoning", "thinking")
        calls = [
            {
                "id": expect_text(data, "id", loc, required=False),
                "type": "function",
                "name": expect_text(data, "name", loc, required=False),
                "arguments": expect_text(data, "input", loc, required=False),
            }
            for loc, _, data in message.of("tool_call")
        ]
        if not calls and not text and not reasoning:
            self.run.skip("assistant messages with nothing sent (cancelled or failed)")
            return
        data: dict[str, Any] = {"role": "assistant", "content": text.strip(), "id": message.row.get("id")}
        if calls:
            data["tool_calls"] = calls
        if reasoning:
            data["reasoning_content"] = reasoning
        self.run.add(data, message.loc)
        for call in calls:
            if call["id"] not in self.results:
                self.run.add(
                    {"role": "tool", "tool_call_id": call["id"], "content": INTERRUPTED, "is_error": True},
                    message.loc,
                )
                self.filled += 1
        model = message.row.get("model")
        if isinstance(model, str) and model:
            self.run.metadata.setdefault("model", model)
            if isinstance(message.row.get("provider"), str) and message.row["provider"]:
                self.run.metadata.setdefault("provider", message.row["provider"])

    def _tool(self, message: StoredMessage) -> None:
        for loc, _, data in message.of("tool_result"):
            call_id = expect_text(data, "tool_call_id", loc, required=False)
            if call_id not in self.calls:
                self.run.skip("tool results to no call")
                continue
            content: str | list[dict[str, Any]] = expect_text(data, "content", loc, required=False)
            tool: dict[str, Any] = {
                "role": "tool",
                "tool_call_id": call_id,
                "name": expect_text(data, "name", loc, required=False),
            }
            if data.get("is_error") is True:
                tool["is_error"] = True
            elif media := expect_text(data, "data", loc, required=False):
                mime = expect_text(data, "mime_type", loc, required=False)
                content = (
                    [{"type": "image_url", "image_url": {"url": f"data:{mime};base64,{media}"}}]
                    if _is_base64(media)
                    else MEDIA_FAILED
                )
            self.run.add({**tool, "content": content}, loc)


def _attachments(message: StoredMessage) -> tuple[list[str], list[dict[str, Any]]]:
    """A user message's ``binary`` parts: text files as ``<file>`` blocks, others as parts (images as data URLs)."""
    attached: list[str] = []
    files: list[dict[str, Any]] = []
    for loc, _, data in message.of("binary"):
        mime, path = (
            expect_text(data, "MIMEType", loc, required=False),
            expect_text(data, "Path", loc, required=False),
        )
        if mime.startswith("text/"):
            opening = f"<file path='{path}'>\n" if path else "<file>\n"
            body = _decoded(data, loc).decode("utf-8", errors="replace")
            attached.append(f"{opening}\n{body}\n</file>\n")
        elif mime.startswith("image/"):
            url = f"data:{mime};base64,{expect_text(data, 'Data', loc, required=False)}"
            files.append({"type": "image_url", "image_url": {"url": url}})
        else:
            files.append({"type": "text", "text": f"[Attached {mime or 'file'}: {path or 'file'}]"})
    return attached, files


def session_metadata(session: dict[str, Any], session_id: str) -> dict[str, Any]:
    """What Crush records of a session (its ``sessions`` row) as conversation metadata."""
    metadata: dict[str, Any] = {"agent": "crush", "session_id": session_id}
    for key in ("title", "parent_session_id"):
        if isinstance(session.get(key), str) and session[key]:
            metadata[key] = session[key]
    usage = {key: token_count(session.get(key)) for key in ("prompt_tokens", "completion_tokens")}
    if any(count for count in usage.values()):
        metadata["session_usage"] = {key: count for key, count in usage.items() if count is not None}
    cost = session.get("cost")
    if isinstance(cost, int | float) and not isinstance(cost, bool) and math.isfinite(cost) and cost > 0:
        metadata["total_cost_usd"] = float(cost)
    return metadata


def _read_database(store: Store) -> list[Conversation]:
    sessions = {
        str(row["id"]): dict(row) for row in rows(store, "SELECT * FROM sessions ORDER BY created_at, rowid")
    }
    messages: dict[str, list[StoredMessage]] = defaultdict(list)
    for row in rows(store, "SELECT * FROM messages ORDER BY created_at, rowid"):
        values = dict(row)
        loc = Loc(path=f"messages row {values.get('id')}")
        stored = StoredMessage(row=values, parts=_parts(values.get("parts"), loc.key("parts")), loc=loc)
        messages[str(values.get("session_id"))].append(stored)
    order = [key for key in sessions if key in messages] + sorted(set(messages) - set(sessions))
    out = []
    for key in order:
        session = sessions.get(key, {})
        title = session.get("title")
        name = title if isinstance(title, str) and title.strip() else key
        run = RunBuilder(name=name, source_format=SOURCE_FORMAT, metadata=session_metadata(session, key))
        out.append(_Session(run, messages[key], session.get("summary_message_id")).read())
    if not out:
        raise FormatProblem(Loc(), "is a Crush database with no session that has messages")
    return out


def _is_database(store: Store) -> bool:
    if store.kind != "sqlite" or not store.tables() >= TABLES:
        return False
    return {str(row[1]) for row in rows(store, "PRAGMA table_info(messages)")} >= COLUMNS


STORE_READER = StoreReader(name="crush-db", looks_like=_is_database, read=_read_database)
