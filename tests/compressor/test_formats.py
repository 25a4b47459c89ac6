"""Conversation loaders: every sample loads, every format is detected, bad input fails on one line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compressor.errors import ConversationFormatError
from compressor.formats import FORMAT_NAMES, MAX_FILE_BYTES, load_conversation, load_conversations
from compressor.messages import Conversation
from tests.conftest import READ_TRANSCRIPTS, TRANSCRIPTS

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = TRANSCRIPTS
FIXTURES = ROOT / "tests" / "fixtures" / "formats"


def sample(name: str) -> Path:
    path = SAMPLES / name
    assert path.is_file(), (
        f"sample transcript missing: {path} (copied into tests/fixtures/samples from ../shared/samples)"
    )
    return path


def unpaired_results(conversation: Conversation) -> list[str]:
    """tool_call_ids of tool messages with no earlier assistant call of that id."""
    called: set[str] = set()
    unpaired: list[str] = []
    for message in [*conversation.system, *conversation.messages]:
        called.update(message.call_ids)
        if message.role == "tool" and message.tool_call_id not in called:
            unpaired.append(str(message.tool_call_id))
    return unpaired


def totals(conversations: list[Conversation]) -> dict[str, int]:
    roles: Counter[str] = Counter()
    calls = 0
    for conversation in conversations:
        for message in [*conversation.system, *conversation.messages]:
            roles[message.role] += 1
            calls += len(message.tool_calls or ())
    return {
        "conversations": len(conversations),
        "system": sum(len(c.system) for c in conversations),
        "context": sum(len(c.messages) for c in conversations),
        "user": roles["user"],
        "assistant": roles["assistant"],
        "tool": roles["tool"],
        "tool_calls": calls,
    }


# -- the shared samples ------------------------------------------------------------------------


SAMPLE_TABLE = [
    (
        "claude-code-session.jsonl",
        "claude-code",
        {
            "conversations": 1,
            "system": 0,
            "context": 80,
            "user": 2,
            "assistant": 39,
            "tool": 39,
            "tool_calls": 39,
        },
    ),
    (
        "engram-claude-code-diffusion.jsonl",
        "engram",
        {
            "conversations": 1,
            "system": 0,
            "context": 1027,
            "user": 57,
            "assistant": 500,
            "tool": 470,
            "tool_calls": 470,
        },
    ),
    (
        "openai-chat-tau-bench-airline.json",
        "traj-records",
        {
            "conversations": 200,
            "system": 200,
            "context": 5108,
            "user": 1490,
            "assistant": 2454,
            "tool": 1164,
            "tool_calls": 1164,
        },
    ),
    (
        "swe-agent-function-calling.traj",
        "swe-agent",
        {
            "conversations": 1,
            "system": 1,
            "context": 27,
            "user": 1,
            "assistant": 13,
            "tool": 13,
            "tool_calls": 13,
        },
    ),
    (
        "openhands-eval-output.jsonl",
        "openhands",
        {
            "conversations": 3,
            "system": 3,
            "context": 213,
            "user": 5,
            "assistant": 105,
            "tool": 103,
            "tool_calls": 103,
        },
    ),
    (
        "gemini-cli-stream.jsonl",
        "gemini-cli-stream",
        {
            "conversations": 2,
            "system": 0,
            "context": 139,
            "user": 2,
            "assistant": 69,
            "tool": 68,
            "tool_calls": 68,
        },
    ),
]


class TestSamples:
    @pytest.mark.parametrize(("name", "source_format", "expected"), SAMPLE_TABLE)
    def test_sample_loads_with_measured_counts(
        self, name: str, source_format: str, expected: dict[str, int]
    ) -> None:
        conversations = load_conversations(sample(name))
        assert totals(conversations) == expected
        assert {c.source_format for c in conversations} == {source_format}

    @pytest.mark.parametrize(("name", "source_format", "expected"), SAMPLE_TABLE)
    def test_every_tool_result_answers_an_earlier_call(
        self, name: str, source_format: str, expected: Any
    ) -> None:
        for conversation in load_conversations(sample(name)):
            assert unpaired_results(conversation) == []

    def test_every_readable_sample_is_tested(self) -> None:
        assert sorted(row[0] for row in SAMPLE_TABLE) == sorted(READ_TRANSCRIPTS)
        assert set(READ_TRANSCRIPTS) <= {p.name for p in SAMPLES.iterdir()}


@pytest.fixture(scope="module")
def session() -> Conversation:
    return load_conversation(sample("claude-code-session.jsonl"))


class TestClaudeCodeSample:
    def test_lines_of_one_reply_become_one_assistant_message(self, session: Conversation) -> None:
        raw = [json.loads(line) for line in sample("claude-code-session.jsonl").read_text().splitlines()]
        reply_ids = [line["message"]["id"] for line in raw if line.get("type") == "assistant"]
        assert len(reply_ids) == 55
        assistants = [m for m in session.messages if m.role == "assistant"]
        assert [m.model_extra["id"] for m in assistants if m.model_extra] == list(dict.fromkeys(reply_ids))

    def test_a_reply_with_two_tool_uses_keeps_both_calls_in_order(self, session: Conversation) -> None:
        double = [i for i, m in enumerate(session.messages) if len(m.tool_calls or ()) == 2]
        assert double == [55, 62]
        first = session.messages[55]
        assert first.call_ids == ("toolu_01FodW2xQs9huzVpnvnAEMaA", "toolu_013VSa5vuXGRUVgdqJQe1w8Z")
        assert [m.tool_call_id for m in session.messages[56:58]] == list(first.call_ids)

    def test_a_meta_line_is_an_internal_turn_and_queue_lines_are_skipped(self, session: Conversation) -> None:
        # Claude Code hides isMeta lines from the screen but sends them: the model answers the Stop hook's feedback
        (index,) = [i for i, m in enumerate(session.messages) if "Stop hook feedback" in m.text]
        assert session.messages[index].is_internal
        assert session.messages[index + 1].text == "I need to commit the changes before finishing."
        assert session.messages[0].role == "user" and session.messages[0].text.startswith("Port this Python")

    def test_usage_is_the_whole_window_of_the_last_line(self, session: Conversation) -> None:
        last = session.messages[-1]
        assert last.usage_metadata == {
            "input_tokens": 38277,
            "output_tokens": 1,
            "total_tokens": 38278,
            "cache_read_input_tokens": 38180,
            "cache_creation_input_tokens": 97,
        }
        assert last.reported_total_tokens == 38278

    def test_tool_use_input_becomes_json_arguments(self, session: Conversation) -> None:
        calls = session.messages[1].tool_calls
        assert calls is not None
        call = calls[0]
        assert call.name == "Task"
        assert call.parsed_arguments()["subagent_type"] == "Explore"


class TestOtherSamples:
    def test_records_are_named_by_index_task_and_trial(self) -> None:
        conversations = load_conversations(sample("openai-chat-tau-bench-airline.json"))
        assert conversations[0].name == "openai-chat-tau-bench-airline #0 (task 0, trial 0)"
        assert conversations[-1].name == "openai-chat-tau-bench-airline #199 (task 49, trial 3)"
        assert len({c.name for c in conversations}) == 200
        assert (len(conversations[0].system), len(conversations[0].messages)) == (1, 31)

    def test_null_assistant_content_becomes_empty_text(self) -> None:
        first = load_conversations(sample("openai-chat-tau-bench-airline.json"))[0]
        calling = next(m for m in first.messages if m.tool_calls)
        assert calling.content == ""

    def test_swe_agent_tool_messages_answer_their_listed_call(self) -> None:
        trajectory = load_conversation(sample("swe-agent-function-calling.traj"))
        assistant, tool = trajectory.messages[1], trajectory.messages[2]
        assert tool.tool_call_id == assistant.call_ids[0] == "call_9diWc1DYm4RLmPfHgIaP2wd"
        assert assistant.model_extra is not None
        assert assistant.model_extra["action"] == "ls -F"
        assert assistant.model_extra["thought"].startswith("Let's list out")

    def test_several_conversations_are_refused_by_load_conversation(self) -> None:
        with pytest.raises(ConversationFormatError, match=r"holds 200 conversations; use load_conversations"):
            load_conversation(sample("openai-chat-tau-bench-airline.json"))


# -- detection from small inline examples ---------------------------------------------------------

OPENJIUWEN = [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "c1", "type": "function", "name": "ls", "arguments": "{}"}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
]
OPENAI = [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
]
OPENAI_TOOL = {
    "type": "function",
    "function": {"name": "ls", "description": "list", "parameters": {"type": "object"}},
}
ANTHROPIC = {
    "model": "claude-x",
    "max_tokens": 100,
    "system": "Be brief.",
    "tools": [{"name": "ls", "description": "list", "input_schema": {"type": "object"}}],
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is here?"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "list it", "signature": "s"},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "a.txt"}],
                },
                {"type": "text", "text": "Anything else?"},
            ],
        },
    ],
}


def claude_line(kind: str, message: dict[str, Any], uuid: str, **flags: Any) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "sessionId": "s", "message": message, **flags})


CLAUDE_CODE = "\n".join(
    [
        json.dumps({"type": "queue-operation", "operation": "dequeue", "sessionId": "s"}),
        claude_line("user", {"role": "user", "content": "list files"}, "u1"),
        claude_line(
            "assistant",
            {
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "text", "text": "Sure."}],
                "usage": {"input_tokens": 5},
            },
            "u2",
        ),
        claude_line(
            "assistant",
            {
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}],
                "usage": {"input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 9},
            },
            "u3",
        ),
        claude_line(
            "user",
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]},
            "u4",
        ),
        claude_line("user", {"role": "user", "content": "hook says hi"}, "u5", isMeta=True),
        claude_line(
            "assistant", {"id": "msg_s", "role": "assistant", "content": "side"}, "u6", isSidechain=True
        ),
        json.dumps({"type": "summary", "summary": "Listing files", "leafUuid": "u4"}),
        claude_line(
            "assistant",
            {"id": "msg_2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            "u7",
        ),
    ]
)
SWE_AGENT = {
    "history": [
        {"role": "system", "content": "setting"},
        {"role": "user", "content": "fix it"},
        {
            "role": "assistant",
            "content": "look",
            "thought": "look",
            "action": "ls",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}],
        },
        {"role": "tool", "content": "a.py", "tool_call_ids": ["c1"], "message_type": "observation"},
    ],
    "info": {},
    "trajectory": [],
}
RECORDS = [
    {
        "task_id": 7,
        "reward": 1.0,
        "traj": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
    },
    {"task_id": 8, "traj": [{"role": "user", "content": "c"}]},
]
JSONL = '{"role": "user", "content": "a"}\n\n{"role": "assistant", "content": "b"}\n'

DETECTION_TABLE = [
    ("openjiuwen list", OPENJIUWEN, "openjiuwen", (1, 3)),
    ("openjiuwen object", {"messages": OPENJIUWEN, "tools": [OPENAI_TOOL]}, "openjiuwen", (1, 3)),
    ("openai array", OPENAI, "openai", (1, 3)),
    ("openai object", {"messages": OPENAI, "tools": [OPENAI_TOOL]}, "openai", (1, 3)),
    ("jsonl text", JSONL, "jsonl", (0, 2)),
    ("anthropic object", ANTHROPIC, "anthropic", (1, 4)),
    ("claude code session", CLAUDE_CODE, "claude-code", (0, 5)),
    ("swe-agent trajectory", SWE_AGENT, "swe-agent", (1, 3)),
    ("traj record", RECORDS[0], "traj-records", (0, 2)),
]


def fixture_formats() -> set[str]:
    """The source formats the readers give the format fixtures and the readable sample transcripts."""
    formats: set[str] = set()
    folders = [p for p in FIXTURES.iterdir() if p.is_dir() and p.name != "bad"]
    sources = [p for folder in folders for p in sorted(folder.iterdir()) if p.name != "README.md"]
    sources += [TRANSCRIPTS / name for name in READ_TRANSCRIPTS]
    for path in sources:
        if path.suffix == ".json" and path.parent.name == "agents_sqlite":
            continue  # rows a test turns into a database, not a session file
        formats.update(c.source_format for c in load_conversations(path))
    return formats


class TestDetection:
    @pytest.mark.parametrize(("label", "source", "source_format", "counts"), DETECTION_TABLE)
    def test_format_is_detected(
        self, label: str, source: Any, source_format: str, counts: tuple[int, int]
    ) -> None:
        conversation = load_conversation(source)
        assert conversation.source_format == source_format
        assert (len(conversation.system), len(conversation.messages)) == counts
        assert unpaired_results(conversation) == []

    def test_every_format_name_is_made_by_a_fixture_and_every_fixture_names_a_known_format(self) -> None:
        made = {row[2] for row in DETECTION_TABLE} | fixture_formats()
        # built in its own test from the SDK's table definitions (tests/compressor/formats/test_agents_sqlite.py)
        made.add("openai-agents-sqlite")
        made.add("crush")  # likewise from Crush's migrations (tests/compressor/formats/test_crush.py)
        made.add("cursor")  # and from what public parsers agree on (tests/compressor/formats/test_cursor.py)
        assert made == set(FORMAT_NAMES)

    def test_openai_and_flat_tool_definitions_load_alike(self) -> None:
        flat = {"name": "ls", "description": "list", "parameters": {"type": "object"}}
        nested = load_conversation({"messages": OPENAI, "tools": [OPENAI_TOOL]}).tools
        assert nested == load_conversation({"messages": OPENAI, "tools": [flat]}).tools

    def test_nested_and_flat_tool_calls_load_alike(self) -> None:
        assert load_conversation(OPENAI).messages == load_conversation(OPENJIUWEN).messages

    def test_anthropic_blocks_unfold_into_calls_and_tool_messages(self) -> None:
        conversation = load_conversation(ANTHROPIC)
        assert conversation.system[0].content == "Be brief."
        user, assistant, tool, follow_up = conversation.messages
        assert user.image_count == 1
        assert assistant.content == "Looking."
        assert assistant.tool_calls is not None
        assert assistant.tool_calls[0].flat()["arguments"] == '{"path": "."}'
        assert assistant.model_extra is not None and assistant.model_extra["reasoning_content"] == "list it"
        assert (tool.role, tool.tool_call_id, tool.content) == ("tool", "toolu_1", "a.txt")
        assert (follow_up.role, follow_up.content) == ("user", "Anything else?")
        assert conversation.tools[0].parameters == {"type": "object"}

    def test_anthropic_system_blocks_become_one_system_message(self) -> None:
        blocks = [{"type": "text", "text": "One."}, {"type": "text", "text": "Two."}]
        conversation = load_conversation({**ANTHROPIC, "system": blocks})
        assert [m.text for m in conversation.system] == ["One.\nTwo."]

    def test_claude_code_merges_replies_and_skips_side_lines(self) -> None:
        conversation = load_conversation(CLAUDE_CODE)
        assert [m.role for m in conversation.messages] == ["user", "assistant", "tool", "user", "assistant"]
        assert conversation.messages[3].is_internal  # the isMeta line: sent to the model, not a request
        reply = conversation.messages[1]
        assert (reply.content, reply.call_ids) == ("Sure.", ("t1",))
        assert reply.usage_metadata is not None and reply.usage_metadata["total_tokens"] == 114
        assert reply.model_extra is not None and reply.model_extra["uuid"] == "u2"

    def test_records_file_gives_one_named_conversation_per_record(self) -> None:
        conversations = load_conversations(RECORDS, name="tau.json")
        assert [c.name for c in conversations] == ["tau #0 (task 7)", "tau #1 (task 8)"]

    def test_list_of_conversation_objects_gives_one_each(self) -> None:
        objects = [{"messages": OPENAI}, {"messages": OPENJIUWEN}]
        conversations = load_conversations(json.dumps(objects), name="batch.json")
        assert [c.name for c in conversations] == ["batch #0", "batch #1"]


# -- sources, names, read-only -----------------------------------------------------------------------


class TestSources:
    def test_path_str_text_bytes_and_values_load_the_same(self) -> None:
        path = FIXTURES / "good" / "openjiuwen.json"
        expected = load_conversation(path)
        for source in (str(path), path.read_text(), path.read_bytes(), json.loads(path.read_text())):
            assert load_conversation(source).messages == expected.messages

    def test_file_conversations_are_named_by_stem(self) -> None:
        assert load_conversation(FIXTURES / "good" / "messages.jsonl").name == "messages"
        assert load_conversation(JSONL.encode(), name="upload.jsonl").name == "upload"

    def test_a_pretty_printed_document_named_jsonl_still_loads(self) -> None:
        text = json.dumps(OPENAI, indent=2)
        assert load_conversation(text, name="chat.jsonl").messages == load_conversation(OPENAI).messages

    def test_byte_order_mark_is_accepted(self) -> None:
        assert load_conversation(b"\xef\xbb\xbf" + JSONL.encode()).source_format == "jsonl"

    def test_input_files_are_never_written(self, tmp_path: Path) -> None:
        path = tmp_path / "conversation.json"
        path.write_text(json.dumps(OPENJIUWEN))
        path.chmod(0o444)
        before = (path.read_bytes(), path.stat().st_mtime_ns)
        load_conversation(path)
        assert (path.read_bytes(), path.stat().st_mtime_ns) == before

    def test_files_over_the_limit_are_refused_by_size(self, tmp_path: Path) -> None:
        path = tmp_path / "huge.json"
        with open(path, "wb") as handle:  # sparse: no disk space used
            handle.truncate(MAX_FILE_BYTES + 1)
        with pytest.raises(ConversationFormatError, match=r"huge\.json: is 200\.0 MB, over the 200 MB limit"):
            load_conversation(path)


class TestRoundTrip:
    def test_openjiuwen_export_loads_back_unchanged(self) -> None:
        original = load_conversation(FIXTURES / "good" / "openjiuwen.json")
        again = load_conversation(original.to_openjiuwen())
        assert again.system == original.system
        assert again.messages == original.messages
        assert again.tools == original.tools

    def test_unknown_fields_are_kept(self) -> None:
        conversation = load_conversation(FIXTURES / "good" / "openjiuwen.json")
        exported = conversation.to_openjiuwen()
        assert exported["messages"][2]["finish_reason"] == "tool_calls"
        assert exported["messages"][4]["custom_trace"] == {"step": 2, "tags": ["x"]}
        assert exported["messages"][1]["metadata"] == {"context_message_id": "m1"}
        assert exported["tools"][0]["strict"] is True

    def test_unknown_tool_call_fields_are_kept_on_load(self) -> None:
        calls = [{"id": "c1", "type": "function", "name": "ls", "arguments": "{}", "index": 0}]
        conversation = load_conversation([{"role": "assistant", "content": "", "tool_calls": calls}])
        assert conversation.messages[0].tool_calls is not None
        assert conversation.messages[0].tool_calls[0].flat()["index"] == 0


# -- bad input -------------------------------------------------------------------------------------

BAD_FILES = [
    ("empty.json", "is empty"),
    ("whitespace.json", "is empty"),
    ("truncated.json", "truncated?"),
    ("not_json.txt", "not valid JSON at line 1 column 1"),
    ("invalid_utf8.json", "line 2: not UTF-8 text (byte 0xe9)"),
    ("bad_line.jsonl", "line 3: not valid JSON (Expecting ':' delimiter at column 28)"),
    ("unknown_role_line.jsonl", "line 2: role: unknown role 'robot'"),
    ("jsonl_not_object.jsonl", "line 2: expected a JSON object, got list"),
    ("unknown_role.json", "[1].role: unknown role 'narrator'"),
    ("call_without_id.json", "messages[1].tool_calls[0]: missing id"),
    ("call_without_name.json", "[1].tool_calls[0]: missing name"),
    ("tool_without_call_id.json", "[2]: tool message without tool_call_id"),
    ("usage_not_number.json", "[1].usage_metadata.total_tokens: must be a number"),
    ("unknown_format.json", "unrecognised format: an object with keys title, items"),
    ("messages_not_list.json", "messages: expected messages (a JSON list), got string"),
    ("content_number.json", "[0].content: must be a string or a list of parts"),
    ("number.json", "unrecognised format: a JSON number"),
    ("empty_list.json", "is an empty list"),
    ("tool_name_number.json", "tools[0].name: Input should be a valid string"),
    ("anthropic_result_without_id.json", "messages[2].content[0]: tool_result block missing tool_use_id"),
    ("claude_code_bad_usage.jsonl", "line 2: message.usage.output_tokens: must be a number"),
    ("swe_agent_tool_without_ids.traj", "history[3]: tool message without tool_call_ids"),
    ("records_bad_traj.json", "[1].traj: expected traj (a JSON list), got object"),
]


def assert_one_line_naming(error: ConversationFormatError, name: str, fragment: str) -> None:
    text = str(error)
    assert "\n" not in text
    assert name in text
    assert fragment in text


class TestBadInput:
    @pytest.mark.parametrize(("name", "fragment"), BAD_FILES)
    def test_bad_file_fails_on_one_line_naming_file_and_problem(self, name: str, fragment: str) -> None:
        path = FIXTURES / "bad" / name
        for load in (load_conversation, load_conversations):
            with pytest.raises(ConversationFormatError) as caught:
                load(path)
            assert_one_line_naming(caught.value, name, fragment)

    def test_every_bad_fixture_is_in_the_table(self) -> None:
        assert sorted(p.name for p in (FIXTURES / "bad").iterdir()) == sorted(row[0] for row in BAD_FILES)

    def test_absurd_nesting_is_an_error_not_a_recursion_error(self, tmp_path: Path) -> None:
        path = tmp_path / "deep.json"
        path.write_text("[" * 100_000 + "]" * 100_000)
        with pytest.raises(ConversationFormatError) as caught:
            load_conversation(path)
        assert_one_line_naming(caught.value, "deep.json", "nested deeper than 100 levels")

    def test_nesting_inside_a_message_is_bounded_too(self) -> None:
        deep: Any = []
        for _ in range(150):
            deep = [deep]
        with pytest.raises(ConversationFormatError, match="nested deeper than 100 levels"):
            load_conversation([{"role": "user", "content": "x", "extra": deep}])

    def test_a_self_containing_list_is_refused(self) -> None:
        loop: list[Any] = []
        loop.append(loop)
        with pytest.raises(ConversationFormatError, match="nested deeper"):
            load_conversation(loop)

    @pytest.mark.parametrize(
        ("source", "fragment"),
        [
            (5, "cannot read a conversation from a value of type int"),
            ("/no/such/dir/chat.json", "chat.json: no such file"),
            (b"\xff\xfe{}", "not UTF-8 text"),
        ],
    )
    def test_unreadable_sources(self, source: Any, fragment: str) -> None:
        with pytest.raises(ConversationFormatError, match=fragment.replace(".", r"\.")):
            load_conversation(source)

    @pytest.mark.parametrize(
        ("message", "fragment"),
        [
            ({"role": "user", "content": "x", "name": 5}, "[0].name: Input should be a valid string, got 5"),
            (
                {"role": "user", "content": "x", "metadata": "m"},
                "[0].metadata: Input should be a valid dictionary",
            ),
        ],
    )
    def test_pydantic_errors_become_one_line_with_the_field_path(self, message: Any, fragment: str) -> None:
        with pytest.raises(ConversationFormatError) as caught:
            load_conversation([message], name="chat.json")
        assert_one_line_naming(caught.value, "chat.json", fragment)

    def test_a_directory_is_not_a_conversation(self, tmp_path: Path) -> None:
        with pytest.raises(ConversationFormatError, match="is a directory"):
            load_conversation(tmp_path)

    def test_name_stands_for_in_memory_sources_in_errors(self) -> None:
        with pytest.raises(ConversationFormatError, match=r"^upload\.json: is empty$"):
            load_conversation(b"", name="upload.json")

    def test_error_is_a_value_error_with_source_and_problem(self) -> None:
        with pytest.raises(ConversationFormatError) as caught:
            load_conversation(FIXTURES / "bad" / "unknown_role.json")
        assert isinstance(caught.value, ValueError)
        assert caught.value.source.endswith("unknown_role.json")
        assert caught.value.problem.startswith("[1].role")


# -- robustness: arbitrary JSON never escapes as another exception ----------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)
field_values = json_values | st.sampled_from(
    ["user", "assistant", "tool", "system", "c1", "text", "tool_use"]
)
message_like = st.dictionaries(
    st.sampled_from(
        ["role", "content", "tool_calls", "tool_call_id", "usage_metadata", "type", "id", "name"]
    ),
    field_values,
    max_size=5,
)
shaped = (
    st.lists(message_like, max_size=4)
    | st.builds(lambda ms: {"messages": ms}, st.lists(message_like, max_size=4))
    | st.builds(lambda ms: {"history": ms}, st.lists(message_like, max_size=4))
    | st.builds(lambda ms: [{"traj": ms}], st.lists(message_like, max_size=4))
    | st.builds(
        lambda ms: [{"type": "assistant", "message": m} for m in ms], st.lists(message_like, max_size=4)
    )
)


class TestRobustness:
    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(value=json_values | shaped)
    def test_any_json_loads_or_fails_with_one_line(self, value: Any) -> None:
        for source in (value, json.dumps(value)):
            if isinstance(source, str) and not source.lstrip().startswith(("[", "{")):
                continue  # a bare scalar text would be read as a path
            try:
                conversations = load_conversations(source)
            except ConversationFormatError as error:
                assert "\n" not in str(error)
            else:
                assert conversations and all(isinstance(c, Conversation) for c in conversations)


class TestLegacyFunctionCalling:
    """OpenAI's retired ``function_call`` / role ``function`` messages load as tool calls and results."""

    MESSAGES: ClassVar[list[dict[str, object]]] = [
        {"role": "user", "content": "weather in Paris and Rome?"},
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "weather", "arguments": '{"city": "Paris"}'},
        },
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "weather", "arguments": '{"city": "Rome"}'},
        },
        {"role": "function", "name": "weather", "content": "Paris: 12C"},
        {"role": "function", "name": "weather", "content": "Rome: 18C"},
        {"role": "assistant", "content": "Paris 12C, Rome 18C."},
    ]

    def test_calls_get_ids_and_results_answer_them_in_order(self) -> None:
        conversation = load_conversation(self.MESSAGES)
        calls = [m.call_ids for m in conversation.messages if m.role == "assistant" and m.tool_calls]
        results = [m.tool_call_id for m in conversation.messages if m.role == "tool"]
        assert calls == [("legacy_call_1",), ("legacy_call_2",)]
        assert results == ["legacy_call_1", "legacy_call_2"]
        assert conversation.messages[1].tool_calls[0].parsed_arguments() == {"city": "Paris"}  # type: ignore[index]

    def test_the_same_in_jsonl(self) -> None:
        text = "\n".join(json.dumps(m) for m in self.MESSAGES)
        conversation = load_conversation(text, name="legacy.jsonl")
        assert [m.role for m in conversation.messages] == [
            "user",
            "assistant",
            "assistant",
            "tool",
            "tool",
            "assistant",
        ]
