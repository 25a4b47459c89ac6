"""Pydantic AI message histories (``all_messages_json``): each request part and each response read as Pydantic AI's
OpenAI mapping sends it, tool results paired by id, retries internal, usage as the window each call saw.

The fixtures in ``tests/fixtures/formats/pydantic_ai/`` were built by hand from pydantic-ai's ``messages.py`` and
``usage.py`` (their README names the commits); the conversations are invented.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from compressor.analysis import analyze
from compressor.census import count_messages
from compressor.cli import EXIT_BAD_INPUT, EXIT_OK, main
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from compressor.formats.pydantic_ai import ENCRYPTED, NO_RESULT
from compressor.formats.pydantic_ai_content import retry_text
from compressor.formats.pydantic_ai_history import INTERRUPTED_RESULT
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

FOLDER = FIXTURES / "formats" / "pydantic_ai"
RUN = FOLDER / "support-run.json"
OLDER = FOLDER / "older-usage-names.json"
RUNS = FOLDER / "runs-a-line.jsonl"
INTERRUPTED = FOLDER / "interrupted-run.json"


@pytest.fixture(scope="module")
def run() -> Conversation:
    return load_conversation(fixture(RUN))


def request(*parts: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"parts": list(parts), "instructions": None, "kind": "request", **fields}


def response(*parts: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"parts": list(parts), "model_name": "claude-sonnet-4-5", "kind": "response", **fields}


def user(text: Any) -> dict[str, Any]:
    return {"content": text, "timestamp": "2025-09-18T14:00:00Z", "part_kind": "user-prompt"}


def call(call_id: str, args: Any = "{}", name: str = "lookup") -> dict[str, Any]:
    return {"tool_name": name, "args": args, "tool_call_id": call_id, "part_kind": "tool-call"}


def returned(call_id: str, content: Any, name: str = "lookup", **fields: Any) -> dict[str, Any]:
    return {
        "tool_name": name,
        "content": content,
        "tool_call_id": call_id,
        "part_kind": "tool-return",
        **fields,
    }


def loaded(messages: list[dict[str, Any]]) -> Conversation:
    return load_conversation(json.dumps(messages), name="history.json")


class TestAgentRun:
    def test_one_message_per_part_and_per_response(self, run: Conversation) -> None:
        assert run.source_format == "pydantic-ai"
        assert [m.role for m in run.system] == ["system"]
        assert [m.role for m in run.messages] == [
            "user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "tool", "assistant", "user",
            "assistant", "tool", "assistant", "tool", "user", "assistant",
        ]  # fmt: skip
        assert run.metadata["model"] == "gpt-4o-2024-08-06" and run.metadata["provider"] == "openai"

    def test_every_result_answers_its_call_by_id(self, run: Conversation) -> None:
        assert count_messages(run).to_dict()["unmatched_tool_calls"] == 0
        calls = [c.id for m in run.messages for c in m.tool_calls or ()]
        answers = [m.tool_call_id for m in run.messages if m.role == "tool"]
        assert answers == calls
        assert [c.name for c in run.messages[5].tool_calls or ()] == ["find_slots", "part_eta"]

    def test_args_as_a_json_string_stay_as_sent_and_an_object_is_compact_json(
        self, run: Conversation
    ) -> None:
        first = (run.messages[1].tool_calls or ())[0]
        assert first.arguments == '{"booking_id":"R-229"}'
        final = (run.messages[12].tool_calls or ())[0]
        assert json.loads(final.arguments)["slot"] == "10:00" and ": " not in final.arguments

    def test_a_structured_tool_return_is_compact_json(self, run: Conversation) -> None:
        assert run.messages[4].content.startswith('{"booking_id":"R-2291","status":"waiting_for_parts"')
        assert run.messages[6].content == '["10:00","15:30"]'

    def test_retry_prompts_are_what_pydantic_ai_sends_back(self, run: Conversation) -> None:
        validation = run.messages[2]  # the tool's arguments failed validation: a tool result for that call
        assert validation.role == "tool" and validation.tool_call_id == "call_kT3pQ1"
        assert validation.content.startswith("1 validation error:\n```json\n[\n  {\n")
        assert '"ctx"' not in validation.content and '"input": "R-229"' in validation.content
        assert validation.content.endswith("Fix the errors and try again.")
        plain = run.messages[9]  # text where the output tool was required: a user turn the harness wrote
        assert plain.role == "user" and plain.internal
        assert plain.content.startswith("Validation feedback:\nPlain text responses are not permitted")
        output = run.messages[11]  # the output validator's ModelRetry names the output tool
        assert output.role == "tool" and output.tool_call_id == "call_2rB9xe"

    def test_only_the_users_words_are_real_requests(self, run: Conversation) -> None:
        requests = [m.content for m in run.messages if m.role == "user" and not m.internal]
        assert len(requests) == 2 and requests[1] == "Thanks! Can you also add a brake-pad check?"
        internal = next(r for r in run.readings if r.code == "internal_user_turns")
        assert internal.count == 1

    def test_usage_is_input_plus_output_with_the_cached_tokens_inside(self, run: Conversation) -> None:
        assert run.messages[1].reported_total_tokens == 412 + 21
        cached = run.messages[3].usage_metadata or {}
        assert cached["total_tokens"] == 521 + 22 and cached["cache_read_tokens"] == 384
        assert run.messages[-1].reported_total_tokens == 941 + 17
        assert analyze(run, context_max=128_000).to_dict()["total_source"] == "usage"

    def test_jsonl_of_the_same_messages_reads_the_same(self, run: Conversation) -> None:
        lines = "\n".join(json.dumps(m) for m in json.loads(fixture(RUN).read_text())) + "\n"
        assert load_conversation(lines, name="history.jsonl").messages == run.messages

    def test_inspect_prints_a_decision(self) -> None:
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(fixture(RUN))], out=out, err=err) == EXIT_OK, err.getvalue()
        printed = out.getvalue()
        assert "pydantic-ai" in printed
        assert any(line.strip().startswith("decision") for line in printed.splitlines())


class TestOlderHistories:
    def test_request_and_response_tokens_are_the_older_names(self) -> None:
        older = load_conversation(fixture(OLDER))
        assert older.source_format == "pydantic-ai"
        assert [m.role for m in older.messages] == ["user", "assistant", "tool", "assistant"]
        assert older.messages[1].reported_total_tokens == 388 + 41
        assert older.messages[3].reported_total_tokens == 512 + 33
        assert older.metadata["model"] == "claude-3-7-sonnet-20250219"

    def test_only_a_total_is_used_when_no_count_is_split(self) -> None:
        history = [
            request(user("hi")),
            response({"content": "hello", "part_kind": "text"}, usage={"total_tokens": 90}),
        ]
        assert loaded(history).messages[-1].reported_total_tokens == 90

    def test_zero_usage_is_no_report(self) -> None:
        history = [request(user("hi")), response({"content": "hello", "part_kind": "text"}, usage={})]
        assert loaded(history).messages[-1].usage_metadata is None


class TestParts:
    def test_instructions_follow_the_system_prompt_as_the_latest_request_gives_them(self) -> None:
        history = [
            request(
                {"content": "You are terse.", "part_kind": "system-prompt"},
                user("a"),
                instructions="Old rules.",
            ),
            response({"content": "ok", "part_kind": "text"}),
            request(user("b"), instructions="Answer in Dutch."),
            response({"content": "goed", "part_kind": "text"}),
        ]
        run = loaded(history)
        assert [m.content for m in run.system] == ["You are terse.", "Answer in Dutch."]
        assert [m.content for m in run.messages] == ["a", "ok", "b", "goed"]

    def test_thinking_goes_beside_the_text_and_provider_tools_stay_in_the_content(self) -> None:
        history = [
            request(user("What is new in Python 3.14?")),
            response(
                {"content": "Search first.", "signature": "sig", "part_kind": "thinking"},
                {"tool_name": "web_search", "args": {"query": "python 3.14"}, "tool_call_id": "srvtoolu_1", "part_kind": "builtin-tool-call"},
                {"tool_name": "web_search", "content": [{"title": "What's new"}], "tool_call_id": "srvtoolu_1", "part_kind": "builtin-tool-return"},
                {"content": "Template strings and free threading.", "part_kind": "text"},
            ),
        ]  # fmt: skip
        reply = loaded(history).messages[-1]
        assert reply.model_extra is not None and reply.model_extra["reasoning_content"] == "Search first."
        assert [part["type"] for part in reply.content] == [
            "builtin-tool-call",
            "builtin-tool-return",
            "text",
        ]
        assert not reply.tool_calls

    def test_files_a_tool_returns_follow_its_result(self) -> None:
        image = {"url": "https://example.com/chart.png", "kind": "image-url", "identifier": "a1b2c3"}
        history = [
            request(user("Plot it.")),
            response(call("c1")),
            request(returned("c1", ["Rendered.", image])),
            response({"content": "Here it is.", "part_kind": "text"}),
        ]
        run = loaded(history)
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "user", "assistant"]
        assert run.messages[2].content == '["Rendered.","See file a1b2c3."]'
        files = run.messages[3]
        assert files.internal and files.content[0] == {"type": "text", "text": "This is file a1b2c3:"}
        assert files.content[1] == {"type": "image_url", "image_url": {"url": image["url"]}}

    def test_a_failed_tool_return_is_wrapped_as_an_error(self) -> None:
        history = [
            request(user("x")),
            response(call("c1")),
            request(returned("c1", "disk full", outcome="failed")),
        ]
        assert loaded(history).messages[2].content == '{"error":"disk full"}'

    def test_user_content_lists_read_text_images_and_placeholders(self) -> None:
        png = (
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
        )
        content = [
            "Compare these:",
            {"content": "tagged text", "metadata": {"id": 1}, "kind": "text-content"},
            {"data": png, "media_type": "image/png", "kind": "binary", "identifier": "f00d01"},
            {"url": "https://example.com/spec.pdf", "kind": "document-url", "media_type": "application/pdf"},
            {"kind": "cache-point", "ttl": "5m"},
        ]
        first = loaded([request(user(content))]).messages[0]
        assert first.content[:2] == [
            {"type": "text", "text": "Compare these:"},
            {"type": "text", "text": "tagged text"},
        ]
        assert first.content[2] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}}
        assert first.content[3]["text"].startswith("[Attached application/pdf: ")
        assert len(first.content) == 4  # the cache point is no content

    def test_a_call_never_answered_gets_a_stand_in(self) -> None:
        run = loaded([request(user("go")), response(call("c9"))])
        assert run.messages[-1].role == "tool" and run.messages[-1].tool_call_id == "c9"
        assert any(r.code == "results_filled_in" for r in run.readings)

    def test_a_provider_compaction_is_recorded(self) -> None:
        history = [
            request(user("long task")),
            response(
                {"content": "step", "part_kind": "text"}, usage={"input_tokens": 150_000, "output_tokens": 10}
            ),
            response({"content": None, "provider_name": "openai", "part_kind": "compaction"}),
            request(user("go on")),
        ]
        run = loaded(history)
        (recorded,) = run.recorded_compactions
        assert recorded.tokens_before == 150_010 and run.messages[recorded.index].content == ENCRYPTED
        assert any(r.code == "summaries_encrypted" for r in run.readings)

    def test_unknown_part_kinds_are_counted_not_guessed(self) -> None:
        history = [request(user("a"), {"tools_added": ["x"], "part_kind": "tool-availability-delta"})]
        skipped = next(r for r in loaded(history).readings if r.code == "lines_skipped")
        assert "tool-availability-delta" in skipped.detail

    def test_retry_text_without_a_tool_leaves_out_a_top_level_input(self) -> None:
        part = {
            "content": [{"type": "missing", "loc": ["x"], "msg": "Field required", "input": {}}],
            "tool_name": None,
        }
        assert '"input"' not in retry_text(part) and retry_text(part).startswith("1 validation error:")


class TestBadInput:
    @pytest.mark.parametrize(
        ("history", "words"),
        [
            (
                [request(user("a")), request({"content": "x"})],
                r"\[1\]\.parts\[0\]\.part_kind.*must be a string",
            ),
            (
                [request(user("a")), {"kind": "reply", "parts": []}],
                r"\[1\]\.kind.*must be 'request' or 'response'",
            ),
            (
                [request(user("a")), response(call("c1", args=7))],
                r"args.*a JSON string or an object, got number",
            ),
            ([request(user(7))], r"content.*expected user content"),
            ([request(user("a")), response(call(""))], r"tool_call_id.*non-empty string"),
        ],
    )
    def test_a_wrong_shape_is_one_line_naming_the_field(self, history: list[Any], words: str) -> None:
        with pytest.raises(ConversationFormatError, match=words) as caught:
            loaded(history)
        assert "\n" not in str(caught.value) and str(caught.value).startswith("history.json")

    def test_the_cli_says_one_line(self, tmp_path: Any) -> None:
        path = tmp_path / "bad.json"
        path.write_text(json.dumps([request(user("a")), response(call("c1", args=[1]))]))
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(path)], out=out, err=err) == EXIT_BAD_INPUT
        assert len(err.getvalue().splitlines()) == 1 and err.getvalue().startswith("compaction-lab: ")


WRAPPED = FOLDER / "chat-session-wrapped.json"


def bare() -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = json.loads(fixture(RUN).read_text())
    return history


class TestWrappedHistories:
    """A history saved inside an object (a chat app's session, ``{"messages": [...], "usage": ...}``): before this
    reader took wrappers, ``{"messages": …}`` failed as a role-less chat and ``{"history": …}`` as SWE-agent."""

    def test_a_saved_session_reads_as_its_message_list_does(self) -> None:
        saved = json.loads(fixture(WRAPPED).read_text())
        wrapped = load_conversation(fixture(WRAPPED))
        assert wrapped.source_format == "pydantic-ai"
        assert wrapped.messages == loaded(saved["messages"]).messages
        assert [m.role for m in wrapped.messages] == [
            "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "tool", "assistant",
        ]  # fmt: skip
        assert [m.reported_total_tokens for m in wrapped.messages if m.role == "assistant"] == [
            412,
            557,
            651,
            733,
        ]

    @pytest.mark.parametrize("key", ["messages", "message_history", "history", "all_messages", "saved_run"])
    def test_each_wrapper_key_reads_the_same_history(self, run: Conversation, key: str) -> None:
        wrapped = load_conversation(json.dumps({key: bare(), "usage": {"requests": 6}}), name="run.json")
        assert wrapped.source_format == "pydantic-ai" and wrapped.messages == run.messages

    def test_all_messages_is_read_and_new_messages_beside_it_is_not_read_twice(
        self, run: Conversation
    ) -> None:
        history = bare()
        wrapped = load_conversation(
            json.dumps({"new_messages": history[4:], "all_messages": history}), name="r.json"
        )
        assert wrapped.messages == run.messages
        assert any("'new_messages'" in reading.detail for reading in wrapped.readings)

    def test_a_problem_inside_the_wrapper_names_its_place(self) -> None:
        history = [request(user("a")), response(call("c1", args=[1]))]
        with pytest.raises(ConversationFormatError, match=r"messages\[1\]\.parts\[0\]\.args") as caught:
            load_conversation(json.dumps({"messages": history}), name="saved.json")
        assert "\n" not in str(caught.value) and str(caught.value).startswith("saved.json")

    def test_an_object_without_a_pydantic_ai_message_is_left_to_the_other_readers(self) -> None:
        chat = load_conversation(json.dumps({"messages": [{"role": "user", "content": "hi"}]}), name="c.json")
        assert chat.source_format != "pydantic-ai"


class TestRunsOneALine:
    """JSONL whose every line is one run's ``new_messages_json()`` (a list, as Pydantic AI's chat-app example stores
    each run's messages): one conversation a line, named as OpenHands' one-run-a-line output is. Before, the loader
    took only objects a line and refused the file."""

    def test_each_line_is_the_run_its_list_holds(self, run: Conversation) -> None:
        older = json.loads(fixture(OLDER).read_text())
        text = json.dumps(bare()) + "\n" + json.dumps(older) + "\n"
        first, second = load_conversations(text, name="runs.jsonl")
        assert (first.name, second.name) == ("runs #0", "runs #1")
        assert first.messages == run.messages and first.source_format == "pydantic-ai"
        assert second.messages == load_conversation(fixture(OLDER)).messages

    def test_one_line_is_one_run_named_by_its_file(self, run: Conversation) -> None:
        (only,) = load_conversations(json.dumps(bare()) + "\n", name="runs.jsonl")
        assert only.name == "runs" and only.messages == run.messages

    def test_a_problem_names_its_line_and_place(self) -> None:
        bad = [request(user("a")), response(call("c1", args=[1]))]
        text = json.dumps(bare()) + "\n" + json.dumps(bad) + "\n"
        with pytest.raises(ConversationFormatError, match=r"runs\.jsonl: line 2: \[1\]\.parts\[0\]\.args"):
            load_conversations(text, name="runs.jsonl")

    def test_runs_of_one_conversation_are_one_conversation(self) -> None:
        """Written by Pydantic AI: lines 1 and 2 share a conversation_id (the second run had the first's history),
        line 3 is a fresh run."""
        lines = [json.loads(line) for line in fixture(RUNS).read_text().splitlines()]
        joined, fresh = load_conversations(fixture(RUNS))
        assert (joined.name, fresh.name) == ("runs-a-line #0", "runs-a-line #1")
        assert joined.messages == load_conversation(json.dumps(lines[0] + lines[1]), name="h.json").messages
        assert fresh.messages == load_conversation(json.dumps(lines[2]), name="h.json").messages
        assert len(joined.system) == 2  # the system prompt, then the latest run's instructions
        assert [m.role for m in joined.messages] == ["user", "assistant", "tool", "assistant"] * 2
        assert [m.reported_total_tokens for m in joined.messages if m.role == "assistant"] == [
            194,
            471,
            272,
            791,
        ]

    def test_a_problem_in_a_joined_run_names_its_own_line(self) -> None:
        lines = [json.loads(line) for line in fixture(RUNS).read_text().splitlines()]
        lines[1][1]["parts"][0]["args"] = [1]
        text = "".join(json.dumps(line) + "\n" for line in lines)
        with pytest.raises(ConversationFormatError, match=r"runs\.jsonl: line 2: \[1\]\.parts\[0\]\.args"):
            load_conversations(text, name="runs.jsonl")

    def test_an_object_after_lists_is_one_line_naming_it(self) -> None:
        text = json.dumps(bare()) + "\n" + json.dumps(request(user("a"))) + "\n"
        with pytest.raises(ConversationFormatError, match=r"line 2: expected a JSON list like line 1"):
            load_conversations(text, name="runs.jsonl")


class TestInterruptedRequests:
    """A ``ModelRequest`` with ``state: interrupted`` holds the tool results gathered when a run raised or was
    cancelled before the request went out (pydantic-ai ``messages.py`` ``ModelRequestState``, ``_agent_graph.py``
    ``CallToolsNode``). The fixtures were written by pydantic-ai-slim 2.68.0 itself (the folder's README): a run whose
    second of two parallel tools raised, then that history run on with a prompt and resumed without one."""

    def test_a_request_ending_the_history_was_never_sent(self) -> None:
        run = load_conversation(fixture(INTERRUPTED))
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "tool"]
        assert [m.content for m in run.messages[2:]] == [NO_RESULT, NO_RESULT]  # the model saw neither result
        skipped = next(r for r in run.readings if r.code == "lines_skipped")
        assert "interrupted requests ending the history" in skipped.detail

    def test_runs_that_went_on_with_a_prompt_read_as_pydantic_ai_stored_them(self) -> None:
        """Lines: the interrupted run, then the next run's new messages; Pydantic AI's own all_messages of that
        run holds the request closed out with its placeholder, sent merged with the new prompt."""
        (joined,) = load_conversations(fixture(FOLDER / "interrupted-prompted.jsonl"))
        stored = load_conversation(fixture(FOLDER / "interrupted-continued.json"))
        assert joined.messages == stored.messages
        assert [(m.tool_call_id, m.content) for m in joined.messages if m.role == "tool"] == [
            ("call_sensor", "north bed moisture 12%"),
            ("call_valve", INTERRUPTED_RESULT),
        ]
        assert not any(r.code == "results_filled_in" for r in joined.readings)

    def test_a_run_resumed_without_a_prompt_sent_the_gathered_results_once(self) -> None:
        (joined,) = load_conversations(fixture(FOLDER / "interrupted-resumed.jsonl"))
        assert [m.role for m in joined.messages] == ["user", "assistant", "tool", "tool", "assistant"]
        assert [m.content for m in joined.messages if m.role == "tool"] == [
            "north bed moisture 12%",
            INTERRUPTED_RESULT,
        ]

    def test_the_placeholder_follows_the_requests_own_results(self) -> None:
        history = [
            request(user("go")),
            response(call("c1"), call("c2"), call("c3")),
            request(returned("c1", "one"), user("and then?"), state="interrupted"),
            request(returned("c3", "three")),
            response({"content": "ok", "part_kind": "text"}),
        ]
        run = loaded(history)
        # The two requests are one turn, its results first (_merge_consecutive_messages); c3 is answered later, so
        # it has no placeholder.
        assert [(m.role, m.tool_call_id, m.content) for m in run.messages[2:6]] == [
            ("tool", "c1", "one"),
            ("tool", "c2", INTERRUPTED_RESULT),
            ("tool", "c3", "three"),
            ("user", None, "and then?"),
        ]

    def test_a_never_sent_requests_instructions_are_not_the_next_calls(self) -> None:
        history = [
            request(user("go"), instructions="Be brief."),
            response(call("c1")),
            request(returned("c1", "one"), instructions="Be long.", state="interrupted"),
        ]
        assert [m.content for m in loaded(history).system] == ["Be brief."]


def text(words: str) -> dict[str, Any]:
    return {"content": words, "part_kind": "text"}


class TestHistoryCleaning:
    """Pydantic AI cleans the history before each request (``_clean_message_history``, pydantic-ai
    ``_agent_graph.py`` at 4fda389, since v2.10.0): orphaned results out, dangling calls answered with
    ``INTERRUPTED_TOOL_RETURN_CONTENT``, consecutive requests one turn. Histories built from that source."""

    def test_a_call_a_later_request_leaves_unanswered_gets_pydantic_ais_placeholder(self) -> None:
        history = [
            request(user("go")),
            response(call("c1"), call("c2")),
            request(returned("c1", "one")),
            response(text("done")),
        ]
        run = loaded(history)
        assert [(m.tool_call_id, m.content) for m in run.messages if m.role == "tool"] == [
            ("c1", "one"),
            ("c2", INTERRUPTED_RESULT),
        ]
        assert not any(r.code == "results_filled_in" for r in run.readings)

    def test_a_response_followed_by_a_response_gets_a_request_of_placeholders_between(self) -> None:
        history = [request(user("go")), response(call("c1")), response(text("gave up"))]
        run = loaded(history)
        assert [(m.role, m.content) for m in run.messages[1:]] == [
            ("assistant", ""),
            ("tool", INTERRUPTED_RESULT),
            ("assistant", "gave up"),
        ]

    def test_a_result_before_its_call_is_left_out_counted_and_the_call_answered(self) -> None:
        history = [
            request(user("go"), returned("c1", "early")),
            response(call("c1")),
            request(user("well?")),
            response(text("ok")),
        ]
        run = loaded(history)
        assert [m.content for m in run.messages if m.role == "tool"] == [INTERRUPTED_RESULT]
        skipped = next(r for r in run.readings if r.code == "lines_skipped")
        assert "tool results answering no earlier call" in skipped.detail

    def test_an_orphan_alone_in_its_request_takes_the_request_with_it(self) -> None:
        history = [
            request(user("go")),
            response(text("first")),
            request(returned("gone", "stale")),
            response(text("second")),
        ]
        run = loaded(history)
        assert [m.role for m in run.messages] == ["user", "assistant", "assistant"]

    def test_consecutive_requests_are_one_turn_with_the_results_first(self) -> None:
        history = [
            request(user("go")),
            response(call("c1")),
            request(user("hurry up")),
            request(returned("c1", "one")),
            response(text("ok")),
        ]
        run = loaded(history)
        assert [(m.role, m.content) for m in run.messages[2:4]] == [("tool", "one"), ("user", "hurry up")]

    def test_consecutive_responses_no_api_made_are_one_assistant_message(self) -> None:
        made = {"model_name": None}
        history = [request(user("go")), response(text("a"), **made), response(text("b"), **made)]
        run = loaded(history)
        assert [(m.role, m.content) for m in run.messages] == [("user", "go"), ("assistant", "a\n\nb")]

    def test_a_response_ending_the_history_keeps_the_readers_stand_in(self) -> None:
        run = loaded([request(user("go")), response(call("c1"))])
        assert run.messages[-1].content == NO_RESULT
