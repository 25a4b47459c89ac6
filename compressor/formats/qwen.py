"""Qwen Code sessions (``~/.qwen/projects/<project>/chats/<session id>.jsonl``): one ``ChatRecord`` a line,
``{uuid, parentUuid, sessionId, timestamp, type: user|assistant|tool_result|system, subtype?, provenance?,
message: Gemini Content {role, parts}, usageMetadata?, model?, toolCallResult?, systemPayload?}``.

Invariant: the conversation is the chain Qwen Code itself resumes (``sessionService.reconstructHistory``): from the
last record back along ``parentUuid`` (records of one ``uuid`` merged, their parts joined), so turns a rewind left on
a dead branch, and subagent side chains (``isSidechain``), are not read; each ``chat_compression`` record is a
compaction the agent made, recorded where it happened with the numbers it carries.

Schema: QwenLM/qwen-code ``packages/core/src/services/chatRecordingService.ts`` (``ChatRecord``,
``ChatRecordProvenance``, ``ChatCompressionRecordPayload {info: {originalTokenCount, newTokenCount,
compressionStatus}, compressedHistory}``, ``recordUserMessage`` / ``recordNotification`` / ``recordCronPrompt`` /
``recordMidTurnUserMessage`` / ``recordToolResult`` / ``recordAssistantTurn``) and ``sessionService.ts``.

- Roles: ``provenance`` says who wrote a user record — ``real_user`` is a real request, ``tool_result`` a tool
  result, anything else (``system``, ``goal_control``, ``goal_runtime`` …) internal. Records without it (older
  versions) go by ``subtype``: ``notification`` and ``cron`` are harness-written (internal), a
  ``mid_turn_user_message`` is the user typing while tools ran (a request, placed after those tools' results:
  Qwen sends it inside their Content), else ``QWEN_RULES`` (a ``<system-reminder>`` turn and the startup
  environment context are internal). ``functionResponse`` parts are tool results answering their call.
- ``chat_compression``: an internal user message carries the summary (the user turn of ``compressedHistory`` with
  the ``<state_snapshot>``; the turns kept after it repeat earlier records, so they are not added again);
  ``tokens_before`` / ``tokens_after`` = ``info.originalTokenCount`` / ``info.newTokenCount``. Other ``system``
  records (titles, telemetry, slash commands, snapshots …) are not turns (skipped, with a reading).
- Usage: an assistant record's ``usageMetadata`` is its model call's (``totalTokenCount`` = prompt + reply +
  thoughts, the window it filled) → ``usage_metadata``; ``model`` → ``metadata["model"]``, ``contextWindowSize`` →
  ``metadata["context_window"]``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compressor.formats import gemini_parts
from compressor.formats.gemini_parts import CallIds
from compressor.formats.problems import FormatProblem, Loc, expect_dict, type_name
from compressor.formats.roles import TurnRules
from compressor.formats.session_log import SessionLog, token_count
from compressor.formats.shape import Reader
from compressor.messages import Conversation

SOURCE_FORMAT = "qwen-code"
RECORD_TYPES = ("user", "assistant", "tool_result", "system")
INTERNAL_SUBTYPES = ("notification", "cron")
#: The environment context Qwen Code sends first (its fork of Gemini CLI's ``getEnvironmentContext``).
SESSION_CONTEXT = "This is the Qwen Code. We are setting up the context for our chat."
QWEN_RULES = TurnRules(internal_prefixes=(SESSION_CONTEXT,), internal_tags=("system-reminder",))
SNAPSHOT_TAG = "<state_snapshot>"
NO_RESULT = "(no result was recorded for this call)"


def is_record(value: Any) -> bool:
    if (
        not isinstance(value, dict)
        or value.get("type") not in RECORD_TYPES
        or not isinstance(value.get("uuid"), str)
    ):
        return False
    message = value.get("message")
    if isinstance(message, dict) and isinstance(message.get("parts"), list):
        return True
    return value.get("type") == "tool_result" or value.get("subtype") == "chat_compression"


def chain(located: list[tuple[Loc, dict[str, Any]]], log: SessionLog) -> list[tuple[Loc, dict[str, Any]]]:
    """The records Qwen Code resumes from: back from the last one along ``parentUuid``, records of a uuid merged."""
    main = [(loc, record) for loc, record in located if record.get("isSidechain") is not True]
    if len(main) < len(located):
        log.skip("subagent side-chain records", len(located) - len(main))
    if not main:
        return []
    by_uuid: dict[str, list[tuple[Loc, dict[str, Any]]]] = {}
    for loc, record in main:
        by_uuid.setdefault(str(record.get("uuid")), []).append((loc, record))
    picked: list[str] = []
    seen: set[str] = set()
    current: Any = main[-1][1].get("uuid")
    while isinstance(current, str) and current not in seen and current in by_uuid:
        seen.add(current)
        picked.append(current)
        current = by_uuid[current][0][1].get("parentUuid")
    off_chain = sum(len(records) for uuid, records in by_uuid.items() if uuid not in seen)
    if off_chain:
        log.skip("records on branches the session left (rewinds)", off_chain)
    return [_merged(by_uuid[uuid]) for uuid in reversed(picked)]


def _merged(records: list[tuple[Loc, dict[str, Any]]]) -> tuple[Loc, dict[str, Any]]:
    loc, first = records[0]
    if len(records) == 1:
        return loc, first
    merged = dict(first)
    for _, record in records[1:]:
        message = record.get("message")
        if isinstance(message, dict):
            base = merged.get("message")
            if isinstance(base, dict):
                parts = [*(base.get("parts") or []), *(message.get("parts") or [])]
                merged["message"] = {"role": base.get("role"), "parts": parts}
            else:
                merged["message"] = message
        for key in ("usageMetadata", "contextWindowSize"):
            if record.get(key) is not None:
                merged[key] = record[key]
        for key in ("toolCallResult", "model"):
            if record.get(key) and not merged.get(key):
                merged[key] = record[key]
    return loc, merged


class _Session:
    def __init__(self, log: SessionLog) -> None:
        self.log = log
        self.ids = CallIds("qwen")
        # User text typed while tools ran: Qwen sends it in the same Content as those tools' results, so it goes
        # after them, never between a call and its result.
        self.held: list[tuple[dict[str, Any], Loc]] = []

    def flush(self) -> None:
        for data, loc in self.held:
            self.log.add(data, loc)
        self.held = []

    def record(self, loc: Loc, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind != "tool_result":
            self.flush()
        if kind == "system":
            if record.get("subtype") == "chat_compression":
                self.compression(record, loc.key("systemPayload"))
            else:
                self.log.skip(f"system {record.get('subtype')} records")
            return
        message = record.get("message")
        if message is None and kind == "tool_result":
            message = {"parts": (record.get("toolCallResult") or {}).get("responseParts")}
        message = expect_dict(message, loc.key("message"), "a Content") if message is not None else {}
        parts = gemini_parts.split(message.get("parts"), loc.key("message").key("parts"))
        if kind == "assistant":
            self.assistant(record, parts, loc)
            return
        fallback = (record.get("toolCallResult") or {}).get("callId") if kind == "tool_result" else None
        for response in parts.responses:
            call_id = self.ids.response(response, fallback if len(parts.responses) == 1 else None)
            data: dict[str, Any] = {
                "role": "tool",
                "tool_call_id": call_id or f"unpaired_{response.get('name')}",
            }
            data["content"] = gemini_parts.response_text(response)
            if isinstance(response.get("name"), str):
                data["name"] = response["name"]
            self.log.add(data, loc)
        if not parts.texts and not parts.other:
            if not parts.responses:
                self.log.skip(f"empty {kind} records")
            return
        internal = kind == "tool_result" or _is_internal(record, "\n".join(parts.texts))
        data = {"role": "user", "content": parts.content(), "internal": internal}
        if record.get("subtype") == "mid_turn_user_message":
            self.held.append((data, loc))
        else:
            self.log.add(data, loc)

    def assistant(self, record: dict[str, Any], parts: gemini_parts.Parts, loc: Loc) -> None:
        data: dict[str, Any] = {"role": "assistant", "content": parts.content()}
        calls = [gemini_parts.tool_call(self.ids.call(call), call) for call in parts.calls]
        if calls:
            data["tool_calls"] = calls
        if parts.thoughts:
            data["reasoning_content"] = "\n".join(parts.thoughts)
        if not calls and not parts.thoughts and not data["content"]:
            self.log.skip("empty assistant records")
            return
        if record.get("usageMetadata") is not None:
            usage = gemini_parts.usage(
                gemini_parts.check_counts(record["usageMetadata"], loc.key("usageMetadata"))
            )
            if usage is not None:
                data["usage_metadata"] = usage
        if isinstance(record.get("model"), str) and record["model"]:
            self.log.metadata["model"] = record["model"]
        window = token_count(record.get("contextWindowSize"))
        if window:
            self.log.metadata["context_window"] = window
        self.log.add(data, loc)

    def compression(self, record: dict[str, Any], loc: Loc) -> None:
        payload = expect_dict(record.get("systemPayload"), loc, "a chat compression payload")
        info: dict[str, Any] = payload["info"] if isinstance(payload.get("info"), dict) else {}
        history = payload.get("compressedHistory")
        if history is not None and not isinstance(history, list):
            raise FormatProblem(
                loc.key("compressedHistory"), f"must be a list of Content, got {type_name(history)}"
            )
        summary = _summary(history or [], loc.key("compressedHistory"))
        self.log.compaction(
            summary,
            loc,
            tokens_before=token_count(info.get("originalTokenCount")),
            tokens_after=token_count(info.get("newTokenCount")),
            content=summary or "(no summary recorded)",
        )


def _is_internal(record: dict[str, Any], text: str) -> bool:
    provenance = record.get("provenance")
    if isinstance(provenance, str):
        return provenance != "real_user"
    if record.get("subtype") in INTERNAL_SUBTYPES:
        return True
    return record.get("subtype") != "mid_turn_user_message" and QWEN_RULES.kind(text) == "internal"


def _summary(history: list[Any], loc: Loc) -> str:
    """The summary turn of a compressed history: the user turn with the snapshot, else its first user turn."""
    texts = []
    for index, content in enumerate(history):
        if isinstance(content, dict) and content.get("role") == "user":
            parts = gemini_parts.split(content.get("parts"), loc.key(index).key("parts"))
            if not parts.responses:
                texts.append("\n".join(parts.texts))
    return next((text for text in texts if SNAPSHOT_TAG in text), texts[0] if texts else "")


def read(located: Iterable[tuple[Loc, Any]], *, name: str) -> Conversation:
    log = SessionLog(source_format=SOURCE_FORMAT, metadata={"agent": "qwen-code"})
    records = [(loc, expect_dict(value, loc, "a chat record")) for loc, value in located]
    known = [(loc, record) for loc, record in records if isinstance(record.get("uuid"), str)]
    if len(known) < len(records):
        log.skip("lines that are not chat records", len(records) - len(known))
    picked = chain(known, log)
    if picked:
        first = picked[0][1]
        for key, field in (
            ("sessionId", "session_id"),
            ("cwd", "cwd"),
            ("version", "cli_version"),
            ("gitBranch", "git_branch"),
        ):
            if isinstance(first.get(key), str) and first[key]:
                log.metadata[field] = first[key]
    session = _Session(log)
    for loc, record in picked:
        session.record(loc, record)
    session.flush()
    return log.conversation(name, unanswered=NO_RESULT)


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=lambda shape: shape.container != "object" and any(map(is_record, shape.objects[:50])),
    read=lambda shape: [read(shape.located(), name=shape.stem)],
)
