"""OpenHands event streams: evaluation ``output.jsonl`` (one run per line: ``instance_id``, ``instruction``,
``metadata``, ``history``, ``metrics``), one such record as a JSON object, or a bare ``history`` array.

Invariant: messages are rebuilt the way OpenHands' own ``ConversationMemory`` turns events into the prompt: the
model's reply (content, tool calls with their ids and arguments) comes from ``tool_call_metadata.model_response``
and is placed once all its calls have an observation, followed by those results; each run is one conversation.

Schema: All-Hands-AI/OpenHands ``openhands/events/serialization``, ``openhands/core/schema/{action,observation}.py``
and ``openhands/memory/conversation_memory.py``.

Roles (``ROLES``). The ``system`` action is the system prompt (its ``args.tools`` are the tool definitions). A user
``message`` action is a real request, except the fixed "Please continue working on the task…" an evaluation harness
sends when the agent asks for input (internal). An ``error`` observation without tool metadata is the harness telling the model its last
reply could not be run: an internal user turn. Workspace ``recall`` actions and observations, agent-state changes,
``null`` observations and condensation requests are not turns (skipped, with a reading). A ``condensation`` action
is a compaction OpenHands recorded: its summary becomes an internal user turn (as OpenHands shows it to the model)
and a recorded compaction. The ``finish`` call ends the run and gets no observation: as in OpenHands' own prompt,
it becomes plain assistant text (its arguments kept as ``finish_call``). An agent action without tool metadata
(prompt-based tool calling) gets a call ``openhands-<event id>`` that its observation (``cause``) answers.

Usage: ``model_response.usage`` of each reply → that assistant message's ``usage_metadata`` (``prompt_tokens`` +
``completion_tokens`` = ``total_tokens``, the window of that call). Record fields (``instance_id``, ``metadata``
model and agent class, ``metrics`` totals, ``error``) go to ``Conversation.metadata``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from compressor.formats.building import build_tools
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, type_name
from compressor.formats.roles import TurnRules
from compressor.formats.runs import RunBuilder, call_usage, json_text
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "openhands"
#: Actions and observations that are the harness's bookkeeping, not turns of the conversation.
NOT_TURNS = frozenset(
    {
        "recall",
        "agent_state_changed",
        "change_agent_state",
        "null",
        "condensation_request",
        "pause",
        "resume",
        "stop",
        "start",
        "loop_recovery",
        "loop_detection",
    }
)
#: Observations the harness writes to the model without a tool call: internal user turns.
HARNESS_OBSERVATIONS = frozenset({"error", "user_rejected", "condense"})
#: User messages an evaluation harness sends when the agent asks for input (evaluation/utils/shared.py
#: ``codeact_user_response``, openhands/resolver/utils.py): not requests of a person.
ROLES = TurnRules(
    internal_prefixes=("Please continue working on the task on whatever approach you think is suitable.",)
)
#: Record fields copied to the conversation's metadata as they are.
RECORD_FIELDS = ("instance_id", "error")


def is_event(value: Any) -> bool:
    if not isinstance(value, dict) or "source" not in value or "kind" in value:  # "kind": an SDK event
        return False
    return isinstance(value.get("action"), str) or isinstance(value.get("observation"), str)


def is_record(value: Any) -> bool:
    history = value.get("history") if isinstance(value, dict) else None
    return isinstance(history, list) and any(is_event(item) or _is_pair(item) for item in history[:8])


def _is_pair(item: Any) -> bool:
    """Early OpenHands evaluation output kept ``history`` as ``[action, observation]`` pairs."""
    return isinstance(item, list) and len(item) == 2 and all(is_event(part) for part in item)


def _flattened(history: list[Any], loc: Loc) -> list[tuple[Loc, Any]]:
    """Events in order; a pair's observation answers its action (``cause``), as later versions write it."""
    out: list[tuple[Loc, Any]] = []
    for index, item in enumerate(history):
        if not _is_pair(item):
            out.append((loc.key(index), item))
            continue
        action, observation = item
        action = {**action, "id": action.get("id", f"pair{index}")}
        observation = {**observation, "cause": observation.get("cause", action["id"])}
        out += [(loc.key(index).key(0), action), (loc.key(index).key(1), observation)]
    return out


def looks_like(shape: Shape) -> bool:
    if any(is_record(value) for value in shape.objects[:4]):
        return True
    return shape.container == "array" and any(is_event(value) for value in shape.objects[:8])


@dataclass
class _Reply:
    """One model reply whose tool calls wait for their observations (OpenHands' pending action message)."""

    data: dict[str, Any]
    loc: Loc
    call_ids: list[str]
    results: dict[str, tuple[dict[str, Any], Loc]] = field(default_factory=dict)

    def complete(self) -> bool:
        return all(call_id in self.results for call_id in self.call_ids)


class EventStream:
    """Events of one run, turned into messages in order."""

    def __init__(self, run: RunBuilder) -> None:
        self.run = run
        self.pending: dict[str, _Reply] = {}  # by model response id
        self.waiting: dict[str, _Reply] = {}  # by tool call id

    def read(self, events: Iterable[tuple[Loc, Any]]) -> None:
        for loc, value in events:
            event = expect_dict(value, loc, "an event")
            if "action" in event:
                self._action(event, loc)
            elif "observation" in event:
                self._observation(event, loc)
            else:
                self.run.skip("unknown event")
            self._flush(complete_only=True)
        self._flush(complete_only=False)  # calls never answered stay visible as such

    # -- actions -------------------------------------------------------------------------------

    def _action(self, event: dict[str, Any], loc: Loc) -> None:
        kind = event.get("action")
        if not isinstance(kind, str):
            raise FormatProblem(loc.key("action"), f"must be a string, got {type_name(kind)}")
        raw_args = event.get("args")
        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
        source = event.get("source")
        if kind in NOT_TURNS:
            self.run.skip(str(kind))
        elif kind == "system":
            self.run.add({"role": "system", "content": _text(args.get("content", event.get("message")))}, loc)
            self.run.tools.extend(build_tools(args.get("tools"), loc.key("args").key("tools")))
            for key in ("agent_class", "openhands_version"):
                if isinstance(args.get(key), str):
                    self.run.metadata.setdefault(key, args[key])
        elif kind == "message":
            self._message(event, args, loc)
        elif kind == "condensation":
            self._condensation(args, loc)
        elif kind == "finish" and source == "agent":
            metadata = event.get("tool_call_metadata")
            reply = (
                _model_reply(metadata, loc.key("tool_call_metadata")) if isinstance(metadata, dict) else {}
            )
            self._finish({"role": "assistant", "content": "", **reply}, args, loc)
        elif isinstance(event.get("tool_call_metadata"), dict) and source == "agent":
            self._pend(_model_reply(event["tool_call_metadata"], loc.key("tool_call_metadata")), loc)
        elif source == "agent":
            self._pend(_synthesised_reply(event, args), loc)
        else:
            text = args.get("command") or event.get("message") or json_text(args)
            self.run.add({"role": "user", "content": f"User executed the command:\n{text}"}, loc)

    def _message(self, event: dict[str, Any], args: dict[str, Any], loc: Loc) -> None:
        text = _text(args.get("content", event.get("message")))
        role = "user" if event.get("source") == "user" else "assistant"
        content: str | list[dict[str, Any]] = text
        images = args.get("image_urls")
        if isinstance(images, list) and images:
            content = [{"type": "text", "text": text}]
            content += [
                {"type": "image_url", "image_url": {"url": url}} for url in images if isinstance(url, str)
            ]
        data: dict[str, Any] = {"role": role, "content": content}
        if role == "user" and ROLES.kind(text) != "request":
            data["internal"] = True
        self.run.add(data, loc)

    def _condensation(self, args: dict[str, Any], loc: Loc) -> None:
        summary = args.get("summary")
        if isinstance(summary, str) and summary:
            self.run.add({"role": "user", "content": summary, "internal": True}, loc)
        self.run.record_compaction(
            summary if isinstance(summary, str) else "", tokens_before=self.run.last_assistant_total()
        )

    def _finish(self, reply: dict[str, Any], args: dict[str, Any], loc: Loc) -> None:
        data = {key: value for key, value in reply.items() if key not in ("tool_calls", "_response_id")}
        thought = args.get("thought")
        if not data.get("content") and isinstance(thought, str):
            data["content"] = thought
        data["finish_call"] = {
            k: args[k] for k in ("final_thought", "task_completed", "outputs") if k in args
        }
        self.run.add(data, loc)

    def _pend(self, reply: dict[str, Any], loc: Loc) -> None:
        key = str(reply.pop("_response_id"))
        if key in self.pending:  # later actions of one reply: the reply is already waiting
            return
        calls = reply.get("tool_calls") or []
        entry = _Reply(data=reply, loc=loc, call_ids=[str(call["id"]) for call in calls])
        self.pending[key] = entry
        for call_id in entry.call_ids:
            self.waiting[call_id] = entry

    # -- observations --------------------------------------------------------------------------

    def _observation(self, event: dict[str, Any], loc: Loc) -> None:
        kind = event.get("observation")
        if not isinstance(kind, str):
            raise FormatProblem(loc.key("observation"), f"must be a string, got {type_name(kind)}")
        text = _text(event.get("content", event.get("message")))
        metadata = event.get("tool_call_metadata")
        call_id = metadata.get("tool_call_id") if isinstance(metadata, dict) else None
        if call_id is None and event.get("cause") is not None:
            synthetic = f"openhands-{event['cause']}"
            call_id = synthetic if synthetic in self.waiting else None
        if isinstance(call_id, str) and call_id in self.waiting:
            name = metadata.get("function_name") if isinstance(metadata, dict) else kind
            result = {"role": "tool", "tool_call_id": call_id, "name": name, "content": text}
            self.waiting[call_id].results[call_id] = (result, loc)
        elif kind in NOT_TURNS:
            self.run.skip(str(kind))
        elif kind in HARNESS_OBSERVATIONS or call_id is None:
            self.run.add({"role": "user", "content": text, "internal": True}, loc)
        else:  # an answer to a call no reply made: kept, and counted as unmatched
            self.run.add({"role": "tool", "tool_call_id": call_id, "content": text}, loc)

    def _flush(self, *, complete_only: bool) -> None:
        for key, entry in list(self.pending.items()):
            if complete_only and not entry.complete():
                continue
            del self.pending[key]
            self.run.add(entry.data, entry.loc)
            for call_id in entry.call_ids:
                self.waiting.pop(call_id, None)
                if call_id in entry.results:
                    result, result_loc = entry.results[call_id]
                    self.run.add(result, result_loc)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json_text(value)


def _model_reply(metadata: dict[str, Any], loc: Loc) -> dict[str, Any]:
    """The assistant message of ``model_response`` (a chat.completion), with its usage."""
    response_loc = loc.key("model_response")
    response = expect_dict(metadata.get("model_response"), response_loc, "a model response")
    choices = expect_list(response.get("choices"), response_loc.key("choices"), "choices")
    if not choices:
        raise FormatProblem(response_loc.key("choices"), "is empty; expected the model's reply")
    choice = expect_dict(choices[0], response_loc.key("choices").key(0), "a choice")
    message = expect_dict(
        choice.get("message"), response_loc.key("choices").key(0).key("message"), "a message"
    )
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise FormatProblem(
            response_loc.key("choices").key(0).key("message").key("tool_calls"),
            f"expected a list of tool calls, got {type_name(calls)}",
        )
    calls_loc = response_loc.key("choices").key(0).key("message").key("tool_calls")
    data: dict[str, Any] = {
        "role": "assistant",
        "content": _text(message.get("content") or ""),
        "tool_calls": [
            _call(expect_dict(call, calls_loc.key(i), "a tool call")) for i, call in enumerate(calls or [])
        ],
        "_response_id": response.get("id") or metadata.get("tool_call_id"),
    }
    usage = response.get("usage")
    if isinstance(usage, dict):
        data["usage_metadata"] = call_usage(usage.get("prompt_tokens"), usage.get("completion_tokens"))
    if isinstance(response.get("model"), str):
        data["model"] = response["model"]
    return data


def _call(call: Any) -> Any:
    if isinstance(call, dict):  # litellm adds an "index" openJiuwen does not price; keep id, type, function
        return {key: call[key] for key in ("id", "type", "function") if key in call}
    return call


def _synthesised_reply(event: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    call_id = f"openhands-{event.get('id')}"
    arguments = {key: value for key, value in args.items() if key != "thought"}
    return {
        "role": "assistant",
        "content": _text(args.get("thought") or ""),
        "tool_calls": [
            {"id": call_id, "type": "function", "name": str(event.get("action")), "arguments": arguments}
        ],
        "_response_id": call_id,
    }


def _metadata(record: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"agent": "openhands"}
    out.update({key: record[key] for key in RECORD_FIELDS if record.get(key) is not None})
    meta = record.get("metadata")
    if isinstance(meta, dict):
        llm = meta.get("llm_config")
        if isinstance(llm, dict) and isinstance(llm.get("model"), str):
            out["model"] = llm["model"]
        for key in ("agent_class", "max_iterations", "start_time", "dataset", "condenser_config"):
            if meta.get(key) is not None:
                out[key] = meta[key]
    metrics = record.get("metrics")
    if isinstance(metrics, dict):
        out["metrics"] = {
            key: metrics[key] for key in ("accumulated_cost", "accumulated_token_usage") if key in metrics
        }
    history = record.get("history")
    if isinstance(history, list):
        out["events"] = len(history)
    return out


def from_events(
    events: Iterable[tuple[Loc, Any]], *, name: str, metadata: dict[str, Any], loc: Loc
) -> Conversation:
    run = RunBuilder(name=name, source_format=SOURCE_FORMAT, metadata=metadata)
    EventStream(run).read(events)
    return run.conversation(loc)


def from_record(record: Any, loc: Loc, *, name: str) -> Conversation:
    record = expect_dict(record, loc, "an OpenHands run")
    history_loc = loc.key("history")
    history = expect_list(record.get("history"), history_loc, "history")
    located = _flattened(history, history_loc)
    instance = record.get("instance_id")
    label = f"{name} ({instance})" if isinstance(instance, str | int) else name
    return from_events(located, name=label, metadata=_metadata(record), loc=loc)


def _read(shape: Shape) -> list[Conversation]:
    if shape.container == "array" and not any(is_record(value) for value in shape.objects[:4]):
        return [from_events(shape.located(), name=shape.stem, metadata={"agent": "openhands"}, loc=Loc())]
    located = list(shape.located())
    if len(located) == 1:
        loc, record = located[0]
        return [from_record(record, loc, name=shape.stem)]
    return [
        from_record(record, loc, name=f"{shape.stem} #{index}") for index, (loc, record) in enumerate(located)
    ]


READER = Reader(name=SOURCE_FORMAT, looks_like=looks_like, read=_read)
