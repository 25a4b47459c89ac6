"""Codex CLI ``codex exec --json`` output: one ``ThreadEvent`` a line — ``thread.started {thread_id}``,
``turn.started``, ``item.started|updated|completed {item: {id, type, …}}``, ``turn.completed {usage}``,
``turn.failed {error}``, ``error {message}``.

Invariant: each ``thread.started`` starts a conversation (a file may hold several runs); each turn begins with the
user's prompt; every item is read once, in the order it first appeared, in its last reported state; a tool item
(command, file change, MCP or collab call, web search, to-do list) is one call and its result, and an agent message
right before it is the text of the same assistant turn.

Schema: openai/codex ``codex-rs/exec/src/exec_events.rs`` (``ThreadEvent``, ``ThreadItemDetails`` and their items).

- The prompt: ``codex exec`` takes it on the command line and never prints it, so each turn starts with an empty
  real user message standing for it (a reading says so): a span can anchor on it, and the prompt's own tokens are
  missing from every window.
- Usage: ``turn.completed.usage`` sums the turn's model calls (input, cached input, output), so it is no call's
  window: kept as ``metadata["turn_usage"]``, and windows are counted.
- Left out, with a reading: reasoning summaries (the model's reasoning goes back to it encrypted, not as this
  text), error items and stream errors (notices, not context), plan deltas and user-input requests.
- A tool item the log ends on before it completed keeps its last state and is given ``NO_RESULT``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from compressor.formats.problems import FormatProblem, Loc, expect_dict, type_name
from compressor.formats.session_log import SessionLog
from compressor.formats.shape import Reader
from compressor.messages import Conversation, Reading

SOURCE_FORMAT = "codex-exec"
ITEM_EVENTS = ("item.started", "item.updated", "item.completed")
NO_RESULT = "(no result: the log ends before the item completed)"
#: What stands for a turn's prompt, which ``codex exec`` does not print.
PROMPT_METADATA = {"stands_for": "the prompt codex exec was given (not in its output)"}
#: Items that are a tool the agent ran: one call and its result.
TOOL_ITEMS = (
    "command_execution",
    "file_change",
    "mcp_tool_call",
    "collab_tool_call",
    "web_search",
    "todo_list",
)
SKIPPED_ITEMS = {"reasoning": "reasoning summaries", "error": "error notices"}


def is_event(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if kind == "thread.started":
        return isinstance(value.get("thread_id"), str)
    if kind in ITEM_EVENTS:
        item = value.get("item")
        return (
            isinstance(item, dict) and isinstance(item.get("id"), str) and isinstance(item.get("type"), str)
        )
    return False


def _string(item: dict[str, Any], key: str, loc: Loc, *, default: str | None = None) -> str:
    value = item.get(key, default)
    if value is None and default is not None:
        return default
    if not isinstance(value, str):
        raise FormatProblem(loc.key("item").key(key), f"must be a string, got {type_name(value)}")
    return value


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _call(item: dict[str, Any], loc: Loc) -> tuple[str, Any, str, dict[str, Any]]:
    """A tool item as (tool name, arguments, result text, extra fields of the result)."""
    kind = item["type"]
    status = item.get("status")
    extra: dict[str, Any] = {"status": status} if isinstance(status, str) else {}
    if kind == "command_execution":
        exit_code = item.get("exit_code")
        if isinstance(exit_code, int) and not isinstance(exit_code, bool):
            extra["exit_code"] = exit_code
        output = _string(item, "aggregated_output", loc, default="")
        return kind, {"command": _string(item, "command", loc)}, output, extra
    if kind == "file_change":
        changes = item.get("changes") or []
        return kind, {"changes": changes}, status if isinstance(status, str) else "", extra
    if kind == "mcp_tool_call":
        name = f"{_string(item, 'server', loc)}.{_string(item, 'tool', loc)}"
        return name, item.get("arguments") or {}, _mcp_result(item), extra
    if kind == "collab_tool_call":
        arguments = {
            key: item.get(key) for key in ("receiver_thread_ids", "prompt") if item.get(key) is not None
        }
        states = item.get("agents_states")
        return f"collab.{item.get('tool') or 'call'}", arguments, _json(states) if states else "", extra
    if kind == "web_search":
        arguments = {"query": _string(item, "query", loc, default="")}
        if item.get("action") is not None:
            arguments["action"] = item["action"]
        return kind, arguments, "", extra
    return kind, {"items": item.get("items") or []}, "", extra  # todo_list: the plan is the call itself


def _mcp_result(item: dict[str, Any]) -> str:
    error = item.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    result = item.get("result")
    if not isinstance(result, dict):
        return ""
    texts = []
    for block in result.get("content") or ():
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        else:
            texts.append(_json(block))
    if result.get("structured_content") is not None and not texts:
        texts.append(_json(result["structured_content"]))
    return "\n".join(texts)


class _Thread:
    def __init__(self, thread_id: str | None) -> None:
        self.log = SessionLog(source_format=SOURCE_FORMAT, metadata={"agent": "codex"})
        if thread_id:
            self.log.metadata["session_id"] = thread_id
        self.items: dict[str, tuple[dict[str, Any], Loc]] = {}  # by id, in the order first seen
        self.turns = 0
        self._called: set[str] = (
            set()
        )  # call ids given so far (an item id repeated in a later turn gets a suffix)

    def event(self, event: dict[str, Any], loc: Loc) -> None:
        kind = event.get("type")
        if kind == "turn.started":
            self.flush()
            self.turns += 1
            self.log.add({"role": "user", "content": "", "metadata": dict(PROMPT_METADATA)}, loc)
        elif kind in ITEM_EVENTS:
            item = expect_dict(event.get("item"), loc.key("item"), "a thread item")
            item_id = _string(item, "id", loc)
            first = self.items.get(item_id)
            self.items[item_id] = (item, first[1] if first else loc)
        elif kind == "turn.completed":
            self.flush()
            usage = event.get("usage")
            if isinstance(usage, dict):
                self.log.metadata.setdefault("turn_usage", []).append(usage)
        elif kind == "turn.failed":
            self.flush()
            error = event.get("error")
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                self.log.metadata["error"] = error["message"]
        else:
            self.log.skip(f"{kind} events")

    def flush(self) -> None:
        """The turn's items as messages, in the order they first appeared."""
        text: int | None = None  # the assistant message an agent message opened, until a tool call joins it
        for number, (item, loc) in enumerate(self.items.values()):
            kind = item["type"]
            if kind in ("agent_message", "plan"):
                text = self.log.add({"role": "assistant", "content": _string(item, "text", loc)}, loc)
            elif kind in TOOL_ITEMS:
                name, arguments, output, extra = _call(item, loc)
                call_id = f"{item['id']}#{number}" if item["id"] in self._called else item["id"]
                self._called.add(call_id)
                call = {"id": call_id, "type": "function", "name": name, "arguments": _json(arguments)}
                if text is None:
                    text = self.log.add({"role": "assistant", "content": ""}, loc)
                self.log.entries[text].data.setdefault("tool_calls", []).append(call)
                text = None
                if item.get("status") != "in_progress":
                    self.log.add(
                        {"role": "tool", "tool_call_id": call_id, "name": name, "content": output, **extra},
                        loc,
                    )
            else:
                text = None
                self.log.skip(SKIPPED_ITEMS.get(kind, f"{kind} items"))
        self.items = {}

    def conversation(self, name: str, loc: Loc) -> Conversation:
        self.flush()
        conversation = self.log.conversation(name, loc, unanswered=NO_RESULT)
        if not self.turns:
            return conversation
        readings = [*conversation.readings, Reading(code="prompts_not_recorded", count=self.turns)]
        return conversation.model_copy(update={"readings": readings})


def read(located: Iterable[tuple[Loc, Any]], *, stem: str) -> list[Conversation]:
    threads: list[tuple[_Thread, Loc]] = []
    for loc, value in located:
        event = expect_dict(value, loc, "a codex exec event")
        if event.get("type") == "thread.started":
            thread_id = event.get("thread_id")
            threads.append((_Thread(thread_id if isinstance(thread_id, str) else None), loc))
            continue
        if not threads:  # a log cut at the front: its events still make one run
            threads.append((_Thread(None), loc))
        threads[-1][0].event(event, loc)
    out = []
    for index, (thread, loc) in enumerate(threads):
        sid = thread.log.metadata.get("session_id")
        name = stem if len(threads) == 1 else f"{stem} #{index}" + (f" (thread {sid})" if sid else "")
        out.append(thread.conversation(name, loc))
    return out


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=lambda shape: shape.container != "object" and any(map(is_event, shape.objects[:50])),
    read=lambda shape: read(shape.located(), stem=shape.stem),
)
