"""Real users, keep-recent with tool boundaries, and the three spans (SPEC §2–4)."""

from __future__ import annotations

from typing import Any

import pytest

from compressor.markers import INTERNAL_PREFIXES
from compressor.messages import Message
from compressor.spans import build_span, call_reach, effective_keep, effective_keep_from, last_user_index


def user(text: Any) -> Message:
    return Message(role="user", content=text)


def call(*ids: str) -> Message:
    return Message(
        role="assistant", content="", tool_calls=[{"id": i, "name": "bash", "arguments": "{}"} for i in ids]
    )


def result(call_id: str) -> Message:
    return Message(role="tool", content="ok", tool_call_id=call_id)


class TestRealUser:
    @pytest.mark.parametrize("prefix", INTERNAL_PREFIXES)
    def test_internal_prefixes_are_not_real_users(self, prefix: str) -> None:
        assert not user(f"  \n{prefix} restored state").is_real_user

    def test_list_content_is_always_real(self) -> None:
        assert user([{"type": "text", "text": "<system-reminder> x"}]).is_real_user

    def test_last_user_index_skips_internal_messages(self) -> None:
        messages = [user("do it"), call("a"), result("a"), user("<memory_block_current>…")]
        assert last_user_index(messages) == 0
        assert last_user_index([call("a")]) == -1


class TestEffectiveKeep:
    def test_zero_or_negative_keep(self) -> None:
        assert effective_keep([user("x")], 0) == 0
        assert effective_keep([user("x")], -2) == 0
        assert effective_keep([], 3) == 3

    def test_a_kept_result_pulls_in_its_call(self) -> None:
        messages = [user("go"), call("a"), result("a"), result("a2")]
        messages[1] = call("a", "a2")
        assert effective_keep(messages, 1) == 3

    def test_the_boundary_follows_chains_of_calls(self) -> None:
        # Keeping result b pulls in call (a, b) at 1, whose results include a at 2: already inside.
        messages = [user("go"), call("a", "b"), result("a"), call("c"), result("c"), result("b")]
        assert effective_keep(messages, 1) == 5

    def test_keep_larger_than_the_conversation(self) -> None:
        assert effective_keep([user("x"), call("a"), result("a")], 10) == 3

    def test_a_result_without_a_call_changes_nothing(self) -> None:
        assert effective_keep([user("x"), result("missing")], 1) == 1


class TestCallReach:
    """``effective_keep_from(call_reach(messages), keep)``: the same keep, from a table built once per run."""

    def test_each_start_reaches_the_earliest_call_its_results_need(self) -> None:
        messages = [user("go"), call("a"), call("b"), result("a"), result("b")]
        assert list(call_reach(messages)) == [1, 1, 1, 1, 2, 5]
        assert list(call_reach([])) == [0]

    def test_the_boundary_follows_a_chain_through_the_table(self) -> None:
        # Keeping result b pulls in its call at 2; result a at 3 then pulls in call a at 1.
        messages = [user("go"), call("a"), call("b"), result("a"), result("b")]
        assert effective_keep_from(call_reach(messages), 1) == effective_keep(messages, 1) == 4

    @pytest.mark.parametrize("keep", [-2, 0, 1, 2, 3, 6, 10])
    @pytest.mark.parametrize(
        "messages",
        [
            [],
            [user("x"), result("missing")],
            [user("go"), call("a", "b"), result("a"), call("c"), result("c"), result("b")],
            [user("go"), result("a"), call("a"), result("a"), user("more")],
        ],
    )
    def test_the_same_keep_as_effective_keep(self, messages: list[Message], keep: int) -> None:
        assert effective_keep_from(call_reach(messages), keep) == effective_keep(messages, keep)


class TestBuildSpan:
    def test_prefix_compress_tail(self) -> None:
        span = build_span(10, last_user=2, keep=3)
        assert (span.prefix, span.compress, span.tail) == ((0, 3), (3, 7), (7, 10))
        assert span.counts == (3, 4, 3)

    def test_tail_reaching_the_user_leaves_nothing_to_compress(self) -> None:
        span = build_span(5, last_user=3, keep=3)
        assert (span.prefix, span.compress, span.tail) == ((0, 4), (4, 4), (4, 5))
        assert not span.has_compressible

    def test_without_a_real_user_messages_before_the_tail_are_in_no_span(self) -> None:
        span = build_span(6, last_user=-1, keep=2)
        assert span.counts == (0, 0, 2)
        assert span.unanchored == (0, 4)
        assert [span.segment_of(i) for i in range(6)] == ["unanchored"] * 4 + ["tail"] * 2
        assert span.segments(6) == ["unanchored"] * 4 + ["tail"] * 2
        assert span.segments(5, begin=3) == ["unanchored", "tail"] and span.segments(3, begin=3) == []
        assert span.to_dict()["unanchored"] == [0, 4]

    @pytest.mark.parametrize(
        "total,last_user,keep", [(0, -1, 0), (1, 0, 0), (8, 7, 0), (8, 0, 8), (8, 3, 20)]
    )
    def test_spans_always_rebuild_the_context(self, total: int, last_user: int, keep: int) -> None:
        span = build_span(total, last_user, keep)
        covered = [i for r in (span.unanchored, span.prefix, span.compress, span.tail) for i in range(*r)]
        assert covered == list(range(total))
