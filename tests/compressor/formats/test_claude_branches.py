"""Claude Code rewinds: only the branch the session went on with is read, the lines left behind are counted.

The sessions here are built in the shape of a Claude Code session file: ``uuid`` / ``parentUuid`` links, a rewind
as a new line hanging off the line before the prompt rewound to ("Redo from here"), both branches kept in the file,
the old one first, and a ``compact_boundary`` line as a new root with ``logicalParentUuid`` (microsoft/amplifier
``ai_working/claude_code_logging/session_format_specification.md``, sections 3, 4 and 7); one reply's parallel tool
calls as one line per block sharing ``message.id``, each result hanging off the line of its own call (the bundled
real session, ``claude-code-session.jsonl`` lines 65-69).
"""

from __future__ import annotations

import json
from typing import Any

from compressor.census import count_messages, describe_reading
from compressor.formats import load_conversation
from compressor.formats.claude_branches import abandoned
from compressor.messages import Conversation
from tests.conftest import FIXTURES, TRANSCRIPTS

LOCAL_COMMANDS = FIXTURES / "formats" / "claude_code" / "session-1.0.95-local-commands.jsonl"


def _user(uuid: str, parent: str | None, content: Any, **extra: Any) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": content},
        "uuid": uuid,
        "sessionId": "s-rewind",
        **extra,
    }


def _reply(uuid: str, parent: str, reply: str, *blocks: dict[str, Any], total: int = 1000) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": "assistant",
        "message": {
            "id": reply,
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": list(blocks),
            "usage": {"input_tokens": total - 10, "output_tokens": 10},
        },
        "uuid": uuid,
        "sessionId": "s-rewind",
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _call(call: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": "ls"}}


def _result(call: str) -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": call, "content": "ok"}]


def _read(lines: list[dict[str, Any]]) -> Conversation:
    return load_conversation("".join(json.dumps(line) + "\n" for line in lines), name="rewound.jsonl")


#: u1 → a1 (a call) → r1 → a2; then u2 → a3, which the person rewound; then their edited prompt u2b → a4.
REWOUND = [
    _user("u1", None, "the date test fails, fix it"),
    _reply("a1", "u1", "msg_1", _call("toolu_1")),
    _user("r1", "a1", _result("toolu_1")),
    _reply("a2", "r1", "msg_2", _text("Fixed: the day and month were swapped.")),
    _user("u2", "a2", "now rename it to test_dates"),
    _reply("a3", "u2", "msg_3", _text("Renamed to test_dates.")),
    _user("u2b", "a2", "now rename it to test_parse_date"),
    _reply("a4", "u2b", "msg_4", _text("Renamed to test_parse_date."), total=1200),
]


class TestARewoundSession:
    def test_only_the_branch_it_went_on_with_is_read(self) -> None:
        run = _read(REWOUND)
        assert [m.text for m in run.messages if m.role != "tool"] == [
            "the date test fails, fix it",
            "",
            "Fixed: the day and month were swapped.",
            "now rename it to test_parse_date",
            "Renamed to test_parse_date.",
        ]
        assert [(m.model_extra or {}).get("uuid") for m in run.messages] == [
            "u1",
            "a1",
            "r1",
            "a2",
            "u2b",
            "a4",
        ]

    def test_the_lines_left_behind_are_counted(self) -> None:
        run = _read(REWOUND)
        (reading,) = [r for r in run.readings if r.code == "rewound_lines_left_out"]
        assert reading.count == 2
        assert describe_reading(reading).startswith("2 lines of branches the session left")

    def test_the_latest_request_is_the_edited_prompt(self) -> None:
        run = _read(REWOUND)
        assert [m.text for m in run.messages if m.is_real_user] == [
            "the date test fails, fix it",
            "now rename it to test_parse_date",
        ]

    def test_a_line_left_behind_logged_twice_counts_once(self) -> None:
        run = _read([*REWOUND[:6], REWOUND[4], *REWOUND[6:]])
        assert next(r for r in run.readings if r.code == "rewound_lines_left_out").count == 2

    def test_an_old_line_logged_again_at_the_end_is_not_where_the_session_went_on(self) -> None:
        run = _read([*REWOUND, REWOUND[1]])  # a resumed session may log a line twice
        assert [(m.model_extra or {}).get("uuid") for m in run.messages] == [
            "u1",
            "a1",
            "r1",
            "a2",
            "u2b",
            "a4",
        ]

    def test_a_session_never_rewound_has_no_such_reading(self) -> None:
        run = _read(REWOUND[:4])
        assert not any(r.code == "rewound_lines_left_out" for r in run.readings)


#: One reply's two parallel calls: the chain runs a4 → r2 → a3 → a2 → a1 → u1, the first result hangs off a2.
PARALLEL = [
    _user("u1", None, "list both folders"),
    _reply("a1", "u1", "msg_1", _text("Listing both.")),
    _reply("a2", "a1", "msg_1", _call("toolu_1")),
    _reply("a3", "a2", "msg_1", _call("toolu_2")),
    _user("r1", "a2", _result("toolu_1")),
    _user("r2", "a3", _result("toolu_2")),
    _reply("a4", "r2", "msg_2", _text("Both are empty.")),
]


class TestParallelCalls:
    """One reply's parallel calls fork the links (each result hangs off its own call's line): not a rewind."""

    def test_every_call_keeps_its_result(self) -> None:
        run = _read(PARALLEL)
        assert count_messages(run).to_dict()["unmatched_tool_calls"] == 0
        assert [m.tool_call_id for m in run.messages if m.role == "tool"] == ["toolu_1", "toolu_2"]
        assert not any(r.code == "rewound_lines_left_out" for r in run.readings)

    def test_the_bundled_real_session_reads_every_result(self) -> None:
        # lines 66-69 and 77-80 there: two parallel calls, the first result off the chain
        lines = [
            json.loads(line) for line in (TRANSCRIPTS / "claude-code-session.jsonl").read_text().splitlines()
        ]
        assert abandoned(lines) == frozenset()


class TestCompactionBoundary:
    def _compacted(self) -> list[dict[str, Any]]:
        boundary = {
            "parentUuid": None,
            "logicalParentUuid": "a4",
            "isSidechain": False,
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "compactMetadata": {"trigger": "manual", "preTokens": 1200},
            "uuid": "b1",
        }
        summary = _user(
            "s1",
            "b1",
            "This session is being continued from a previous conversation that ran out of context. The test "
            "was fixed and renamed to test_parse_date.",
            isCompactSummary=True,
        )
        return [
            *REWOUND,
            boundary,
            summary,
            _user("u3", "s1", "run the suite"),
            _reply("a5", "u3", "msg_5", _text("All 12 pass.")),
        ]

    def test_a_rewind_before_a_compaction_is_found_through_the_boundary(self) -> None:
        run = _read(self._compacted())
        assert "Renamed to test_dates." not in [m.text for m in run.messages]
        assert next(r for r in run.readings if r.code == "rewound_lines_left_out").count == 2
        (compaction,) = run.recorded_compactions
        assert (compaction.index, compaction.tokens_before) == (6, 1200)
        assert run.messages[-1].text == "All 12 pass."

    def test_what_follows_a_boundary_the_chain_does_not_pass_is_kept(self) -> None:
        # the last line hangs off the summary's logical parent, not the summary: the boundary is no branch of it
        lines = self._compacted()
        lines[-2] = _user("u3", "a4", "run the suite")
        assert abandoned(lines) == frozenset({"u2", "a3"})


class TestBrokenLinks:
    def test_lines_before_a_parent_the_file_lacks_are_kept(self) -> None:
        # the real 1.0.95 session with two lines cut out: line 33's parent is not in the file
        lines = [json.loads(line) for line in LOCAL_COMMANDS.read_text().splitlines()]
        assert abandoned(lines) == frozenset()
        run = load_conversation(LOCAL_COMMANDS)
        assert count_messages(run).to_dict()["assistant"] == 20

    def test_a_cycle_ends_the_walk(self) -> None:
        lines = [_user("u1", "a1", "hi"), _reply("a1", "u1", "msg_1", _text("hello"))]
        assert abandoned(lines) == frozenset()

    def test_lines_without_uuid_and_of_other_kinds_are_never_abandoned(self) -> None:
        summary = {"type": "summary", "summary": "Date test fix", "leafUuid": "a4"}
        progress = {"type": "progress", "uuid": "p1", "parentUuid": "a2", "isSidechain": False}
        run = _read([summary, *REWOUND[:4], progress, *REWOUND[4:]])
        assert (
            next(r for r in run.readings if r.code == "rewound_lines_left_out").count == 2
        )  # not the progress

    def test_a_uuid_of_the_wrong_type_is_no_link(self) -> None:
        lines = [*REWOUND[:3], {**REWOUND[3], "uuid": ["a2"]}, *REWOUND[4:]]
        assert abandoned(lines) == frozenset()
        assert _read(lines).messages[-1].text == "Renamed to test_parse_date."


class TestSidechains:
    def test_a_subagent_s_lines_in_a_main_session_are_no_branch_of_it(self) -> None:
        side = {**_user("x1", "a2", "a subagent's task"), "isSidechain": True}
        run = _read([*REWOUND[:4], side, *REWOUND[4:]])
        assert next(r for r in run.readings if r.code == "rewound_lines_left_out").count == 2

    def test_in_a_subagent_s_own_file_its_rewinds_are_found(self) -> None:
        lines = [{**line, "isSidechain": True, "agentId": "a48be13e"} for line in REWOUND]
        assert abandoned(lines, sidechain=True) == frozenset({"u2", "a3"})
        run = _read(lines)
        assert run.metadata["sidechain"] is True
        assert "Renamed to test_dates." not in [m.text for m in run.messages]
