"""The HTML report ``compaction-lab simulate --html`` writes opens in headless Chromium on its own: no
console error, no request leaving the file, and every figure drawn by the inlined plotly.js."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from compressor.cli import main
from compressor.replay.grid import DEFAULT_KEEPS, DEFAULT_RATIOS

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "dashboard" / "samples" / "demo-conversation.json"
#: One context figure, three heatmaps (one min target) and the cost/headroom chart.
FIGURES = 5
DRAWN = """
() => {
  const divs = Array.from(document.querySelectorAll('.plotly-graph-div'));
  // drawn: plotly laid the figure out and put its traces on the plot area (lines, markers or heatmap images)
  return divs.filter((div) => div._fullLayout && div.querySelector('.cartesianlayer .trace, .cartesianlayer .hm image')).length;
}
"""


def write_report(folder: Path) -> Path:
    report = folder / "report.html"
    out, err = io.StringIO(), io.StringIO()
    argv = ["simulate", str(DEMO), "--context-max", "30000", "--summary", "ratio:0.1", "--html", str(report)]
    assert main(argv, out=out, err=err) == 0, err.getvalue()
    return report


class TestReportInTheBrowser:
    def test_opens_offline_and_draws_every_figure(self, page: Any, tmp_path: Path) -> None:
        report = write_report(tmp_path)
        requests: list[str] = []
        page_errors: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.on("pageerror", lambda error: page_errors.append(str(error)))

        page.goto(report.as_uri(), wait_until="load")
        page.wait_for_function(f"({DRAWN})() >= {FIGURES}", timeout=30_000)

        divs = page.evaluate("document.querySelectorAll('.plotly-graph-div').length")
        assert page.evaluate(f"({DRAWN})()") == divs >= FIGURES  # every figure div was drawn
        assert page.console_errors == []
        assert page_errors == []
        assert [url for url in requests if not url.startswith("file:")] == []
        assert page.title().startswith("Compaction report")

    def test_the_heatmaps_hold_the_sweep(self, page: Any, tmp_path: Path) -> None:
        report = write_report(tmp_path)
        page.goto(report.as_uri(), wait_until="load")
        page.wait_for_function(f"({DRAWN})() >= {FIGURES}", timeout=30_000)
        heatmaps = page.evaluate(
            """() => Array.from(document.querySelectorAll('.plotly-graph-div'))
                 .flatMap((div) => div.data.filter((trace) => trace.type === 'heatmap'))
                 .map((trace) => [trace.x.length, trace.y.length])"""
        )
        # The CLI's default grid (plus the config's own ratio 0.8 and keep 0), one heatmap per metric.
        ratios = len(set(DEFAULT_RATIOS) | {0.8})
        keeps = len(set(DEFAULT_KEEPS) | {0})
        assert heatmaps == [[ratios, keeps]] * 3
