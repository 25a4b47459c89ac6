"""Counting a conversation's turns and pairing, and wording the readings a loader made."""

from __future__ import annotations

from compressor.census import count_messages, describe_reading
from compressor.messages import Conversation, Message, Reading, RecordedCompaction


def run() -> Conversation:
    return Conversation.from_messages(
        [
            {"role": "system", "content": "rules"},
            {"role": "user", "content": "fix it"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "a", "name": "read_file", "arguments": "{}"}],
            },
            {"role": "tool", "tool_call_id": "a", "content": "body"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "b", "name": "bash", "arguments": "{}"}],
            },
            {"role": "tool", "tool_call_id": "zz", "content": "orphan"},
            Message(role="user", content="reminder: tests are slow", internal=True),
            {"role": "user", "content": "<system-reminder>x</system-reminder>"},
            {"role": "assistant", "content": "done"},
        ],
        recorded_compactions=[RecordedCompaction(index=7, source="test", summary="s")],
    )


class TestCounts:
    def test_every_kind_is_counted(self) -> None:
        assert count_messages(run()).to_dict() == {
            "real_user": 1,
            "internal_user": 2,
            "assistant": 3,
            "tool": 2,
            "tool_calls": 2,
            "unmatched_tool_calls": 1,
            "unmatched_tool_results": 1,
        }

    def test_a_turn_marked_internal_is_never_the_last_real_request(self) -> None:
        from compressor.spans import last_user_index

        assert last_user_index(run().messages) == 0


class TestRecordedCompactions:
    def test_indices_count_over_the_context_messages(self) -> None:
        # given over all messages (the system message is index 0), kept over the context messages
        assert [c.index for c in run().recorded_compactions] == [6]

    def test_a_copy_with_other_messages_drops_them_and_keeps_metadata(self) -> None:
        conversation = run().model_copy(update={"metadata": {"model": "m"}})
        copied = conversation.with_messages(conversation.messages[:2])
        assert copied.recorded_compactions == [] and copied.metadata == {"model": "m"}


class TestReadings:
    def test_known_codes_are_worded(self) -> None:
        text = describe_reading(Reading(code="tool_results_from_user_text", count=182))
        assert text == "182 tool results arrived as user text and were read as tool results"

    def test_one_is_singular(self) -> None:
        text = describe_reading(Reading(code="tool_results_from_user_text", count=1))
        assert text == "1 tool result arrived as user text and was read as a tool result"

    def test_an_unknown_code_falls_back_to_its_detail(self) -> None:
        assert describe_reading(Reading(code="new_thing", detail="read oddly")) == "read oddly"
        assert describe_reading(Reading(code="new_thing")) == "new_thing"
