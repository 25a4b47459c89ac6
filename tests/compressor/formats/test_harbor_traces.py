"""Harbor's trace export (``harbor traces export``, the ``*.traces.json`` Harbor's own tests keep): a trial's episode
rows read as the windows of its calls, one conversation a trial. Before this reader such files were refused
("unrecognised format: a list of objects with keys conversations, agent, model, …").

The fixtures are Harbor's golden traces, unmodified (the folder's README): rows Harbor's
``src/harbor/utils/traces_utils.py`` wrote from real Terminus 2 runs against a fake LLM server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from compressor.windows import resolve_context_max
from tests.conftest import FIXTURES, fixture

HERE = FIXTURES / "formats" / "harbor_traces"
SUMMARIZED = HERE / "hello-world-context-summarization.traces.json"
RETRIED = HERE / "hello-world-invalid-json.traces.json"
SUBAGENT = HERE / "hello-world-context-summarization.summarization-1-summary.traces.json"


def rows(path: Any) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(fixture(path).read_text())
    return loaded


class TestEpisodes:
    def test_each_episode_adds_what_its_window_added(self) -> None:
        run = load_conversation(fixture(RETRIED))
        last = rows(RETRIED)[-1]["conversations"]
        assert run.source_format == "harbor-traces"
        assert [m.content for m in run.messages] == [m["content"] for m in last]
        assert [m.role for m in run.messages] == ["user"] + ["assistant", "tool"] * 3 + ["assistant"]

    def test_an_observation_answers_the_action_before_it(self) -> None:
        run = load_conversation(fixture(RETRIED))
        counts = count_messages(run)
        assert (counts.real_user, counts.tool_calls, counts.unmatched_tool_calls) == (1, 3, 0)
        assert run.messages[2].tool_call_id == run.messages[1].tool_calls[0].id
        assert str(run.messages[2].content).startswith("Previous response had parsing errors")
        assert {r.code: r.count for r in run.readings}["tool_calls_from_text"] == 3

    def test_the_row_names_the_model_and_the_trial(self) -> None:
        run = load_conversation(fixture(RETRIED))
        assert run.metadata["model"] == "openai/gpt-4o" and run.metadata["agent"] == "terminus-2"
        assert run.metadata["task"] == "hello-world" and run.metadata["model_provider"] == "openai"
        assert resolve_context_max(run_model=run.metadata["model"]).tokens == 128_000

    def test_jsonl_rows_read_as_the_array_does(self) -> None:
        text = "".join(json.dumps(row) + "\n" for row in rows(RETRIED))
        assert (
            load_conversation(text, name="traces.jsonl").messages
            == load_conversation(fixture(RETRIED)).messages
        )

    def test_rows_out_of_order_and_a_sharegpt_column_read_the_same(self) -> None:
        shuffled = list(reversed(rows(RETRIED)))
        for row in shuffled:
            row["conversations_sharegpt"] = [{"from": "human", "value": "x"}]
        again = load_conversation(json.dumps(shuffled), name="t.json")
        assert again.messages == load_conversation(fixture(RETRIED)).messages


class TestRebuiltWindow:
    """Terminus 2 summarised its context after episode 2: episode 3's window is the task prompt, the question
    prompt holding the summary, the model's questions and the handoff, then its reply."""

    def test_the_window_rebuilt_from_a_summary_is_a_recorded_compaction(self) -> None:
        run = load_conversation(fixture(SUMMARIZED))
        (recorded,) = run.recorded_compactions
        summary = run.messages[recorded.index]
        assert summary.role == "user" and summary.internal
        assert str(summary.content).startswith("You are picking up work from a previous AI agent")
        assert recorded.tokens_before is None  # the export keeps no usage

    def test_the_handoff_is_internal_and_only_the_task_is_a_request(self) -> None:
        run = load_conversation(fixture(SUMMARIZED))
        counts = count_messages(run)
        assert (counts.real_user, counts.unmatched_tool_calls) == (1, 0)
        handoff = [m for m in run.messages if str(m.content).startswith("Here are the answers")]
        assert [(m.role, m.internal) for m in handoff] == [("user", True)]
        assert len(run.messages) == 6 + 10  # the first window's six, then the rebuilt one's new ten

    def test_a_subagent_trace_is_a_conversation_of_its_own(self) -> None:
        (run,) = load_conversations(fixture(SUBAGENT))
        assert run.messages[-1].role == "assistant" and not run.recorded_compactions

    def test_two_trials_are_two_conversations(self) -> None:
        other = rows(SUBAGENT)
        for row in other:
            row["trial_name"] = "hello-world__other"
        first, second = load_conversations(json.dumps(rows(RETRIED) + other), name="job.json")
        assert (first.name, second.name) == ("job #0", "job #1")
        assert second.metadata["trial_name"] == "hello-world__other"


class TestBadInput:
    @pytest.mark.parametrize(
        ("change", "words"),
        [
            (lambda r: r[1]["conversations"].__setitem__(1, "hi"), r"\[1\]\.conversations\[1\].*a message"),
            (
                lambda r: r[0]["conversations"][0].__setitem__("role", "tool"),
                r"\[0\]\.conversations\[0\]\.role",
            ),
            (
                lambda r: r[2]["conversations"][0].__setitem__("content", [1]),
                r"\[2\]\.conversations\[0\]\.content",
            ),
            (lambda r: r[1].__setitem__("conversations", {}), r"\[1\]"),
        ],
    )
    def test_a_wrong_row_is_one_line_naming_the_field(self, change: Any, words: str) -> None:
        broken = rows(RETRIED)
        change(broken)
        with pytest.raises(ConversationFormatError, match=words) as caught:
            load_conversations(json.dumps(broken), name="traces.json")
        assert "\n" not in str(caught.value) and str(caught.value).startswith("traces.json")

    def test_a_window_that_is_no_continuation_is_named(self) -> None:
        broken = rows(RETRIED)
        broken[1]["conversations"][1]["content"] = "a different reply"
        with pytest.raises(ConversationFormatError, match=r"\[1\]\.conversations\[1\].*neither extends"):
            load_conversations(json.dumps(broken), name="traces.json")
