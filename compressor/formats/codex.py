"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): one ``{timestamp, type, payload}`` line
per ``RolloutItem`` — ``session_meta``, ``response_item``, ``compacted``, ``turn_context``, ``event_msg``.

Invariant: ``response_item`` lines are read by the shared Responses item parser (``responses``), in file order;
the run is kept whole: at a ``compacted`` line an internal user message carries Codex's summary and is recorded
as a compaction; ``event_msg`` lines only complete what the items say (usage) and never add a turn.

Schema: openai/codex ``codex-rs/protocol/src/protocol.rs`` (``RolloutLine``, ``RolloutItem``, ``SessionMeta``,
``CompactedItem``, ``TurnContextItem``, ``TokenCountEvent``) and ``codex-rs/core/src/compact.rs`` /
``compact_remote.rs`` (how a compaction is written).

- ``session_meta``: id, cwd, cli_version, originator → metadata; ``base_instructions.text`` (the system prompt
  Codex sends as the Responses ``instructions``) → the system message; ``instructions`` (older: the user's AGENTS.md
  text, sent again as a ``<user_instructions>`` user message) stays out.
- ``turn_context``: ``model`` → ``metadata["model"]`` (the latest one).
- ``compacted {message, replacement_history}``: Codex replaced the model's history with ``replacement_history``
  (when present) or with the initial context, the kept user messages and ``message`` (the summary, prefixed by
  Codex's summary prefix). Items of ``replacement_history`` repeat earlier turns, so they are not added again; the
  summary is ``message``, else the summary message inside ``replacement_history``; a remote compaction keeps
  only an encrypted ``compaction`` item (summary left empty, with a reading).
  ``tokens_before`` = the window of the latest model call shown before it; ``tokens_after`` = Codex's own estimate
  of the new history (the ``token_count`` it writes right after a compaction: total only, input and output 0).
- Older rollouts (before ``RolloutLine``, mid-2025): a first line ``{id, timestamp, instructions, git}``, then the
  Responses items themselves, one a line, and ``{"record_type": "state"}`` markers: read by the same item parser.
- ``event_msg`` ``token_count``: ``info.last_token_usage`` is the usage of the model call that just ended; its
  ``total_tokens`` (input + output of that call, so the window it filled; input + output when total is absent) goes
  on that call's assistant message as ``usage_metadata`` with the other counts beside it. Some versions write a
  call's token_count BEFORE its items (0.39 writes it once, just before; 0.60 before and again after): a
  token_count that finds no new assistant message waits and goes on the next reply of that turn; one whose
  cumulative ``total_token_usage`` repeats the previous event's is the same event again (skipped); one still
  waiting at a ``compacted`` line or a new request (the compaction request itself) is not attached.
  ``info.model_context_window`` → ``metadata["context_window"]``. ``user_message`` / ``agent_message`` /
  ``agent_reasoning`` events repeat the items (skipped, counted in a reading), as are other events.

- Newer items (``codex-rs/protocol/src/models.rs``): ``additional_tools`` (tool definitions added to the prompt)
  join the run's tools; ``agent_message`` (what another agent of the run told this one) is an internal user turn;
  ``context_compaction`` is an encrypted compaction like ``compaction``; ``compaction_trigger`` is a request
  control, skipped. A ``tool_search_call`` the server ran has ``call_id`` null, as its ``tool_search_output`` does
  (``RolloutLine.json``, app-server-protocol's schema): the output answers the oldest search not yet answered.

Roles: ``responses.CODEX_RULES`` (the context Codex injects as user messages is internal).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compressor.formats.building import check_usage
from compressor.formats.problems import FormatProblem, Loc, expect_dict, type_name
from compressor.formats.responses import (
    ABORTED,
    ABORTED_NOTE,
    COMPACTION_TYPES,
    SUMMARY_PREFIX,
    ItemParser,
    finish_content,
    from_items,
    is_item,
    text_of,
)
from compressor.formats.session_log import SessionLog, token_count, tool_defs
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "codex"
LINE_TYPES = ("session_meta", "response_item", "compacted", "turn_context", "event_msg")
#: ``event_msg`` kinds that repeat what the response items already hold.
COPY_EVENTS = ("user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content")
#: Session facts kept as metadata (``session_meta`` key → metadata key).
META_FIELDS = {
    "id": "session_id",
    "cwd": "cwd",
    "cli_version": "cli_version",
    "originator": "originator",
    "model_provider": "model_provider",
    "forked_from_id": "forked_from_id",
    "timestamp": "started_at",
}
USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")
ENCRYPTED_SUMMARY = "[compaction summary, encrypted by the server]"


def is_rollout_line(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") in LINE_TYPES and "payload" in value


class _Rollout:
    def __init__(self) -> None:
        self.log = SessionLog(source_format=SOURCE_FORMAT, metadata={"agent": "codex"})
        self.items = ItemParser(self.log)
        self.usage_mark = 0  # entries before this index already had their model call's usage event
        self.estimate: int | None = None  # Codex's estimate of the history, written around a compaction
        self.awaiting: Any = None  # the latest compaction, until an estimate gives its tokens_after
        self.seen_meta = False
        self.pending: dict[str, Any] | None = (
            None  # a call's usage written before its items (see the docstring)
        )
        self.last_total: Any = None  # the previous token_count's cumulative usage, to know a repeated event

    def line(self, loc: Loc, value: Any) -> None:
        line = expect_dict(value, loc, "a rollout line")
        kind = line.get("type")
        if kind not in LINE_TYPES:
            self.log.skip(f"{kind} lines")
            return
        payload = expect_dict(line.get("payload"), loc.key("payload"), f"a {kind} payload")
        where = loc.key("payload")
        if kind == "response_item":
            if payload.get("type", "message") == "message" and payload.get("role") != "assistant":
                self.pending = (
                    None  # a new request: usage still waiting was no reply's (a compaction request)
                )
            self.items.item(where, payload)
            self.attach_pending()
        elif kind == "event_msg":
            self.event(payload, where)
        elif kind == "compacted":
            self.compacted(payload, where)
        elif kind == "turn_context":
            if isinstance(payload.get("model"), str) and payload["model"]:
                self.log.metadata["model"] = payload["model"]
        else:
            self.session_meta(payload, where)

    def session_meta(self, payload: dict[str, Any], loc: Loc) -> None:
        for key, name in META_FIELDS.items():
            if isinstance(payload.get(key), str) and payload[key]:
                self.log.metadata.setdefault(name, payload[key])
        base = payload.get("base_instructions")
        text = base.get("text") if isinstance(base, dict) else base
        if isinstance(text, str) and text and not self.seen_meta and not self.log.entries:
            self.log.add({"role": "system", "content": text}, loc.key("base_instructions"))
        self.log.tools.extend(tool_defs(payload.get("dynamic_tools"), loc.key("dynamic_tools")))
        self.seen_meta = True

    def compacted(self, payload: dict[str, Any], loc: Loc) -> None:
        self.items.end_turn()
        self.pending = None
        message = payload.get("message", "")
        if not isinstance(message, str):
            raise FormatProblem(loc.key("message"), f"must be a string, got {type_name(message)}")
        history = payload.get("replacement_history")
        if history is not None and not isinstance(history, list):
            raise FormatProblem(
                loc.key("replacement_history"), f"must be a list of items, got {type_name(history)}"
            )
        summary = message or _summary_in(history or [])
        encrypted = not summary and any(
            isinstance(item, dict) and item.get("type") in COMPACTION_TYPES for item in history or []
        )
        content = summary or (ENCRYPTED_SUMMARY if encrypted else "(no summary recorded)")
        before = self.log.last_reported_total()
        record = self.log.compaction_at_end()
        if record is not None and record.encrypted and not record.summary:
            # The server's compaction item was written as its own item just before: the same compaction.
            record.summary, record.encrypted = summary, not summary
            record.tokens_before, record.tokens_after = before, self.estimate
            self.log.entries[record.entry].data["content"] = summary or ENCRYPTED_SUMMARY
        else:
            record = self.log.compaction(
                summary,
                loc,
                tokens_before=before,
                tokens_after=self.estimate,
                encrypted=encrypted,
                content=content,
            )
        self.awaiting = record if self.estimate is None else None
        self.estimate = None
        self.usage_mark = len(self.log.entries)

    def event(self, payload: dict[str, Any], loc: Loc) -> None:
        kind = payload.get("type")
        if kind == "token_count":
            self.token_count(payload.get("info"), loc.key("info"))
        elif kind in COPY_EVENTS:
            self.log.skip("event_msg copies of turns")
        else:
            self.log.skip(f"event_msg {kind}")

    def token_count(self, info: Any, loc: Loc) -> None:
        if info is None:
            return  # an event that only carries rate limits
        info = expect_dict(info, loc, "token usage info")
        window = token_count(info.get("model_context_window"))
        if window:
            self.log.metadata["context_window"] = window
        last = info.get("last_token_usage")
        if last is None:
            return
        last = check_usage(last, loc.key("last_token_usage"))
        prompt, completion = token_count(last.get("input_tokens")), token_count(last.get("output_tokens"))
        total = token_count(last.get("total_tokens")) or (prompt or 0) + (completion or 0)
        if not total:
            return
        if not prompt and not completion:  # Codex's estimate of a rebuilt history, not a model call
            if self.awaiting is not None:
                self.awaiting.tokens_after, self.awaiting = total, None
            else:
                self.estimate = total
            return
        cumulative = info.get("total_token_usage")
        if cumulative is not None and cumulative == self.last_total:
            return  # the same event written again
        self.last_total = cumulative
        self.estimate, self.awaiting = None, None
        usage = {key: last[key] for key in USAGE_KEYS if token_count(last.get(key)) is not None}
        self.pending = {**usage, "total_tokens": total}
        self.attach_pending()
        self.usage_mark = len(self.log.entries)
        self.items.end_turn()

    def attach_pending(self) -> None:
        """Put the waiting usage on the newest reply since the last usage event, when it has none yet."""
        if self.pending is None:
            return
        entry = self.log.last_assistant(self.usage_mark)
        if entry is not None and "usage_metadata" not in entry.data:
            entry.data["usage_metadata"], self.pending = self.pending, None
            self.usage_mark = len(self.log.entries)


def _summary_in(history: list[Any]) -> str:
    """The summary message Codex put in a replacement history (a user message with its summary prefix)."""
    for item in history:
        if isinstance(item, dict) and item.get("role") == "user":
            text = text_of(item.get("content"))
            if text.startswith(SUMMARY_PREFIX):
                return text
    return ""


def from_lines(located: Iterable[tuple[Loc, Any]], *, name: str) -> Conversation:
    rollout = _Rollout()
    for loc, value in located:
        rollout.line(loc, value)
    finish_content(rollout.log)
    return rollout.log.conversation(name, unanswered=ABORTED, unanswered_note=ABORTED_NOTE)


def _is_old_header(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and isinstance(value.get("timestamp"), str)
        and not {"type", "role", "payload"} & value.keys()
    )


def _is_old_rollout(shape: Shape) -> bool:
    objects = shape.objects
    return bool(objects) and _is_old_header(objects[0]) and any(map(is_item, objects[1:50]))


def from_old_lines(located: Iterable[tuple[Loc, Any]], *, name: str) -> Conversation:
    """An older rollout: a session header line, then Responses items and state markers."""
    lines = list(located)
    header = lines[0][1]
    metadata = {"agent": "codex", "session_id": header["id"], "started_at": header["timestamp"]}
    items = [
        (loc, value) for loc, value in lines[1:] if not (isinstance(value, dict) and "record_type" in value)
    ]
    skipped = {"the session header and state markers": len(lines) - len(items)}
    return from_items(items, name=name, metadata=metadata, source_format=SOURCE_FORMAT, skipped=skipped)


def _looks_like(shape: Shape) -> bool:
    return shape.container != "object" and (
        any(map(is_rollout_line, shape.objects[:50])) or _is_old_rollout(shape)
    )


def _read(shape: Shape) -> list[Conversation]:
    if _is_old_rollout(shape):
        return [from_old_lines(shape.located(), name=shape.stem)]
    return [from_lines(shape.located(), name=shape.stem)]


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=_looks_like,
    read=_read,
)
