"""One palette: every figure draws each concept in its one colour, the threshold is the only red, and a
segment's colour means that segment wherever it appears."""

from __future__ import annotations

import colorsys
import itertools
import math
import re
from collections.abc import Iterator

import plotly.graph_objects as go
import pytest

from compressor.breakdown import BeforeAfter
from compressor.window_parts import of_analysis
from dashboard import charts, tables
from dashboard.charts.style import MARKS, PALETTE, WINDOW_PART_COLOURS
from dashboard.i18n import chart_labels, outcome_text
from tests.dashboard.conftest import Run, demo_analysis

LABELS = chart_labels("en")
SEGMENTS = {"system", "prefix", "compress", "tail", "unanchored"}
#: Concepts drawn in another concept's colour because they are that concept: the span a compaction replaced,
#: the messages the tool boundary added to the protected tail, the window the trigger read, and the marks
#: drawn over the bars.
SEGMENT_OF = {
    "compressed": "compress",
    "span": "compress",
    "tool_boundary": "tail",
    "read": "window",
    "last_user": "marker",
    "internal": "marker",
}


def rgb(colour: str) -> tuple[float, float, float]:
    if colour.startswith("#"):
        return tuple(int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]
    red, green, blue = (int(part) / 255 for part in re.findall(r"\d+", colour)[:3])
    return red, green, blue


def is_red(colour: str) -> bool:
    hue, saturation, _ = colorsys.rgb_to_hsv(*rgb(colour))
    return saturation > 0.35 and (hue < 0.04 or hue > 0.96)


def uses(fig: go.Figure) -> Iterator[tuple[str, str]]:
    """(concept, colour) of every trace and shape that names its concept."""
    for trace in fig.data:
        marker = getattr(trace, "marker", None)
        line = getattr(trace, "line", None)
        for colour in (getattr(marker, "color", None), getattr(line, "color", None)):
            if isinstance(colour, str) and trace.meta:
                yield str(trace.meta), colour
    for shape in fig.layout.shapes:
        for colour in (shape.line.color, shape.fillcolor):
            if isinstance(colour, str) and shape.name:
                yield str(shape.name), colour


#: How far apart (RGB, 0–1 per channel) two concepts' colours must be.
MIN_DISTANCE = 0.16


def figures(run: Run) -> list[go.Figure]:
    simulation, swept, recommendation = run
    analysis = demo_analysis(keep_recent_messages=2)
    event = next(e for e in simulation.events if e.status == "compacted")
    parts = BeforeAfter.of(event)
    return [
        charts.span_bars(
            tables.span_frame(analysis),
            labels=LABELS,
            tail_start=analysis.span.tail[0],
            naive_tail_start=analysis.naive_tail_start,
        ),
        charts.before_after(parts.before, parts.after, labels=LABELS),
        charts.context_figure(simulation, labels=LABELS, outcome_text=lambda s, r: outcome_text(s, r, "en")),
        charts.tradeoff_figure(swept, recommendation.setting, labels=LABELS),
        charts.window_bar(of_analysis(analysis), labels=LABELS),
    ]


class TestPalette:
    def test_no_two_concepts_share_a_colour(self) -> None:
        assert len(set(PALETTE.values())) == len(PALETTE)

    def test_no_two_concepts_look_alike(self) -> None:
        """'To compress' and 'tokens before' were two oranges: every pair of concepts stays apart (marks aside)."""
        concepts = [
            (name, colour) for name, colour in PALETTE.items() if name not in MARKS and colour.startswith("#")
        ]
        close = [
            (first, second)
            for (first, one), (second, other) in itertools.combinations(concepts, 2)
            if math.dist(rgb(one), rgb(other)) < MIN_DISTANCE
        ]
        assert close == []

    def test_a_window_part_is_drawn_in_its_segments_colour(self) -> None:
        assert WINDOW_PART_COLOURS["span"] == PALETTE["compress"]
        assert {WINDOW_PART_COLOURS[part] for part in ("prefix", "tail", "system")} == {
            PALETTE[part] for part in ("prefix", "tail", "system")
        }

    def test_the_threshold_is_the_only_red(self) -> None:
        assert {name for name, colour in PALETTE.items() if is_red(colour)} == {
            "threshold",
            "threshold_reached",
        }
        assert rgb(PALETTE["threshold_reached"]) == pytest.approx(rgb(PALETTE["threshold"]))


class TestFigures:
    def test_every_concept_is_drawn_in_its_own_colour(self, generated_run: Run) -> None:
        drawn = [(concept, colour) for fig in figures(generated_run) for concept, colour in uses(fig)]
        assert len(drawn) > 15
        for concept, colour in drawn:
            expected = PALETTE[SEGMENT_OF.get(concept, concept)]
            assert colour == expected, concept

    def test_a_segment_colour_means_that_segment(self, generated_run: Run) -> None:
        segment_colours = {PALETTE[segment]: segment for segment in SEGMENTS}
        for fig in figures(generated_run):
            for concept, colour in uses(fig):
                if colour in segment_colours:
                    assert SEGMENT_OF.get(concept, concept) == segment_colours[colour], concept

    def test_the_threshold_is_the_same_red_on_the_window_bar_and_over_the_run(
        self, generated_run: Run
    ) -> None:
        gauge = charts.window_bar(of_analysis(demo_analysis()), labels=LABELS)
        run = figures(generated_run)[2]
        on_gauge = {colour for concept, colour in uses(gauge) if concept == "threshold"}
        over_run = {colour for concept, colour in uses(run) if concept == "threshold"}
        assert on_gauge == over_run == {PALETTE["threshold"]}

    def test_every_heatmap_shades_on_one_scale(self, generated_run: Run) -> None:
        swept = generated_run[1]
        scales = {
            str(charts.heatmap_figure(swept, metric, labels=LABELS).data[0].colorscale)
            for metric in charts.HEATMAPS
        }
        assert len(scales) == 1
