"""OpenTelemetry GenAI traces as OTLP JSON (``{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}``, one document
or one per JSONL line, as the collector's file exporter writes them): one conversation per ``gen_ai.conversation.id``
(OpenInference ``session.id``; else per trace), read from its last chat span, whose input holds the whole history.

Invariant: spans are read only through their attributes; a conversation is the last chat span's input messages plus
its output; an earlier call's usage is attached to the assistant message its output became (the message at the
position of that call's input length), the last call's to the final reply.

Schema (open-telemetry/semantic-conventions v1.41.1, ``docs/gen-ai/gen-ai-spans.md``,
``gen-ai-input-messages.json``, ``gen-ai-output-messages.json``; the GenAI conventions then moved to their own
repository): ``gen_ai.input.messages`` / ``gen_ai.output.messages`` are JSON arrays of ``{role, parts[]}`` with parts
``text``, ``tool_call{id, name, arguments}``, ``tool_call_response{id, response}``, ``reasoning``, ``blob``, ``uri``,
``file``; ``gen_ai.system_instructions`` and ``gen_ai.tool.definitions``; usage ``gen_ai.usage.input_tokens`` and
``output_tokens``. The conventions define no ``compaction`` part; part types are open (``GenericPart``), and a
``compaction`` part (``content`` = summary), as our own exporter writes, is read as a recorded compaction. The older
flat attributes ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` (OpenLLMetry) and OpenInference's
``llm.input_messages.N.message.*`` / ``llm.output_messages.N.message.*`` (``llm.token_count.*``) are read too.

Roles: user messages are real requests unless they carry a compaction part (or openJiuwen's internal prefixes);
``tool_call_response`` parts become ``tool`` messages answering their ``id``, wherever the instrumentation put them;
their output is ``response`` (the conventions) or ``result`` (Pydantic AI's instrumentation, ``_otel_messages.py``).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

from compressor.formats.building import build_tools
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list
from compressor.formats.runs import RunBuilder, call_usage, json_text, token_count
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "otel-genai"
CHAT_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_FLAT = {
    "prompt": re.compile(r"^gen_ai\.prompt\.(\d+)\.(.+)$"),
    "completion": re.compile(r"^gen_ai\.completion\.(\d+)\.(.+)$"),
    "input": re.compile(r"^llm\.input_messages\.(\d+)\.message\.(.+)$"),
    "output": re.compile(r"^llm\.output_messages\.(\d+)\.message\.(.+)$"),
}


def looks_like(shape: Shape) -> bool:
    return any(isinstance(value.get("resourceSpans"), list) for value in shape.objects[:4])


def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a Python value."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return (
            token_count(value["intValue"])
            if str(value["intValue"]).lstrip("-").isdigit()
            else value["intValue"]
        )
    if "arrayValue" in value:
        return [any_value(item) for item in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return {
            item.get("key"): any_value(item.get("value"))
            for item in (value["kvlistValue"] or {}).get("values", [])
        }
    return None


def attributes(span: dict[str, Any], loc: Loc) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, item in enumerate(
        expect_list(span.get("attributes") or [], loc.key("attributes"), "attributes")
    ):
        item = expect_dict(item, loc.key("attributes").key(index), "an attribute")
        if isinstance(item.get("key"), str):
            out[item["key"]] = any_value(item.get("value"))
    return out


def _spans(shape: Shape) -> list[tuple[Loc, dict[str, Any]]]:
    out: list[tuple[Loc, dict[str, Any]]] = []
    for loc, document in shape.located():
        resources_loc = loc.key("resourceSpans")
        for r, resource in enumerate(
            expect_list(document.get("resourceSpans"), resources_loc, "resourceSpans")
        ):
            scopes_loc = resources_loc.key(r).key("scopeSpans")
            resource = expect_dict(resource, resources_loc.key(r), "a resource's spans")
            for s, scope in enumerate(
                expect_list(resource.get("scopeSpans") or [], scopes_loc, "scopeSpans")
            ):
                spans_loc = scopes_loc.key(s).key("spans")
                scope = expect_dict(scope, scopes_loc.key(s), "a scope's spans")
                for i, span in enumerate(expect_list(scope.get("spans") or [], spans_loc, "spans")):
                    out.append((spans_loc.key(i), expect_dict(span, spans_loc.key(i), "a span")))
    return out


# -- messages from one span -------------------------------------------------------------------------


def _json_attribute(attrs: dict[str, Any], key: str, loc: Loc) -> Any:
    value = attrs.get(key)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            raise FormatProblem(loc.key("attributes").key(key), "is not valid JSON") from None
    return value


def _flat_messages(attrs: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """``gen_ai.prompt.N.*`` / OpenInference ``llm.*_messages.N.message.*`` as ``{role, parts}`` messages."""
    found: dict[int, dict[str, Any]] = defaultdict(dict)
    for key, value in attrs.items():
        match = _FLAT[kind].match(key)
        if match:
            found[int(match.group(1))][match.group(2)] = value
    messages = []
    for _, fields in sorted(found.items()):
        parts: list[dict[str, Any]] = []
        text = fields.get("content")
        if text is None:  # OpenInference's list contents
            texts = [
                v for k, v in sorted(fields.items()) if k.startswith("contents.") and k.endswith(".text")
            ]
            text = "\n".join(str(t) for t in texts) if texts else None
        calls: dict[int, dict[str, Any]] = defaultdict(dict)
        for key, value in fields.items():
            found_call = re.match(r"^tool_calls\.(\d+)\.(?:tool_call\.)?(.+)$", key)
            if found_call:
                calls[int(found_call.group(1))][found_call.group(2).removeprefix("function.")] = value
        role = str(fields.get("role", "user"))
        call_id = fields.get("tool_call_id")
        if role == "tool" or (call_id is not None and not calls):
            parts.append({"type": "tool_call_response", "id": call_id, "response": text or ""})
        elif text not in (None, ""):
            parts.append({"type": "text", "content": text})
        for _, call in sorted(calls.items()):
            parts.append(
                {
                    "type": "tool_call",
                    "id": call.get("id"),
                    "name": call.get("name"),
                    "arguments": call.get("arguments", ""),
                }
            )
        messages.append({"role": role, "parts": parts})
    return messages


def span_messages(attrs: dict[str, Any], loc: Loc) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The input and output messages of a span, in the current conventions' shape, from whichever attributes it has."""
    if "gen_ai.input.messages" in attrs or "gen_ai.output.messages" in attrs:
        inputs = _json_attribute(attrs, "gen_ai.input.messages", loc) or []
        outputs = _json_attribute(attrs, "gen_ai.output.messages", loc) or []
        return (
            expect_list(inputs, loc.key("attributes").key("gen_ai.input.messages"), "input messages"),
            expect_list(outputs, loc.key("attributes").key("gen_ai.output.messages"), "output messages"),
        )
    if any(_FLAT["prompt"].match(key) for key in attrs):
        return _flat_messages(attrs, "prompt"), _flat_messages(attrs, "completion")
    return _flat_messages(attrs, "input"), _flat_messages(attrs, "output")


def span_usage(attrs: dict[str, Any]) -> dict[str, Any] | None:
    prompt = attrs.get(
        "gen_ai.usage.input_tokens",
        attrs.get("gen_ai.usage.prompt_tokens", attrs.get("llm.token_count.prompt")),
    )
    completion = attrs.get(
        "gen_ai.usage.output_tokens",
        attrs.get("gen_ai.usage.completion_tokens", attrs.get("llm.token_count.completion")),
    )
    return call_usage(prompt, completion)


def is_chat(attrs: dict[str, Any]) -> bool:
    operation = attrs.get("gen_ai.operation.name")
    kind = attrs.get("openinference.span.kind")
    has_input = any(
        key == "gen_ai.input.messages" or _FLAT["prompt"].match(key) or _FLAT["input"].match(key)
        for key in attrs
    )
    chat = isinstance(operation, str) and operation in CHAT_OPERATIONS
    return has_input and (chat or kind == "LLM" or operation is None)


class MessageWriter:
    """``{role, parts}`` messages into the run: tool responses split out, compaction parts recorded."""

    def __init__(self, run: RunBuilder) -> None:
        self.run = run

    def write(self, message: Any, loc: Loc, usage: dict[str, Any] | None = None) -> None:
        message = expect_dict(message, loc, "a message")
        role = message.get("role", "user")
        parts = expect_list(message.get("parts", []), loc.key("parts"), "parts")
        content: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        reasoning: list[str] = []
        summaries: list[str] = []
        for index, part in enumerate(parts):
            part = expect_dict(part, loc.key("parts").key(index), "a part")
            kind = part.get("type")
            if kind == "text":
                content.append({"type": "text", "text": json_text(part.get("content", ""))})
            elif kind == "tool_call":
                calls.append(
                    {
                        "id": part.get("id"),
                        "type": "function",
                        "name": part.get("name"),
                        "arguments": json_text(part.get("arguments", "")),
                    }
                )
            elif kind == "tool_call_response":
                self.run.add(
                    {
                        "role": "tool",
                        "tool_call_id": part.get("id"),
                        "content": json_text(part.get("response", part.get("result", ""))),
                    },
                    loc.key("parts").key(index),
                )
            elif kind == "reasoning":
                reasoning.append(json_text(part.get("content", "")))
            elif kind == "compaction":
                summaries.append(json_text(part.get("content", part.get("summary", ""))))
                content.append({"type": "text", "text": summaries[-1]})
            elif kind in ("blob", "uri") and part.get("modality") == "image":
                url = (
                    part.get("uri")
                    or f"data:{part.get('mime_type', 'image/png')};base64,{part.get('content', '')}"
                )
                content.append({"type": "image_url", "image_url": {"url": url}})
            else:
                content.append({key: value for key, value in part.items()})
        if not content and not calls and not reasoning:
            return
        if role not in ("system", "user", "assistant"):
            role = "assistant" if calls else "user"
        text_only = all(part.get("type") == "text" for part in content)
        data: dict[str, Any] = {
            "role": role,
            "content": "\n".join(part["text"] for part in content) if text_only else content,
        }
        if calls:
            data["tool_calls"] = calls
        if reasoning:
            data["reasoning_content"] = "\n".join(reasoning)
        if summaries and role == "user":
            data["internal"] = True
        if usage is not None and role == "assistant":
            data["usage_metadata"] = usage
        before = self.run.last_assistant_total()
        self.run.add(data, loc)
        for summary in summaries:
            self.run.record_compaction(summary, tokens_before=before)


def _conversation(key: str, spans: list[tuple[Loc, dict[str, Any], dict[str, Any]]]) -> Conversation:
    spans = sorted(spans, key=lambda item: int(token_count(item[1].get("startTimeUnixNano")) or 0))
    loc, last, attrs = spans[-1]
    inputs, outputs = span_messages(attrs, loc)
    usage_at: dict[int, dict[str, Any]] = {}
    for earlier_loc, _, earlier in spans[:-1]:
        earlier_inputs, _ = span_messages(earlier, earlier_loc)
        usage = span_usage(earlier)
        position = len(earlier_inputs)
        if (
            usage is not None
            and position < len(inputs)
            and isinstance(inputs[position], dict)
            and inputs[position].get("role") == "assistant"
        ):
            usage_at[position] = usage
    model = attrs.get("gen_ai.response.model", attrs.get("gen_ai.request.model", attrs.get("llm.model_name")))
    metadata: dict[str, Any] = {"trace_id": last.get("traceId"), "chat_spans": len(spans)}
    if isinstance(model, str):
        metadata["model"] = model
    for name in ("gen_ai.conversation.id", "session.id", "gen_ai.agent.name", "gen_ai.provider.name"):
        if isinstance(attrs.get(name), str):
            metadata[name.replace("gen_ai.", "").replace(".", "_")] = attrs[name]
    run = RunBuilder(name=key, source_format=SOURCE_FORMAT, metadata=metadata)
    tools = _json_attribute(attrs, "gen_ai.tool.definitions", loc)
    if isinstance(tools, list):
        run.tools.extend(build_tools(tools, loc.key("attributes").key("gen_ai.tool.definitions")))
    system = _json_attribute(attrs, "gen_ai.system_instructions", loc)
    writer = MessageWriter(run)
    if isinstance(system, list) and system:
        writer.write(
            {"role": "system", "parts": system}, loc.key("attributes").key("gen_ai.system_instructions")
        )
    inputs_loc = loc.key("attributes").key("gen_ai.input.messages")
    for index, message in enumerate(inputs):
        writer.write(message, inputs_loc.key(index), usage_at.get(index))
    outputs_loc = loc.key("attributes").key("gen_ai.output.messages")
    for index, message in enumerate(outputs):
        writer.write(
            message, outputs_loc.key(index), span_usage(attrs) if index == len(outputs) - 1 else None
        )
    return run.conversation(loc)


def read(shape: Shape) -> list[Conversation]:
    groups: dict[str, list[tuple[Loc, dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for loc, span in _spans(shape):
        attrs = attributes(span, loc)
        if not is_chat(attrs):
            continue
        key = attrs.get("gen_ai.conversation.id") or attrs.get("session.id") or f"trace {span.get('traceId')}"
        groups[str(key)].append((loc, span, attrs))
    if not groups:
        raise FormatProblem(Loc(), "holds OpenTelemetry spans but no chat span with input messages")
    return [_conversation(key, spans) for key, spans in groups.items()]


READER = Reader(name=SOURCE_FORMAT, looks_like=looks_like, read=read)
