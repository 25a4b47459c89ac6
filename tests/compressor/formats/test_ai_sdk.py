"""Vercel AI SDK messages (``ModelMessage[]`` of AI SDK 5+, ``CoreMessage[]`` of 4): read as the SDK's OpenAI
provider sends them, detected only by the SDK's own part keys, so no other message list changes format.

The fixtures in ``tests/fixtures/formats/ai_sdk/`` were built by hand from vercel/ai's prompt types (their README
names the files and commits); the conversations are invented.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from compressor.census import count_messages
from compressor.cli import EXIT_OK, main
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

FOLDER = FIXTURES / "formats" / "ai_sdk"
V5 = FOLDER / "model-messages-v5.json"
V4 = FOLDER / "core-messages-v4.json"


@pytest.fixture(scope="module")
def v5() -> Conversation:
    return load_conversation(fixture(V5))


def loaded(messages: Any) -> Conversation:
    return load_conversation(json.dumps(messages), name="messages.json")


def call(call_id: str, **fields: Any) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": call_id, "toolName": "lookup", **fields}


def result(call_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "role": "tool",
        "content": [{"type": "tool-result", "toolCallId": call_id, "toolName": "lookup", **fields}],
    }


class TestModelMessages:
    def test_roles_and_order(self, v5: Conversation) -> None:
        assert v5.source_format == "ai-sdk"
        assert [m.role for m in v5.system] == ["system"]
        assert [m.role for m in v5.messages] == [
            "user", "assistant", "tool", "assistant", "tool", "tool", "assistant", "tool", "assistant", "user",
            "assistant", "tool", "assistant",
        ]  # fmt: skip

    def test_each_result_answers_its_call_by_id(self, v5: Conversation) -> None:
        assert count_messages(v5).to_dict()["unmatched_tool_calls"] == 0
        calls = [c.id for m in v5.messages for c in m.tool_calls or ()]
        assert [m.tool_call_id for m in v5.messages if m.role == "tool"] == calls
        assert [m.name for m in v5.messages if m.role == "tool"][:2] == ["ciLog", "readFile"]

    def test_input_is_sent_as_json_stringify(self, v5: Conversation) -> None:
        (first,) = v5.messages[1].tool_calls or ()
        assert (first.name, first.arguments) == ("ciLog", '{"job":"typecheck","lines":40}')

    def test_outputs_by_type(self, v5: Conversation) -> None:
        assert v5.messages[2].content.startswith("src/queue.ts(42,17): error TS2322")  # text: as it is
        assert json.loads(v5.messages[4].content)["path"] == "src/queue.ts"  # json
        assert json.loads(v5.messages[5].content)[0]["type"] == "text"  # content: its parts as JSON
        assert (
            v5.messages[7].content == "patch rejected: src/queue.ts is read-only in this sandbox"
        )  # error-text

    def test_reasoning_beside_the_text_and_the_image_as_a_data_url(self, v5: Conversation) -> None:
        reply = v5.messages[1]
        assert reply.content == "I'll pull the failing job's log."
        assert reply.model_extra is not None and reply.model_extra["reasoning_content"].startswith(
            "The screenshot"
        )
        image = v5.messages[0].content[1]
        assert image["type"] == "image_url" and image["image_url"]["url"].startswith(
            "data:image/png;base64,iVBOR"
        )

    def test_the_users_turns_are_real_requests(self, v5: Conversation) -> None:
        users = [m for m in v5.messages if m.role == "user"]
        assert len(users) == 2 and not any(m.internal for m in users)

    def test_no_usage_so_windows_are_counted(self, v5: Conversation) -> None:
        assert all(m.reported_total_tokens is None for m in v5.messages)

    def test_jsonl_and_a_messages_object_read_the_same(self, v5: Conversation) -> None:
        messages = json.loads(fixture(V5).read_text())
        lines = "\n".join(json.dumps(m) for m in messages) + "\n"
        assert load_conversation(lines, name="m.jsonl").messages == v5.messages
        wrapped = load_conversation(json.dumps({"messages": messages}), name="m.json")
        assert wrapped.source_format == "ai-sdk" and wrapped.messages == v5.messages

    def test_inspect_prints_a_decision(self) -> None:
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(fixture(V5))], out=out, err=err) == EXIT_OK, err.getvalue()
        printed = out.getvalue()
        assert "ai-sdk" in printed
        assert any(line.strip().startswith("decision") for line in printed.splitlines())


class TestCoreMessages:
    def test_args_and_result_of_ai_sdk_4(self) -> None:
        v4 = load_conversation(fixture(V4))
        assert v4.source_format == "ai-sdk"
        assert [m.role for m in v4.messages] == [
            "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant",
        ]  # fmt: skip
        (first,) = v4.messages[1].tool_calls or ()
        assert first.arguments == '{"from":"Leiden Centraal","to":"Haarlem"}'
        assert json.loads(v4.messages[2].content)[0]["time"] == "14:12"
        assert v4.messages[6].content == '"No disruptions reported."'  # JSON.stringify quotes a string result
        assert count_messages(v4).to_dict()["unmatched_tool_calls"] == 0


class TestParts:
    def test_text_parts_are_joined_as_the_provider_joins_them(self) -> None:
        messages = [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}, call("c1", input={})]},
            result("c1", output={"type": "text", "value": "ok"}),
        ]  # fmt: skip
        assert loaded(messages).messages[1].content == "ab"

    def test_a_provider_executed_call_stays_in_the_content(self) -> None:
        search = call("ws_1", input={"query": "x"}, providerExecuted=True)
        found = {
            "type": "tool-result",
            "toolCallId": "ws_1",
            "toolName": "web_search",
            "output": {"type": "json", "value": []},
        }
        messages = [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [search, found, {"type": "text", "text": "none"}]},
        ]
        reply = loaded(messages).messages[1]
        assert not reply.tool_calls
        assert [part["type"] for part in reply.content] == ["text", "tool-call", "tool-result"]

    def test_denied_and_error_json_outputs(self) -> None:
        messages = [
            {"role": "user", "content": "rm it"},
            {"role": "assistant", "content": [call("c1", input={}), call("c2", input={})]},
            {"role": "tool", "content": [
                {"type": "tool-result", "toolCallId": "c1", "toolName": "lookup", "output": {"type": "execution-denied"}},
                {"type": "tool-result", "toolCallId": "c2", "toolName": "lookup", "output": {"type": "error-json", "value": {"code": 3}}},
            ]},
        ]  # fmt: skip
        run = loaded(messages)
        assert [m.content for m in run.messages[2:]] == ["Tool call execution denied.", '{"code":3}']

    def test_files_and_approvals(self) -> None:
        pdf = {"type": "file", "data": "JVBERi0=", "mediaType": "application/pdf", "filename": "spec.pdf"}
        approval = {"type": "tool-approval-request", "approvalId": "a1", "toolCallId": "c1"}
        messages = [
            {"role": "user", "content": [{"type": "text", "text": "read"}, pdf]},
            {"role": "assistant", "content": [call("c1", input={}), approval]},
            result("c1", output={"type": "text", "value": "ok"}),
        ]
        run = loaded(messages)
        assert run.messages[0].content == "read\n[Attached application/pdf: spec.pdf]"
        skipped = next(r for r in run.readings if r.code == "lines_skipped")
        assert "tool-approval-request" in skipped.detail

    def test_an_unanswered_call_gets_a_stand_in(self) -> None:
        run = loaded(
            [{"role": "user", "content": "go"}, {"role": "assistant", "content": [call("c1", input={})]}]
        )
        assert run.messages[-1].role == "tool" and any(r.code == "results_filled_in" for r in run.readings)


class TestDetection:
    def test_openai_and_anthropic_lists_keep_their_formats(self) -> None:
        openai = [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": "yo"},
        ]
        assert loaded(openai).source_format == "openai"
        anthropic = [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
        ]
        assert loaded(anthropic).source_format == "anthropic"

    def test_reasoning_parts_alone_do_not_make_a_list_the_sdks(self) -> None:
        roo_like = [
            {
                "role": "assistant",
                "content": [{"type": "reasoning", "text": "x"}, {"type": "text", "text": "y"}],
            }
        ]
        assert loaded(roo_like).source_format != "ai-sdk"


class TestBadInput:
    @pytest.mark.parametrize(
        ("messages", "words"),
        [
            ([{"role": "user", "content": "a"}, {"role": "narrator", "content": [call("c1", input={})]}], r"\[1\]\.role.*unknown role"),
            ([{"role": "assistant", "content": [call("c1", input={}), {"type": "tool-call", "toolCallId": 5, "toolName": "x"}]}], r"toolCallId.*non-empty string"),
            ([{"role": "assistant", "content": [call("c1", input={})]}, result("c1", output={"type": "xml", "value": 1})], r"output\.type.*unknown tool output type"),
            ([{"role": "assistant", "content": [call("c1", input={})]}, {"role": "tool", "content": "ok"}], r"\[1\]\.content.*tool content"),
        ],
    )  # fmt: skip
    def test_a_wrong_shape_is_one_line_naming_the_field(self, messages: list[Any], words: str) -> None:
        with pytest.raises(ConversationFormatError, match=words) as caught:
            loaded(messages)
        assert "\n" not in str(caught.value) and str(caught.value).startswith("messages.json")
