"""OTel GenAI traces: one conversation per conversation id from its last chat span, usage per call, compactions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from tests.conftest import FIXTURES, fixture

HERE = FIXTURES / "formats" / "otel"


class TestCurrentConventions:
    def test_one_conversation_per_conversation_id(self) -> None:
        runs = load_conversations(fixture(HERE / "genai-conventions.json"))
        assert [run.name for run in runs] == ["conv_5j66UpCpwteGg4YSxUnt7lPY", "conv_refactor_42"]
        assert {run.source_format for run in runs} == {"otel-genai"}
        assert runs[0].metadata["chat_spans"] == 2

    def test_the_last_chat_span_holds_the_history(self) -> None:
        run = load_conversations(HERE / "genai-conventions.json")[0]
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant"]
        assert len(run.system) == 1 and run.tools[0].name == "get_weather"
        assert run.messages[1].tool_calls[0].parsed_arguments() == {"city": "Paris"}
        assert (
            count_messages(run).unmatched_tool_calls == 0 and count_messages(run).unmatched_tool_results == 0
        )
        assert run.messages[3].model_extra["reasoning_content"] == "The tool says rainy."

    def test_each_calls_usage_lands_on_its_reply(self) -> None:
        run = load_conversations(HERE / "genai-conventions.json")[0]
        assert run.messages[1].reported_total_tokens == 97 + 52
        assert run.messages[3].reported_total_tokens == 180 + 25

    def test_a_compaction_part_is_a_recorded_compaction(self) -> None:
        run = load_conversations(HERE / "genai-conventions.json")[1]
        (compaction,) = run.recorded_compactions
        carrier = run.messages[compaction.index]
        assert carrier.internal and compaction.summary.startswith("Task: refactor billing.")
        assert compaction.tokens_before == 15040 and compaction.source == "otel-genai"
        assert count_messages(run).real_user == 2

    def test_our_own_export_has_no_chat_history_to_read(self, tmp_path: Path) -> None:
        exported = {
            "resourceSpans": [
                {
                    "scopeSpans": [
                        {
                            "spans": [
                                {
                                    "traceId": "t",
                                    "spanId": "s",
                                    "name": "compaction",
                                    "attributes": [
                                        {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                                        {"key": "gen_ai.output.messages", "value": {"stringValue": "[]"}},
                                    ],
                                }
                            ]
                        }
                    ]
                }
            ]
        }
        with pytest.raises(ConversationFormatError) as raised:
            load_conversation(json.dumps(exported), name="export.json")
        assert (
            str(raised.value) == "export.json: holds OpenTelemetry spans but no chat span with input messages"
        )

    def test_collector_file_exporter_lines(self, tmp_path: Path) -> None:
        document = json.loads((HERE / "genai-conventions.json").read_text())
        spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
        lines = [
            {"resourceSpans": [{"scopeSpans": [{"spans": spans[:2]}]}]},
            {"resourceSpans": [{"scopeSpans": [{"spans": spans[2:]}]}]},
        ]
        path = tmp_path / "traces.jsonl"
        path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
        assert [run.name for run in load_conversations(path)] == [
            "conv_5j66UpCpwteGg4YSxUnt7lPY",
            "conv_refactor_42",
        ]

    def test_input_messages_that_are_not_json_name_the_attribute(self) -> None:
        document = json.loads((HERE / "genai-conventions.json").read_text())
        span = document["resourceSpans"][0]["scopeSpans"][0]["spans"][3]
        for attribute in span["attributes"]:
            if attribute["key"] == "gen_ai.input.messages":
                attribute["value"] = {"stringValue": '[{"role": '}
        with pytest.raises(ConversationFormatError) as raised:
            load_conversations(json.dumps(document), name="trace.json")
        assert str(raised.value) == (
            "trace.json: resourceSpans[0].scopeSpans[0].spans[3].attributes.gen_ai.input.messages: is not valid JSON"
        )


class TestOlderAttributes:
    def test_openllmetry_flat_prompt_and_completion(self) -> None:
        run = load_conversation(fixture(HERE / "openllmetry-flat.json"))
        assert [m.role for m in [*run.system, *run.messages]] == [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
        ]
        assert run.messages[1].call_ids == ("call_mul",) and run.messages[2].tool_call_id == "call_mul"
        assert run.messages[-1].reported_total_tokens == 97
        assert run.name.startswith("trace 1f2e3d4c")

    def test_openinference_messages(self) -> None:
        run = load_conversation(fixture(HERE / "openinference.json"))
        assert run.name == "sess-travel-01"
        assert run.messages[1].tool_calls[0].name == "search_flights"
        assert (
            run.messages[2].tool_call_id == "call_fl1"
            and run.messages[2].content == "SK4035 08:10, DY1303 12:40"
        )
        assert run.messages[-1].reported_total_tokens == 261
        assert count_messages(run).unmatched_tool_calls == 0


class TestPydanticAiInstrumentation:
    """Spans Pydantic AI's own instrumentation wrote (``InstrumentationSettings``, two runs of one conversation):
    its ``tool_call_response`` parts carry the tool's output as ``result`` (``_otel_messages.ToolCallResponsePart``),
    not the conventions' ``response``; before, every tool result was read as empty."""

    def test_two_runs_are_one_conversation_and_results_keep_their_output(self) -> None:
        (run,) = load_conversations(fixture(HERE / "pydantic-ai-instrumented.json"))
        assert run.name == "01a2337d-ae68-71e6-8079-61af717675c6"
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant"] * 2
        results = [m for m in run.messages if m.role == "tool"]
        assert json.loads(str(results[0].content)) == {"bed": "B4", "moisture": 0.12}
        assert json.loads(str(results[1].content))[0]["msg"] == "Input should be a valid string"
        assert count_messages(run).unmatched_tool_calls == 0

    def test_usage_per_call_and_the_model_named(self) -> None:
        (run,) = load_conversations(fixture(HERE / "pydantic-ai-instrumented.json"))
        assert [m.reported_total_tokens for m in run.messages if m.role == "assistant"] == [
            180 + 14,
            460 + 11,
            260 + 12,
            780 + 11,
        ]
        assert run.metadata["model"] == "function:model:"


def test_an_operation_name_that_is_not_a_string_is_no_chat_span() -> None:
    """Found by mutating the fixture: a list as gen_ai.operation.name was a TypeError (unhashable)."""
    data = json.loads(fixture(HERE / "pydantic-ai-instrumented.json").read_text())
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for span in spans:
        for attribute in span["attributes"]:
            if attribute["key"] == "gen_ai.operation.name":
                attribute["value"] = {"arrayValue": {"values": [{"stringValue": "chat"}]}}
    with pytest.raises(ConversationFormatError, match=r"t\.json: holds OpenTelemetry spans but no chat span"):
        load_conversations(json.dumps(data), name="t.json")
