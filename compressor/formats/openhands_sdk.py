"""OpenHands Software Agent SDK persistence: a conversation folder (``base_state.json`` + ``events/event-NNNNN-<id>.json``,
one event per file), its ``events`` folder, a folder of such conversations, or the events as a JSON array / JSONL.

Invariant: events are read in file-index order and turned into messages as the SDK's own
``LLMConvertibleEvent.events_to_messages`` does (consecutive ``ActionEvent``s of one ``llm_response_id`` are one
assistant message); a ``Condensation`` event is a compaction the agent recorded.

Schema: OpenHands/software-agent-sdk ``openhands-sdk/openhands/sdk/event/`` (``SystemPromptEvent``, ``MessageEvent``,
``ActionEvent``, ``ObservationEvent``, ``UserRejectObservation``, ``AgentErrorEvent``, ``Condensation``,
``CondensationSummaryEvent``; the ``kind`` field names the class), ``conversation/persistence_const.py`` and
``conversation/event_store.py`` (file names), ``llm/utils/metrics.py`` (usage in ``base_state.json``).

Roles (``ROLES``): a user ``MessageEvent`` is a real request, except the harness's own nudges (a reply blocked by
the content filter, a resumed-conversation transcript); observations, rejections and agent errors answer their
``tool_call_id``; a ``Condensation`` with a summary becomes an internal user turn carrying it (the SDK shows the
summary to the model as a user message) and a recorded compaction. State updates, condensation requests, pauses,
token and log events are not turns (skipped, with a reading).

Reasoning: an ``ActionEvent``'s, or an agent ``MessageEvent``'s ``llm_message``'s, ``reasoning_content``, else the
text of its Anthropic ``thinking_blocks``, else its ``responses_reasoning_item``'s summary and text
(``sdk/llm/message.py``), becomes the reply's ``reasoning_content``.

Usage: ``base_state.json`` ``stats.usage_to_metrics.*.token_usages[]`` are per model call, keyed by
``response_id``; the one matching an assistant message's ``llm_response_id`` gives its ``usage_metadata``
(``prompt_tokens`` + ``completion_tokens`` = ``total_tokens``).

Evaluation runs: the SDK-era ``output.jsonl`` (OpenHands/benchmarks ``benchmarks/utils/models.py`` ``EvalOutput``:
``instance_id``, ``attempt``, ``test_result``, ``instruction``, ``history`` — the SDK events —, ``metrics``, the
agent LLM's ``Metrics`` with the same ``token_usages``), one run a line, each read as its events are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from compressor.formats.building import build_tools, indexed
from compressor.formats.problems import FormatProblem, Loc, expect_dict, type_name
from compressor.formats.roles import TurnRules
from compressor.formats.runs import RunBuilder, call_usage, json_text
from compressor.formats.shape import Reader, Shape
from compressor.formats.stores import Store, StoreReader
from compressor.messages import Conversation

SOURCE_FORMAT = "openhands-sdk"
EVENT_FILE = re.compile(r"^event-(?P<idx>\d{5,})(?:-[0-9A-Za-z\-]+)?\.json$")
BASE_STATE = "base_state.json"
#: Event kinds that are not turns of the conversation.
NOT_TURNS = frozenset(
    {
        "ConversationStateUpdateEvent",
        "CondensationRequest",
        "PauseEvent",
        "InterruptEvent",
        "TokenEvent",
        "LLMCompletionLogEvent",
        "HookExecutionEvent",
        "StreamingDeltaEvent",
        "ConversationErrorEvent",
    }
)
KINDS = frozenset(
    {
        "SystemPromptEvent",
        "MessageEvent",
        "ActionEvent",
        "ObservationEvent",
        "UserRejectObservation",
        "AgentErrorEvent",
        "Condensation",
        "CondensationSummaryEvent",
        *NOT_TURNS,
    }
)
#: User messages the SDK's agent loop writes itself (sdk/agent/agent.py, sdk/event/resume_transcript.py).
ROLES = TurnRules(internal_prefixes=("Your previous response was blocked by the", "<<RESUMED CONVERSATION>>"))
_ERROR_HEADER = "[An error occurred during execution.]\n"


def is_event(value: Any) -> bool:
    kind = value.get("kind") if isinstance(value, dict) else None
    return (
        isinstance(kind, str) and kind in KINDS and "source" in value
    )  # a list or object kind is unhashable


def _content(parts: Any) -> str | list[dict[str, Any]]:
    """SDK ``TextContent``/``ImageContent`` items as our content: plain text when there is no image."""
    if isinstance(parts, str):
        return parts
    items = parts if isinstance(parts, list) else []
    out: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "image" and isinstance(item.get("image_urls"), list):
            out += [
                {"type": "image_url", "image_url": {"url": url}}
                for url in item["image_urls"]
                if isinstance(url, str)
            ]
        else:
            out.append({"type": "text", "text": json_text(item.get("text", ""))})
    if all(part["type"] == "text" for part in out):
        return "\n".join(part["text"] for part in out)
    return out


def _reasoning(holder: dict[str, Any]) -> str:
    """A reply's reasoning, as an ``ActionEvent`` or an agent's ``llm_message`` holds it (sdk/llm/message.py
    ``Message``): ``reasoning_content``, else the text of its Anthropic ``thinking_blocks`` (sent back with the
    reply; a redacted block holds none), else the summary and text of its ``responses_reasoning_item``."""
    if isinstance(holder.get("reasoning_content"), str) and holder["reasoning_content"]:
        return str(holder["reasoning_content"])
    blocks = holder.get("thinking_blocks")
    thoughts = [
        block["thinking"]
        for block in (blocks if isinstance(blocks, list) else ())
        if isinstance(block, dict)
        and block.get("type") == "thinking"
        and isinstance(block.get("thinking"), str)
    ]
    if any(thoughts):
        return "\n".join(thought for thought in thoughts if thought)
    item = holder.get("responses_reasoning_item")
    if not isinstance(item, dict):
        return ""
    pieces = [piece for key in ("summary", "content") for piece in _listed(item.get(key))]
    return "\n".join(piece for piece in pieces if isinstance(piece, str) and piece.strip())


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _observation_text(observation: Any) -> str | list[dict[str, Any]]:
    if not isinstance(observation, dict):
        return json_text(observation)
    if isinstance(observation.get("content"), list):
        content = _content(observation["content"])
        if observation.get("is_error") is True and isinstance(content, str):
            return _ERROR_HEADER + content
        return content
    for key in ("output", "text", "result"):  # SDK versions before the shared ``content`` field
        if isinstance(observation.get(key), str):
            return str(observation[key])
    return json_text({key: value for key, value in observation.items() if key != "kind"})


def _usages(state: Any) -> dict[str, dict[str, Any]]:
    """Per-call usage by response id, from ``base_state.json``."""
    out: dict[str, dict[str, Any]] = {}
    stats = state.get("stats") if isinstance(state, dict) else None
    metrics = stats.get("usage_to_metrics") if isinstance(stats, dict) else None
    for entry in metrics.values() if isinstance(metrics, dict) else ():
        for usage in entry.get("token_usages", []) if isinstance(entry, dict) else ():
            if isinstance(usage, dict) and isinstance(usage.get("response_id"), str):
                total = call_usage(
                    usage.get("prompt_tokens"),
                    usage.get("completion_tokens"),
                    cache_read_tokens=usage.get("cache_read_tokens"),
                )
                if total is not None:
                    out[usage["response_id"]] = total
    return out


def from_events(events: Iterable[tuple[Loc, Any]], *, name: str, state: Any = None) -> Conversation:
    run = RunBuilder(name=name, source_format=SOURCE_FORMAT, metadata={"agent": "openhands"})
    if isinstance(state, dict):
        if isinstance(state.get("id"), str):
            run.metadata["session_id"] = state["id"]
        llm = state.get("agent", {}).get("llm") if isinstance(state.get("agent"), dict) else None
        if isinstance(llm, dict) and isinstance(llm.get("model"), str):
            run.metadata["model"] = llm["model"]
    usages = _usages(state)
    batch: tuple[str, dict[str, Any], Loc] | None = None  # an assistant message still taking calls

    def close_batch() -> None:
        nonlocal batch
        if batch is not None:
            run.add(batch[1], batch[2])
            batch = None

    for loc, value in events:
        event = expect_dict(value, loc, "an event")
        kind = str(event.get("kind"))
        if kind == "ActionEvent":
            response_id = str(event.get("llm_response_id"))
            call = expect_dict(event.get("tool_call"), loc.key("tool_call"), "a tool call")
            call = {
                "id": call.get("id", event.get("tool_call_id")),
                "name": call.get("name", event.get("tool_name")),
                "arguments": call.get("arguments", ""),
            }
            if batch is not None and batch[0] == response_id:
                batch[1]["tool_calls"].append(call)
                continue
            close_batch()
            data: dict[str, Any] = {
                "role": "assistant",
                "content": _content(event.get("thought")),
                "tool_calls": [call],
            }
            if reasoning := _reasoning(event):
                data["reasoning_content"] = reasoning
            if response_id in usages:
                data["usage_metadata"] = usages[response_id]
            batch = (response_id, data, loc)
            continue
        close_batch()
        _event(run, kind, event, loc, usages)
    close_batch()
    return run.conversation()


def _tool_definitions(value: Any) -> Any:
    """The SDK's own ``ToolDefinition`` dumps (``kind``, ``title``, ``description``, ``action_type``; no schema: the
    SDK makes it from the action type when it calls) as ``{name, description}``; other forms as they are."""
    if not isinstance(value, list):
        return value
    return [
        {"name": item["title"], "description": item.get("description") or ""} if _is_sdk_tool(item) else item
        for item in value
    ]


def _is_sdk_tool(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and not {"name", "function"} & item.keys()
        and isinstance(item.get("title"), str)
    )


def _event(
    run: RunBuilder, kind: str, event: dict[str, Any], loc: Loc, usages: dict[str, dict[str, Any]]
) -> None:
    if kind == "SystemPromptEvent":
        prompt = event.get("system_prompt")
        text = prompt.get("text", "") if isinstance(prompt, dict) else json_text(prompt)
        run.add({"role": "system", "content": text}, loc)
        run.tools.extend(build_tools(_tool_definitions(event.get("tools")), loc.key("tools")))
    elif kind == "MessageEvent":
        message = expect_dict(event.get("llm_message"), loc.key("llm_message"), "an LLM message")
        given, extended = message.get("content"), event.get("extended_content")
        if not isinstance(given, list | str | None):
            where = loc.key("llm_message").key("content")
            raise FormatProblem(where, f"must be a list of content items or a string, got {type_name(given)}")
        extended = extended if isinstance(extended, list) else []
        content = _content([*given, *extended] if isinstance(given, list) else given)
        role = "user" if message.get("role", event.get("source")) == "user" else "assistant"
        data: dict[str, Any] = {"role": role, "content": content}
        if role == "user" and isinstance(content, str) and ROLES.kind(content) != "request":
            data["internal"] = True
        if role == "assistant" and (reasoning := _reasoning(message)):
            data["reasoning_content"] = reasoning
        response_id = event.get("llm_response_id")
        if role == "assistant" and isinstance(response_id, str) and response_id in usages:
            data["usage_metadata"] = usages[response_id]
        run.add(data, loc)
    elif kind in ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent"):
        if kind == "ObservationEvent":
            result: Any = _observation_text(event.get("observation"))
        elif kind == "UserRejectObservation":
            result = f"Action rejected: {event.get('rejection_reason', 'User rejected the action')}"
        else:
            result = json_text(event.get("error", ""))
        run.add(
            {
                "role": "tool",
                "tool_call_id": event.get("tool_call_id"),
                "name": event.get("tool_name"),
                "content": result,
            },
            loc,
        )
    elif kind == "Condensation":
        summary = event.get("summary")
        if isinstance(summary, str) and summary:
            run.add({"role": "user", "content": summary, "internal": True}, loc)
        run.record_compaction(
            summary if isinstance(summary, str) else "", tokens_before=run.last_assistant_total()
        )
    elif kind == "CondensationSummaryEvent":
        run.add({"role": "user", "content": json_text(event.get("summary", "")), "internal": True}, loc)
    else:
        run.skip(kind)


# -- where events come from ----------------------------------------------------------------------


def _event_files(store: Store, relative: str) -> list[tuple[int, Any]]:
    files = store.files(relative, EVENT_FILE)
    indexed = [(int(EVENT_FILE.match(path.name).group("idx")), path) for path in files]  # type: ignore[union-attr]
    return sorted(indexed)


def _conversation_dirs(store: Store) -> list[str]:
    """'' for a conversation folder or an events folder; else the sub-folders that are conversations."""
    if store.has_dir("events") and store.files("events", EVENT_FILE):
        return [""]
    if store.files("", EVENT_FILE):
        return [""]
    return [
        name
        for name in store.dirs()
        if store.has_dir(name, "events") and store.files(f"{name}/events", EVENT_FILE)
    ]


def _read_store(store: Store) -> list[Conversation]:
    out = []
    for folder in _conversation_dirs(store):
        events_dir = f"{folder}/events" if folder else ("events" if store.has_dir("events") else "")
        state_files = store.files(folder, re.compile(re.escape(BASE_STATE) + "$"))
        state = store.read_json(state_files[0]) if state_files else None
        located = ((store.loc(path), store.read_json(path)) for _, path in _event_files(store, events_dir))
        out.append(from_events(located, name=folder or store.stem, state=state))
    return out


def is_eval_record(value: Any) -> bool:
    """A line of the SDK-era evaluation ``output.jsonl`` (OpenHands/benchmarks ``EvalOutput``): ``history`` holds
    SDK events."""
    history = value.get("history") if isinstance(value, dict) else None
    return "instance_id" in value and isinstance(history, list) and any(map(is_event, history[:8]))


def _from_record(record: dict[str, Any], loc: Loc, *, name: str) -> Conversation:
    """One evaluation run: its events, usage by response id from its ``metrics`` (one LLM's ``Metrics``)."""
    instance = record.get("instance_id")
    label = f"{name} ({instance})" if isinstance(instance, str | int) else name
    events = indexed(record["history"], loc.key("history"))
    metrics = record.get("metrics")
    model = metrics.get("model_name") if isinstance(metrics, dict) else None
    state = {"stats": {"usage_to_metrics": {"run": metrics}}, "agent": {"llm": {"model": model}}}
    conversation = from_events(events, name=label, state=state)
    extra = {key: record[key] for key in ("instance_id", "attempt", "error") if record.get(key) is not None}
    return conversation.model_copy(update={"metadata": {**conversation.metadata, **extra}})


def _read_shape(shape: Shape) -> list[Conversation]:
    if not any(is_eval_record(value) for value in shape.objects[:4]):
        return [from_events(shape.located(), name=shape.stem)]
    located = list(shape.located())
    if len(located) == 1:
        return [
            _from_record(expect_dict(located[0][1], located[0][0], "a run"), located[0][0], name=shape.stem)
        ]
    return [
        _from_record(expect_dict(value, loc, "a run"), loc, name=f"{shape.stem} #{index}")
        for index, (loc, value) in enumerate(located)
    ]


STORE_READER = StoreReader(
    name=SOURCE_FORMAT, looks_like=lambda store: bool(_conversation_dirs(store)), read=_read_store
)
#: The same events as a JSON array or JSONL (an export of a conversation's events).
READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=lambda shape: (
        (shape.container != "object" and any(is_event(value) for value in shape.objects[:8]))
        or any(is_eval_record(value) for value in shape.objects[:4])
    ),
    read=_read_shape,
)
