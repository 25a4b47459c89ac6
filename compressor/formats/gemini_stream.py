"""Gemini CLI ``--output-format stream-json`` logs: one event a line — ``init {session_id, model}``, ``message {role,
content, delta?}``, ``tool_use {tool_name, tool_id, parameters}``, ``tool_result {tool_id, status, output?, error?}``,
``error {severity, message}``, ``result {status, stats}``.

Invariant: each ``init`` starts a conversation (one per session the log holds); assistant ``delta`` chunks and the
tool calls that follow them, up to the next tool result or user message, are ONE assistant message; each
``tool_result`` answers its ``tool_id``.

Schema: google-gemini/gemini-cli ``packages/core/src/output/types.ts`` (``JsonStreamEvent``) and
``stream-json-formatter.ts``.

- Roles: the user ``message`` events Gemini CLI writes are the prompts it was given: real requests. Events before a
  session's ``init`` (or after its ``result``) were not written by that session (a wrapper's copy of the prompt,
  without a timestamp, in the bundled sample): skipped, with a reading.
- Usage: ``result.stats`` sums the whole session (``total_tokens``, ``input_tokens`` … over every model call), so
  it is no call's window: kept as ``metadata["stats"]``, and windows are counted. ``init.model`` →
  ``metadata["model"]``.
- A tool call whose result never came (the log ends mid-call) is given ``NO_RESULT`` so every call stays paired.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from compressor.formats.problems import FormatProblem, Loc, expect_dict, type_name
from compressor.formats.session_log import SessionLog
from compressor.formats.shape import Reader
from compressor.messages import Conversation

SOURCE_FORMAT = "gemini-cli-stream"
EVENT_TYPES = ("init", "message", "tool_use", "tool_result", "error", "result")
NO_RESULT = "(no result: the log ends before the tool returned)"
OUTSIDE = "events outside a session (before its init or after its result)"


def is_event(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if kind == "init":
        return isinstance(value.get("session_id"), str)
    if kind == "tool_use":
        return isinstance(value.get("tool_id"), str) and "tool_name" in value
    if kind == "tool_result":
        return isinstance(value.get("tool_id"), str) and "status" in value
    return False


def _text(event: dict[str, Any], key: str, loc: Loc) -> str:
    value = event.get(key)
    if not isinstance(value, str) or not value:
        raise FormatProblem(
            loc.key(key) if value not in (None, "") else loc,
            f"missing {key}" if value in (None, "") else f"must be a string, got {type_name(value)}",
        )
    return value


class _Session:
    def __init__(self, init: dict[str, Any] | None) -> None:
        self.log = SessionLog(source_format=SOURCE_FORMAT, metadata={"agent": "gemini-cli"})
        self.turn: int | None = None  # the assistant message being gathered
        self.names: dict[str, str] = {}
        if init is not None:
            for key, name in (("session_id", "session_id"), ("model", "model"), ("timestamp", "started_at")):
                if isinstance(init.get(key), str) and init[key]:
                    self.log.metadata[name] = init[key]

    def assistant(self, loc: Loc) -> dict[str, Any]:
        if self.turn is None:
            self.turn = self.log.add({"role": "assistant", "content": ""}, loc)
        return self.log.entries[self.turn].data

    def event(self, event: dict[str, Any], loc: Loc) -> None:
        kind = event.get("type")
        if kind == "message":
            self.message(event, loc)
        elif kind == "tool_use":
            call_id, name = _text(event, "tool_id", loc), _text(event, "tool_name", loc)
            arguments = json.dumps(event.get("parameters") or {}, ensure_ascii=False)
            self.names[call_id] = name
            call = {"id": call_id, "type": "function", "name": name, "arguments": arguments}
            self.assistant(loc).setdefault("tool_calls", []).append(call)
        elif kind == "tool_result":
            self.turn = None
            call_id = _text(event, "tool_id", loc)
            data: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": _output(event, loc)}
            if call_id in self.names:
                data["name"] = self.names[call_id]
            if isinstance(event.get("status"), str):
                data["status"] = event["status"]
            self.log.add(data, loc)
        elif kind == "result":
            if isinstance(event.get("stats"), dict):
                self.log.metadata["stats"] = event["stats"]
            if isinstance(event.get("status"), str):
                self.log.metadata["status"] = event["status"]
        else:
            self.log.skip(f"{kind} events")

    def message(self, event: dict[str, Any], loc: Loc) -> None:
        content = event.get("content", "")
        if not isinstance(content, str):
            raise FormatProblem(loc.key("content"), f"must be a string, got {type_name(content)}")
        role = event.get("role")
        if role == "assistant":
            data = self.assistant(loc)
            data["content"] += content
            if event.get("delta") is True:
                self.log.chunks_joined += 1
        elif role == "user":
            self.turn = None
            self.log.add({"role": "user", "content": content}, loc)
        else:
            raise FormatProblem(loc.key("role"), f"unknown role {role!r} (expected user or assistant)")


def _output(event: dict[str, Any], loc: Loc) -> str:
    output = event.get("output")
    if isinstance(output, str):
        return output
    error = event.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    if output is None:
        return ""
    raise FormatProblem(loc.key("output"), f"must be a string, got {type_name(output)}")


def read(located: Iterable[tuple[Loc, Any]], *, stem: str) -> list[Conversation]:
    events = [(loc, expect_dict(value, loc, "a stream event")) for loc, value in located]
    has_init = any(event.get("type") == "init" for _, event in events)
    sessions: list[tuple[_Session, Loc]] = [] if has_init else [(_Session(None), Loc())]
    current: _Session | None = None if has_init else sessions[0][0]
    outside = 0  # events no session wrote, counted on the session they precede (or the last one)
    for loc, event in events:
        if event.get("type") == "init":
            current = _Session(event)
            sessions.append((current, loc))
            if outside:
                current.log.skip(OUTSIDE, outside)
                outside = 0
        elif current is None:
            outside += 1
        else:
            current.event(event, loc)
            if event.get("type") == "result" and has_init:
                current = None
    if outside and sessions:
        sessions[-1][0].log.skip(OUTSIDE, outside)
    out = []
    for index, (session, loc) in enumerate(sessions):
        sid = session.log.metadata.get("session_id")
        name = stem if len(sessions) == 1 else f"{stem} #{index}" + (f" (session {sid})" if sid else "")
        out.append(session.log.conversation(name, loc, unanswered=NO_RESULT))
    return out


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=lambda shape: shape.container != "object" and any(map(is_event, shape.objects[:50])),
    read=lambda shape: read(shape.located(), stem=shape.stem),
)
