"""The Demo page on the bundled demo: the run played back one model call at a time with plain captions,
the compaction step shown as before/after bars, play/pause, and the report export, through AppTest."""

from __future__ import annotations

import json
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from compressor.config import CurrentRoundCompressorConfig
from compressor.replay import Simulation, simulate
from dashboard.state import keys
from tests.conftest import SAMPLES
from tests.dashboard.conftest import demo_conversation, no_exception, texts, unescaped

PAGE = "views/demo.py"


@pytest.fixture
def demo(app: AppTest) -> AppTest:
    return app.switch_page(PAGE).run()


def replayed(trigger: float = 0.8, keep: int = 0) -> Simulation:
    config = CurrentRoundCompressorConfig(trigger_context_ratio=trigger, keep_recent_messages=keep)
    return simulate(demo_conversation(), config, context_max=16_000, summary="ratio:0.1")


def caption(at: AppTest) -> tuple[str, str]:
    """The two large sentences of the step on show."""
    headline = unescaped(at.subheader[0].value)
    (meaning,) = [unescaped(m.value[5:]) for m in at.markdown if m.value.startswith("#### ")]
    return headline, meaning


def step_of(at: AppTest) -> int:
    value = at.slider(key=keys.W_DEMO_STEP).value
    assert isinstance(value, int)
    return value


def charts(at: AppTest) -> list[dict[str, Any]]:
    return [json.loads(element.proto.spec) for element in at.get("plotly_chart")]


def play_button(at: AppTest) -> str:
    return str(at.button(key=keys.page_widget("demo", "play")).label)


def before_after_bars(at: AppTest) -> list[dict[str, Any]]:
    """The stacked before/after chart's traces, in drawing order."""
    bars = next(
        chart for chart in charts(at) if any(trace.get("meta") == "compressed" for trace in chart["data"])
    )
    traces: list[dict[str, Any]] = bars["data"]
    return traces


def compaction_step(simulation: Simulation) -> int:
    """The slider position (1-based) of the run's first compaction."""
    event = simulation.events[0]
    return next(n for n, step in enumerate(simulation.steps, start=1) if step.index == event.index)


class TestFirstStep:
    def test_opens_on_the_first_model_call(self, demo: AppTest) -> None:
        no_exception(demo)
        assert demo.title[0].value == "Demo"
        assert caption(demo) == (
            "The agent has used 482 of 16,000 tokens.",
            "Compaction starts at 12,800 tokens (80% of the context).",
        )
        total = len(replayed().steps)
        assert f"Model call 1 of {total} · message #1 · context messages: 1" in texts(demo)

    def test_with_the_defaults_the_run_compacts_mid_run_and_goes_on(self, demo: AppTest) -> None:
        simulation = replayed()
        assert simulation.outcome.compactions == 1
        after = len(simulation.steps) - compaction_step(simulation)
        assert after >= 4  # the audience sees the agent carry on after its compaction
        assert not any(i.value.startswith("With these settings compaction never fires") for i in demo.info)
        overview = charts(demo)[-1]
        markers = {trace["meta"]: trace["x"] for trace in overview["data"]}
        assert markers["compaction"] == [simulation.events[0].index]

    def test_says_when_nothing_will_compact(self, demo: AppTest) -> None:
        demo.slider(key=keys.W_TRIGGER).set_value(0.95).run()
        no_exception(demo)
        outcome = replayed(0.95).outcome
        assert outcome.compactions == 0 and outcome.peak_tokens < outcome.threshold == 15_200
        assert demo.info[0].value.startswith(
            "With these settings compaction never fires on this run: the threshold is 15,200 tokens and the "
            f"context peaks at {outcome.peak_tokens:,}."
        )
        overview = charts(demo)[-1]
        assert "compaction" not in {trace["meta"] for trace in overview["data"]}

    def test_the_window_is_shown_part_by_part_against_capacity_and_threshold(self, demo: AppTest) -> None:
        bar = charts(demo)[0]
        parts = {trace["meta"]: trace["x"][0] for trace in bar["data"]}
        assert sum(tokens for code, tokens in parts.items() if code != "free") == 482
        assert parts["free"] == 16_000 - 482
        lines = {shape["name"]: shape["x0"] for shape in bar["layout"]["shapes"]}
        assert lines["threshold"] == 12_800 and lines["context_max"] == 16_000
        metrics = [(m.label, m.value) for m in demo.metric]
        assert metrics[:3] == [
            ("Left", f"{1 - 482 / 16_000:.1%}"),
            ("Until compaction", f"{(12_800 - 482) / 16_000:.1%}"),
            ("Window total", "482"),
        ]
        assert dict(metrics)["Span to compress"] == "—"  # not measured below the threshold, never a false 0

    def test_the_window_total_is_the_replays_at_each_call(self, demo: AppTest) -> None:
        simulation = replayed()
        number = compaction_step(simulation)
        step = simulation.steps[number - 1]
        demo.slider(key=keys.W_DEMO_STEP).set_value(number).run()
        assert dict((m.label, m.value) for m in demo.metric)["Window total"] == f"{step.context_tokens:,}"
        total = next(m for m in demo.metric if m.label == "Window total")
        assert f"at the model call for message #{step.index}" in total.proto.help


class TestStepSlider:
    def test_moving_the_slider_changes_the_caption(self, demo: AppTest) -> None:
        demo.slider(key=keys.W_DEMO_STEP).set_value(10).run()
        no_exception(demo)
        simulation = replayed()
        step = simulation.steps[9]
        assert caption(demo)[0] == f"The agent has used {step.context_tokens:,} of 16,000 tokens."
        assert caption(demo)[0] != "The agent has used 482 of 16,000 tokens."
        assert f"Model call 10 of {len(simulation.steps)} · message #{step.index}" in texts(demo)

    @pytest.mark.parametrize(("trigger", "threshold"), [(None, "12,800"), (0.6, "9,600")])
    def test_the_compaction_step_shows_the_work_replaced_by_the_memory_block(
        self, demo: AppTest, trigger: float | None, threshold: str
    ) -> None:
        if trigger is not None:
            demo.slider(key=keys.W_TRIGGER).set_value(trigger).run()
        simulation = replayed(trigger or 0.8)
        event = simulation.events[0]
        number = compaction_step(simulation)
        step = simulation.steps[number - 1]
        assert event.status == "compacted" and step.sent_tokens < step.context_tokens
        demo.slider(key=keys.W_DEMO_STEP).set_value(number).run()
        no_exception(demo)
        assert caption(demo) == (
            f"Threshold crossed at {step.context_tokens:,} of {threshold} tokens: compaction replaces "
            f"{event.span[1]} messages with one summary.",
            f"{event.compress_tokens:,} tokens of this round's work become a memory block of "
            f"{event.memory_tokens:,} tokens: the window drops from {step.context_tokens:,} to "
            f"{step.sent_tokens:,} tokens.",
        )
        traces = before_after_bars(demo)
        parts = {trace["meta"]: trace["x"] for trace in traces}
        assert parts["compressed"] == [event.compress_tokens, 0]
        assert parts["memory"] == [0, event.memory_tokens]
        # the kept messages as the two segments they are: the preserved prefix and the protected tail
        assert event.prefix_tokens > 0
        assert parts["prefix"] == [event.prefix_tokens, event.prefix_tokens]
        assert parts["tail"] == [event.tail_tokens, event.tail_tokens]
        assert "kept" not in parts
        names = {trace["meta"]: trace["name"] for trace in traces}
        assert names["prefix"] == "preserved prefix" and names["tail"] == "protected tail"
        assert names["memory"] == "memory block"

    def test_a_protected_tail_is_its_own_part_at_the_end_of_both_bars(self, demo: AppTest) -> None:
        demo.number_input(key=keys.W_KEEP).set_value(2).run()
        simulation = replayed(keep=2)
        event = simulation.events[0]
        assert event.span[2] > 0 and event.tail_tokens > 0
        demo.slider(key=keys.W_DEMO_STEP).set_value(compaction_step(simulation)).run()
        no_exception(demo)
        traces = before_after_bars(demo)
        assert [trace["meta"] for trace in traces] == [
            "prefix",
            "compressed",
            "memory",
            "reinjection",
            "tail",
        ]
        parts = {trace["meta"]: trace["x"] for trace in traces}
        assert parts["prefix"] == [event.prefix_tokens, event.prefix_tokens]
        assert parts["tail"] == [event.tail_tokens, event.tail_tokens]
        assert parts["compressed"] == [event.compress_tokens, 0]
        assert parts["memory"] == [0, event.memory_tokens]
        assert parts["reinjection"] == [0, event.reinjection_tokens]

    def test_after_the_compaction_the_caption_compares_with_the_uncompacted_run(self, demo: AppTest) -> None:
        demo.slider(key=keys.W_TRIGGER).set_value(0.6).run()
        simulation = replayed(0.6)
        number = next(
            n
            for n, step in enumerate(simulation.steps, start=1)
            if n > compaction_step(simulation) and step.event == "none"
        )
        demo.slider(key=keys.W_DEMO_STEP).set_value(number).run()
        last = simulation.steps[number - 1]
        assert last.context_tokens != last.uncompacted_tokens
        assert caption(demo) == (
            f"The agent has used {last.context_tokens:,} of 16,000 tokens.",
            f"Without compaction the context would hold {last.uncompacted_tokens:,} tokens by now.",
        )


class TestPlayback:
    def test_play_advances_one_step_per_rerun(self, demo: AppTest) -> None:
        assert play_button(demo) == "Play"
        demo.button(key=keys.page_widget("demo", "play")).click().run()
        no_exception(demo)
        assert play_button(demo) == "Pause"
        assert step_of(demo) == 2
        demo.run()
        assert step_of(demo) == 3

    def test_pause_holds_the_step(self, demo: AppTest) -> None:
        demo.button(key=keys.page_widget("demo", "play")).click().run()
        demo.button(key=keys.page_widget("demo", "play")).click().run()
        assert play_button(demo) == "Play"
        held = step_of(demo)
        demo.run()
        assert step_of(demo) == held

    def test_playing_stops_at_the_last_step(self, demo: AppTest) -> None:
        last = len(replayed().steps)
        demo.slider(key=keys.W_DEMO_STEP).set_value(last - 1).run()
        demo.button(key=keys.page_widget("demo", "play")).click().run()
        no_exception(demo)
        assert step_of(demo) == last
        assert play_button(demo) == "Play"
        demo.run()
        assert step_of(demo) == last

    def test_start_over(self, demo: AppTest) -> None:
        demo.slider(key=keys.W_DEMO_STEP).set_value(12).run()
        demo.button(key=keys.page_widget("demo", "restart")).click().run()
        assert step_of(demo) == 1


class TestReport:
    def test_the_export_button_offers_the_html_report(self, demo: AppTest) -> None:
        (button,) = demo.get("download_button")
        assert button.proto.label == "Export report (HTML)"
        assert button.proto.deferred_file_id  # made on click: it inlines plotly.js


class TestLanguage:
    def test_the_captions_read_in_chinese(self, demo: AppTest) -> None:
        demo.radio(key=keys.W_LANG).set_value("zh").run()
        no_exception(demo)
        assert demo.title[0].value == "演示"
        assert caption(demo) == (
            "智能体已使用 16,000 个 token 中的 482 个。",
            "上下文达到 12,800 token（容量的 80%）时开始压缩。",
        )
        assert play_button(demo) == "播放"

    def test_the_before_after_parts_use_the_segment_names(self, demo: AppTest) -> None:
        demo.radio(key=keys.W_LANG).set_value("zh").run()
        demo.slider(key=keys.W_DEMO_STEP).set_value(compaction_step(replayed())).run()
        no_exception(demo)
        names = {trace["meta"]: trace["name"] for trace in before_after_bars(demo)}
        assert (names["prefix"], names["tail"]) == ("保留前缀", "保护尾部")


class TestOtherConversations:
    def test_without_a_conversation_the_page_says_what_to_do(self, app: AppTest) -> None:
        app.switch_page("views/load.py").run()
        app.button(key=keys.page_widget("load", "clear")).click().run()
        app.switch_page(PAGE).run()
        no_exception(app)
        assert app.info[0].value.startswith("No conversation is loaded. Open the Load page")
        assert app.get("page_link")

    @pytest.mark.parametrize(
        ("name", "messages"),
        [
            ("single.json", [{"role": "user", "content": "你好"}]),
            ("one-call.json", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]),
        ],
    )
    def test_short_runs_play_without_error(
        self, app: AppTest, name: str, messages: list[dict[str, str]]
    ) -> None:
        app.switch_page("views/load.py").run()
        upload = (name, json.dumps(messages, ensure_ascii=False).encode(), "application/json")
        app.file_uploader(key=keys.W_UPLOAD).set_value(upload).run()
        app.switch_page(PAGE).run()
        no_exception(app)
        if name == "single.json":
            assert any(i.value.startswith("This conversation has no assistant message") for i in app.info)
        else:
            assert caption(app)[0].startswith("The agent has used")
            app.button(key=keys.page_widget("demo", "play")).click().run()
            no_exception(app)
            assert play_button(app) == "Play"

    def test_a_smaller_conversation_keeps_the_step_in_range(self, demo: AppTest) -> None:
        demo.slider(key=keys.W_DEMO_STEP).set_value(18).run()
        demo.switch_page("views/load.py").run()
        upload = (
            "two-calls.json",
            json.dumps(
                [
                    {"role": "user", "content": "a"},
                    {"role": "assistant", "content": "b"},
                    {"role": "user", "content": "c"},
                    {"role": "assistant", "content": "d"},
                ]
            ).encode(),
            "application/json",
        )
        demo.file_uploader(key=keys.W_UPLOAD).set_value(upload).run()
        demo.switch_page(PAGE).run()
        no_exception(demo)
        assert step_of(demo) == 2

    @pytest.mark.parametrize(
        "name",
        [
            "claude-code-session.jsonl",
            "swe-agent-function-calling.traj",
            "openai-chat-tau-bench-airline.json",
        ],
    )
    def test_every_shared_transcript_plays(self, app: AppTest, name: str) -> None:
        data = (SAMPLES / "transcripts" / name).read_bytes()
        app.switch_page("views/load.py").run()
        app.file_uploader(key=keys.W_UPLOAD).set_value((name, data, "application/octet-stream")).run()
        app.switch_page(PAGE).run()
        no_exception(app)
        # a Claude Code run's hidden overhead (its own prompt and tools) can put its first call over the threshold
        assert caption(app)[0].startswith(("The agent has used", "Threshold crossed"))
        assert "Model call 1 of" in texts(app)
        app.slider(key=keys.W_DEMO_STEP).set_value(2).run()
        no_exception(app)
        assert "Model call 2 of" in texts(app)
