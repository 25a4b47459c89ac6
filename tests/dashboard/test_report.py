"""The HTML report: self-contained, escaped, and drawing exactly the simulation's and the sweep's numbers."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any

import pytest

from benchmarks.generate import conversation_dicts
from compressor.config import CurrentRoundCompressorConfig
from compressor.messages import Conversation
from compressor.replay import Reason, Recommendation, Simulation, Sweep, recommend, simulate, sweep
from dashboard.report import (
    HEATMAPS,
    build_report,
    compactions_table,
    context_figure,
    heatmap_figure,
    recommendation_html,
    tradeoff_figure,
)

ATTACK = "<script>alert(1)</script>"
CONTEXT_MAX = 30_000


def config(ratio: float = 0.6, keep: int = 2) -> CurrentRoundCompressorConfig:
    return CurrentRoundCompressorConfig(
        trigger_context_ratio=ratio, keep_recent_messages=keep, min_target_context_ratio=0.02
    )


@pytest.fixture(scope="module")
def run() -> tuple[Simulation, Sweep, Recommendation]:
    conversation = Conversation.from_messages(conversation_dicts(300, seed=4), name="generated run")
    simulation = simulate(conversation, config(), context_max=CONTEXT_MAX, summary="ratio:0.1")
    swept = sweep(
        conversation,
        ratios=(0.5, 0.6, 0.8),
        keeps=(0, 2),
        min_targets=(0.02,),
        context_max=CONTEXT_MAX,
        summary="ratio:0.1",
    )
    return simulation, swept, recommend(swept, headroom=0.1)


def hostile_run() -> tuple[Simulation, Sweep, Recommendation]:
    """A run whose name, messages and read file path all carry markup; its compaction reinjects that file."""
    read = {
        "id": "r1",
        "type": "function",
        "name": "read_file",
        "arguments": json.dumps({"file_path": f"src/{ATTACK}.py"}),
    }
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": f"please look at {ATTACK}"},
        {"role": "assistant", "content": ATTACK, "tool_calls": [read]},
        {"role": "tool", "tool_call_id": "r1", "content": f"{ATTACK}\n" * 200},
    ]
    for n in range(6):
        messages.append({"role": "assistant", "content": f"{ATTACK} step {n} " * 40})
    conversation = Conversation.from_messages(messages, name=ATTACK)
    settings = CurrentRoundCompressorConfig(trigger_context_ratio=0.5, min_target_context_ratio=0.0)
    simulation = simulate(
        conversation, settings, context_max=4_000, counter="string_length", summary="fixed:20"
    )
    swept = sweep(
        conversation,
        ratios=(0.5,),
        keeps=(0,),
        min_targets=(0.0,),
        context_max=4_000,
        counter="string_length",
        summary="fixed:20",
    )
    return simulation, swept, recommend(swept)


class _Loads(HTMLParser):
    """Start tags that would fetch something (script bodies are text to this parser, not tags)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.scripts += tag == "script"
        if any(named.get(attribute) for attribute in ("src", "href")) and tag in (
            "script",
            "link",
            "img",
            "iframe",
        ):
            self.found.append(tag)


class TestSelfContained:
    def test_nothing_is_fetched(self, run: tuple[Simulation, Sweep, Recommendation]) -> None:
        page = build_report(*run, title="Report")
        parser = _Loads()
        parser.feed(page)
        assert parser.found == []
        assert parser.scripts >= 2  # plotly.js itself, then one per figure

    def test_plotly_is_inlined_once(self, run: tuple[Simulation, Sweep, Recommendation]) -> None:
        page = build_report(*run, title="Report")
        assert page.count("Plotly.newPlot(") == 1 + len(HEATMAPS) + 1
        assert page.count("<script type='text/javascript'>") == 1
        assert len(page) > 3_000_000  # the library itself travels in the file


class TestEscaping:
    def test_user_content_is_escaped(self) -> None:
        simulation, swept, recommendation = hostile_run()
        assert any(ATTACK in path for e in simulation.events for path in e.reinjected_files)
        page = build_report(simulation, swept, recommendation, title=f"Report {ATTACK}")
        assert ATTACK not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page

    def test_the_compactions_table_escapes_file_paths(self) -> None:
        simulation, _, _ = hostile_run()
        table = compactions_table(simulation)
        assert ATTACK not in table and "src/&lt;script&gt;" in table


class TestContextFigure:
    def test_lines_follow_the_steps(self, run: tuple[Simulation, Sweep, Recommendation]) -> None:
        simulation = run[0]
        fig = context_figure(simulation)
        traces = {trace.name: trace for trace in fig.data}
        assert list(traces["window sent to the model"].y) == [s.sent_tokens for s in simulation.steps]
        assert list(traces["window the trigger read"].y) == [s.context_tokens for s in simulation.steps]
        assert list(traces["without compaction"].y) == [s.uncompacted_tokens for s in simulation.steps]
        assert set(traces["threshold"].y) == {simulation.outcome.threshold}
        assert set(traces["context_max"].y) == {CONTEXT_MAX}

    def test_compactions_are_marked_where_they_happen(
        self, run: tuple[Simulation, Sweep, Recommendation]
    ) -> None:
        simulation = run[0]
        markers = next(trace for trace in context_figure(simulation).data if trace.name == "compaction")
        compacted = [s for s in simulation.steps if s.event == "compacted"]
        assert compacted
        assert list(markers.x) == [s.index for s in compacted]
        assert list(markers.y) == [s.context_tokens for s in compacted]


class TestSweepFigures:
    @pytest.mark.parametrize(("metric", "title", "scale"), HEATMAPS)
    def test_heatmaps_hold_the_grid(
        self, run: tuple[Simulation, Sweep, Recommendation], metric: Any, title: str, scale: str
    ) -> None:
        swept = run[1]
        heat = heatmap_figure(swept, metric, title=title, colorscale=scale).data[0]
        assert [list(row) for row in heat.z] == swept.grid(metric)
        assert list(heat.x) == ["0.5", "0.6", "0.8"] and list(heat.y) == ["0", "2"]

    def test_tradeoff_marks_the_recommendation(self, run: tuple[Simulation, Sweep, Recommendation]) -> None:
        _, swept, recommendation = run
        fig = tradeoff_figure(swept, recommendation.setting)
        assert len(fig.data[0].x) == len(swept.outcomes)
        assert recommendation.setting is not None
        assert fig.data[1].name == "recommended"
        assert fig.data[1].y[0] == recommendation.setting.compaction_input_tokens


class TestRecommendationSection:
    def test_names_the_settings_and_the_reasons(self, run: tuple[Simulation, Sweep, Recommendation]) -> None:
        recommendation = run[2]
        section = recommendation_html(recommendation)
        assert section.count("<li>") == len(recommendation.reasons)
        assert recommendation.setting is not None
        assert f"<b>{recommendation.setting.trigger_context_ratio:g}</b>" in section

    def test_says_when_there_is_none(self) -> None:
        none = Recommendation(
            headroom=0.2, setting=None, reasons=(Reason("none_qualify", {"limit": 0.8, "limit_tokens": 800}),),
            qualifying=0, considered=4,
        )
        assert "No recommendation with 20% headroom" in recommendation_html(none)
