"""Claude Code 2.1 compactions that keep the newest messages: from the summary on, the messages are the window sent.

The fixture ``session-2.1-kept-segment.jsonl`` and the lines built here follow the shape of a Claude Code 2.1 session
file (see ``tests/fixtures/formats/claude_code/README.md``): the ``compact_boundary`` line and its ``compactMetadata``
(``preservedSegment {headUuid, anchorUuid, tailUuid}``, ``preservedMessages``, ``postTokens``) as in the real 2.1.226
boundary lines quoted verbatim in a public spacedock note ("Ideation spike evidence: the Claude compaction boundary,
captured"); how Claude Code rejoins the kept lines on resume (``applyPreservedSegmentRelinks`` in its
``sessionStorage.ts``: the ``parentUuid`` walk from the tail to the head, the head hung off the anchor, what hung off
the anchor hung off the tail, the kept replies' usage zeroed) as public studies of the published CLI and VS Code
extension describe it.
"""

from __future__ import annotations

import json
from typing import Any

from compressor.census import count_messages, describe_reading
from compressor.formats import load_conversation
from compressor.messages import Conversation, Message
from compressor.quality import recorded_sites, score_recorded
from tests.conftest import FIXTURES

KEPT_SEGMENT = FIXTURES / "formats" / "claude_code" / "session-2.1-kept-segment.jsonl"


def _uuids(messages: list[Message]) -> list[Any]:
    return [(m.model_extra or {}).get("uuid") for m in messages]


def _kept_by(message: Message) -> Any:
    return (message.metadata or {}).get("kept_by_compaction")


class TestACompactionThatKeptTheNewestMessages:
    run = load_conversation(KEPT_SEGMENT)

    def test_from_the_summary_on_the_messages_are_the_window_sent(self) -> None:
        (compaction,) = self.run.recorded_compactions
        after = list(self.run.messages[compaction.index :])
        # the summary, the request it kept and everything that answered it, then what came after
        assert _uuids(after) == ["s12", "u05", "a06", "u08", "u09", "a10", "u13", "a14", "u15", "a16"]
        assert [_kept_by(m) for m in after] == [None, *["b11"] * 5, None, None, None, None]

    def test_the_history_before_it_is_read_as_it_was(self) -> None:
        (compaction,) = self.run.recorded_compactions
        before = list(self.run.messages[: compaction.index])
        assert _uuids(before) == ["u01", "a02", "u03", "a04", "u05", "a06", "u08", "u09", "a10"]
        assert all(_kept_by(m) is None for m in before)
        assert [m.reported_total_tokens for m in before if m.role == "assistant"] == [
            16141,
            16518,
            16717,
            17133,
        ]

    def test_the_kept_replies_are_no_calls_again(self) -> None:
        copies = [m for m in self.run.messages if _kept_by(m) and m.role == "assistant"]
        assert [m.usage_metadata for m in copies] == [None, None]
        # the reply's two parallel calls and both results are kept, as the window had them
        assert copies[0].call_ids == ("toolu_01Grep", "toolu_01Wc")
        assert count_messages(self.run).unmatched_tool_calls == 0
        assert count_messages(self.run).unmatched_tool_results == 0

    def test_one_compaction_is_recorded_with_its_numbers(self) -> None:
        (compaction,) = self.run.recorded_compactions
        assert (compaction.tokens_before, compaction.tokens_after) == (17130, 2311)

    def test_the_reading_says_how_many_were_read_again(self) -> None:
        (reading,) = [r for r in self.run.readings if r.code == "kept_messages_read_again"]
        assert reading.count == 5
        assert describe_reading(reading).startswith("5 messages compactions kept are read again")

    def test_the_kept_request_stays_the_persons(self) -> None:
        copy = next(m for m in self.run.messages if _kept_by(m) and m.role == "user")
        assert copy.is_real_user and copy.text.startswith("Before that: which other functions")

    def test_what_it_kept_counts_as_kept_when_its_summary_is_scored(self) -> None:
        (site,) = recorded_sites(self.run)
        assert _uuids(list(site.kept)) == ["u05", "a06", "u08", "u09", "a10"]
        (scored,) = score_recorded(self.run).compactions
        assert scored.retention is not None
        lost = {item.artifact.text for item in scored.retention.items if item.status == "lost"}
        assert "grep -rn '//' calc/" not in lost and "calc/parse.py" not in lost


def _line(uuid: str, parent: str | None, kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": kind,
        "uuid": uuid,
        "sessionId": "s-kept",
        **fields,
    }


def _user(uuid: str, parent: str | None, text: str, **extra: Any) -> dict[str, Any]:
    return _line(uuid, parent, "user", message={"role": "user", "content": text}, **extra)


def _reply(uuid: str, parent: str, text: str, total: int) -> dict[str, Any]:
    message = {
        "id": f"msg_{uuid}",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": text}],
        "usage": {"input_tokens": total - 10, "output_tokens": 10},
    }
    return _line(uuid, parent, "assistant", message=message)


def _boundary(uuid: str, after: str, segment: dict[str, str] | None, pre: int = 9000) -> dict[str, Any]:
    meta: dict[str, Any] = {"trigger": "auto", "preTokens": pre}
    if segment is not None:
        meta["preservedSegment"] = segment
    return _line(
        uuid, None, "system", subtype="compact_boundary", logicalParentUuid=after, compactMetadata=meta
    )


def _summary(uuid: str, parent: str, text: str = "the earlier work") -> dict[str, Any]:
    opening = "This session is being continued from a previous conversation that ran out of context. "
    return _user(uuid, parent, opening + text, isCompactSummary=True)


def _read(lines: list[dict[str, Any]]) -> Conversation:
    return load_conversation("".join(json.dumps(line) + "\n" for line in lines), name="kept.jsonl")


def _segment(head: str, anchor: str, tail: str) -> dict[str, str]:
    return {"headUuid": head, "anchorUuid": anchor, "tailUuid": tail}


#: u1 → a1 → u2 → a2, compacted keeping u2 and a2; then u3 → a3 after the summary.
HISTORY = [
    _user("u1", None, "fix the date test"),
    _reply("a1", "u1", "Fixed.", 5000),
    _user("u2", "a1", "now rename it"),
    _reply("a2", "u2", "Renamed.", 6000),
]


class TestWhereTheKeptMessagesGo:
    def test_kept_messages_hung_off_the_boundary_come_before_the_summary(self) -> None:
        # a partial compaction that kept the older messages: Claude Code hangs them off the boundary itself
        run = _read(
            [
                *HISTORY,
                _boundary("b1", "a2", _segment("u1", "b1", "a1")),
                _summary("s1", "b1"),
                _user("u3", "s1", "and add a test"),
                _reply("a3", "u3", "Added.", 900),
            ]
        )
        assert _uuids(list(run.messages)) == ["u1", "a1", "u2", "a2", "u1", "a1", "s1", "u3", "a3"]
        assert [_kept_by(m) for m in run.messages][4:6] == ["b1", "b1"]
        (site,) = recorded_sites(run)
        assert _uuids(list(site.kept)) == ["u1", "a1"]

    def test_a_segment_whose_links_do_not_reach_its_head_keeps_nothing(self) -> None:
        run = _read(
            [
                *HISTORY,
                _boundary("b1", "a2", _segment("u1", "s1", "a2-missing")),
                _summary("s1", "b1"),
                _user("u3", "s1", "and add a test"),
            ]
        )
        assert _uuids(list(run.messages)) == ["u1", "a1", "u2", "a2", "s1", "u3"]
        assert not any(r.code == "kept_messages_read_again" for r in run.readings)

    def test_a_segment_hung_off_a_line_never_read_keeps_nothing(self) -> None:
        run = _read([*HISTORY, _boundary("b1", "a2", _segment("u2", "s-gone", "a2")), _summary("s1", "b1")])
        assert _uuids(list(run.messages)) == ["u1", "a1", "u2", "a2", "s1"]

    def test_an_earlier_summary_a_later_compaction_kept_is_not_recorded_again(self) -> None:
        run = _read(
            [
                *HISTORY,
                _boundary("b1", "a2", None),
                _summary("s1", "b1", "the first part"),
                _user("u3", "s1", "and add a test"),
                _reply("a3", "u3", "Added.", 900),
                _boundary("b2", "a3", _segment("s1", "s2", "a3"), pre=9500),
                _summary("s2", "b2", "the second part"),
            ]
        )
        assert _uuids(list(run.messages)) == [
            "u1",
            "a1",
            "u2",
            "a2",
            "s1",
            "u3",
            "a3",
            "s2",
            "s1",
            "u3",
            "a3",
        ]
        assert [c.index for c in run.recorded_compactions] == [4, 7]
        assert run.messages[8].internal  # the kept summary is still Claude Code's, not a request

    def test_a_compaction_that_kept_nothing_reads_as_before(self) -> None:
        run = _read([*HISTORY, _boundary("b1", "a2", None), _summary("s1", "b1"), _user("u3", "s1", "go on")])
        assert _uuids(list(run.messages)) == ["u1", "a1", "u2", "a2", "s1", "u3"]
