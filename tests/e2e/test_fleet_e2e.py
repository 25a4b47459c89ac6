"""The Fleet page in a real headless Chromium (issue 13's acceptance): a zip holding the 200-conversation
tau-bench file and generated runs is uploaded, the catalog builds behind a progress bar with its counts, the
recommendation is the library's own for the same files, and a run opens on Span & trigger with the fleet's
setting in the sidebar. Every wait is on a condition in the page, never a fixed delay."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from benchmarks.generate import conversation_dicts
from compressor.fleet import DEFAULT_KEEPS, DEFAULT_RATIOS, Catalog, FleetGrid, InlineExecutor, run_fleet
from dashboard import roots
from dashboard.i18n import translate
from tests.conftest import TRANSCRIPTS
from tests.e2e.test_dashboard_e2e import assert_no_exception, go, open_app, screenshot, wait_idle

pytestmark = pytest.mark.e2e

TAU = TRANSCRIPTS / "openai-chat-tau-bench-airline.json"
GENERATED = 40


def fleet_zip(folder: Path) -> Path:
    """The tau-bench file and ``GENERATED`` generated runs, zipped, and the same files unpacked beside it."""
    runs = folder / "runs"
    runs.mkdir()
    (runs / TAU.name).write_bytes(TAU.read_bytes())
    for number in range(GENERATED):
        (runs / f"run-{number:03d}.json").write_text(
            json.dumps(conversation_dicts(120, seed=number)), encoding="utf-8"
        )
    archive = folder / "fleet.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in sorted(runs.iterdir()):
            out.write(path, path.name)
    return archive


def test_a_zip_builds_behind_a_progress_bar_and_a_run_opens_on_span(
    page: Any, dashboard_url: str, tmp_path: Path
) -> None:
    archive = fleet_zip(tmp_path)
    expected = run_fleet(
        [tmp_path / "runs"],
        FleetGrid(ratios=DEFAULT_RATIOS, keeps=DEFAULT_KEEPS, min_targets=(0.1,)),
        Catalog(tmp_path / "catalog"),
        InlineExecutor(),
    )
    assert expected.recommendation.setting is not None
    ratio, keep, target = expected.recommendation.setting

    open_app(page, dashboard_url)
    go(page, translate("en", "nav.fleet"), translate("en", "fleet.title"))
    page.get_by_text(translate("en", "fleet.source.upload"), exact=True).click()
    uploader = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    uploader.set_input_files(str(archive))
    # the page says so once the server holds the whole file (clicking before would build nothing)
    size = roots.size_text(archive.stat().st_size)
    expect(
        page.get_by_text(translate("en", "fleet.upload_ready", name="fleet.zip", size=size))
    ).to_be_visible()
    wait_idle(page)
    page.get_by_role("button", name=translate("en", "fleet.build")).click()

    # the bar shows while the build runs, with its counts, and goes once the fleet is there
    progress = page.locator('[data-testid="stProgress"]')
    expect(progress).to_be_visible()
    expect(page.get_by_role("button", name=translate("en", "fleet.cancel"))).to_be_visible()
    pick = translate("en", "fleet.pick", ratio=f"{ratio:g}", keep=keep, target=f"{target:g}")
    expect(page.get_by_text(pick)).to_be_visible(timeout=180_000)
    expect(progress).to_have_count(0)
    assert_no_exception(page)
    runs = f"{len(expected.runs):,}"
    expect(
        page.locator('[data-testid="stMetric"]', has_text=translate("en", "fleet.metric.runs")).first
    ).to_contain_text(runs)
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible()
    shown = translate("en", "fleet.shown", shown=min(len(expected.runs), 200), total=len(expected.runs))
    expect(page.get_by_text(shown)).to_be_visible()
    screenshot(page, "fleet")

    # the drill-down: the first run of the table opens on Span & trigger with the fleet's setting
    page.get_by_role("button", name=translate("en", "fleet.open.span")).click()
    expect(page.get_by_role("heading", name=translate("en", "nav.span"), level=1)).to_be_visible()
    wait_idle(page)
    assert_no_exception(page)
    expect(page).to_have_url(re.compile(rf"trigger={re.escape(f'{ratio:g}')}(&|$)"))
    expect(page).to_have_url(re.compile(rf"keep={keep}(&|$)"))
