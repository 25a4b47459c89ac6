"""Google Antigravity trajectories (``~/.gemini/antigravity/brain/<conversation>/.system_generated/logs/
transcript_full.jsonl``, also ``antigravity-ide`` / ``antigravity-cli``): JSONL steps ``{step_index, source:
USER_EXPLICIT|MODEL|SYSTEM, type, status, created_at, content, thinking, tool_calls[{name, args}]}``.

Invariant: a ``MODEL`` ``PLANNER_RESPONSE`` is one assistant message whose ``tool_calls`` get ids
``agy_<step>_<n>``; every other ``MODEL`` step (``VIEW_FILE``, ``RUN_COMMAND``, ``CODE_ACTION``, ``GENERIC``,
``ERROR_MESSAGE``…) is the result of the oldest call still waiting, in order; a call the file never answers gets a
stand-in result. A step written twice (same ``step_index``) counts once, in its last version.

Schema: no document from Google describes the file; the step shapes are those live transcripts show, as public
parsers of them quote them (step types, ``<USER_REQUEST>`` wrapping, result texts opening "Created At:", the
``{{ CHECKPOINT n }}`` marker, empty ``PLANNER_RESPONSE`` placeholders).

Roles. ``USER_INPUT`` from ``USER_EXPLICIT`` is a real request (kept as sent, with its ``<ADDITIONAL_METADATA>``);
``SYSTEM`` steps are the harness's: ``EPHEMERAL_MESSAGE`` reminders, ``CONVERSATION_HISTORY`` and
``KNOWLEDGE_ARTIFACTS`` context, ``SYSTEM_MESSAGE`` notices — internal user turns (skipped when empty); a ``MODEL``
result step with no call waiting (a background-task notice) is internal too. A ``SYSTEM`` ``CHECKPOINT`` whose
content holds more than its marker is a compaction Antigravity made: its content, which replaces the truncated
history, is an internal turn and a recorded compaction. Usage: transcripts carry no token counts; when a planner
step has ``input_tokens`` / ``cache_read_tokens`` / ``output_tokens``, their sum is that call's ``total_tokens``.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable
from typing import Any

from compressor.formats.building import build_message, is_number
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, type_name
from compressor.formats.shape import Reader, Shape
from compressor.formats.tally import Tally, assemble, fill_unanswered
from compressor.messages import Conversation, Message, RecordedCompaction

SOURCE_FORMAT = "antigravity"
PLANNER = "PLANNER_RESPONSE"
USER_INPUT = "USER_INPUT"
CHECKPOINT = "CHECKPOINT"
#: The one source that is the person.
USER_SOURCE = "USER_EXPLICIT"
#: The step type some versions give a tool's result whatever its source.
TOOL_RESPONSE = "TOOL_RESPONSE"
#: Step types only the harness writes (told apart by them when a step names no source).
SYSTEM_TYPES = (
    "EPHEMERAL_MESSAGE",
    "CONVERSATION_HISTORY",
    "KNOWLEDGE_ARTIFACTS",
    "SYSTEM_MESSAGE",
    CHECKPOINT,
)
#: The result given to a call the file never answers (the run stopped while the tool was running).
NO_RESULT = "(no result: the trajectory ends before this tool returned)"
_MARKER = re.compile(r"\s*\{\{\s*CHECKPOINT\s*\d*\s*\}\}\s*")
#: Step fields kept on the message a step becomes.
STEP_EXTRAS = ("step_index", "created_at", "status")
_USAGE = ("input_tokens", "cache_read_tokens", "output_tokens")


def is_step(value: Any) -> bool:
    return isinstance(value, dict) and "step_index" in value and isinstance(value.get("type"), str)


def looks_like(shape: Shape) -> bool:
    return shape.container != "object" and any(is_step(value) for value in shape.objects[:20])


def _steps(located: Iterable[tuple[Loc, Any]], tally: Tally) -> list[tuple[Loc, dict[str, Any]]]:
    """The steps in order; a step written again (same index) keeps its first place and its last version."""
    order: list[tuple[Loc, dict[str, Any]]] = []
    where: dict[int, int] = {}
    for loc, value in located:
        step = expect_dict(value, loc, "a trajectory step")
        index = step.get("step_index")
        if isinstance(index, int) and not isinstance(index, bool) and index in where:
            order[where[index]] = (loc, step)
            tally.add("lines_skipped", detail="a step written again")
            continue
        if isinstance(index, int) and not isinstance(index, bool):
            where[index] = len(order)
        order.append((loc, step))
    return order


def _text(step: dict[str, Any], key: str, loc: Loc) -> str:
    value = step.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FormatProblem(loc.key(key), f"must be a string, got {type_name(value)}")
    return value


class _Trajectory:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.pending: deque[tuple[str, str]] = deque()  # (call id, tool name) waiting for their result
        self.compactions: list[RecordedCompaction] = []
        self.tally = Tally()

    def step(self, loc: Loc, step: dict[str, Any]) -> None:
        kind = step["type"].removeprefix("CORTEX_STEP_TYPE_")
        source = step.get("source")
        source = source.removeprefix("CORTEX_STEP_SOURCE_") if isinstance(source, str) else source
        extras = {key: step[key] for key in STEP_EXTRAS if key in step} | {"step_type": kind}
        if kind == PLANNER and source in (None, "MODEL"):
            self.planner(step, loc, extras)
        elif kind == USER_INPUT:
            self.user(_text(step, "content", loc), loc, extras, internal=source not in (None, USER_SOURCE))
        elif kind == CHECKPOINT:
            self.checkpoint(_text(step, "content", loc), loc, extras)
        elif source == "MODEL" or kind == TOOL_RESPONSE or (source is None and kind not in SYSTEM_TYPES):
            self.result(step, loc, extras)
        else:  # the harness's: SYSTEM steps, and sources this reader does not know
            self.user(_text(step, "content", loc), loc, extras, internal=True)

    def planner(self, step: dict[str, Any], loc: Loc, extras: dict[str, Any]) -> None:
        content, thinking = _text(step, "content", loc), _text(step, "thinking", loc)
        calls = self.calls(step, loc)
        if not (content.strip() or thinking.strip() or calls):
            self.tally.add("lines_skipped", detail="an empty planner step (a streaming placeholder)")
            return
        data: dict[str, Any] = {**extras, "role": "assistant", "content": content}
        if calls:
            data["tool_calls"] = calls
        if thinking:
            data["reasoning_content"] = thinking
        usage = _usage(step, loc)
        if usage is not None:
            data["usage_metadata"] = usage
        self.messages.append(build_message(data, loc))

    def calls(self, step: dict[str, Any], loc: Loc) -> list[dict[str, Any]]:
        calls_loc = loc.key("tool_calls")
        raw = step.get("tool_calls")
        out: list[dict[str, Any]] = []
        for n, call in enumerate(expect_list(raw, calls_loc, "tool calls") if raw is not None else []):
            call = expect_dict(call, calls_loc.key(n), "a tool call")
            name = call.get("name")
            if not isinstance(name, str) or not name:
                raise FormatProblem(
                    calls_loc.key(n), "tool call missing name" if not name else "name must be a string"
                )
            call_id = f"agy_{step.get('step_index', len(self.messages))}_{n}"
            arguments = call.get("args", {})
            arguments = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
            out.append({"id": call_id, "type": "function", "name": name, "arguments": arguments})
            self.pending.append((call_id, name))
        return out

    def result(self, step: dict[str, Any], loc: Loc, extras: dict[str, Any]) -> None:
        content = _text(step, "content", loc) or _text(step, "error", loc)
        if not self.pending and step.get("tool_calls"):
            # the call is written on its result step (no planner step before it): the model made it all the same
            self.messages.append(
                build_message({"role": "assistant", "content": "", "tool_calls": self.calls(step, loc)}, loc)
            )
        if not self.pending:
            self.user(content, loc, extras, internal=True)
            return
        call_id, name = self.pending.popleft()
        data = {**extras, "role": "tool", "tool_call_id": call_id, "name": name, "content": content}
        if isinstance(step.get("error"), str) and step["error"] != content:
            data["error"] = step["error"]
        self.messages.append(build_message(data, loc))

    def user(self, content: str, loc: Loc, extras: dict[str, Any], *, internal: bool) -> None:
        if not content.strip():
            self.tally.add("lines_skipped", detail=f"an empty {extras['step_type']} step")
            return
        self.tally.add("internal_user_turns", int(internal))
        self.messages.append(
            build_message({**extras, "role": "user", "content": content, "internal": internal}, loc)
        )

    def checkpoint(self, content: str, loc: Loc, extras: dict[str, Any]) -> None:
        if not _MARKER.sub("", content, count=1).strip():
            self.tally.add("lines_skipped", detail="a checkpoint marker without a summary")
            return
        self.user(content, loc, extras, internal=True)
        self.compactions.append(
            RecordedCompaction(index=len(self.messages) - 1, source=SOURCE_FORMAT, summary=content.strip())
        )


def _usage(step: dict[str, Any], loc: Loc) -> dict[str, Any] | None:
    if not any(key in step for key in _USAGE):
        return None
    numbers: dict[str, int] = {}
    for key in _USAGE:
        value = step.get(key)
        if value is not None and not is_number(value):
            raise FormatProblem(loc.key(key), f"must be a number, got {type_name(value)}")
        numbers[key] = int(value or 0)
    prompt = numbers["input_tokens"] + numbers["cache_read_tokens"]
    return {
        "input_tokens": prompt,
        "output_tokens": numbers["output_tokens"],
        "total_tokens": prompt + numbers["output_tokens"],
        "cache_read_input_tokens": numbers["cache_read_tokens"],
    }


def from_steps(located: Iterable[tuple[Loc, Any]], *, name: str) -> Conversation:
    trajectory = _Trajectory()
    for loc, step in _steps(located, trajectory.tally):
        trajectory.step(loc, step)
    messages, compactions, filled = fill_unanswered(trajectory.messages, trajectory.compactions, NO_RESULT)
    tally = trajectory.tally
    tally.add("recorded_compactions", len(compactions))
    tally.add("results_filled_in", filled, note=f'"{NO_RESULT}"')
    return assemble(
        messages,
        [],
        name=name,
        source_format=SOURCE_FORMAT,
        metadata={"agent": "antigravity"},
        compactions=compactions,
        readings=tally.readings(),
    )


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=looks_like,
    read=lambda shape: [from_steps(shape.located(), name=shape.stem)],
)
