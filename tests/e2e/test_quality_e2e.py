"""What a compaction kept, in Chromium: Dump review on openJiuwen's own sample dumps (uploaded as a zip) answers
"what did it forget?" in one click — the lost items, dump by dump, and the chosen dump's retention badge."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from compressor.quality import score_dumps
from tests.e2e.test_dashboard_e2e import assert_no_exception, go, open_app, screenshot, wait_idle

SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "samples" / "openjiuwen-dumps"


@pytest.fixture
def app(page: Any, dashboard_url: str) -> Iterator[Any]:
    open_app(page, dashboard_url)
    yield page
    assert_no_exception(page)


@pytest.fixture
def samples_zip(tmp_path: Path) -> Path:
    """openJiuwen's three sample dump folders, with their debug logs, as one zip."""
    archive = tmp_path / "openjiuwen-dumps.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in sorted(SAMPLES.rglob("*")):
            if path.is_file():
                out.write(path, path.relative_to(SAMPLES).as_posix())
    return archive


def lost_items() -> list[str]:
    """What the library says each sample dump's summary lost."""
    report = score_dumps(SAMPLES)
    return [
        item.text
        for scored in report.compactions
        if scored.retention is not None
        for items in scored.retention.lost().values()
        for item in items
    ]


class TestWhatItForgot:
    def test_openjiuwens_sample_dumps_show_their_lost_items_after_one_click(
        self, app: Any, samples_zip: Path
    ) -> None:
        lost = lost_items()
        assert lost == ["grep"]  # the compact001 summary names neither the tool nor its call
        go(app, "Dump review", "Dump review")
        app.get_by_text("uploaded files", exact=True).click()
        uploader = app.locator('[data-testid="stFileUploader"]')
        uploader.locator('input[type="file"]').set_input_files(str(samples_zip))
        expect(app.get_by_text("3 of 3 dumps", exact=False).first).to_be_visible()
        wait_idle(app)
        badge = app.get_by_text("What the summary kept:", exact=False).first
        expect(badge).to_be_visible()  # beside the chosen dump's before → after numbers
        panel = app.locator('[data-testid="stExpander"]', has_text="What each dump forgot")
        panel.locator("summary").click()  # the one click
        expect(panel.get_by_text("items lost in all: 1.", exact=False)).to_be_visible()
        grid = panel.locator('[data-testid="stDataFrame"]')
        expect(grid.locator('[role="gridcell"]', has_text="grep")).to_have_count(1)
        screenshot(app, "dumps-kept")
