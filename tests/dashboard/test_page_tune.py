"""The Tune page on the bundled demo: the run replayed under the sidebar settings, the sweep, the
recommendation and its "apply to sidebar", driven through Streamlit's AppTest.

Every number the page shows is checked against compressor's own replay of the same run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from compressor.backends import OfflineBackend
from compressor.config import CurrentRoundCompressorConfig
from compressor.cost import find_price
from compressor.cost.ledger import rounded
from compressor.replay import (
    Simulation,
    Sweep,
    assess_simulation,
    assess_sweep,
    estimate_live_cost,
    recommend,
    simulate,
    sweep,
)
from compressor.window_parts import run_peaks
from dashboard.i18n import chart_labels, translate
from dashboard.i18n import recommendation_sentences as words
from dashboard.state import keys, replays
from tests.conftest import SAMPLES
from tests.dashboard.conftest import demo_conversation, no_exception, texts, unescaped
from tests.support.openai_server import ScriptedServer

PAGE = "views/tune.py"
DEFAULT_RATIOS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
#: What the scripted endpoint answers to a compaction request.
REPLY = "<state_snapshot>\n1. Active Task: make the duration test pass\n</state_snapshot>"


@pytest.fixture
def tune(app: AppTest) -> AppTest:
    return app.switch_page(PAGE).run()


def replayed(trigger: float = 0.8, summary: Any = "ratio:0.1", keep: int = 0) -> Simulation:
    config = CurrentRoundCompressorConfig(trigger_context_ratio=trigger, keep_recent_messages=keep)
    return simulate(demo_conversation(), config, context_max=16_000, summary=summary)


def swept(ratios: tuple[float, ...] = DEFAULT_RATIOS, keeps: tuple[int, ...] = (0, 2, 4, 8)) -> Sweep:
    return sweep(demo_conversation(), ratios=ratios, keeps=keeps, context_max=16_000, summary="ratio:0.1")


#: The run's bill under "What it costs" (TestBill), apart from the replay's six numbers, in both languages.
BILL = {
    translate(language, key)
    for language in ("en", "zh")
    for key in ("tune.cost.with", "tune.cost.without", "tune.cost.saved")
}
CURRENT = (0.8, 0, 0.1)
PRICE = keys.page_widget(
    "tune", "price"
)  # the sidebar's setting: the recommendation prices it beside the pick, as the CLI does


def metrics(at: AppTest) -> dict[str, str]:
    """The replay's numbers (the bill's own are checked by TestBill)."""
    return {m.label: m.value for m in at.metric if m.label not in BILL}


def compactions_table(at: AppTest) -> Any:
    """The replay's compaction attempts (the bill's own table follows it)."""
    return next(frame for frame in at.dataframe if "outcome" in frame.value.columns)


def shown(run: Simulation) -> dict[str, str]:
    """The six key numbers as the page writes them; the peak is the window the trigger read."""
    outcome = run.outcome
    peaks = run_peaks(run.steps, capacity=run.context_max, threshold=outcome.threshold)
    first = "never" if outcome.first_trigger_index is None else f"#{outcome.first_trigger_index}"
    return {
        "Trigger first fires": first,
        "Compactions": f"{outcome.compactions:,}",
        "Peak window read": f"{peaks.read_share:.1%}",
        "Compaction input tokens": f"{outcome.compaction_input_tokens:,}",
        "Agent input, with compaction": f"{outcome.agent_input_tokens:,}",
        "Agent input, without compaction": f"{outcome.agent_input_tokens_uncompacted:,}",
    }


def charts(at: AppTest) -> dict[str, dict[str, Any]]:
    """Every plotly chart of the run by its title."""
    found: dict[str, dict[str, Any]] = {}
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        found[spec["layout"].get("title", {}).get("text", "")] = spec
    return found


def recommendation_sentences(at: AppTest) -> list[str]:
    (bullets,) = [m.value for m in at.markdown if m.value.startswith("- ")]
    return [unescaped(line[2:]) for line in bullets.splitlines()]


class TestFirstLoad:
    def test_the_key_numbers_are_compressors(self, tune: AppTest) -> None:
        no_exception(tune)
        assert tune.title[0].value == "Tune"
        run = replayed()
        expected = run.outcome
        assert metrics(tune) == shown(run)
        # The demo's story with the defaults: one compaction mid-run, then the agent goes on, and it sends less
        # over the run because of it.
        (event,) = run.events
        assert expected.compactions == 1 and expected.first_trigger_index == event.index < run.steps[-1].index
        assert metrics(tune)["Trigger first fires"] == f"#{event.index}"
        assert expected.compaction_input_tokens > 0
        assert expected.agent_input_tokens < expected.agent_input_tokens_uncompacted
        assert (
            f"{expected.steps} calls · summaries: ratio:0.1 · capacity 16,000 tokens (set explicitly)"
            in texts(tune)
        )

    def test_the_peak_speaks_of_the_thresholds_quantity(self, tune: AppTest) -> None:
        run = replayed()
        peak = next(m for m in tune.metric if m.label == "Peak window read")
        read = max(step.context_tokens for step in run.steps)
        assert read >= run.outcome.threshold  # the threshold was crossed: the peak shown is past it
        assert peak.value == f"{read / 16_000:.1%}"
        assert f"{run.outcome.peak_tokens:,} tokens" in peak.proto.help  # the peak sent, named apart

    def test_the_run_chart_has_the_threshold_and_the_capacity(self, tune: AppTest) -> None:
        chart = charts(tune)["Context over the run"]
        lines = {trace["meta"]: trace["y"] for trace in chart["data"]}
        assert set(lines["threshold"]) == {12_800}
        assert set(lines["context_max"]) == {16_000}
        assert len(lines["sent"]) == replayed().outcome.steps

    def test_the_run_chart_marks_the_compaction_and_the_run_goes_on(self, tune: AppTest) -> None:
        chart = charts(tune)["Context over the run"]
        run = replayed()
        (event,) = run.events
        step = next(step for step in run.steps if step.index == event.index)
        assert step is not run.steps[-1]
        traces = {trace["meta"]: trace for trace in chart["data"]}
        assert traces["compaction"]["x"] == [event.index]
        assert traces["compaction"]["y"] == [step.context_tokens]
        assert traces["sent"]["y"][run.steps.index(step)] == step.sent_tokens < step.context_tokens
        assert "refused" not in traces
        table = compactions_table(tune)
        assert table.value["message"].tolist() == [f"#{event.index}"]
        assert table.value["outcome"].tolist() == ["Compacted"]
        assert table.value["window"].tolist() == [step.context_tokens]  # the window total Demo shows there
        assert table.value["compress"].tolist() == [event.compress_tokens]

    def test_the_sweep_is_drawn_as_three_heatmaps_and_a_tradeoff(self, tune: AppTest) -> None:
        drawn = charts(tune)
        expected = swept()
        for title, metric in (
            ("Compactions over the run", "compactions"),
            ("Tokens sent to the compaction model", "compaction_input_tokens"),
            ("Peak context sent, share of the capacity", "peak_utilisation"),
        ):
            (heat,) = [spec for name, spec in drawn.items() if name.startswith(title)]
            assert heat["data"][0]["x"] == [f"{r:g}" for r in DEFAULT_RATIOS]
            assert heat["data"][0]["y"] == ["0", "2", "4", "8"]
            assert heat["data"][0]["z"] == expected.grid(metric)  # type: ignore[arg-type]
        tradeoff = drawn["Compaction cost against headroom"]
        assert len(tradeoff["data"][0]["x"]) == 40
        assert [trace["name"] for trace in tradeoff["data"]] == ["settings", "recommended"]

    def test_both_downloads_are_offered(self, tune: AppTest) -> None:
        buttons = {str(b.proto.label): b.proto for b in tune.get("download_button")}
        assert set(buttons) == {"Sweep (CSV)", "Report (HTML)"}
        assert buttons["Report (HTML)"].deferred_file_id  # built only when clicked: it inlines plotly.js


class TestSidebarSettings:
    def test_a_lower_trigger_makes_compaction_fire(self, tune: AppTest) -> None:
        tune.slider(key=keys.W_TRIGGER).set_value(0.6).run()
        no_exception(tune)
        run = replayed(0.6)
        assert metrics(tune) == shown(run)
        compacted = [event.index for event in run.events if event.status == "compacted"]
        assert len(compacted) > len(replayed().events)  # an earlier trigger compacts more often
        assert metrics(tune)["Trigger first fires"] == f"#{compacted[0]}"
        markers = {trace["meta"]: trace["x"] for trace in charts(tune)["Context over the run"]["data"]}
        assert markers["compaction"] == compacted
        table = compactions_table(tune)
        assert table.value["message"].tolist() == [f"#{index}" for index in compacted]

    def test_keep_recent_changes_the_replay(self, tune: AppTest) -> None:
        tune.slider(key=keys.W_TRIGGER).set_value(0.6).run()
        tune.number_input(key=keys.W_KEEP).set_value(6).run()
        no_exception(tune)
        assert metrics(tune) == shown(replayed(0.6, keep=6))

    def test_revisiting_a_setting_reuses_its_replay(self, tune: AppTest) -> None:
        tune.slider(key=keys.W_TRIGGER).set_value(0.6).run()
        runs = tune.session_state[keys.K_RUNS]
        first = next(value for key, (_, value) in runs.items() if key[0] == "simulate")
        tune.slider(key=keys.W_TRIGGER).set_value(0.8).run()
        tune.slider(key=keys.W_TRIGGER).set_value(0.6).run()
        again = [value for key, (_, value) in tune.session_state[keys.K_RUNS].items() if key[0] == "simulate"]
        assert any(value is first for value in again)


class TestRecommendation:
    def test_the_reasoning_is_compressors(self, tune: AppTest) -> None:
        expected = recommend(swept(), headroom=0.1, current=CURRENT)
        chosen = expected.setting
        assert chosen is not None
        assert tune.success[0].value == (
            f"Use trigger_context_ratio {chosen.trigger_context_ratio:g}, keep_recent_messages "
            f"{chosen.keep_recent_messages}, min_target_context_ratio {chosen.min_target_context_ratio:g}."
        )
        assert recommendation_sentences(tune) == words(expected, "en")

    def test_apply_puts_the_setting_in_the_sidebar(self, tune: AppTest) -> None:
        chosen = recommend(swept(), headroom=0.1).setting
        assert chosen is not None
        apply = tune.button(key=keys.page_widget("tune", "apply"))
        assert not apply.disabled
        apply.click().run()
        no_exception(tune)
        assert tune.slider(key=keys.W_TRIGGER).value == chosen.trigger_context_ratio
        assert tune.query_params["trigger"] == f"{chosen.trigger_context_ratio:g}"
        assert tune.button(key=keys.page_widget("tune", "apply")).disabled
        assert "The sidebar already holds this setting." in texts(tune)
        assert metrics(tune) == shown(
            replayed(chosen.trigger_context_ratio, keep=chosen.keep_recent_messages)
        )

    def test_the_headroom_slider_asks_the_library_again(self, tune: AppTest) -> None:
        tune.slider(key=keys.W_HEADROOM).set_value(0.4).run()
        no_exception(tune)
        expected = recommend(swept(), headroom=0.4)
        assert expected.setting is not None
        assert tune.success[0].value == (
            f"Use trigger_context_ratio {expected.trigger_context_ratio:g}, keep_recent_messages "
            f"{expected.keep_recent_messages}, min_target_context_ratio 0.1."
        )
        tune.button(key=keys.page_widget("tune", "apply")).click().run()
        assert tune.slider(key=keys.W_TRIGGER).value == expected.trigger_context_ratio
        assert tune.number_input(key=keys.W_KEEP).value == expected.keep_recent_messages

    def test_no_setting_qualifies_without_enough_room(self, tune: AppTest) -> None:
        tune.number_input(key=keys.W_CONTEXT_MAX).set_value(2_000).run()  # the smallest peak is 2,728
        no_exception(tune)
        assert "No setting of this sweep keeps 10% of context_max free at every model call." in [
            w.value for w in tune.warning
        ]
        expected = recommend(
            sweep(
                demo_conversation(),
                ratios=DEFAULT_RATIOS,
                keeps=(0, 2, 4, 8),
                context_max=2_000,
                summary="ratio:0.1",
            ),
            current=CURRENT,
        )
        assert recommendation_sentences(tune) == words(expected, "en")
        assert not [b for b in tune.button if b.key == keys.page_widget("tune", "apply")]


class TestGrid:
    def test_the_grid_editor_sets_the_sweep(self, tune: AppTest) -> None:
        tune.slider(key=keys.W_SWEEP_RATIOS).set_range(0.6, 0.7).run()
        tune.multiselect(key=keys.W_SWEEP_KEEPS).set_value([0, 4]).run()
        no_exception(tune)
        heat = next(
            spec for name, spec in charts(tune).items() if name.startswith("Compactions over the run")
        )
        assert heat["data"][0]["x"] == ["0.6", "0.65", "0.7", "0.8"]  # the sidebar's 0.8 is always a column
        assert heat["data"][0]["y"] == ["0", "4"]
        assert "8 settings: 4 ratios × 2 keep values" in texts(tune)


class TestSummaryModel:
    def test_fixed_size_summaries(self, tune: AppTest) -> None:
        tune.slider(key=keys.W_TRIGGER).set_value(0.6).run()
        tune.radio(key=keys.W_SUMMARY_KIND).set_value("fixed").run()
        tune.number_input(key=keys.W_SUMMARY_TOKENS).set_value(500).run()
        no_exception(tune)
        assert metrics(tune) == shown(replayed(0.6, "fixed:500"))
        assert "summaries: fixed:500" in texts(tune)

    def test_the_offline_backend(self, tune: AppTest) -> None:
        tune.slider(key=keys.W_TRIGGER).set_value(0.6).run()
        tune.radio(key=keys.W_SUMMARY_KIND).set_value("offline").run()
        no_exception(tune)
        assert metrics(tune) == shown(replayed(0.6, "offline"))
        assert "summaries: offline" in texts(tune)


class TestLiveReplay:
    def choose_live(self, at: AppTest, url: str) -> AppTest:
        at.slider(key=keys.W_TRIGGER).set_value(0.6).run()
        at.switch_page("views/compact.py").run()
        at.radio(key=keys.W_BACKEND).set_value("openai").run()
        at.text_input(key=keys.W_BASE_URL).input(url)
        at.text_input(key=keys.W_MODEL_NAME).input("scripted-model")
        at.switch_page(PAGE).run()
        return at.radio(key=keys.W_SUMMARY_KIND).set_value("live").run()

    def test_the_estimate_is_shown_and_must_be_confirmed(self, tune: AppTest) -> None:
        self.choose_live(tune, "http://127.0.0.1:9/v1")
        no_exception(tune)
        config = CurrentRoundCompressorConfig(trigger_context_ratio=0.6)
        estimate = estimate_live_cost(demo_conversation(), config, context_max=16_000)
        calls = f"{estimate.calls} call" if estimate.calls == 1 else f"{estimate.calls} calls"
        assert tune.info[0].value == (
            f"A live replay would make about {calls} sending about {estimate.request_tokens:,} input "
            f"tokens (largest request {estimate.largest_request_tokens:,}), assuming summaries of 10% of the "
            "span; retries would add more."
        )
        assert tune.button(key=keys.page_widget("tune", "live_run")).disabled
        assert (
            "Until the live replay runs, this page shows the replay with summaries sized ratio:0.1."
            in texts(tune)
        )
        assert metrics(tune) == shown(replayed(0.6))  # the stand-in until confirmed

    def test_a_confirmed_live_replay_calls_the_endpoint_once_per_compaction(self, tune: AppTest) -> None:
        with ScriptedServer([REPLY]) as server:
            self.choose_live(tune, server.url)
            config = CurrentRoundCompressorConfig(trigger_context_ratio=0.6)
            estimate = estimate_live_cost(demo_conversation(), config, context_max=16_000)
            tune.checkbox(key=replays.live_confirm_key(estimate)).check().run()
            tune.button(key=keys.page_widget("tune", "live_run")).click().run()
        no_exception(tune)
        assert (
            len(server.requests) == 1
        )  # the one reply is a summary; later calls find the server out of replies
        assert server.requests[0].body["model"] == "scripted-model"
        assert "summaries: live:OpenAI-compatible: scripted-model at 127.0.0.1" in texts(tune)
        assert "Until the live replay runs" not in texts(tune)

    def test_the_live_page_offline_backend_can_be_replayed_too(self, tune: AppTest) -> None:
        tune.slider(key=keys.W_TRIGGER).set_value(0.6).run()
        tune.radio(key=keys.W_SUMMARY_KIND).set_value("live").run()
        config = CurrentRoundCompressorConfig(trigger_context_ratio=0.6)
        estimate = estimate_live_cost(demo_conversation(), config, context_max=16_000)
        tune.checkbox(key=replays.live_confirm_key(estimate)).check().run()
        tune.button(key=keys.page_widget("tune", "live_run")).click().run()
        no_exception(tune)
        assert metrics(tune) == shown(replayed(0.6, OfflineBackend()))


class TestLanguage:
    def test_the_page_reads_in_chinese(self, tune: AppTest) -> None:
        tune.radio(key=keys.W_LANG).set_value("zh").run()
        no_exception(tune)
        assert tune.title[0].value == "调参"
        assert set(metrics(tune)) == {
            "首次触发",
            "压缩次数",
            "读取窗口峰值",
            "压缩输入 token",
            "智能体输入（有压缩）",
            "智能体输入（无压缩）",
        }
        tune.slider(key=keys.W_TRIGGER).set_value(0.6).run()
        names = {trace["name"] for trace in charts(tune)["整个运行中的上下文"]["data"]}
        zh = chart_labels("zh")
        assert names == {
            zh[key] for key in ("uncompacted", "read", "sent", "threshold", "context_max", "compaction")
        }
        chosen = recommend(swept(), headroom=0.1, current=(0.6, 0, 0.1))
        assert chosen.setting is not None
        assert tune.success[0].value.startswith(
            f"建议使用 trigger_context_ratio {chosen.trigger_context_ratio:g}"
        )
        assert recommendation_sentences(tune) == words(chosen, "zh")

    def test_the_summary_choice_survives_the_switch(self, tune: AppTest) -> None:
        tune.radio(key=keys.W_SUMMARY_KIND).set_value("fixed").run()
        tune.radio(key=keys.W_LANG).set_value("zh").run()
        tune.run()
        assert tune.radio(key=keys.W_SUMMARY_KIND).value == "fixed"


class TestOtherConversations:
    def load(self, at: AppTest, name: str, data: bytes) -> AppTest:
        at.switch_page("views/load.py").run()
        at.file_uploader(key=keys.W_UPLOAD).set_value((name, data, "application/octet-stream")).run()
        return at.switch_page(PAGE).run()

    def test_without_a_conversation_the_page_says_what_to_do(self, app: AppTest) -> None:
        app.switch_page("views/load.py").run()
        app.button(key=keys.page_widget("load", "clear")).click().run()
        app.switch_page(PAGE).run()
        no_exception(app)
        assert app.info[0].value.startswith("No conversation is loaded. Open the Load page")
        assert app.get("page_link")

    def test_a_conversation_without_model_calls(self, app: AppTest) -> None:
        at = self.load(app, "single.json", json.dumps([{"role": "user", "content": "你好"}]).encode())
        no_exception(at)
        assert any(i.value.startswith("This conversation has no assistant message") for i in at.info)

    @pytest.mark.parametrize(
        "name",
        [
            "claude-code-session.jsonl",
            "swe-agent-function-calling.traj",
            "openai-chat-tau-bench-airline.json",
        ],
    )
    def test_every_shared_transcript_replays(self, app: AppTest, name: str) -> None:
        path = SAMPLES / "transcripts" / name
        at = self.load(app, name, path.read_bytes())
        no_exception(at)
        assert len(metrics(at)) == 6 and len(at.metric) == 6 + len(BILL) // 2


class TestBill:
    """What the setting costs, beside the sweep (issue 12): the run's bill, each compaction's line and a cost
    heatmap, in tokens without a price and in dollars at a chosen model's price, as ``compaction-lab simulate``."""

    def test_without_a_price_the_bill_counts_tokens(self, tune: AppTest) -> None:
        ledger = assess_simulation(replayed(), None).ledger
        bill = {m.label: m.value for m in tune.metric if m.label in BILL}
        assert bill == {
            "Run cost, with compaction": f"{round(ledger.with_compaction.cost):,} tokens",
            "Run cost, without compaction": f"{round(ledger.without_compaction.cost):,} tokens",
            "Compaction saves": f"{round(ledger.saved):,} tokens",
        }
        assert "No price: costs are counted in tokens" in texts(tune)
        assert tune.selectbox(key=PRICE).value == ""  # the run's own model: the demo names none
        (line,) = ledger.compactions
        frame = next(f.value for f in tune.dataframe if "payback" in f.value.columns)
        assert frame["message"].tolist() == [f"#{line.index}"]
        assert frame["written"].tolist() == [line.cache_write_tokens]
        assert frame["invalidated"].tolist() == [line.invalidated_tokens]

    def test_a_chosen_price_bills_the_run_in_dollars_and_the_recommendation_follows(
        self, tune: AppTest
    ) -> None:
        tune.selectbox(key=PRICE).set_value("gpt-4o").run()
        no_exception(tune)
        price = find_price("gpt-4o")
        assert price is not None
        ledger = assess_simulation(replayed(), price).ledger
        bill = {m.label: m.value for m in tune.metric if m.label in BILL}
        assert bill["Run cost, with compaction"] == f"${ledger.with_compaction.cost:,.4f}"
        assert bill["Run cost, without compaction"] == f"${ledger.without_compaction.cost:,.4f}"
        assert "Priced as gpt-4o, USD per 1M tokens: input $2.5, cached $1.25" in texts(tune)
        (line,) = ledger.compactions
        frame = next(f.value for f in tune.dataframe if "payback" in f.value.columns)
        assert frame["call"].tolist() == [rounded(line.call_cost, "usd")]
        assert line.payback == "paid" and line.payback_calls is not None
        assert frame["payback"].tolist() == [
            f"after {line.payback_calls} calls, of the {line.horizon_calls} calls it had"
        ]
        expected = recommend(swept(), headroom=0.1, price=price, current=CURRENT)
        assert expected.unit == "usd"
        assert recommendation_sentences(tune) == words(expected, "en")
        assert any(sentence.startswith("The current setting") for sentence in recommendation_sentences(tune))
        heat = charts(tune)["Run cost, agent and compaction calls (min_target_context_ratio 0.1)"]["data"][0]
        costs = {a.outcome.key: a.cost for a in assess_sweep(swept(), price)}
        assert heat["z"][0][DEFAULT_RATIOS.index(0.8)] == pytest.approx(costs[CURRENT])
        assert heat["zmin"] == 0
