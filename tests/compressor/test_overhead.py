"""Hidden overhead: reported usage beyond what the file shows, measured at the first call that reports usage."""

from __future__ import annotations

from compressor.analysis import analyze
from compressor.formats import load_conversation
from compressor.messages import Conversation
from compressor.overhead import NONE, hidden_overhead
from compressor.tokens import get_counter
from tests.conftest import TRANSCRIPTS, fixture


def test_the_bundled_claude_code_session_hides_its_system_prompt_and_tools() -> None:
    run = load_conversation(fixture(TRANSCRIPTS / "claude-code-session.jsonl"))
    found = hidden_overhead(run, "cl100k_base")
    # the first reply reports 18,608 tokens of context while the file shows 251 of them
    assert (found.at_index, found.reported, found.counted, found.tokens) == (1, 18_608, 251, 18_357)
    assert analyze(run).to_dict(include_messages=False)["hidden_overhead"]["tokens"] == 18_357


def test_by_hand() -> None:
    counter = get_counter("string_length")
    run = Conversation.from_messages(
        [
            {"role": "user", "content": "u" * 279},  # 100 tokens
            {
                "role": "assistant",
                "content": "a" * 874,
                "usage_metadata": {"total_tokens": 1_000},
            },  # 300 tokens
        ]
    )
    found = hidden_overhead(run, counter)
    assert (found.counted, found.tokens) == (403, 597)


def test_no_usage_no_overhead_and_never_negative() -> None:
    plain = Conversation.from_messages(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    )
    assert hidden_overhead(plain) == NONE
    small = Conversation.from_messages(
        [
            {"role": "user", "content": "hi " * 100},
            {"role": "assistant", "content": "yo", "usage_metadata": {"total_tokens": 5}},
        ]
    )
    assert hidden_overhead(small).tokens == 0
