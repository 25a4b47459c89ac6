"""OpenCode sessions: the JSON storage folder (``~/.local/share/opencode/storage``: ``session/<project>/<id>.json``,
``message/<session>/<id>.json``, ``part/<message>/<id>.json``) and the ``opencode.db`` SQLite tables
``session``/``message``/``part`` (each row's ``data`` is the JSON without its ids). One conversation per session.

Invariant: messages are rebuilt as OpenCode's ``MessageV2.toModelMessages`` sends them: an assistant message is
split at its ``step-start`` parts into one model call each (text, reasoning, tool calls), every tool part answered
by a ``tool`` message right after its call; errored assistant messages OpenCode leaves out of the prompt are left out.

Schema: sst/opencode ``packages/opencode/src/session/message-v2.ts`` (parts ``text``, ``reasoning``, ``file``, ``tool``
with ``state{status, input, output|error}``, ``step-start``/``step-finish`` with ``tokens``, ``compaction``,
``subtask``; messages with ``role``, ``time.created``, ``summary``, ``error``, ``tokens``), ``session/session.sql.ts``
(tables), ``storage/json-migration.ts`` (folder layout), ``session/compaction.ts`` (what a compaction writes).
The Kilo Code CLI, an OpenCode fork, writes the same tables into its own database, whose sessions are labelled Kilo's.

Roles. A user message with a text part the user typed is a real request. One made only of ``synthetic`` text
(OpenCode's own "Continue if you have next steps…" after an automatic compaction, file contents it attached) is
internal, and so is the ``compaction`` request (sent to the model as "What did we do so far?"). The assistant
message marked ``summary`` that answers it carries the compaction's summary: a recorded compaction; the newest
messages a compaction kept (``tail_start_id``) are read again right after it, as OpenCode re-sends them
(``opencode_tail``). A tool output OpenCode later pruned (``state.time.compacted``) is kept as it was first sent,
with a reading. A tool cut off by an abort (``error`` with ``metadata.interrupted``) answers with the output it had
written (``metadata.output``), else its error, as ``toModelMessages`` sends it.

Usage: each ``step-finish`` part's ``tokens`` → that model call's ``usage_metadata``; ``total_tokens`` is
``tokens.total`` when present, else ``input + output + cache.read + cache.write`` (OpenCode's own overflow measure).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from compressor.formats import opencode_tail
from compressor.formats.problems import FormatProblem, Loc, expect_dict
from compressor.formats.runs import RunBuilder, json_text, token_count
from compressor.formats.stores import Store, StoreReader, rows
from compressor.messages import Conversation, Reading

SOURCE_FORMAT = "opencode"
COMPACTION_PROMPT = "What did we do so far?"  # what OpenCode sends for a compaction part
SUBTASK_PROMPT = "The following tool was executed by the user"
INTERRUPTED = "[Tool execution was interrupted]"
ABORTED = "MessageAbortedError"
TABLES = frozenset({"session", "message", "part"})
AGENT = "opencode"
#: The Kilo Code CLI (an OpenCode fork) keeps OpenCode's tables in a database of its own name (``kilo.db``, or
#: ``kilo-<channel>.db`` for a preview channel: its ``storage/db.ts``), beside tables of its own (``kilo_board``).
KILO_AGENT = "kilo-code"
KILO_PREFIX = "kilo"


@dataclass
class StoredMessage:
    """One message's info and its parts, with where they came from (for error messages)."""

    info: dict[str, Any]
    parts: list[tuple[Loc, dict[str, Any]]]
    loc: Loc

    @property
    def order(self) -> tuple[Any, str]:
        created = (
            self.info.get("time", {}).get("created") if isinstance(self.info.get("time"), dict) else None
        )
        return (created if isinstance(created, int | float) else 0, str(self.info.get("id", "")))


def window(tokens: Any) -> dict[str, Any] | None:
    """``usage_metadata`` from OpenCode's ``tokens`` object of one model call."""
    if not isinstance(tokens, dict):
        return None
    raw_cache = tokens.get("cache")
    cache: dict[str, Any] = raw_cache if isinstance(raw_cache, dict) else {}
    parts = {
        "input_tokens": token_count(tokens.get("input")),
        "output_tokens": token_count(tokens.get("output")),
        "reasoning_tokens": token_count(tokens.get("reasoning")),
        "cache_read_tokens": token_count(cache.get("read")),
        "cache_write_tokens": token_count(cache.get("write")),
    }
    total = token_count(tokens.get("total"))
    if total is None:
        keys = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
        total = sum(parts[key] or 0 for key in keys)
    if not total:
        return None
    return {**{key: value for key, value in parts.items() if value is not None}, "total_tokens": total}


class SessionReader:
    """The messages of one session, in order, turned into a conversation."""

    def __init__(self, run: RunBuilder) -> None:
        self.run = run
        self.pruned = 0
        self.kept = 0
        self.starts: dict[str, int] = {}  # where each stored message's reading began (a kept tail's bounds)
        self.tails: dict[str, str] = {}  # a compaction request's id -> the first message its compaction kept

    def read(self, messages: Iterable[StoredMessage]) -> Conversation:
        for message in sorted(messages, key=lambda item: item.order):
            role = message.info.get("role")
            self.starts.setdefault(str(message.info.get("id")), len(self.run.messages))
            if role == "user":
                self._user(message)
            elif role == "assistant":
                self._assistant(message)
            else:
                raise FormatProblem(
                    message.loc.key("role"), f"unknown role {role!r} (expected user or assistant)"
                )
        if self.pruned:
            self.run.extra_readings.append(Reading(code="tool_outputs_pruned", count=self.pruned))
        if self.kept:
            self.run.extra_readings.append(Reading(code="kept_messages_read_again", count=self.kept))
        return self.run.conversation()

    def _kept_tail(self, info: dict[str, Any]) -> None:
        """After a summary, the tail its compaction kept, read again (``opencode_tail``)."""
        request = str(info.get("parentID"))
        start, end = self.starts.get(self.tails.get(request, "")), self.starts.get(request)
        if start is None or end is None or start >= end or not opencode_tail.completes(info):
            return
        copies = opencode_tail.kept_copies(self.run.messages, start, end, request)
        self.run.messages.extend(copies)
        self.kept += len(copies)

    def _user(self, message: StoredMessage) -> None:
        content: list[dict[str, Any]] = []
        typed = compaction = False
        for _, part in message.parts:
            kind = part.get("type")
            if kind == "text" and not part.get("ignored"):
                content.append({"type": "text", "text": json_text(part.get("text", ""))})
                typed = typed or not part.get("synthetic")
            elif kind == "file":
                mime = str(part.get("mime", ""))
                if mime.startswith("image/") and isinstance(part.get("url"), str):
                    content.append({"type": "image_url", "image_url": {"url": part["url"]}})
                    typed = True
                elif mime not in ("text/plain", "application/x-directory"):  # those arrive as synthetic text
                    content.append(
                        {"type": "text", "text": f"[Attached {mime}: {part.get('filename') or 'file'}]"}
                    )
            elif kind == "compaction":
                content.append({"type": "text", "text": COMPACTION_PROMPT})
                compaction = True
            elif kind == "subtask":
                content.append({"type": "text", "text": SUBTASK_PROMPT})
                typed = True
        if not content:
            self.run.skip("empty user message")
            return
        data: dict[str, Any] = {"role": "user", "content": _plain(content), "id": message.info.get("id")}
        if compaction or not typed:
            data["internal"] = True
        self.run.add(data, message.loc)
        kept_from = opencode_tail.tail_start(message.parts) if compaction else None
        if kept_from is not None:
            self.tails[str(message.info.get("id"))] = kept_from

    def _assistant(self, message: StoredMessage) -> None:
        info = message.info
        error = info.get("error")
        substantive = any(part.get("type") not in ("step-start", "reasoning") for _, part in message.parts)
        if error and not (isinstance(error, dict) and error.get("name") == ABORTED and substantive):
            self.run.skip("errored assistant message")
            return
        steps: list[list[tuple[Loc, dict[str, Any]]]] = [[]]
        for loc, part in message.parts:
            if part.get("type") == "step-start" and steps[-1]:
                steps.append([])
            steps[-1].append((loc, part))
        before = self.run.last_assistant_total()
        first = len(self.run.messages)
        for position, step in enumerate(steps):
            last = position == len(steps) - 1
            self._step(step, info, message.loc, fallback_usage=info.get("tokens") if last else None)
        model = info.get("modelID")
        if isinstance(model, str) and model:
            provider = info.get("providerID")
            self.run.metadata.setdefault(
                "model", f"{provider}/{model}" if isinstance(provider, str) else model
            )
        if info.get("summary") is True and len(self.run.messages) > first:
            summary = "\n".join(m.text for m in self.run.messages[first:] if m.role == "assistant")
            self.run.record_compaction(summary, index=first, tokens_before=before)
            self._kept_tail(info)

    def _step(
        self, step: list[tuple[Loc, dict[str, Any]]], info: dict[str, Any], loc: Loc, *, fallback_usage: Any
    ) -> None:
        texts: list[str] = []
        reasoning: list[str] = []
        calls: list[dict[str, Any]] = []
        results: list[tuple[Loc, dict[str, Any]]] = []
        usage = None
        for part_loc, part in step:
            kind = part.get("type")
            if kind == "text":
                texts.append(json_text(part.get("text", "")))
            elif kind == "reasoning":
                reasoning.append(json_text(part.get("text", "")))
            elif kind == "tool":
                call, result = self._tool(part, part_loc)
                calls.append(call)
                results.append((part_loc, result))
            elif kind == "step-finish":
                usage = window(part.get("tokens"))
        if not texts and not calls:
            return
        data: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts), "id": info.get("id")}
        if calls:
            data["tool_calls"] = calls
        if reasoning:
            data["reasoning_content"] = "\n".join(reasoning)
        usage = usage or window(fallback_usage)
        if usage is not None:
            data["usage_metadata"] = usage
        self.run.add(data, loc)
        for part_loc, result in results:
            self.run.add(result, part_loc)

    def _tool(self, part: dict[str, Any], loc: Loc) -> tuple[dict[str, Any], dict[str, Any]]:
        state = expect_dict(part.get("state"), loc.key("state"), "a tool state")
        call_id, name = part.get("callID"), part.get("tool")
        call = {
            "id": call_id,
            "type": "function",
            "name": name,
            "arguments": json_text(state.get("input", {})),
        }
        status = state.get("status")
        if status == "completed":
            output = json_text(state.get("output", ""))
            if isinstance(state.get("time"), dict) and state["time"].get("compacted"):
                self.pruned += 1
        elif status == "error":
            partial = _interrupted_output(state)
            output = json_text(state.get("error", "")) if partial is None else partial
        else:
            output = INTERRUPTED
        return call, {"role": "tool", "tool_call_id": call_id, "name": name, "content": output}


def _interrupted_output(state: dict[str, Any]) -> str | None:
    """What a tool had written when its run was cut off: OpenCode marks such a part ``error`` with
    ``metadata.interrupted`` and sends the output kept in ``metadata.output`` (a bash command's so far) as its result."""
    metadata = state.get("metadata")
    if not isinstance(metadata, dict) or metadata.get("interrupted") is not True:
        return None
    output = metadata.get("output")
    return output if isinstance(output, str) else None


def _plain(content: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    if all(part["type"] == "text" for part in content):
        return "\n".join(part["text"] for part in content)
    return content


def from_session(
    session: dict[str, Any], messages: Iterable[StoredMessage], *, fallback_name: str, agent: str = AGENT
) -> Conversation:
    session_id = session.get("id")
    title = session.get("title")
    name = title if isinstance(title, str) and title else str(session_id or fallback_name)
    metadata: dict[str, Any] = {"agent": agent}
    if session_id:
        metadata["session_id"] = session_id
    for key in ("directory", "version", "parentID"):
        if session.get(key):
            metadata[key] = session[key]
    return SessionReader(RunBuilder(name=name, source_format=SOURCE_FORMAT, metadata=metadata)).read(messages)


# -- the JSON storage folder ------------------------------------------------------------------------


def _storage_root(store: Store) -> str | None:
    if store.has_dir("message") and store.has_dir("part"):
        return ""
    if store.has_dir("storage", "message") and store.has_dir("storage", "part"):
        return "storage"
    return None


def _read_folder(store: Store) -> list[Conversation]:
    root = _storage_root(store)
    prefix = f"{root}/" if root else ""
    sessions: dict[str, dict[str, Any]] = {}
    for project in store.dirs(f"{prefix}session"):
        for path in store.files(f"{prefix}session/{project}"):
            info = expect_dict(store.read_json(path), store.loc(path), "a session")
            sessions[str(info.get("id") or path.stem)] = info
    out = []
    for session_id in sorted(set(store.dirs(f"{prefix}message")) | set(sessions)):
        messages = []
        for path in store.files(f"{prefix}message/{session_id}"):
            info = {**expect_dict(store.read_json(path), store.loc(path), "a message"), "id": path.stem}
            parts = [
                (
                    store.loc(part_path),
                    expect_dict(store.read_json(part_path), store.loc(part_path), "a part"),
                )
                for part_path in store.files(f"{prefix}part/{path.stem}")
            ]
            messages.append(StoredMessage(info=info, parts=parts, loc=store.loc(path)))
        if messages:
            session = sessions.get(session_id, {"id": session_id})
            out.append((_created(session), from_session(session, messages, fallback_name=session_id)))
    if not out:
        raise FormatProblem(Loc(), "is an OpenCode storage folder with no session that has messages")
    return [conversation for _, conversation in sorted(out, key=lambda item: item[0])]


def _created(session: dict[str, Any]) -> float:
    created = session.get("time", {}).get("created") if isinstance(session.get("time"), dict) else None
    return float(created) if isinstance(created, int | float) else 0.0


# -- the SQLite database --------------------------------------------------------------------------


def _json_row(text: Any, loc: Loc, what: str) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else text
    except ValueError:
        raise FormatProblem(loc.key("data"), "not valid JSON") from None
    return expect_dict(value, loc.key("data"), what)


def _read_database(store: Store) -> list[Conversation]:
    sessions = {}
    for row in rows(store, "SELECT * FROM session ORDER BY time_created, id"):
        values = dict(row)
        sessions[str(values["id"])] = {
            "id": values["id"],
            "title": values.get("title"),
            "directory": values.get("directory"),
            "version": values.get("version"),
            "parentID": values.get("parent_id"),
            "time": {"created": values.get("time_created")},
        }
    parts: dict[str, list[tuple[Loc, dict[str, Any]]]] = defaultdict(list)
    for row in rows(store, "SELECT id, message_id, data FROM part ORDER BY message_id, id"):
        loc = Loc(path=f"part[{row['id']}]")
        parts[str(row["message_id"])].append((loc, _json_row(row["data"], loc, "a part")))
    by_session: dict[str, list[StoredMessage]] = defaultdict(list)
    for row in rows(
        store, "SELECT id, session_id, time_created, data FROM message ORDER BY time_created, id"
    ):
        loc = Loc(path=f"message[{row['id']}]")
        info = {**_json_row(row["data"], loc, "a message"), "id": row["id"]}
        info.setdefault("time", {"created": row["time_created"]})
        by_session[str(row["session_id"])].append(
            StoredMessage(info=info, parts=parts.get(str(row["id"]), []), loc=loc)
        )
    order = list(sessions) + sorted(set(by_session) - set(sessions))
    agent = KILO_AGENT if _kilos(store) else AGENT
    out = [
        from_session(
            sessions.get(session_id, {"id": session_id}),
            by_session[session_id],
            fallback_name=session_id,
            agent=agent,
        )
        for session_id in order
        if by_session.get(session_id)
    ]
    if not out:
        raise FormatProblem(Loc(), "is an OpenCode database with no session that has messages")
    return out


def _kilos(store: Store) -> bool:
    """Whether a database is the Kilo Code CLI's: named as Kilo names it, or holding Kilo's own tables."""
    stem = store.stem.lower()
    return (
        stem == KILO_PREFIX
        or stem.startswith(f"{KILO_PREFIX}-")
        or any(table.startswith(f"{KILO_PREFIX}_") for table in store.tables())
    )


FOLDER_READER = StoreReader(
    name="opencode-storage", looks_like=lambda store: _storage_root(store) is not None, read=_read_folder
)
DATABASE_READER = StoreReader(
    name="opencode-db", looks_like=lambda store: store.tables() >= TABLES, read=_read_database
)
