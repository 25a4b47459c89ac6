"""Every page at 1440×900 and at 800×1000 in Chromium, opened by its own address: no metric or button cut short
(element widths), no two chart labels on one another (their boxes), no "None" written by the page, the sidebar
collapsed on the narrow screen; and one window total for one moment on Span & trigger, Live, Tune and Demo."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from compressor.analysis import analyze
from compressor.config import CurrentRoundCompressorConfig
from compressor.formats import load_conversation
from compressor.replay import simulate
from dashboard.app import CONVERSATION_PAGES, RUN_PAGES
from dashboard.i18n import translate
from dashboard.settings import DEFAULTS
from tests.e2e.conftest import ARTIFACTS, new_page
from tests.e2e.test_dashboard_e2e import (
    DEMO,
    EXCEPTION,
    assert_no_exception,
    demo_decision,
    go,
    step_slider_to,
    wait_idle,
)

pytestmark = pytest.mark.e2e

VIEWPORTS = {"wide": (1440, 900), "narrow": (800, 1000)}
#: Text the page itself writes, checked for cut-off: metric labels and numbers, and every button's label.
CUT_TEXT = """() => {
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && box.right > 0 && box.left < window.innerWidth;
  };
  const selectors = [
    '[data-testid="stMetricValue"] > div', '[data-testid="stMetricLabel"] p',
    'button', 'button p', '[data-testid="stMarkdownContainer"] h1',
  ];
  return [...document.querySelectorAll(selectors.join(', '))]
    .filter(shown)
    .filter((el) => el.scrollWidth > el.clientWidth + 1)
    .map((el) => `${el.tagName} "${el.innerText.slice(0, 40)}" ${el.scrollWidth}>${el.clientWidth}`);
}"""
#: Pairs of chart labels (annotations) whose boxes meet, chart by chart.
OVERLAPS = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].flatMap((chart) => {
  const boxes = [...chart.querySelectorAll('g.annotation')]
    .map((a) => [a.textContent, a.getBoundingClientRect()])
    .filter(([, box]) => box.width > 0);
  const met = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, p] = boxes[i], [b, q] = boxes[j];
    if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) met.push(`${a} / ${b}`);
  }
  return met;
})"""
#: "None" the page wrote itself (message content in code blocks and tables is the conversation's, left out).
NONE_WRITTEN = """() => {
  const main = document.querySelector('[data-testid="stMain"]').cloneNode(true);
  main.querySelectorAll('[data-testid="stCode"], [data-testid="stJson"], pre, code').forEach((el) => el.remove());
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  const text = main.textContent + ' ' + (sidebar ? sidebar.textContent : '');
  return (text.match(/.{0,30}\\bNone\\b.{0,30}/g) || []);
}"""
CHARTS_DRAWN = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
  .every((chart) => chart.querySelector('.main-svg')) && !document.querySelector('[data-testid="stSkeleton"]')"""


def pages() -> list[tuple[str, str, str]]:
    return [*CONVERSATION_PAGES, *RUN_PAGES]


@pytest.fixture(params=list(VIEWPORTS), ids=list(VIEWPORTS))
def sized(request: pytest.FixtureRequest, browser: Any) -> Iterator[tuple[str, Any]]:
    width, height = VIEWPORTS[request.param]
    opened = new_page(browser, width, height)
    yield request.param, opened
    opened.context.close()


def settle(page: Any) -> None:
    wait_idle(page)
    page.wait_for_function(CHARTS_DRAWN)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


class TestEveryPageOnEveryScreen:
    def test_nothing_is_cut_overlapped_or_none(self, sized: tuple[str, Any], dashboard_url: str) -> None:
        name, page = sized
        problems: dict[str, Any] = {}
        for file, title_key, url_path in pages():
            page.goto(f"{dashboard_url}/{url_path}")  # each page opens by its own address
            expect(page.get_by_role("heading", level=1)).to_be_visible()
            settle(page)
            assert_no_exception(page)
            found = {
                "cut": page.evaluate(CUT_TEXT),
                "overlapping labels": page.evaluate(OVERLAPS),
                "None": page.evaluate(NONE_WRITTEN),
                # the default page is served at the root; its own address must open it, not "Page not found"
                "not found": page.get_by_text("Page not found").all_inner_texts(),
            }
            problems.update({f"{url_path} {kind}": found[kind] for kind in found if found[kind]})
            page.screenshot(path=str(ARTIFACTS / "screenshots" / f"{url_path}-{name}.png"), full_page=True)
            del file, title_key
        assert problems == {}

    def test_the_sidebar_starts_collapsed_on_a_narrow_screen_only(
        self, sized: tuple[str, Any], dashboard_url: str
    ) -> None:
        name, page = sized
        page.goto(f"{dashboard_url}/")
        expect(page.get_by_text(demo_decision(), exact=True)).to_be_visible()
        sidebar = page.locator('[data-testid="stSidebar"]')
        expect(sidebar).to_have_attribute("data-collapsed", "true" if name == "narrow" else "false")
        if name == "narrow":  # the reader can still open it, and the choice is kept
            page.locator('[data-testid="stExpandSidebarButton"]').click()
            expect(sidebar).to_have_attribute("data-collapsed", "false")
            page.reload()
            expect(page.get_by_text(demo_decision(), exact=True)).to_be_visible()
            expect(sidebar).to_have_attribute("data-collapsed", "false")


def metric_value(page: Any, label: str) -> Any:
    card = page.locator('[data-testid="stMetric"]').filter(
        has=page.locator('[data-testid="stMetricLabel"]', has_text=re.compile(f"^{re.escape(label)}$"))
    )
    expect(card).to_have_count(1)
    return card.locator('[data-testid="stMetricValue"]')


def metric(page: Any, label: str) -> str:
    return str(metric_value(page, label).inner_text()).strip()


class TestOneWindowTotal:
    def test_the_same_moment_shows_the_same_window_total_on_every_page(
        self, page: Any, dashboard_url: str
    ) -> None:
        conversation = load_conversation(DEMO)
        analysis = analyze(conversation, CurrentRoundCompressorConfig(), context_max=DEFAULTS.context_max)
        run = simulate(
            conversation,
            CurrentRoundCompressorConfig(),
            context_max=DEFAULTS.context_max,
            summary="ratio:0.1",
        )
        (event,) = run.events
        number = next(n for n, step in enumerate(run.steps, start=1) if step.index == event.index)
        step = run.steps[number - 1]

        page.goto(f"{dashboard_url}/")
        expect(page.get_by_text(demo_decision(), exact=True)).to_be_visible()
        # after the conversation's last message: Span & trigger and Live compaction read the same window
        assert metric(page, "Window total") == f"{analysis.total_tokens:,}"
        go(page, "Live compaction", "Live compaction")
        assert metric(page, "Window total") == f"{analysis.total_tokens:,}"
        # at the model call that compacts: Tune's compaction table and Demo's step read the same window
        go(page, "Tune", "Tune")
        table = page.locator('[data-testid="stDataFrame"]').first
        # the grid's accessible cells hold the value itself; the canvas draws it "13,320" (test_headers checks
        # every whole-number column is formatted with separators)
        expect(
            table.locator('[role="gridcell"]', has_text=re.compile(f"^{step.context_tokens}$"))
        ).to_have_count(1)
        expect(table.locator('[role="columnheader"]', has_text="Window total")).to_have_count(1)
        go(page, "Demo", "Demo")
        step_slider_to(page, page.get_by_role("slider", name="Model call"), number)
        # read at once, not waited for: the step's own run is drawn by now (step_slider_to awaits each press's)
        assert metric(page, "Window total") == f"{step.context_tokens:,}"
        # the two moments are labelled as the moments they are
        where = f"Model call {number} of {len(run.steps)} · message #{step.index}"
        assert page.get_by_text(where, exact=False).is_visible()
        # and, before any compaction, a call's window is what Span & trigger reads for the messages before it
        before = analyze(
            conversation.with_messages(conversation.messages[: step.index]), context_max=DEFAULTS.context_max
        )
        assert before.total_tokens == step.context_tokens
        assert page.locator(EXCEPTION).count() == 0
        assert translate("en", "breakdown.at_call", index=step.index) != translate(
            "en", "breakdown.now", index=len(conversation.messages) - 1, messages="x"
        )
