"""ATIF ``trajectory.json`` (Harbor / Terminal-Bench Agent Trajectory Interchange Format) and openJiuwen agent-core's
own trajectory (the same steps with ``role`` instead of ``source``, string ``arguments``, ``input_tokens``).

Invariant: one trajectory is one conversation; each step becomes its message, an agent step's ``observation``
results become ``tool`` messages right after it, each answering the call its ``source_call_id`` names.

Schema: the ATIF RFC (laude-institute/harbor ``docs/rfcs/0001-trajectory-format.md``, v1.4; read through its mirror in
OpenAgentsInc/openagents ``docs/atif/0001-trajectory-format.md``): root ``{schema_version, session_id, agent{name,
version, model_name}, steps, notes, final_metrics, extra}``; steps ``{step_id, timestamp, source: system|user|agent,
model_name, message, reasoning_content, tool_calls[{tool_call_id, function_name, arguments}],
observation{results[{source_call_id, content, subagent_trajectory_ref}]}, metrics{prompt_tokens, completion_tokens,
cached_tokens}}``. Later versions' additions are tolerated (``message``/``content`` as a list of parts,
``agent.tool_definitions``). openJiuwen's trajectory writer was not found in any public source: its shape here
follows issue 10's description (``role``, string ``arguments``, ``input_tokens``/``output_tokens``).

Roles. A ``user`` step is a real request, except openJiuwen's own internal prefixes (SPEC §2); a user step holding
openJiuwen's ``<memory_block_current>`` is the compaction it made: a recorded compaction. A result without
``source_call_id`` is the environment's answer to an action the agent wrote as text (e.g. Terminus keystrokes): the
agent step gets a call ``atif-<step>-<n>`` for it (reading ``tool_calls_from_text``), unless the step has a call
no result names: then it answers that one (Terminus writes its keystroke calls' terminal output without ids; one
output for a batch of calls answers the last, the others get an empty result, reading ``batched_tool_results``). A ``system`` step after the
first turn stays a system message in the context.

Terminus 2's own context summarization (harbor ``agents/terminus_2/terminus_2.py``, ``_summarize``): its record, a
``system`` step whose result holds the summarization subagents' ``subagent_trajectory_ref``, is never sent to the
model and is left out (reading ``events_skipped``); the handoff user step after it (``Here are the answers the other
agent provided.``) is internal and the recorded compaction. A ``linear_history`` continuation opens with the window
it kept, steps marked ``is_copied_context``: the task prompt stays a real request, the next copied user steps (the
one holding ``**Summary from Previous Agent:**``, the recorded compaction, then the handoff) are internal.

Usage: ``metrics.prompt_tokens`` (all input, cached included, per the RFC) + ``completion_tokens`` →
``usage_metadata.total_tokens`` of that agent step (``input_tokens``/``output_tokens`` for openJiuwen).
"""

from __future__ import annotations

from typing import Any

from compressor.formats.building import build_tools
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, short
from compressor.formats.runs import RunBuilder, call_usage, json_text
from compressor.formats.shape import Reader, Shape
from compressor.markers import memory_summary
from compressor.messages import Conversation, Reading

ATIF = "atif"
OPENJIUWEN = "openjiuwen-trajectory"
SOURCES = {"system": "system", "user": "user", "agent": "assistant", "assistant": "assistant", "tool": "tool"}


def looks_like(shape: Shape) -> bool:
    if shape.container != "object":
        return False
    steps = shape.raw.get("steps")
    if not isinstance(steps, list) or not any(isinstance(step, dict) for step in steps[:4]):
        return False
    first = next(step for step in steps if isinstance(step, dict))
    marked = str(shape.raw.get("schema_version", "")).startswith("ATIF") or "session_id" in shape.raw
    return ("source" in first or "role" in first) and (marked or "agent" in shape.raw)


def _text(value: Any) -> str | list[dict[str, Any]]:
    """A step message: text, or (later ATIF versions) a list of parts kept as parts when one is not text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [
            part if isinstance(part, dict) else {"type": "text", "text": json_text(part)} for part in value
        ]
        if all(part.get("type") == "text" for part in parts):
            return "\n".join(json_text(part.get("text", "")) for part in parts)
        return parts
    return json_text(value)


def _call(call: Any, loc: Loc) -> dict[str, Any]:
    call = expect_dict(call, loc, "a tool call")
    call_id = call.get("tool_call_id", call.get("id"))
    name = call.get("function_name", call.get("name"))
    function = call.get("function")
    if name is None and isinstance(function, dict):  # an OpenAI-shaped call
        name, arguments = function.get("name"), function.get("arguments")
    else:
        arguments = call.get("arguments", {})
    if not isinstance(call_id, str | None):
        raise FormatProblem(loc.key("tool_call_id"), "must be a string")
    return {"id": call_id, "type": "function", "name": name, "arguments": json_text(arguments)}


def is_summarization(step: dict[str, Any]) -> bool:
    """Terminus 2's record of its own context summarization: a system step whose result refers to the
    summarization subagents' trajectories (``Performed context summarization and handoff to continue task.``)."""
    observation = step.get("observation")
    results = observation.get("results") if isinstance(observation, dict) else None
    if step.get("source") != "system" or not isinstance(results, list):
        return False
    refs = [ref for r in results if isinstance(r, dict) for ref in _listed(r.get("subagent_trajectory_ref"))]
    words = [
        step.get("message"),
        *(extra.get("summary") for ref in refs for extra in _listed(ref.get("extra"))),
    ]
    return bool(refs) and any(isinstance(word, str) and "summarization" in word.lower() for word in words)


def _listed(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value]
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


class TrajectoryReader:
    def __init__(self, run: RunBuilder) -> None:
        self.run = run
        self.from_text = 0
        self.batched = 0
        self.handoff = False  # a summarization was just recorded: the next user step is Terminus' handoff
        self.copied = 0  # user steps copied from before a summarization (``is_copied_context``)

    def _harness_turn(self, step: dict[str, Any], content: Any, loc: Loc) -> bool:
        """A user step Terminus wrote after summarizing, the compaction's summary or its handoff: internal, and
        the first one records the compaction."""
        handoff, self.handoff = self.handoff, False
        if step.get("is_copied_context") is True:
            self.copied += 1
            if self.copied == 1:  # the run's own task prompt, copied first
                return False
        elif not handoff:
            return False
        self.run.add({"role": "user", "content": content, "internal": True}, loc)
        if handoff or self.copied == 2:
            summary = content if isinstance(content, str) else json_text(content)
            self.run.record_compaction(summary, tokens_before=self.run.last_assistant_total())
        return True

    def step(self, step: dict[str, Any], loc: Loc) -> None:
        key = "source" if "source" in step else "role"
        given = step.get(key)
        role = SOURCES.get(given) if isinstance(given, str) else None
        if role is None:
            raise FormatProblem(
                loc.key(key), f"unknown {key} {short(step.get(key))} (expected system, user or agent)"
            )
        if is_summarization(step):  # a record in the trajectory, never sent to the model
            self.run.skip("context summarization records")
            self.handoff = True
            return
        content = _text(step.get("message", step.get("content")))
        if role == "user" and self._harness_turn(step, content, loc):
            return
        self.handoff = False
        if role == "tool":
            call_id = step.get("tool_call_id", step.get("source_call_id"))
            self.run.add(
                {"role": "tool", "tool_call_id": call_id, "name": step.get("name"), "content": content}, loc
            )
            return
        if role != "assistant":
            summary = memory_summary(content) if role == "user" else None
            self.run.add(
                {"role": role, "content": content, **({"internal": True} if summary is not None else {})}, loc
            )
            if summary is not None:
                before = self.run.last_assistant_total()
                self.run.record_compaction(summary, tokens_before=before)
            self._results(step, loc, calls=[])
            return
        calls_loc = loc.key("tool_calls")
        calls = [
            _call(call, calls_loc.key(i))
            for i, call in enumerate(expect_list(step.get("tool_calls") or [], calls_loc, "tool calls"))
        ]
        data: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": calls}
        if isinstance(step.get("reasoning_content"), str):
            data["reasoning_content"] = step["reasoning_content"]
        if isinstance(step.get("model_name"), str):
            data["model"] = step["model_name"]
        metrics = step.get("metrics")
        if isinstance(metrics, dict):
            usage = call_usage(
                metrics.get("prompt_tokens", metrics.get("input_tokens")),
                metrics.get("completion_tokens", metrics.get("output_tokens")),
                cached_tokens=metrics.get("cached_tokens"),
            )
            if usage is not None:
                data["usage_metadata"] = usage
        results = self._results(step, loc, calls=calls)
        self.run.add(data, loc)
        for result, result_loc in results:
            self.run.add(result, result_loc)

    def _results(
        self, step: dict[str, Any], loc: Loc, *, calls: list[dict[str, Any]]
    ) -> list[tuple[dict[str, Any], Loc]]:
        """The observation's results as tool messages, in call order.

        A result naming no call answers the step's next unanswered call (Terminus writes its calls' output so);
        fewer such results than calls means one output for the whole batch: it answers the last call and the
        earlier ones get an empty result. A result with no call left gets a call of its own (added to ``calls``).
        """
        observation = step.get("observation")
        if observation is None:
            return []
        obs_loc = loc.key("observation")
        results_loc = obs_loc.key("results")
        items = expect_list(
            expect_dict(observation, obs_loc, "an observation").get("results"), results_loc, "results"
        )
        results = [
            (results_loc.key(i), expect_dict(item, results_loc.key(i), "an observation result"))
            for i, item in enumerate(items)
        ]
        if not calls and step.get("source", step.get("role")) in ("system", "user"):
            for item_loc, result in results:
                self.run.add({"role": "user", "content": _text(_content(result)), "internal": True}, item_loc)
            return []
        for item_loc, result in results:
            if not isinstance(result.get("source_call_id"), str | None):
                raise FormatProblem(item_loc.key("source_call_id"), "must be a string when given")
        named = {result.get("source_call_id") for _, result in results}
        waiting = [str(call["id"]) for call in calls if call["id"] not in named]
        unnamed = sum(1 for _, result in results if result.get("source_call_id") is None)
        shared = waiting[: max(len(waiting) - unnamed, 0)] if unnamed else []
        waiting = waiting[len(shared) :]
        by_call: dict[str, tuple[dict[str, Any], Loc]] = {}
        extra: list[tuple[dict[str, Any], Loc]] = []
        for index, (item_loc, result) in enumerate(results):
            call_id = result.get("source_call_id")
            if call_id is None and waiting:
                call_id = waiting.pop(0)
            elif call_id is None:
                call_id = f"atif-{step.get('step_id', '')}-{index}"
                calls.append({"id": call_id, "type": "function", "name": "action", "arguments": "{}"})
                self.from_text += 1
            message = {"role": "tool", "tool_call_id": call_id, "content": _text(_content(result))}
            if str(call_id) in by_call or not any(call["id"] == call_id for call in calls):
                extra.append((message, item_loc))
            else:
                by_call[str(call_id)] = (message, item_loc)
        for call_id in shared:
            by_call[call_id] = ({"role": "tool", "tool_call_id": call_id, "content": ""}, obs_loc)
        self.batched += len(shared)
        ordered = [by_call[str(call["id"])] for call in calls if str(call["id"]) in by_call]
        return ordered + extra


def _content(result: dict[str, Any]) -> Any:
    content = result.get("content")
    if content is None and result.get("subagent_trajectory_ref") is not None:
        return json_text(result["subagent_trajectory_ref"])
    return content


def from_trajectory(value: dict[str, Any], loc: Loc, *, name: str) -> Conversation:
    steps_loc = loc.key("steps")
    steps = expect_list(value.get("steps"), steps_loc, "steps")
    openjiuwen = any(isinstance(step, dict) and "role" in step and "source" not in step for step in steps)
    metadata: dict[str, Any] = {}
    for key in ("schema_version", "session_id", "notes", "final_metrics"):
        if value.get(key) is not None:
            metadata[key] = value[key]
    agent = value.get("agent")
    tools: list[Any] = []
    if isinstance(agent, dict):
        if isinstance(agent.get("name"), str):
            metadata["agent"] = agent["name"]
        if isinstance(agent.get("version"), str):
            metadata["agent_version"] = agent["version"]
        if isinstance(agent.get("model_name"), str):
            metadata["model"] = agent["model_name"]
        if isinstance(agent.get("tool_definitions"), list):
            tools = build_tools(agent["tool_definitions"], loc.key("agent").key("tool_definitions"))
    run = RunBuilder(
        name=name, source_format=OPENJIUWEN if openjiuwen else ATIF, metadata=metadata, tools=tools
    )
    reader = TrajectoryReader(run)
    for index, step in enumerate(steps):
        reader.step(expect_dict(step, steps_loc.key(index), "a step"), steps_loc.key(index))
    if reader.from_text:
        run.extra_readings.append(Reading(code="tool_calls_from_text", count=reader.from_text))
    if reader.batched:
        run.extra_readings.append(Reading(code="batched_tool_results", count=reader.batched))
    return run.conversation(loc)


READER = Reader(
    name=ATIF, looks_like=looks_like, read=lambda shape: [from_trajectory(shape.raw, Loc(), name=shape.stem)]
)
