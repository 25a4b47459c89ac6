"""The Span & trigger page (the default page) on the bundled demo, driven through Streamlit's AppTest."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.state import keys
from tests.dashboard.conftest import (
    APP,
    APP_TIMEOUT,
    demo_analysis,
    demo_conversation,
    no_exception,
    texts,
    unescaped,
)


def decision_text(at: AppTest) -> str:
    found = [e.value for e in (*at.success, *at.info) if "tokens" in e.value or "token" in e.value]
    assert found, "no decision sentence on the page"
    return found[0]


class TestFirstLoad:
    def test_opens_on_the_demo_with_a_firing_decision(self, app: AppTest) -> None:
        no_exception(app)
        expected = demo_analysis()
        assert expected.decision.hit
        assert app.title[0].value == "Span & trigger"
        assert app.success[0].value == (
            f"Compaction fires: {expected.total_tokens:,} tokens reached the threshold of 12,800 "
            f"and the span holds {expected.segment_tokens['compress']:,} tokens."
        )

    def test_key_numbers_are_shown(self, app: AppTest) -> None:
        expected = demo_analysis()
        metrics = {m.label: m.value for m in app.metric}
        assert metrics == {
            "Window total": f"{expected.total_tokens:,}",
            "Trigger threshold": "12,800",
            "context_max": "16,000",
            "Span to compress": f"{expected.segment_tokens['compress']:,}",
            "Minimum span": "1,600",
        }
        page = texts(app)
        assert "counted with cl100k_base (tiktoken)" in page
        end = len(demo_conversation().messages)
        assert expected.span.compress == (1, end)  # everything after the one user request, nothing kept
        assert f"prefix [0, 1) · compress [1, {end}) · tail [{end}, {end})" in page

    def test_warns_that_openjiuwen_needs_a_model(self, app: AppTest) -> None:
        assert app.warning[0].value.startswith(
            "No model is configured: openJiuwen itself would never compact"
        )

    def test_settings_are_written_to_the_url(self, app: AppTest) -> None:
        assert app.query_params == {
            "trigger": "0.8",
            "min_target": "0.1",
            "keep": "0",
            "context_max": "16000",
            "counter": "cl100k_base",
            "lang": "en",
        }

    def test_the_chart_has_a_bar_per_message(self, app: AppTest) -> None:
        chart = json.loads(app.get("plotly_chart")[1].proto.spec)
        bars = [trace for trace in chart["data"] if trace["type"] == "bar"]
        conversation = demo_conversation()
        assert sum(len(trace["x"]) for trace in bars) == len(conversation.system) + len(conversation.messages)


class TestSliders:
    def test_moving_the_trigger_slider_changes_the_decision(self, app: AppTest) -> None:
        app.slider(key=keys.W_TRIGGER).set_value(0.9).run()
        no_exception(app)
        total = demo_analysis(trigger_context_ratio=0.9).total_tokens
        assert total < 14_400
        assert decision_text(app) == f"No compaction: {total:,} tokens is below the threshold of 14,400."
        assert app.query_params["trigger"] == "0.9"

    def test_settings_changes_reuse_the_token_profile(self, app: AppTest) -> None:
        item = app.session_state[keys.K_ITEMS]["sample:demo-conversation.json#0"]
        profile = item.conversation._profiles["cl100k_base"]
        for value in (0.5, 0.9, 0.7):
            app.slider(key=keys.W_TRIGGER).set_value(value).run()
        app.number_input(key=keys.W_KEEP).set_value(3).run()
        after = app.session_state[keys.K_ITEMS]["sample:demo-conversation.json#0"]
        assert after is item  # the conversation is kept, not parsed again
        assert after.conversation._profiles["cl100k_base"] is profile  # and never tokenised again

    def test_min_target_can_block_the_compaction(self, app: AppTest) -> None:
        app.slider(key=keys.W_MIN_TARGET).set_value(0.9).run()
        expected = demo_analysis(min_target_context_ratio=0.9)
        assert expected.decision.reason == "target_below_min"
        assert decision_text(app) == (
            f"No compaction: {expected.total_tokens:,} tokens reached the threshold of 12,800, but the span "
            f"holds {expected.segment_tokens['compress']:,} tokens, under the minimum of 14,400."
        )

    def test_keep_recent_shows_the_tool_boundary(self, app: AppTest) -> None:
        app.number_input(key=keys.W_KEEP).set_value(2).run()
        no_exception(app)
        expected = demo_analysis(keep_recent_messages=2)
        naive, (start, end) = expected.naive_tail_start, expected.span.tail
        assert expected.keep_moved_by_tool_boundary and start < naive
        assert end == len(demo_conversation().messages)
        assert (
            f"keep_recent_messages = 2 would start the tail at #{naive}; a kept tool result pulls it back to "
            f"#{start} so the tool call stays with its result ({end - start} messages kept)."
        ) in [unescaped(e.value) for e in app.info]
        assert f"tail [{start}, {end})" in texts(app)

    def test_a_model_window_sets_the_capacity(self, app: AppTest) -> None:
        app.radio(key=keys.W_CAPACITY_MODE).set_value("model").run()
        app.selectbox(key=keys.W_MODEL).set_value("gpt-3.5-turbo").run()
        metrics = {m.label: m.value for m in app.metric}
        assert metrics["context_max"] == "16,385"
        assert metrics["Trigger threshold"] == "13,108"
        assert app.query_params["model"] == "gpt-3.5-turbo"
        assert "context_max" not in app.query_params

    def test_reset_returns_to_the_defaults(self, app: AppTest) -> None:
        app.slider(key=keys.W_TRIGGER).set_value(0.5).run()
        reset = next(b for b in app.button if b.label == "Reset to defaults")
        reset.click().run()
        assert app.slider(key=keys.W_TRIGGER).value == 0.8


class TestSharedLinks:
    def test_settings_come_from_the_url(self) -> None:
        at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
        at.query_params.update({"trigger": "0.9", "keep": "2", "lang": "zh"})
        at.run()
        no_exception(at)
        assert at.slider(key=keys.W_TRIGGER).value == 0.9
        assert at.number_input(key=keys.W_KEEP).value == 2
        assert at.title[0].value == "分段与触发"
        total = demo_analysis(trigger_context_ratio=0.9, keep_recent_messages=2).total_tokens
        assert decision_text(at) == f"不压缩：{total:,} token 低于阈值 14,400。"

    @pytest.mark.parametrize(
        "query", [{"trigger": "banana"}, {"keep": "-5", "context_max": "0"}, {"model": "<script>"}]
    )
    def test_a_broken_link_still_opens(self, query: dict[str, str]) -> None:
        at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
        at.query_params.update(query)
        at.run()
        no_exception(at)
        assert at.title[0].value == "Span & trigger"


class TestLanguage:
    def test_switching_to_chinese_translates_the_page(self, app: AppTest) -> None:
        app.radio(key=keys.W_LANG).set_value("zh").run()
        no_exception(app)
        assert app.title[0].value == "分段与触发"
        expected = demo_analysis()
        assert app.success[0].value == (
            f"触发压缩：{expected.total_tokens:,} token 已达到阈值 12,800，"
            f"待压缩片段有 {expected.segment_tokens['compress']:,} token。"
        )
        assert {m.label for m in app.metric} >= {"窗口总量", "触发阈值"}
        assert app.query_params["lang"] == "zh"

    def test_choices_with_translated_labels_survive_the_switch(self, app: AppTest) -> None:
        app.radio(key=keys.W_CAPACITY_MODE).set_value("model").run()
        app.selectbox(key=keys.W_COUNTER).set_value("o200k_base").run()
        app.radio(key=keys.W_LANG).set_value("zh").run()
        app.run()
        no_exception(app)
        assert app.radio(key=keys.W_CAPACITY_MODE).value == "model"
        assert app.selectbox(key=keys.W_COUNTER).value == "o200k_base"
        assert app.query_params["counter"] == "o200k_base"
        assert app.query_params["model"] == "gpt-3.5-turbo"


class TestMessageContent:
    def test_a_message_is_shown_in_full_as_text(self, app: AppTest) -> None:
        app.number_input(key=keys.page_widget("span", "message")).set_value(6).run()
        no_exception(app)
        shown = [c.value for c in app.code]
        assert any('"file_path": "src/timekit/durations.py"' in body for body in shown)

    def test_the_system_message_is_available(self, app: AppTest) -> None:
        assert any(
            body.startswith("You are a careful software engineering agent")
            for body in (c.value for c in app.code)
        )
