"""The Live compaction page: offline by default, an OpenAI-compatible endpoint on request, key kept secret."""

from __future__ import annotations

import asyncio

import pytest
from streamlit.testing.v1 import AppTest

from compressor.backends import OfflineBackend
from compressor.compaction_result import CompactionResult
from compressor.compactor import CurrentRoundCompressor
from compressor.config import CurrentRoundCompressorConfig
from compressor.prompt import SNAPSHOT_SECTIONS
from compressor.window_parts import of_analysis
from dashboard.state import keys
from tests.dashboard.conftest import demo_analysis, demo_conversation, no_exception, texts, unescaped
from tests.support.openai_server import ScriptedServer

SNAPSHOT = (
    "<coverage_check>all covered</coverage_check>\n<state_snapshot>\n"
    + "\n".join(
        f"### {n}. {title}\nnoted"
        for n, title in enumerate(
            SNAPSHOT_SECTIONS,
            start=1,
        )
    )
    + "\n</state_snapshot>"
)
SECRET = "sk-test-do-not-show-1234567890"
SERVER_KEY = "sk-server-canary-0987654321abcdef"


@pytest.fixture
def live(app: AppTest) -> AppTest:
    return app.switch_page("views/compact.py").run()


def run(at: AppTest) -> AppTest:
    return at.button(key=keys.page_widget("compact", "run")).click().run()


def headline(at: AppTest) -> str:
    alerts = [unescaped(e.value) for e in (*at.success, *at.info, *at.warning, *at.error)]
    found = [
        text
        for text in alerts
        if text.startswith(("Compacted", "Not compacted", "Compaction"))
        and not text.startswith("Compaction fires")
    ]
    assert found, alerts
    return found[-1]


def offline_compaction() -> CompactionResult:
    """compressor's own offline compaction of the demo with the default sidebar settings."""
    compressor = CurrentRoundCompressor(CurrentRoundCompressorConfig(), OfflineBackend(), context_max=16_000)
    return asyncio.run(compressor.compact(demo_conversation()))


def span_size() -> int:
    """How many messages the default settings compress: every one after the single user request."""
    size = demo_analysis().span.counts[1]
    assert size == len(demo_conversation().messages) - 1
    return size


def downloads(at: AppTest) -> dict[str, bool]:
    return {str(button.proto.label): not button.proto.disabled for button in at.get("download_button")}


class TestOffline:
    def test_the_page_opens_ready_to_run(self, live: AppTest) -> None:
        no_exception(live)
        assert live.title[0].value == "Live compaction"
        assert live.radio(key=keys.W_BACKEND).value == "offline"
        assert "Press Run compaction" in texts(live)

    def test_left_and_until_compaction_are_the_first_figures_and_the_same_as_on_span(
        self, live: AppTest
    ) -> None:
        expected = demo_analysis()
        breakdown = of_analysis(expected)
        assert [(m.label, m.value) for m in live.metric][:3] == [
            ("Left", f"{breakdown.left_share:.1%}"),
            ("Until compaction", f"{breakdown.until_compaction_share:.1%}"),
            (
                "Window total",
                f"{expected.total_tokens:,}",
            ),  # the number Span & trigger shows for the same moment
        ]

    def test_an_offline_run_shows_what_it_cost_and_saved(self, live: AppTest) -> None:
        run(live)
        no_exception(live)
        expected = offline_compaction()
        assert expected.status == "compacted" and expected.span_counts[1] == span_size()
        before, after, saved = expected.tokens_before, expected.tokens_after, expected.reduction_ratio
        assert after < before
        assert headline(live) == (
            f"Compacted {span_size()} messages: {before:,} → {after:,} context tokens ({saved:.1%} saved)."
        )
        metrics = {m.label: m.value for m in live.metric}
        assert metrics["Context messages before"] == f"{before:,}"
        assert metrics["Context messages after"] == f"{after:,}"
        assert metrics["Saved"] == f"{saved:.1%}"
        assert metrics["Model calls"] == "1"
        page = texts(live)
        assert f"prefix {expected.prefix_tokens:,} · memory block {expected.memory_tokens:,}" in page
        # our block as sent, and openJiuwen's for the same summary
        assert f"Memory block: {expected.memory_tokens:,} tokens as we sent it" in page
        assert f"openJiuwen's block for the same summary counts {expected.openjiuwen_memory_tokens:,}" in page
        assert "of 11 snapshot sections present" in page
        assert any("Checkpoint request" in code.value for code in live.code)  # the prompt, as text
        assert downloads(live) == {
            "Compacted conversation (openJiuwen JSON)": True,
            "Compaction dump (JSON)": True,
        }

    def test_the_before_after_chart_stacks_the_parts(self, live: AppTest) -> None:
        run(live)
        import json

        charts = [json.loads(chart.proto.spec) for chart in live.get("plotly_chart")]
        chart = next(c for c in charts if any(trace.get("meta") == "compressed" for trace in c["data"]))
        parts = {trace["meta"]: trace["x"] for trace in chart["data"]}
        assert set(parts) == {"prefix", "compressed", "tail", "memory", "reinjection"}
        assert parts["compressed"][1] == 0 and parts["memory"][0] == 0

    def test_a_trigger_that_does_not_fire_changes_nothing_unless_forced(self, live: AppTest) -> None:
        live.slider(key=keys.W_TRIGGER).set_value(0.95).run()
        assert "The trigger does not fire" in texts(live)
        run(live)
        no_exception(live)
        assert headline(live) == "Not compacted: the window is below the trigger threshold."
        assert downloads(live)["Compacted conversation (openJiuwen JSON)"] is False
        live.toggle(key=keys.W_FORCE).set_value(True).run()
        assert "computed with other settings" in texts(live)
        run(live)
        assert headline(live).startswith(f"Compacted {span_size()} messages:")

    def test_chinese_headline(self, live: AppTest) -> None:
        live.radio(key=keys.W_LANG).set_value("zh").run()
        run(live)
        expected = offline_compaction()
        before, after, saved = expected.tokens_before, expected.tokens_after, expected.reduction_ratio
        assert headline_zh(live) == (
            f"已压缩 {span_size()} 条消息：上下文 token {before:,} → {after:,}（节省 {saved:.1%}）。"
        )


def headline_zh(at: AppTest) -> str:
    return next(unescaped(e.value) for e in at.success if unescaped(e.value).startswith("已压缩"))


class TestOpenAICompatible:
    def choose(self, at: AppTest, url: str) -> AppTest:
        at.radio(key=keys.W_BACKEND).set_value("openai").run()
        at.text_input(key=keys.W_BASE_URL).input(url)
        at.text_input(key=keys.W_MODEL_NAME).input("scripted-model")
        at.text_input(key=keys.W_API_KEY).input(SECRET)
        return at.run()

    def test_a_live_run_sends_the_request_and_keeps_the_key_secret(self, live: AppTest) -> None:
        with ScriptedServer([SNAPSHOT]) as server:
            self.choose(live, server.url)
            run(live)
        no_exception(live)
        assert headline(live).startswith(f"Compacted {span_size()} messages:")
        assert "11 of 11 snapshot sections present" in texts(live)
        (request,) = server.requests
        assert request.headers["authorization"] == f"Bearer {SECRET}"
        assert request.body["model"] == "scripted-model"
        assert request.body["messages"][-1]["content"].startswith("# Checkpoint request")
        assert all(SECRET not in str(value) for value in live.query_params.values())
        assert SECRET not in texts(live)
        assert (
            live.text_input(key=keys.W_API_KEY).proto.type
            == live.text_input(key=keys.W_API_KEY).proto.PASSWORD
        )

    def test_with_a_model_configured_the_span_page_no_longer_warns(self, live: AppTest) -> None:
        self.choose(live, "http://127.0.0.1:9/v1")
        live.switch_page("views/span.py").run()
        no_exception(live)
        assert not any(w.value.startswith("No model is configured") for w in live.warning)

    def test_a_refused_key_fails_the_compaction_and_keeps_the_context(self, live: AppTest) -> None:
        with ScriptedServer([{"raise": "invalid api key", "status_code": 401}]) as server:
            self.choose(live, server.url)
            run(live)
        no_exception(live)
        assert (
            headline(live)
            == "Compaction failed after 1 call: the endpoint refused the credentials; the context is unchanged."
        )
        assert downloads(live)["Compacted conversation (openJiuwen JSON)"] is False
        labels = {m.label for m in live.metric}
        assert "Saved" not in labels  # nothing was saved: no savings shown for a failed run
        assert "snapshot sections present" not in texts(live)

    def test_a_refused_connection_is_the_headline_not_an_unknown_reason(self, live: AppTest) -> None:
        with ScriptedServer([]) as server:
            url = server.url
        self.choose(live, url)  # the server is gone: the port refuses connections
        run(live)
        no_exception(live)
        line = headline(live)
        assert line.startswith("Compaction failed after ") and "could not reach the endpoint" in line
        assert "unrecognised reason" not in line

    def test_the_failure_reads_in_chinese_too(self, live: AppTest) -> None:
        live.radio(key=keys.W_LANG).set_value("zh").run()
        with ScriptedServer([{"raise": "invalid api key", "status_code": 401}]) as server:
            self.choose(live, server.url)
            run(live)
        no_exception(live)
        assert any(
            unescaped(e.value) == "1 次调用后压缩失败：接口拒绝了凭据；上下文保持不变。" for e in live.error
        )

    def test_a_typed_url_never_receives_the_servers_key(
        self, live: AppTest, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        with ScriptedServer([SNAPSHOT]) as own, ScriptedServer([SNAPSHOT]) as visitor:
            monkeypatch.setenv("API_BASE", own.url)
            monkeypatch.setenv("API_KEY", SERVER_KEY)
            monkeypatch.setenv("MODEL_NAME", "server-model")
            live.radio(key=keys.W_BACKEND).set_value("openai").run()
            assert "Use the server's endpoint" in [t.label for t in live.toggle]
            live.toggle(key=keys.W_USE_SERVER).set_value(False).run()
            live.text_input(key=keys.W_BASE_URL).input(visitor.url)
            live.text_input(key=keys.W_MODEL_NAME).input("visitor-model").run()
            run(live)
        no_exception(live)
        (request,) = visitor.requests
        assert "authorization" not in request.headers  # no key typed: none sent, the server's never
        assert SERVER_KEY not in str(request.headers) and own.requests == []
        assert SERVER_KEY not in texts(live)

    def test_the_servers_endpoint_gets_the_servers_key(
        self, live: AppTest, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        with ScriptedServer([SNAPSHOT]) as own:
            monkeypatch.setenv("API_BASE", own.url)
            monkeypatch.setenv("API_KEY", SERVER_KEY)
            monkeypatch.setenv("MODEL_NAME", "server-model")
            live.radio(key=keys.W_BACKEND).set_value("openai").run()
            assert not [t for t in live.text_input if t.key == keys.W_BASE_URL]  # the URL is not shown
            run(live)
        no_exception(live)
        (request,) = own.requests
        assert request.headers["authorization"] == f"Bearer {SERVER_KEY}"
        assert request.body["model"] == "server-model"
        assert SERVER_KEY not in texts(live) and own.url not in texts(live)

    def test_a_missing_base_url_is_reported_not_raised(self, live: AppTest) -> None:
        live.radio(key=keys.W_BACKEND).set_value("openai").run()
        run(live)
        no_exception(live)
        assert any("base URL and model name are both needed" in unescaped(e.value) for e in live.error)
