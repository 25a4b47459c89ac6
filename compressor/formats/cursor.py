"""Cursor's agent chats (Composer): the VS Code-style ``state.vscdb`` SQLite store in Cursor's ``globalStorage``, table
``cursorDiskKV(key, value)``: ``composerData:<composerId>`` holds a chat (name, createdAt, modelConfig and the
ordered ``fullConversationHeadersOnly`` ``[{bubbleId, type}]``), ``bubbleId:<composerId>:<bubbleId>`` one bubble
(a message) as JSON. One conversation a chat that has bubbles.

Invariant: the database is only read (``stores.Store.connect``); bubbles are taken in the order the chat's headers
list them (older chats keep them inline in ``conversation``) and each becomes what it records: nothing is guessed
beyond the stored fields, and a chat or bubble that is not JSON names its key.

Schema: Cursor publishes none. Read from public parsers that agree on it (named with their commits in
``tests/compressor/formats/test_cursor.py``). A bubble of ``type`` 1 is the person's request (``text``); one of
``type`` 2 is the assistant's: ``text``, ``thinking.text`` (reasoning; a bubble with thinking has no text), and
``toolFormerData`` for a tool call: ``name``, ``toolCallId``, ``rawArgs`` or ``params`` (JSON text), ``result``
(JSON text), ``status``. ``tokenCount {inputTokens, outputTokens}`` counts a request.

- Text and reasoning go with the tool call that follows them: one assistant message a call, its ``result`` a tool
  message after it; a call with no result (cancelled, rejected, still running) is answered by a marked filler.
- Not read, because no parser establishes what the model is sent of them: the context a request attaches (files,
  selections, rules), Cursor's system prompt, and Cursor's own summaries (``latestConversationSummary``, a
  bubble's ``conversationSummary``): which bubbles a summary replaced is not recorded reliably, so a summary is
  counted in a reading and is no recorded compaction. ``agentKv`` blobs and the ``cursor-agent`` CLI's ``store.db``
  are other stores; a workspace's older ``ItemTable`` chats are ``formats.cursor_workspace``'s.
- Usage: ``tokenCount`` is per request, not a window: the chat's sums → ``metadata["session_usage"]``; windows are
  counted. ``modelConfig.modelName`` (unless ``default``) → ``metadata["model"]``.
"""

from __future__ import annotations

import json
from typing import Any

from compressor.formats.problems import FormatProblem, Loc, expect_dict, short
from compressor.formats.runs import RunBuilder, json_text, token_count
from compressor.formats.source import check_depth
from compressor.formats.stores import Store, StoreReader, rows
from compressor.messages import Conversation, Reading

SOURCE_FORMAT = "cursor"
TABLE = "cursorDiskKV"
USER, ASSISTANT = 1, 2
#: The result of a call whose bubble holds none.
NO_RESULT = "(no result recorded: the call ended {status})"
ERROR_STATUSES = ("error", "failed")
#: The range of keys a prefix covers (``;`` sorts right after ``:``), so SQLite walks the key's index.
_RANGE = f"SELECT key, value FROM {TABLE} WHERE key >= ? AND key < ? ORDER BY key"


def _json(value: Any, loc: Loc) -> Any:
    try:
        if isinstance(value, bytes):
            value = value.decode("utf-8")
        parsed = json.loads(value) if isinstance(value, str) else value
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise FormatProblem(loc, "not valid JSON") from None
    check_depth(parsed, loc)
    return parsed


def _prefixed(store: Store, prefix: str) -> list[tuple[str, Any]]:
    return [(str(row["key"]), row["value"]) for row in rows(store, _RANGE, (prefix, prefix[:-1] + ";"))]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


class Chat:
    """One composer's bubbles, in order, read into a RunBuilder."""

    def __init__(self, run: RunBuilder) -> None:
        self.run = run
        self.texts: list[str] = []  # assistant text waiting for the call it goes with, or the next request
        self.reasoning: list[str] = []
        self.filled = 0
        self.summaries = 0
        self.tokens = {"input_tokens": 0, "output_tokens": 0}

    def bubble(self, bubble: dict[str, Any], header_type: Any, loc: Loc) -> None:
        kind = bubble.get("type", header_type)
        self._count(bubble.get("tokenCount"))
        if bubble.get("conversationSummary"):
            self.summaries += 1
        if kind == USER:
            self.flush()
            text = _text(bubble.get("text"))
            if text.strip():
                self.run.add({"role": "user", "content": text, "id": bubble.get("bubbleId")}, loc)
            else:
                self.run.skip("empty user bubbles")
        elif kind == ASSISTANT:
            self._assistant(bubble, loc)
        else:
            self.run.skip(f"bubbles of type {short(kind)}")

    def _assistant(self, bubble: dict[str, Any], loc: Loc) -> None:
        thinking = bubble.get("thinking")
        reasoning = _text(thinking.get("text")) if isinstance(thinking, dict) else _text(thinking)
        text = _text(bubble.get("text"))
        tool = bubble.get("toolFormerData")
        called = isinstance(tool, dict) and isinstance(tool.get("name"), str) and tool["name"]
        if reasoning.strip():
            self.reasoning.append(reasoning)
        if text.strip():
            self.texts.append(text)
        if called:
            assert isinstance(tool, dict)
            self._call(tool, bubble, loc)
        elif not reasoning.strip() and not text.strip():
            self.run.skip("assistant bubbles with nothing said")

    def _call(self, tool: dict[str, Any], bubble: dict[str, Any], loc: Loc) -> None:
        call_id = (
            tool.get("toolCallId") if isinstance(tool.get("toolCallId"), str) and tool["toolCallId"] else None
        )
        call_id = call_id or str(bubble.get("bubbleId") or f"call-{len(self.run.messages)}")
        arguments = tool.get("rawArgs") if tool.get("rawArgs") not in (None, "") else tool.get("params")
        call = {
            "id": call_id,
            "type": "function",
            "name": tool["name"],
            "arguments": json_text(arguments) or "{}",
        }
        self._say(bubble.get("bubbleId"), loc, calls=[call])
        status = _text(tool.get("status")) or "without a status"
        result = tool.get("result")
        message: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "name": tool["name"]}
        if result in (None, ""):
            message["content"] = NO_RESULT.format(status=status)
            self.filled += 1
        else:
            message["content"] = json_text(result)
        if status in ERROR_STATUSES:
            message["is_error"] = True
        self.run.add(message, loc)

    def flush(self) -> None:
        """Assistant text waiting for a call that never came is a reply of its own."""
        if self.texts:
            self._say(None, Loc(), calls=[])
        elif self.reasoning:
            self.run.skip("thinking with no reply after it")
            self.reasoning = []

    def _say(self, bubble_id: Any, loc: Loc, *, calls: list[dict[str, Any]]) -> None:
        data: dict[str, Any] = {"role": "assistant", "content": "\n".join(self.texts)}
        if bubble_id:
            data["id"] = bubble_id
        if calls:
            data["tool_calls"] = calls
        if self.reasoning:
            data["reasoning_content"] = "\n".join(self.reasoning)
        self.texts, self.reasoning = [], []
        self.run.add(data, loc)

    def _count(self, value: Any) -> None:
        if isinstance(value, dict):
            for key, name in (("input_tokens", "inputTokens"), ("output_tokens", "outputTokens")):
                self.tokens[key] += token_count(value.get(name)) or 0

    def conversation(self, loc: Loc) -> Conversation:
        self.flush()
        if self.filled:
            self.run.extra_readings.append(
                Reading(code="results_filled_in", count=self.filled, detail=f'"{NO_RESULT}"')
            )
        if self.summaries:
            self.run.skip("Cursor conversation summaries (where they cut the history is not recorded)")
        if any(self.tokens.values()):
            self.run.metadata["session_usage"] = dict(self.tokens)
        return self.run.conversation(loc)


def _metadata(chat: dict[str, Any], composer_id: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {"agent": "cursor", "composer_id": composer_id}
    config = chat.get("modelConfig")
    model = config.get("modelName") if isinstance(config, dict) else None
    if isinstance(model, str) and model and model != "default":
        metadata["model"] = model
    for key, name in (("createdAt", "created_at"), ("lastUpdatedAt", "updated_at"), ("unifiedMode", "mode")):
        if isinstance(chat.get(key), str | int) and not isinstance(chat.get(key), bool):
            metadata[name] = chat[key]
    if isinstance(chat.get("isAgentic"), bool):
        metadata["is_agentic"] = chat["isAgentic"]
    return metadata


def read_chat(store: Store, key: str, chat: dict[str, Any], loc: Loc | None = None) -> Conversation | None:
    """One composer chat (``composerData:<id>``), or None when it holds no message; ``loc`` where it is stored."""
    composer_id = key.removeprefix("composerData:")
    loc = loc or Loc(path=f"{TABLE}[{key}]")
    name = chat.get("name")
    run = RunBuilder(
        name=name if isinstance(name, str) and name.strip() else composer_id,
        source_format=SOURCE_FORMAT,
        metadata=_metadata(chat, composer_id),
    )
    reader = Chat(run)
    headers = chat.get("fullConversationHeadersOnly")
    if isinstance(headers, list) and headers:
        stored = {
            bubble_key.rsplit(":", 1)[-1]: value
            for bubble_key, value in _prefixed(store, f"bubbleId:{composer_id}:")
        }
        for index, header in enumerate(headers):
            header = expect_dict(header, loc.key("fullConversationHeadersOnly").key(index), "a bubble header")
            bubble_id = str(header.get("bubbleId"))
            bubble_loc = Loc(path=f"{TABLE}[bubbleId:{composer_id}:{bubble_id}]")
            bubble = _json(stored[bubble_id], bubble_loc) if bubble_id in stored else None
            if not isinstance(bubble, dict):
                run.skip("bubbles the chat lists but the database does not hold")
                continue
            reader.bubble(bubble, header.get("type"), bubble_loc)
    elif isinstance(chat.get("conversation"), list) and chat["conversation"]:
        for index, bubble in enumerate(chat["conversation"]):  # older chats keep their bubbles inline
            bubble_loc = loc.key("conversation").key(index)
            reader.bubble(expect_dict(bubble, bubble_loc, "a bubble"), None, bubble_loc)
    else:
        return None
    if not run.messages and not reader.texts:
        return None
    return reader.conversation(loc)


def _read_database(store: Store) -> list[Conversation]:
    chats = []
    for key, value in _prefixed(store, "composerData:"):
        chat = expect_dict(_json(value, Loc(path=f"{TABLE}[{key}]")), Loc(path=f"{TABLE}[{key}]"), "a chat")
        created = chat.get("createdAt")
        chats.append((created if isinstance(created, int | float) else 0, key, chat))
    out = [
        conversation
        for _, key, chat in sorted(chats, key=lambda item: (item[0], item[1]))
        if (conversation := read_chat(store, key, chat)) is not None
    ]
    if not out:
        raise FormatProblem(
            Loc(),
            "is a Cursor state database with no chat that has messages "
            "(Cursor keeps them in User/globalStorage/state.vscdb, not a workspace's)",
        )
    return out


def _is_database(store: Store) -> bool:
    if store.kind != "sqlite" or TABLE not in store.tables():
        return False
    return {str(row[1]) for row in rows(store, f"PRAGMA table_info({TABLE})")} >= {"key", "value"}


def holds_chats(store: Store) -> bool:
    """Whether the database keeps a chat in ``cursorDiskKV`` (a workspace's database keeps that table empty)."""
    query = f"SELECT 1 FROM {TABLE} WHERE key >= ? AND key < ? LIMIT 1"
    return any(True for _ in rows(store, query, ("composerData:", "composerData;")))


STORE_READER = StoreReader(
    name="cursor-vscdb", looks_like=_is_database, read=_read_database, holds=holds_chats
)
