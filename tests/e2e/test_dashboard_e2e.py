"""The dashboard in a real headless Chromium, served by ``streamlit run`` on 127.0.0.1 (issue 4's acceptance).

Every page opens without an exception; the trigger slider moved by keyboard changes the decision; a sample
uploads and shows its format; an offline compaction shows what it saved; the demo dumps are listed; the UI
switches to 简体中文; user content holding HTML runs no script. Screenshots go to tests/e2e/artifacts/screenshots/ (docs/screenshots/ with make screenshots).
Each test waits on a condition in the page (text, attribute, selector), never on a fixed delay.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from compressor.analysis import analyze
from compressor.config import CurrentRoundCompressorConfig
from compressor.dumps import index_dumps
from compressor.formats import load_conversation, load_conversations
from compressor.replay import Simulation, simulate
from dashboard import roots, run_marker
from dashboard.app import CONVERSATION_PAGES, RUN_PAGES
from dashboard.i18n import EN, counted, explain, translate
from dashboard.settings import DEFAULTS
from dashboard.state import keys, replays
from tests.e2e.conftest import CONDITION_TIMEOUT_MS, SCREENSHOTS

pytestmark = pytest.mark.e2e

DEMO = roots.SAMPLES_DIR / "demo-conversation.json"
TRAJ = roots.SAMPLES_DIR / "swe-agent-function-calling.traj"
DEMO_DUMPS = roots.PROJECT_DIR / "dumps" / "demo"
PAYLOAD = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
PAYLOAD_FILE = "x<img src=x onerror=window.__pwned=3>.json"
#: Screenshots are cut at this height (a long page is still readable in the README).
SHOT_MAX_HEIGHT = 3200

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
EXCEPTION = '[data-testid="stException"]'
NAV_LINK = '[data-testid="stSidebarNav"] a'
#: Whether the app is idle and has drawn a run numbered above ``before`` (``dashboard.run_marker``'s numbers).
RAN_SINCE = """({before, attribute, idle}) => document.querySelector(idle) !== null
  && Math.max(0, ...[...document.querySelectorAll(`[${attribute}]`)].map((m) => Number(m.getAttribute(attribute))))
     > before"""
LAST_RUN = """(attribute) => Math.max(0,
  ...[...document.querySelectorAll(`[${attribute}]`)].map((m) => Number(m.getAttribute(attribute))))"""


# -- what the pages should show, from the library and the string tables ----------------------------


def demo_decision(trigger: float = DEFAULTS.trigger_context_ratio, language: str = "en") -> str:
    """The decision sentence the Span page shows for the demo under the default settings and ``trigger``."""
    config = CurrentRoundCompressorConfig().with_settings(trigger_context_ratio=trigger)
    analysis = analyze(load_conversation(DEMO), config, context_max=DEFAULTS.context_max)
    return explain(analysis.decision, language)


def demo_replay() -> Simulation:
    """The run the Demo page plays back under the default settings and the default summary size."""
    summary = f"ratio:{replays.TUNE_DEFAULTS[keys.W_SUMMARY_RATIO]:g}"
    return simulate(
        load_conversation(DEMO),
        CurrentRoundCompressorConfig(),
        context_max=DEFAULTS.context_max,
        summary=summary,
    )


def pages() -> list[tuple[str, str, str]]:
    """(file, title key, url path) of every page the app registers, in navigation order."""
    return [*CONVERSATION_PAGES, *RUN_PAGES]


def stem(file: str) -> str:
    return Path(file).stem


def demo_dump_count() -> int:
    return len(index_dumps(DEMO_DUMPS).dumps)


def key_text(file: str) -> str | None:
    """A sentence that shows the page rendered its content (None: only its heading is checked)."""
    shipped = demo_dump_count()
    return {
        "views/load.py": translate("en", "load.current", name=DEMO.name, format="openjiuwen"),
        "views/span.py": demo_decision(),
        "views/compact.py": translate("en", "compact.not_run"),
        "views/dumps.py": translate(
            "en",
            "dumps.count",
            shown=f"{shipped:,}",
            total=counted(shipped, "dump", "en"),
            folders="1 folder",
        ),
    }.get(file)


def heading(file: str, title_key: str, language: str = "en") -> str:
    """The page's h1: its ``<page>.title`` string when there is one, else its navigation label."""
    key = f"{stem(file)}.title"
    return translate(language, key if key in EN else title_key)


# -- driving the page -------------------------------------------------------------------------------


def wait_idle(page: Any) -> None:
    """Until no script run is going on. It cannot tell whether the run an interaction asks for has begun (the
    browser sends the request, the server starts the run later): after a click, a key press or a typed value use
    ``after_rerun``; this one only once the interaction's effect shows."""
    page.wait_for_selector(IDLE)


def last_run(page: Any) -> int:
    """The number of the latest script run drawn on the page (0 before the first)."""
    return int(page.evaluate(LAST_RUN, run_marker.ATTRIBUTE))


def after_rerun(page: Any, action: Callable[[], object], timeout_ms: float = CONDITION_TIMEOUT_MS) -> None:
    """Do ``action``, which must start a script run (a click, a key press, a value typed and entered), and wait until
    a run that began after it has finished and is drawn: the app numbers every run on the page (``run_marker``).

    Only for an action that reruns the app: one that does not (a focus, a tab, an unchanged value) fails here. An
    action whose run starts another (st.rerun, st.switch_page) may return after the first: await the effect too."""
    before = last_run(page)
    action()
    try:
        page.wait_for_function(
            RAN_SINCE,
            arg={"before": before, "attribute": run_marker.ATTRIBUTE, "idle": IDLE},
            timeout=timeout_ms,
        )
    except PlaywrightTimeoutError:
        state = page.locator('[data-testid="stApp"]').get_attribute("data-test-script-state")
        raise AssertionError(
            f"no script run began and finished within {timeout_ms / 1000:g} s of the action: the page shows run "
            f"{last_run(page)} (run {before} before it), script state {state!r}; does this action rerun the app?"
        ) from None


def step_slider_to(page: Any, slider: Any, value: int) -> None:
    """Move an integer slider to ``value`` with the arrow keys, each press's rerun drawn before the next press
    (a press sent during a rerun could be dropped), and check it holds it."""
    current = int(slider.get_attribute("aria-valuetext") or 0)
    for _ in range(abs(value - current)):
        slider.focus()
        after_rerun(page, lambda: page.keyboard.press("ArrowRight" if current < value else "ArrowLeft"))
    expect(slider).to_have_attribute("aria-valuetext", str(value))


def assert_no_exception(page: Any) -> None:
    expect(page.locator(EXCEPTION)).to_have_count(0)


def open_app(page: Any, url: str) -> None:
    """The app's root address (never a page's own address: Streamlit would probe <path>/_stcore/health)."""
    page.goto(f"{url}/")
    expect(page.get_by_text(demo_decision(), exact=True)).to_be_visible()
    wait_idle(page)


def go(page: Any, label: str, title: str) -> None:
    """Open another page through its sidebar link, wait for its run and check its heading."""
    link = page.locator(NAV_LINK, has_text=re.compile(f"^{re.escape(label)}$"))
    after_rerun(page, link.click)
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()


def screenshot(page: Any, name: str) -> Path:
    """The whole page (up to SHOT_MAX_HEIGHT) once its script run, charts and placeholders are done."""
    wait_idle(page)
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
                   .every(chart => chart.querySelector('.main-svg'))
              && !document.querySelector('[data-testid="stSkeleton"]')"""
    )
    viewport = page.viewport_size
    content = page.evaluate(
        """() => Math.max(...[...document.querySelectorAll('[data-testid="stMain"], [data-testid="stSidebarContent"]')]
                   .map(element => element.scrollHeight))"""
    )
    page.set_viewport_size(
        {"width": viewport["width"], "height": min(max(content, viewport["height"]), SHOT_MAX_HEIGHT)}
    )
    try:
        page.evaluate(  # from the top, once the resized layout has been painted
            """() => new Promise(done => {
                document.querySelector('[data-testid="stMain"]').scrollTo(0, 0);
                requestAnimationFrame(() => requestAnimationFrame(done));
            })"""
        )
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path))
    finally:
        page.set_viewport_size(viewport)
    return path


@pytest.fixture
def app(page: Any, dashboard_url: str) -> Iterator[Any]:
    """A fresh browser session on the app, first run done (the Span & trigger page on the demo)."""
    open_app(page, dashboard_url)
    yield page
    assert_no_exception(page)


# -- the tests --------------------------------------------------------------------------------------

#: Pages whose screenshot a scenario below takes in a more telling state than right after opening.
SCENARIO_SHOTS = {"load", "compact", "dumps", "demo"}


class TestEveryPage:
    def test_each_page_opens_from_the_sidebar_without_an_exception(self, app: Any) -> None:
        specs = pages()
        labels = [translate("en", title_key) for _, title_key, _ in specs]
        expect(app.locator(NAV_LINK)).to_have_text(labels)  # the navigation lists every page, in order
        for file, title_key, _ in specs:
            go(app, translate("en", title_key), heading(file, title_key))
            text = key_text(file)
            if text is not None:
                expect(app.get_by_text(text, exact=True).first).to_be_visible()
            assert_no_exception(app)
            if stem(file) not in SCENARIO_SHOTS:
                screenshot(app, stem(file))
        assert app.console_errors == []


class TestTriggerSlider:
    def test_keys_move_the_ratio_and_the_decision_follows(self, app: Any) -> None:
        slider = app.get_by_role("slider", name="trigger_context_ratio")
        expect(slider).to_have_attribute("aria-valuetext", f"{DEFAULTS.trigger_context_ratio:.2f}")
        for key, ratio in [("End", 0.99), ("ArrowLeft", 0.98), ("Home", 0.05), ("ArrowRight", 0.06)]:
            slider.focus()
            after_rerun(app, partial(app.keyboard.press, key))
            expect(slider).to_have_attribute("aria-valuetext", f"{ratio:.2f}")
            expect(app.get_by_text(demo_decision(ratio), exact=True)).to_be_visible()
            expect(app).to_have_url(re.compile(rf"[?&]trigger={ratio:g}(&|$)"))

    def test_the_demo_fires_at_first_and_not_at_099(self) -> None:
        assert demo_decision().startswith("Compaction fires: ")
        assert re.fullmatch(r"No compaction: .* below the threshold of [\d,]+\.", demo_decision(0.99))


class TestUpload:
    def test_a_sample_uploads_and_shows_its_detected_format(self, app: Any) -> None:
        go(app, "Load", "Load conversations")
        uploader = app.locator('[data-testid="stFileUploader"]')
        expect(uploader).to_contain_text("200MB per file")  # the server's maxUploadSize from config.toml
        uploader.locator('input[type="file"]').set_input_files(str(TRAJ))
        (conversation,) = load_conversations(TRAJ.read_bytes(), name=TRAJ.name)
        fmt = conversation.source_format
        loaded = translate("en", "load.ok", file=TRAJ.name, conversations="1 conversation", format=fmt)
        expect(app.get_by_text(loaded, exact=True)).to_be_visible()
        current = translate("en", "load.current", name=TRAJ.name, format=fmt)
        expect(app.get_by_text(current, exact=True)).to_be_visible()
        picker = app.locator('[data-testid="stSidebar"]').get_by_role("combobox", name="Conversation")
        expect(picker).to_have_value(TRAJ.name)  # and it is the sidebar's current conversation
        screenshot(app, "load")


class TestScriptPayload:
    def test_html_in_content_and_file_names_is_shown_as_text_and_never_runs(self, app: Any) -> None:
        go(app, "Load", "Load conversations")
        document = {
            "messages": [{"role": "user", "content": PAYLOAD}, {"role": "assistant", "content": "ok"}]
        }
        app.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
            files=[
                {
                    "name": PAYLOAD_FILE,
                    "mimeType": "application/json",
                    "buffer": json.dumps(document).encode(),
                }
            ]
        )
        loaded = translate(
            "en", "load.ok", file=PAYLOAD_FILE, conversations="1 conversation", format="openai"
        )
        expect(app.get_by_text(loaded, exact=True)).to_be_visible()  # the name, as written, in an alert
        current = translate("en", "load.current", name=PAYLOAD_FILE, format="openai")
        expect(app.get_by_text(current, exact=True)).to_be_visible()
        self.assert_nothing_ran(app)
        go(app, "Span & trigger", "Span & trigger")
        expect(app.locator('[data-testid="stCode"]').filter(has_text=PAYLOAD)).to_have_count(1)
        self.assert_nothing_ran(app)

    @staticmethod
    def assert_nothing_ran(app: Any) -> None:
        wait_idle(app)
        assert app.evaluate("() => typeof window.__pwned") == "undefined"
        assert app.locator('img[src="x"]').count() == 0  # no element was made from the payload
        scripts = "() => [...document.scripts].some(script => script.textContent.includes('__pwned'))"
        assert app.evaluate(scripts) is False


class TestOfflineCompaction:
    def test_a_run_shows_what_it_saved_and_offers_the_downloads(self, app: Any) -> None:
        go(app, "Live compaction", "Live compaction")
        app.get_by_role("button", name="Run compaction").click()
        headline = re.compile(r"^Compacted \d+ messages: [\d,]+ → [\d,]+ context tokens \([\d.]+% saved\)\.$")
        expect(app.get_by_text(headline)).to_be_visible()
        saved = app.locator('[data-testid="stMetric"]').filter(has_text="Saved")
        expect(saved).to_contain_text(re.compile(r"\d+\.\d%"))
        chart = app.locator('[data-testid="stPlotlyChart"]').filter(has_text="memory block")
        expect(chart).to_contain_text("compressed span")  # the before/after stacked bars
        screenshot(app, "compact")
        with app.expect_download() as download:
            app.get_by_role("button", name="Compacted conversation (openJiuwen JSON)").click()
        compacted = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert compacted["messages"], "the compacted conversation holds its messages"


class TestDemo:
    def test_the_compaction_mid_run_shows_what_replaced_what(self, app: Any) -> None:
        run = demo_replay()
        (event,) = run.events
        number = next(n for n, step in enumerate(run.steps, start=1) if step.index == event.index)
        last = run.steps[number - 1]
        assert event.status == "compacted" and number < len(run.steps)  # the agent goes on after it
        go(app, "Demo", "Demo")
        step = app.get_by_role("slider", name="Model call")
        expect(step).to_have_attribute("aria-valuetext", "1")
        step_slider_to(app, step, number)
        crossed = translate(
            "en",
            "demo.caption.compacted",
            tokens=last.context_tokens,
            threshold=last.threshold,
            count=event.span[1],
        )
        expect(app.get_by_text(crossed, exact=True)).to_be_visible()
        replaced = translate(
            "en",
            "demo.caption.replaced",
            compress=event.compress_tokens,
            memory=event.memory_tokens,
            before=last.context_tokens,
            after=last.sent_tokens,
        )
        expect(app.get_by_text(replaced, exact=True)).to_be_visible()
        bars = app.locator('[data-testid="stPlotlyChart"]').filter(has_text="memory block")
        expect(bars).to_contain_text("preserved prefix")  # the before/after stacked bars
        expect(bars).to_contain_text("protected tail")
        screenshot(app, "demo")


class TestDumpReview:
    def test_the_demo_dumps_are_listed_and_the_newest_shown(self, app: Any) -> None:
        dumps = sorted(index_dumps(DEMO_DUMPS).dumps, key=lambda row: row["timestamp"], reverse=True)
        go(app, "Dump review", "Dump review")
        expect(
            app.get_by_text(f"{len(dumps)} of {len(dumps)} dumps shown, in 1 folder", exact=True)
        ).to_be_visible()
        table = app.locator('[data-testid="stDataFrame"]').first
        for row in dumps:  # the grid's accessible cells, one row per dump
            expect(
                table.locator('[role="gridcell"]', has_text=re.compile(f"^{row['tokens_before']}$"))
            ).to_have_count(1)
        newest = dumps[0]
        metrics = app.locator('[data-testid="stMetric"]')
        expect(metrics.filter(has_text="Context messages before")).to_contain_text(
            f"{newest['tokens_before']:,}"
        )
        expect(metrics.filter(has_text="Context messages after")).to_contain_text(
            f"{newest['tokens_after']:,}"
        )
        screenshot(app, "dumps")


class TestChinese:
    def test_the_language_switch_turns_the_ui_to_simplified_chinese(self, app: Any) -> None:
        app.locator('[data-testid="stSidebar"] label', has_text="简体中文").click()
        expect(app.get_by_role("heading", name="分段与触发", level=1)).to_be_visible()
        expect(app.get_by_text(demo_decision(language="zh"), exact=True)).to_be_visible()
        expect(app.locator(NAV_LINK)).to_have_text([translate("zh", key) for _, key, _ in pages()])
        expect(app).to_have_url(re.compile(r"[?&]lang=zh(&|$)"))
        screenshot(app, "zh")


class TestLocalOnly:
    def test_the_server_listens_on_loopback_only(self, dashboard_url: str) -> None:
        port = int(dashboard_url.rsplit(":", 1)[1])
        assert listening_addresses(port) == {"127.0.0.1"}


def listening_addresses(port: int) -> set[str]:
    """The local addresses of the sockets listening on ``port`` (Linux's /proc/net tables)."""
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        pytest.skip("no /proc/net/tcp on this system")
    found: set[str] = set()
    for table in tables:
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(_address(address))
    return found


def _address(hex_address: str) -> str:
    raw = bytes.fromhex(hex_address)
    if len(raw) == 4:
        return ".".join(str(byte) for byte in reversed(raw))
    words = [raw[i : i + 4][::-1] for i in range(0, 16, 4)]  # four little-endian 32-bit words
    return str(ipaddress.IPv6Address(b"".join(words)))
