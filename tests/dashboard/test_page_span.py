"""The Span & trigger page (the default page) on the bundled demo, driven through Streamlit's AppTest."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from compressor.window_parts import of_analysis
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


def banners(at: AppTest) -> list[str]:
    """The decision banner's text as the browser shows it (the one alert that holds the decision)."""
    return [
        unescaped(e.value)
        for e in (*at.success, *at.info, *at.warning)
        if unescaped(e.value).startswith(("Compaction fires", "No compaction", "触发压缩", "不压缩"))
    ]


def decision_text(at: AppTest) -> str:
    found = banners(at)
    assert len(found) == 1, "one decision banner, no other"
    return found[0].split("\n\n")[0]


class TestFirstLoad:
    def test_opens_on_the_demo_with_one_banner_holding_the_decision_and_its_condition(
        self, app: AppTest
    ) -> None:
        no_exception(app)
        expected = demo_analysis()
        assert expected.decision.hit
        assert app.title[0].value == "Span & trigger"
        (banner,) = banners(app)
        decision, condition = banner.split("\n\n")
        assert decision == (
            f"Compaction fires: {expected.total_tokens:,} tokens reached the threshold of 12,800 "
            f"and the span holds {expected.segment_tokens['compress']:,} tokens."
        )
        assert condition.startswith("Condition: openJiuwen would not compact: no model is configured")
        assert len(app.warning) == 1 and not app.success  # the fired-but-blocked decision is amber, once

    def test_key_numbers_are_shown_left_and_until_compaction_first(self, app: AppTest) -> None:
        expected = demo_analysis()
        breakdown = of_analysis(expected)
        metrics = [(m.label, m.value) for m in app.metric]
        assert metrics == [
            ("Left", f"{breakdown.left_share:.1%}"),
            ("Until compaction", f"{breakdown.until_compaction_share:.1%}"),
            ("Window total", f"{expected.total_tokens:,}"),
            ("Trigger threshold", "12,800"),
            ("Capacity", "16,000"),
            ("Span to compress", f"{expected.segment_tokens['compress']:,}"),
            ("Minimum span", "1,600"),
        ]
        page = texts(app)
        assert "counted with cl100k_base (tiktoken)" in page
        end = len(demo_conversation().messages)
        assert expected.span.compress == (1, end)  # everything after the one user request, nothing kept
        assert (
            f"preserved prefix: #0 (1 message) · span to compress: #1–#{end - 1} ({end - 1} messages) · "
            "protected tail: none" in page
        )

    def test_every_number_says_what_it_includes_and_how_it_is_computed(self, app: AppTest) -> None:
        for metric in app.metric:
            assert "Formula: `" in metric.proto.help, metric.label
        window = next(m for m in app.metric if m.label == "Window total")
        assert (
            "system, tools, hidden overhead, preserved prefix, span to compress, protected tail"
            in window.proto.help
        )

    def test_the_window_is_drawn_part_by_part(self, app: AppTest) -> None:
        breakdown = of_analysis(demo_analysis())
        chart = json.loads(app.get("plotly_chart")[0].proto.spec)
        drawn = {trace["meta"]: trace["x"][0] for trace in chart["data"]}
        assert drawn == {
            **{code: tokens for code, tokens in breakdown.parts if tokens > 0},
            "free": breakdown.free_tokens,
        }
        assert "The window total is system " in texts(app)

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
        app.slider(key=keys.W_TRIGGER).set_value(0.95).run()
        no_exception(app)
        total = demo_analysis(trigger_context_ratio=0.95).total_tokens
        assert total < 15_200
        assert decision_text(app) == f"No compaction: {total:,} tokens is below the threshold of 15,200."
        assert app.query_params["trigger"] == "0.95"
        assert not app.warning  # below the threshold, the no-model condition changes nothing: one blue banner

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
        app.slider(key=keys.W_MIN_TARGET).set_value(0.95).run()
        expected = demo_analysis(min_target_context_ratio=0.95)
        assert expected.decision.reason == "target_below_min"
        assert decision_text(app) == (
            f"No compaction: {expected.total_tokens:,} tokens reached the threshold of 12,800, but the span "
            f"holds {expected.segment_tokens['compress']:,} tokens, under the minimum of 15,200."
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
        assert f"protected tail: #{start}–#{end - 1} ({end - start} messages)" in texts(app)

    def test_a_model_window_sets_the_capacity(self, app: AppTest) -> None:
        app.radio(key=keys.W_CAPACITY_MODE).set_value("model").run()
        app.selectbox(key=keys.W_MODEL).set_value("gpt-3.5-turbo").run()
        metrics = {m.label: m.value for m in app.metric}
        assert metrics["Capacity"] == "16,385"
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
        at.query_params.update({"trigger": "0.95", "keep": "2", "lang": "zh"})
        at.run()
        no_exception(at)
        assert at.slider(key=keys.W_TRIGGER).value == 0.95
        assert at.number_input(key=keys.W_KEEP).value == 2
        assert at.title[0].value == "分段与触发"
        total = demo_analysis(trigger_context_ratio=0.95, keep_recent_messages=2).total_tokens
        assert decision_text(at) == f"不压缩：{total:,} token 低于阈值 15,200。"

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
        assert decision_text(app) == (
            f"触发压缩：{expected.total_tokens:,} token 已达到阈值 12,800，"
            f"待压缩片段有 {expected.segment_tokens['compress']:,} token。"
        )
        assert {m.label for m in app.metric} >= {"剩余", "距离压缩", "窗口总量", "触发阈值"}
        assert all("公式：`" in m.proto.help for m in app.metric)
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
