"""Older Codex CLI ``codex exec --json`` output (mid-2025, before ``thread.started`` / ``item.*``): a config-summary
object, ``{"prompt": …}``, then every protocol event as Codex serialises it, ``{"id": <submission>, "msg": {"type":
<EventMsg>, …}}`` — ``session_configured``, ``task_started``, ``user_message``, ``agent_reasoning``,
``agent_message``, ``exec_command_begin|end``, ``patch_apply_begin|end``, ``mcp_tool_call_begin|end``,
``plan_update``, ``web_search_begin|end``, ``token_count``, ``error`` …

Invariant: one model call is everything the agent said or called between two ``token_count`` events (Codex sends
one when a response completes, after the tools that response called have run): one assistant message with its
text and calls, followed by their results, carrying that ``token_count``'s usage. A config-summary line starts a
new run (a file may hold several).

Schema: openai/codex ``codex-rs/exec/src/event_processor_with_json_output.rs`` as of 2a75cbae (the config summary
from ``create_config_summary_entries`` as a flat object, ``{"prompt": …}``, then ``serde_json::to_string(&event)``
for every event but the ``*_delta`` ones, ``task_complete`` and ``shutdown_complete``) and the ``Event`` /
``EventMsg`` types of ``codex-rs/core/src/protocol.rs`` (94a994c2) and of its later home
``codex-rs/protocol/src/protocol.rs``; fields of both generations are read (``token_count`` flat or with
``info.last_token_usage``, MCP calls with or without ``invocation``, ``exec_command_end`` with or without
``aggregated_output`` / ``formatted_output``).

- The prompt: the ``{"prompt"}`` line is the real request; a ``user_message`` of ``kind`` plain repeating it is
  a copy (skipped); ``user_instructions`` / ``environment_context`` ones are Codex's injected context (internal).
  A run whose output holds no prompt gets an empty real request standing for it (a reading says so).
- Tools: a command is a ``shell`` call ``{"command": argv}`` whose result is the output the model was sent
  (``formatted_output``, else ``aggregated_output``, else stdout and stderr); a patch an ``apply_patch`` call with
  its ``changes``; an MCP call ``server.tool`` with its arguments and result text; ``plan_update`` an
  ``update_plan`` call answered "Plan updated" (Codex's reply to it); a web search a ``web_search`` call.
- Usage: ``total_tokens`` of the call (input + output, so the window it filled) on the call's assistant message,
  with the other counts beside it; ``model_context_window`` (``task_started`` or ``token_count.info``) →
  ``metadata["context_window"]``; ``session_configured`` / the summary's ``model`` → ``metadata["model"]``.
- Left out, with a reading: reasoning summaries (they go back to the model encrypted, not as this text), output
  deltas, approvals, diffs, background and error notices (the last error is kept as ``metadata["error"]``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from compressor.formats.building import check_usage
from compressor.formats.problems import FormatProblem, Loc, expect_dict, type_name
from compressor.formats.session_log import SessionLog, token_count
from compressor.formats.shape import Reader
from compressor.messages import Conversation, Reading

SOURCE_FORMAT = "codex-exec-legacy"
NO_RESULT = "(no result: the output ends before the call finished)"
#: What stands for the prompt of a run whose output does not hold it.
PROMPT_METADATA = {"stands_for": "the prompt codex exec was given (not in its output)"}
#: ``user_message`` kinds Codex writes itself (the user's AGENTS.md and the environment it describes).
INJECTED_KINDS = ("user_instructions", "environment_context")
#: The config-summary keys kept as metadata (summary key → metadata key).
SUMMARY_FIELDS = {"model": "model", "workdir": "cwd", "provider": "model_provider"}
USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")
#: What Codex answers an ``update_plan`` call (``codex-rs/core/src/plan_tool.rs``).
PLAN_RESULT = "Plan updated"
SKIPPED = {
    "agent_reasoning": "reasoning summaries",
    "agent_reasoning_raw_content": "reasoning summaries",
    "agent_reasoning_section_break": "reasoning summaries",
    "exec_command_output_delta": "command output deltas",
    "error": "error notices",
    "stream_error": "error notices",
}


def is_event(value: Any) -> bool:
    """``{"id": str, "msg": {"type": str, …}}`` and nothing else: one serialised ``Event``."""
    if not isinstance(value, dict) or set(value) != {"id", "msg"} or not isinstance(value["id"], str):
        return False
    msg = value["msg"]
    return isinstance(msg, dict) and isinstance(msg.get("type"), str)


def _string(msg: dict[str, Any], key: str, loc: Loc, *, default: str | None = None) -> str:
    value = msg.get(key, default)
    if value is None and default is not None:
        return default
    if not isinstance(value, str):
        raise FormatProblem(loc.key("msg").key(key), f"must be a string, got {type_name(value)}")
    return value


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _command_output(msg: dict[str, Any], loc: Loc) -> str:
    for key in ("formatted_output", "aggregated_output"):
        text = _string(msg, key, loc, default="")
        if text:
            return text
    parts = [_string(msg, key, loc, default="") for key in ("stdout", "stderr")]
    return "\n".join(part for part in parts if part)


def _mcp_result(result: Any) -> str:
    """``Result<CallToolResult, String>`` as serde writes it: ``{"Ok": {content, …}}`` or ``{"Err": "…"}``."""
    if not isinstance(result, dict):
        return ""
    if isinstance(result.get("Err"), str):
        return str(result["Err"])
    ok = result.get("Ok")
    if not isinstance(ok, dict):
        return ""
    texts = []
    for block in ok.get("content") or ():
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        else:
            texts.append(_json(block))
    structured = ok.get("structuredContent", ok.get("structured_content"))
    if structured is not None and not texts:
        texts.append(_json(structured))
    return "\n".join(texts)


class _Run:
    """One ``codex exec`` run: its messages and the model call being read."""

    def __init__(self, summary: dict[str, Any] | None) -> None:
        self.log = SessionLog(source_format=SOURCE_FORMAT, metadata={"agent": "codex"})
        for key, name in SUMMARY_FIELDS.items():
            if summary and isinstance(summary.get(key), str) and summary[key]:
                self.log.metadata[name] = summary[key]
        self.call: int | None = None  # the assistant entry of the model call under way
        self.results_since_call = False  # a tool result came after the open call's latest output
        self.counted = False  # a token_count was seen: calls end only at token_count events
        self.prompt: str | None = None  # the prompt printed before the events, until a copy of it is met
        self.prompted = False
        self.stood_in = 0
        self.plans = 0

    # -- requests ---------------------------------------------------------------------------------

    def prompt_line(self, text: str, loc: Loc) -> None:
        self.end_call()
        self.log.add({"role": "user", "content": text}, loc)
        self.prompt, self.prompted = text, True

    def user_message(self, msg: dict[str, Any], loc: Loc) -> None:
        text = _string(msg, "message", loc, default="")
        kind = msg.get("kind")
        if kind in INJECTED_KINDS:
            self.end_call()
            self.log.add({"role": "user", "content": text, "internal": True}, loc)
            return
        if self.prompt is not None and text == self.prompt:
            self.prompt = None
            self.log.skip("user_message copies of the prompt")
            return
        self.end_call()
        self.log.add({"role": "user", "content": text}, loc)
        self.prompted = True

    # -- model calls ------------------------------------------------------------------------------

    def output(self, loc: Loc) -> dict[str, Any]:
        """The assistant message of the call under way, opened here when none is."""
        if self.call is not None and self.results_since_call and not self.counted:
            self.end_call()  # no usage events to end calls: a result the model answers ends its call
        if self.call is None:
            if not self.prompted:
                self.log.add({"role": "user", "content": "", "metadata": dict(PROMPT_METADATA)}, loc)
                self.prompted = True
                self.stood_in += 1
            self.call = self.log.add({"role": "assistant", "content": ""}, loc)
        self.results_since_call = False
        return self.log.entries[self.call].data

    def text(self, text: str, loc: Loc) -> None:
        data = self.output(loc)
        data["content"] = f"{data['content']}\n\n{text}" if data["content"] else text

    def tool_call(self, call_id: str, name: str, arguments: Any, loc: Loc) -> None:
        call = {"id": call_id, "type": "function", "name": name, "arguments": _json(arguments)}
        self.output(loc).setdefault("tool_calls", []).append(call)

    def result(self, call_id: str, name: str, text: str, loc: Loc, **extra: Any) -> None:
        self.log.add({"role": "tool", "tool_call_id": call_id, "name": name, "content": text, **extra}, loc)
        self.results_since_call = True

    def end_call(self) -> None:
        self.call, self.results_since_call = None, False

    def usage(self, msg: dict[str, Any], loc: Loc) -> None:
        self.counted = True
        where = loc.key("msg")
        info: Any = msg  # earlier: the call's usage itself; later: {info: {last_token_usage, …}}
        if "info" in msg:
            info, where = msg["info"], where.key("info")
            if info is None:
                self.end_call()
                return  # an event carrying only rate limits
        info = expect_dict(info, where, "token usage")
        window = token_count(info.get("model_context_window"))
        if window:
            self.log.metadata["context_window"] = window
        if "last_token_usage" in info:
            where = where.key("last_token_usage")
        last = check_usage(info.get("last_token_usage", info), where)
        prompt, completion = token_count(last.get("input_tokens")), token_count(last.get("output_tokens"))
        total = token_count(last.get("total_tokens")) or (prompt or 0) + (completion or 0)
        if self.call is not None and total:
            counts = {key: last[key] for key in USAGE_KEYS if token_count(last.get(key)) is not None}
            self.log.entries[self.call].data["usage_metadata"] = {**counts, "total_tokens": total}
        self.end_call()

    # -- events -----------------------------------------------------------------------------------

    def event(self, msg: dict[str, Any], loc: Loc) -> None:
        kind = msg["type"]
        if kind == "agent_message":
            self.text(_string(msg, "message", loc), loc)
        elif kind == "user_message":
            self.user_message(msg, loc)
        elif kind == "token_count":
            self.usage(msg, loc)
        elif kind in ("exec_command_begin", "patch_apply_begin", "mcp_tool_call_begin"):
            self.begin(kind, msg, loc)
        elif kind in ("exec_command_end", "patch_apply_end", "mcp_tool_call_end", "web_search_end"):
            self.end(kind, msg, loc)
        elif kind == "plan_update":
            self.plans += 1
            call_id = f"update_plan#{self.plans}"
            arguments = {key: msg[key] for key in ("explanation", "plan") if msg.get(key) is not None}
            self.tool_call(call_id, "update_plan", arguments, loc)
            self.result(call_id, "update_plan", PLAN_RESULT, loc)
        elif kind == "session_configured":
            self.configured(msg)
        elif kind == "task_started":
            window = token_count(msg.get("model_context_window"))
            if window:
                self.log.metadata["context_window"] = window
            self.log.skip("task_started events")
        else:
            if kind in ("error", "stream_error") and isinstance(msg.get("message"), str):
                self.log.metadata["error"] = msg["message"]
            self.log.skip(SKIPPED.get(kind, f"{kind} events"))

    def configured(self, msg: dict[str, Any]) -> None:
        for key, name in (("session_id", "session_id"), ("model", "model")):
            if isinstance(msg.get(key), str) and msg[key]:
                self.log.metadata[name] = msg[key]
        self.log.skip("session_configured events")

    def begin(self, kind: str, msg: dict[str, Any], loc: Loc) -> None:
        call_id = _string(msg, "call_id", loc)
        if kind == "exec_command_begin":
            self.tool_call(call_id, "shell", {"command": msg.get("command") or []}, loc)
        elif kind == "patch_apply_begin":
            self.tool_call(call_id, "apply_patch", {"changes": msg.get("changes") or {}}, loc)
        else:
            nested = msg.get("invocation")  # later: {invocation: {server, tool, arguments}}; earlier: flat
            invocation: dict[str, Any] = nested if isinstance(nested, dict) else msg
            name = f"{_string(invocation, 'server', loc)}.{_string(invocation, 'tool', loc)}"
            self.tool_call(call_id, name, invocation.get("arguments") or {}, loc)

    def end(self, kind: str, msg: dict[str, Any], loc: Loc) -> None:
        call_id = _string(msg, "call_id", loc)
        if kind == "web_search_end":  # its begin names no query: the call is read from its end
            self.tool_call(call_id, "web_search", {"query": _string(msg, "query", loc, default="")}, loc)
            self.result(call_id, "web_search", "", loc)
            return
        name = self._called_name(call_id)
        if kind == "exec_command_end":
            exit_code = msg.get("exit_code")
            extra = {"exit_code": exit_code} if isinstance(exit_code, int) else {}
            self.result(call_id, name or "shell", _command_output(msg, loc), loc, **extra)
        elif kind == "patch_apply_end":
            stdout, stderr = _string(msg, "stdout", loc, default=""), _string(msg, "stderr", loc, default="")
            text = stdout if msg.get("success") is True else "\n".join(p for p in (stdout, stderr) if p)
            self.result(call_id, name or "apply_patch", text, loc)
        else:
            self.result(call_id, name or "mcp", _mcp_result(msg.get("result")), loc)

    def _called_name(self, call_id: str) -> str | None:
        for entry in reversed(self.log.entries):
            for call in entry.data.get("tool_calls") or ():
                if call["id"] == call_id:
                    return str(call["name"])
        return None

    def conversation(self, name: str, loc: Loc) -> Conversation:
        conversation = self.log.conversation(name, loc, unanswered=NO_RESULT)
        if not self.stood_in:
            return conversation
        readings = [*conversation.readings, Reading(code="prompts_not_recorded", count=self.stood_in)]
        return conversation.model_copy(update={"readings": readings})


def read(located: Iterable[tuple[Loc, Any]], *, stem: str) -> list[Conversation]:
    runs: list[tuple[_Run, Loc]] = []
    for loc, value in located:
        line = expect_dict(value, loc, "a codex exec line")
        if is_event(line):
            if not runs:  # output cut at the front: its events still make one run
                runs.append((_Run(None), loc))
            runs[-1][0].event(line["msg"], loc)
        elif set(line) == {"prompt"}:
            if not isinstance(line["prompt"], str):
                raise FormatProblem(loc.key("prompt"), f"must be a string, got {type_name(line['prompt'])}")
            if not runs:
                runs.append((_Run(None), loc))
            runs[-1][0].prompt_line(line["prompt"], loc)
        elif line and all(isinstance(value, str) for value in line.values()):
            runs.append((_Run(line), loc))  # the config summary that opens a run
        else:
            if not runs:
                runs.append((_Run(None), loc))
            runs[-1][0].log.skip("lines that are not events")
    out = []
    for index, (run, loc) in enumerate(runs):
        sid = run.log.metadata.get("session_id")
        name = stem if len(runs) == 1 else f"{stem} #{index}" + (f" (session {sid})" if sid else "")
        out.append(run.conversation(name, loc))
    return out


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=lambda shape: shape.container != "object" and any(map(is_event, shape.objects[:50])),
    read=lambda shape: read(shape.located(), stem=shape.stem),
)
