"""Gemini API chat histories — a list of ``Content {role: user|model, parts}`` — as Gemini CLI and Qwen Code save
them with ``/chat save <tag>`` (``checkpoint-<tag>.json``: the older bare list, or ``{history: [...]}``).

Invariant: one conversation in the history's order; ``model`` turns are assistant messages (text, ``thought``
parts as ``reasoning_content``, ``functionCall`` parts as calls), a user turn's ``functionResponse`` parts are
tool results answering their call (by id, else the oldest open call of that name), its text a user turn.

Schema: google-gemini/gemini-cli ``packages/core/src/core/logger.ts`` (``saveCheckpoint`` / ``loadCheckpoint``:
``Checkpoint {history: Content[]}``, or a bare ``Content[]`` in older files) and ``@google/genai`` ``Content``.

Roles: the rules of the agent that wrote it — Gemini CLI's (``gemini.GEMINI_RULES``: its environment context and
hook context are internal) or Qwen Code's (``qwen.QWEN_RULES``); a user turn holding a ``<state_snapshot>`` is a
chat-compression summary (internal, a recorded compaction). A saved history carries no usage: windows are counted.
"""

from __future__ import annotations

from typing import Any

from compressor.formats import gemini_parts
from compressor.formats.gemini import GEMINI_RULES, NO_RESULT, SNAPSHOT_TAG
from compressor.formats.gemini_parts import CallIds
from compressor.formats.problems import FormatProblem, Loc, expect_dict
from compressor.formats.qwen import QWEN_RULES
from compressor.formats.session_log import SessionLog
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "gemini-history"
ROLES = ("user", "model")


def is_content(value: Any) -> bool:
    """A Gemini ``Content``: its parts never carry a ``type`` (the AI SDK's ``UIMessage`` parts all do)."""
    parts = value.get("parts") if isinstance(value, dict) and value.get("role") in ROLES else None
    if not isinstance(parts, list):
        return False
    return not any(isinstance(part, dict) and isinstance(part.get("type"), str) for part in parts[:20])


def _history(shape: Shape) -> tuple[list[Any], Loc] | None:
    if shape.container == "object":
        history = shape.raw.get("history")
        if isinstance(history, list) and history and all(map(is_content, history[:50])):
            return history, Loc().key("history")
        return None
    if shape.container == "array" and shape.objects and all(map(is_content, shape.objects[:50])):
        return shape.raw, Loc()
    return None


def _internal(text: str) -> bool:
    return GEMINI_RULES.kind(text) == "internal" or QWEN_RULES.kind(text) == "internal"


def read(items: list[Any], base: Loc, *, name: str) -> Conversation:
    log = SessionLog(source_format=SOURCE_FORMAT)
    ids = CallIds("gemini")
    for index, value in enumerate(items):
        loc = base.key(index)
        content = expect_dict(value, loc, "a Content")
        if content.get("role") not in ROLES:
            raise FormatProblem(
                loc.key("role"), f"unknown role {content.get('role')!r} (expected user or model)"
            )
        parts = gemini_parts.split(content.get("parts"), loc.key("parts"))
        if content["role"] == "model":
            data: dict[str, Any] = {"role": "assistant", "content": parts.content()}
            calls = [gemini_parts.tool_call(ids.call(call), call) for call in parts.calls]
            if calls:
                data["tool_calls"] = calls
            if parts.thoughts:
                data["reasoning_content"] = "\n".join(parts.thoughts)
            log.add(data, loc)
            continue
        for response in parts.responses:
            call_id = ids.response(response) or f"unpaired_{response.get('name')}"
            result = {
                "role": "tool",
                "tool_call_id": call_id,
                "content": gemini_parts.response_text(response),
            }
            log.add(
                {**result, "name": response["name"]} if isinstance(response.get("name"), str) else result, loc
            )
        text = "\n".join(parts.texts)
        if not text.strip() and not parts.other:
            continue
        if SNAPSHOT_TAG in text and not parts.responses:
            log.compaction(text, loc)
        else:
            internal = bool(parts.responses) or _internal(text)
            log.add({"role": "user", "content": parts.content(), "internal": internal}, loc)
    return log.conversation(name, base, unanswered=NO_RESULT)


def _read(shape: Shape) -> list[Conversation]:
    found = _history(shape)
    if found is None:
        raise FormatProblem(Loc(), "expected a list of Gemini Content or {history: [...]}")
    items, base = found
    return [read(items, base, name=shape.stem)]


READER = Reader(name=SOURCE_FORMAT, looks_like=lambda shape: _history(shape) is not None, read=_read)
