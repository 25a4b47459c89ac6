"""The run figures draw the simulation's and the sweep's own numbers, labelled in the language passed in."""

from __future__ import annotations

import pytest

from compressor.replay import Metric
from dashboard import charts
from dashboard.i18n import chart_labels, outcome_text
from tests.dashboard.conftest import GENERATED_CONTEXT_MAX, Run

LABELS = chart_labels("en")


def words(status: str, reason: str) -> str:
    return outcome_text(status, reason, "en")


class TestContextFigure:
    def test_lines_follow_the_steps(self, generated_run: Run) -> None:
        simulation = generated_run[0]
        fig = charts.context_figure(simulation, labels=LABELS, outcome_text=words)
        traces = {trace.meta: trace for trace in fig.data}
        assert list(traces["sent"].y) == [s.sent_tokens for s in simulation.steps]
        assert list(traces["read"].y) == [s.context_tokens for s in simulation.steps]
        assert list(traces["uncompacted"].y) == [s.uncompacted_tokens for s in simulation.steps]
        assert set(traces["threshold"].y) == {simulation.outcome.threshold}
        assert set(traces["context_max"].y) == {GENERATED_CONTEXT_MAX}
        assert {trace.name for trace in fig.data} >= {LABELS["sent"], LABELS["read"], LABELS["context_max"]}
        assert fig.layout.yaxis.rangemode == "nonnegative"

    def test_compactions_are_marked_where_they_happen(self, generated_run: Run) -> None:
        simulation = generated_run[0]
        fig = charts.context_figure(simulation, labels=LABELS, outcome_text=words)
        markers = next(trace for trace in fig.data if trace.meta == "compaction")
        compacted = [s for s in simulation.steps if s.event == "compacted"]
        assert compacted
        assert list(markers.x) == [s.index for s in compacted]
        assert list(markers.y) == [s.context_tokens for s in compacted]
        assert set(markers.text) == {"Compacted"}

    def test_every_word_is_in_the_language_passed_in(self, generated_run: Run) -> None:
        simulation = generated_run[0]
        fig = charts.context_figure(
            simulation, labels=chart_labels("zh"), outcome_text=lambda s, r: outcome_text(s, r, "zh")
        )
        assert fig.layout.title.text == "整个运行中的上下文"
        assert fig.layout.xaxis.title.text == "模型调用对应的消息序号"
        names = {trace.meta: trace.name for trace in fig.data}
        assert names["sent"] == chart_labels("zh")["sent"] and names["compaction"] == "压缩"
        assert set(next(trace for trace in fig.data if trace.meta == "compaction").text) == {"已压缩"}

    def test_mark_step_adds_a_line_and_leaves_the_figure(self, generated_run: Run) -> None:
        fig = charts.context_figure(generated_run[0], labels=LABELS, outcome_text=words)
        marked = charts.mark_step(fig, 42, "now")
        assert [shape.x0 for shape in marked.layout.shapes] == [42]
        assert not fig.layout.shapes


class TestSweepFigures:
    @pytest.mark.parametrize("metric", charts.HEATMAPS)
    def test_heatmap_scales_start_at_zero(self, generated_run: Run, metric: Metric) -> None:
        heat = charts.heatmap_figure(generated_run[1], metric, labels=LABELS).data[0]
        assert heat.zmin == 0 and heat.zmax >= 1 if metric != "peak_utilisation" else heat.zmax > 0

    def test_a_few_compactions_get_one_tick_per_whole_number(self, generated_run: Run) -> None:
        from compressor.replay import sweep
        from tests.dashboard.conftest import demo_conversation

        demo = sweep(
            demo_conversation(), ratios=(0.5, 0.8), keeps=(0,), context_max=16_000, summary="ratio:0.1"
        )
        heat = charts.heatmap_figure(demo, "compactions", labels=LABELS).data[0]
        assert 1 < heat.zmax <= charts.run.SMALL_COUNT  # 2 compactions at 0.5: plotly alone would tick 0.5s
        assert heat.colorbar.dtick == 1 and heat.colorbar.tickformat == ",d"
        many = charts.heatmap_figure(generated_run[1], "compactions", labels=LABELS).data[0]
        assert many.zmax > charts.run.SMALL_COUNT and many.colorbar.dtick is None
        tokens = charts.heatmap_figure(demo, "compaction_input_tokens", labels=LABELS).data[0]
        assert tokens.colorbar.dtick is None  # thousands of tokens: plotly's own whole-number ticks

    @pytest.mark.parametrize("metric", charts.HEATMAPS)
    def test_heatmaps_hold_the_grid(self, generated_run: Run, metric: Metric) -> None:
        swept = generated_run[1]
        fig = charts.heatmap_figure(swept, metric, labels=LABELS)
        heat = fig.data[0]
        assert [list(row) for row in heat.z] == swept.grid(metric)
        assert list(heat.x) == ["0.5", "0.6", "0.8"] and list(heat.y) == ["0", "2"]
        assert fig.layout.title.text == f"{LABELS[f'heat.{metric}']} (min_target_context_ratio 0.02)"

    def test_tradeoff_marks_the_recommendation(self, generated_run: Run) -> None:
        _, swept, recommendation = generated_run
        fig = charts.tradeoff_figure(swept, recommendation.setting, labels=LABELS)
        assert len(fig.data[0].x) == len(swept.outcomes)
        assert recommendation.setting is not None
        assert fig.data[1].name == "recommended"
        assert fig.data[1].y[0] == recommendation.setting.compaction_input_tokens
        first = swept.outcomes[0]
        assert (
            fig.data[0]
            .text[0]
            .startswith(f"ratio {first.trigger_context_ratio:g}, keep {first.keep_recent_messages}")
        )

    def test_tradeoff_without_a_recommendation_has_only_the_settings(self, generated_run: Run) -> None:
        fig = charts.tradeoff_figure(generated_run[1], None, labels=chart_labels("zh"))
        assert [trace.name for trace in fig.data] == ["设置"]
        assert fig.layout.title.text == "压缩成本与余量"
