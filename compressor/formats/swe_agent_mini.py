"""mini-SWE-agent trajectories (``*.traj.json``, ``trajectory_format: "mini-swe-agent-1.x"``): ``messages`` is the
conversation the model saw, each message with an ``extra`` the agent keeps beside it and never sends.

Invariant: one trajectory is one conversation; a message is sent as its fields less ``extra``; the closing ``exit``
message (the run's exit status, never sent) is left out; a command is answered by the result that follows it.

Schema: SWE-agent/mini-swe-agent ``src/minisweagent/agents/default.py`` (``DefaultAgent.serialize``: ``info``,
``messages``, ``trajectory_format``; the ``exit`` message ``{"extra": {"exit_status", "submission"}}``),
``models/litellm_model.py`` (an assistant message is the chat completion's message with ``extra: {response,
actions, cost, timestamp}``; ``response`` is the whole completion, usage and model included),
``models/utils/actions_toolcall.py`` and ``actions_text.py`` (``format_observation_messages``: a ``tool`` message
per tool call; in text mode, a ``user`` message per command, ``extra: {raw_output, returncode, exception_info}``),
at mini-swe-agent 2.4.6.

Roles. The first user message is the task; a user message answering the command before it (text mode, its extra
holds ``returncode`` or ``raw_output``) is that command's ``tool`` result, the command a call ``mini-<n>`` of the
assistant message that wrote it (reading ``tool_calls_from_text``; the command stays in the text, the call's
arguments are empty, so nothing is counted twice); any other user message is the harness's (a format error, a
timeout notice): internal. Usage: ``extra.response.usage`` (``prompt_tokens`` + ``completion_tokens``), the model
``extra.response.model``; the run's ``info`` (exit status, cost, api calls, version) → metadata.
"""

from __future__ import annotations

from typing import Any

from compressor.formats.building import indexed
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, short
from compressor.formats.runs import RunBuilder, call_usage, json_text
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation, Reading

SOURCE_FORMAT = "mini-swe-agent"
ROLES = ("system", "user", "assistant", "tool")
#: ``info`` fields kept in the metadata.
INFO_FIELDS = ("exit_status", "submission", "model_stats", "mini_version")


def looks_like(shape: Shape) -> bool:
    if shape.container != "object":
        return False
    form = shape.raw.get("trajectory_format")
    return (
        isinstance(form, str)
        and form.startswith("mini-swe-agent")
        and isinstance(shape.raw.get("messages"), list)
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _extra(message: dict[str, Any]) -> dict[str, Any]:
    return _dict(message.get("extra"))


def _calls(message: dict[str, Any], loc: Loc) -> list[dict[str, Any]]:
    calls = []
    for index, item in enumerate(
        expect_list(message.get("tool_calls") or [], loc.key("tool_calls"), "tool calls")
    ):
        call = expect_dict(item, loc.key("tool_calls").key(index), "a tool call")
        function = _dict(call.get("function"))
        name, arguments = (
            function.get("name", call.get("name")),
            function.get("arguments", call.get("arguments")),
        )
        calls.append(
            {"id": call.get("id"), "type": "function", "name": name, "arguments": json_text(arguments)}
        )
    return calls


class _Trajectory:
    def __init__(self, run: RunBuilder) -> None:
        self.run = run
        self.waiting: list[str] = []  # calls made for commands written as text, not answered yet
        self.from_text = 0
        self.asked = False

    def message(self, message: dict[str, Any], loc: Loc) -> None:
        role = message.get("role")
        if role == "exit":
            self.run.skip("exit records")
            return
        if role not in ROLES:
            raise FormatProblem(
                loc.key("role"),
                f"unknown role {short(role)} (expected system, user, assistant, tool or exit)",
            )
        content = message.get("content")
        content = "" if content is None else content
        if role == "assistant":
            self._assistant(message, content, loc)
        elif role == "user":
            self._user(message, content, loc)
        elif role == "tool":
            self.run.add(
                {"role": "tool", "tool_call_id": message.get("tool_call_id"), "content": content}, loc
            )
        else:
            self.run.add({"role": "system", "content": content}, loc)

    def _assistant(self, message: dict[str, Any], content: Any, loc: Loc) -> None:
        calls = _calls(message, loc)
        extra = _extra(message)
        actions = extra.get("actions")
        actions = actions if isinstance(actions, list) else []
        self.waiting = []
        if not calls:  # text mode: each command the agent ran answers in the next user message
            for _ in actions:
                self.from_text += 1
                self.waiting.append(f"mini-{self.from_text}")
            calls = [
                {"id": call_id, "type": "function", "name": "bash", "arguments": "{}"}
                for call_id in self.waiting
            ]
        data: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": calls}
        response = _dict(extra.get("response"))
        usage = _dict(response.get("usage"))
        details = _dict(usage.get("prompt_tokens_details"))
        found = call_usage(
            usage.get("prompt_tokens"),
            usage.get("completion_tokens"),
            cached_tokens=details.get("cached_tokens"),
        )
        if found is not None:
            data["usage_metadata"] = found
        if isinstance(response.get("model"), str) and response["model"]:
            data["model"] = response["model"]
            self.run.metadata.setdefault("model", response["model"])
        self.run.add(data, loc)

    def _user(self, message: dict[str, Any], content: Any, loc: Loc) -> None:
        extra = _extra(message)
        if self.waiting and ("returncode" in extra or "raw_output" in extra):
            self.run.add({"role": "tool", "tool_call_id": self.waiting.pop(0), "content": content}, loc)
            return
        internal = self.asked
        self.asked = True
        self.run.add({"role": "user", "content": content, **({"internal": True} if internal else {})}, loc)


def read(shape: Shape) -> list[Conversation]:
    value = shape.raw
    info = _dict(value.get("info"))
    metadata: dict[str, Any] = {"agent": "mini-swe-agent", "trajectory_format": value["trajectory_format"]}
    metadata.update({key: info[key] for key in INFO_FIELDS if info.get(key) not in (None, "")})
    run = RunBuilder(name=shape.stem, source_format=SOURCE_FORMAT, metadata=metadata)
    trajectory = _Trajectory(run)
    base = Loc().key("messages")
    for loc, item in indexed(value["messages"], base):
        trajectory.message(expect_dict(item, loc, "a message"), loc)
    if trajectory.from_text:
        run.extra_readings.append(Reading(code="tool_calls_from_text", count=trajectory.from_text))
    return [run.conversation(Loc())]


READER = Reader(name=SOURCE_FORMAT, looks_like=looks_like, read=read)
