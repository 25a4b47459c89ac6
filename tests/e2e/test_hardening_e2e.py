"""The dashboard's hardening in Chromium, against a server with an endpoint and a key of its own: the key reaches
only that endpoint (two sessions, one typing a URL), a zip holding one 190 MB message and a reply inflating to 1 GB
leave the server up and another session working, and a session's temporary folder goes when the session ends."""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from dashboard.sources import MAX_MESSAGE_CHARS
from dashboard.state import scratch
from tests.conftest import OPENJIUWEN_DUMPS
from tests.e2e.conftest import SERVER_KEY, Served, healthy, new_page
from tests.e2e.test_dashboard_e2e import after_rerun, assert_no_exception, demo_decision, go, wait_idle
from tests.support.hostile_server import HostileServer, gzip_bomb
from tests.support.openai_server import ScriptedServer

pytestmark = pytest.mark.e2e

SNAPSHOT = "<state_snapshot>\n### 1. Active task\nnoted\n</state_snapshot>"
#: How long a released session may take to lose its folder (Streamlit releases it when the socket closes).
RELEASE_SECONDS = 30.0


def opened(browser: Any, served: Served) -> Any:
    page = new_page(browser, 1440, 900)
    page.goto(f"{served.url}/")
    expect(page.get_by_text(demo_decision(), exact=True)).to_be_visible()
    wait_idle(page)
    return page


def live_openai(page: Any) -> None:
    go(page, "Live compaction", "Live compaction")
    after_rerun(page, page.get_by_text("OpenAI-compatible endpoint", exact=True).click)


def own_endpoint(page: Any) -> None:
    """Untick "Use the server's endpoint": once its run is drawn, only the visitor's form is on the page."""
    after_rerun(page, page.get_by_text("Use the server's endpoint").click)
    assert page.get_by_placeholder("server-model").count() == 0  # the server's form went with that run


def enter(page: Any, field: Any, text: str) -> None:
    """Type ``text`` into a text field and press Enter, which reruns the app with it."""
    field.fill(text)
    after_rerun(page, partial(field.press, "Enter"))


def run_compaction(page: Any) -> None:
    after_rerun(page, page.get_by_role("button", name="Run compaction").click)
    expect(
        page.locator('[data-testid="stAlert"]').filter(has_text=re.compile("^(Compacted|Compaction failed)"))
    ).to_have_count(1)


class TestServerKey:
    def test_the_servers_key_reaches_its_own_endpoint_and_never_a_visitors(
        self, browser: Any, served: Served
    ) -> None:
        own_before = len(served.own.requests)
        first = opened(browser, served)  # the server's own endpoint
        live_openai(first)
        expect(first.get_by_text("Use the server's endpoint")).to_be_visible()
        run_compaction(first)
        assert len(served.own.requests) == own_before + 1
        assert served.own.requests[-1].headers["authorization"] == f"Bearer {SERVER_KEY}"

        with ScriptedServer([SNAPSHOT]) as visitor:  # the second session names an endpoint of its own
            second = opened(browser, served)
            live_openai(second)
            own_endpoint(second)
            enter(second, second.get_by_label("Base URL"), visitor.url)
            enter(second, second.get_by_label("Model name"), "visitor-model")
            expect(second.get_by_text("A URL you type needs a key you type", exact=False)).to_be_visible()
            run_compaction(second)
        (request,) = visitor.requests
        assert "authorization" not in request.headers  # no key typed: none sent, and never the server's
        assert SERVER_KEY not in json.dumps(request.headers) + request.raw.decode("utf-8", "replace")
        assert len(served.own.requests) == own_before + 1
        for page in (first, second):
            assert SERVER_KEY not in page.content()
            assert served.own.url not in page.content()  # the server's endpoint is not shown either
            assert_no_exception(page)
            page.context.close()


def huge_zip() -> bytes:
    """194 KB of zip holding one 190 MB message (a hostile upload that once took the server to 10 GB)."""
    text = "x" * (190 * 2**20)
    document = json.dumps(
        {"messages": [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]}
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("huge.json", document)
    return buffer.getvalue()


class TestBoundedUploads:
    def test_a_190_mb_message_is_refused_and_another_session_keeps_working(
        self, browser: Any, served: Served
    ) -> None:
        data = huge_zip()
        assert len(data) < 300_000
        uploader, other = opened(browser, served), opened(browser, served)
        go(uploader, "Load", "Load conversations")
        uploader.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
            files=[{"name": "huge.zip", "mimeType": "application/zip", "buffer": data}]
        )
        expect(
            uploader.get_by_text(
                re.compile(r"^huge\.zip/huge\.json: message #0 holds [\d,]+ characters, over the ")
            )
        ).to_be_visible()
        assert f"{MAX_MESSAGE_CHARS:,}" in uploader.locator('[data-testid="stAlert"]').last.inner_text()
        assert healthy(served.url)
        slider = other.get_by_role("slider", name="trigger_context_ratio")  # the other session still answers
        slider.focus()
        other.keyboard.press("End")
        expect(other.get_by_text(demo_decision(0.99), exact=True)).to_be_visible()
        for page in (uploader, other):
            assert_no_exception(page)
            page.context.close()


class TestBoundedReplies:
    def test_a_reply_inflating_to_1_gb_fails_the_run_and_another_session_keeps_working(
        self, browser: Any, served: Served
    ) -> None:
        with HostileServer(gzip_bomb(1024**3)) as bomb:
            runner, other = opened(browser, served), opened(browser, served)
            live_openai(runner)
            own_endpoint(runner)
            enter(runner, runner.get_by_label("Base URL"), bomb.url)
            enter(runner, runner.get_by_label("Model name"), "bomb-model")
            enter(runner, runner.get_by_role("textbox", name="API key"), "sk-visitor-typed-0123456789")
            run_compaction(runner)
            assert bomb.calls >= 1  # the reply was really sent: decompression stopped at the cap each time
        expect(
            runner.get_by_text(re.compile(r"^Compaction failed after \d+ calls: the reply of"))
        ).to_be_visible()
        assert healthy(served.url)
        slider = other.get_by_role("slider", name="trigger_context_ratio")  # the other session still answers
        slider.focus()
        other.keyboard.press("End")
        expect(other.get_by_text(demo_decision(0.99), exact=True)).to_be_visible()
        for page in (runner, other):
            assert_no_exception(page)
            page.context.close()


def session_folders(served: Served) -> set[Path]:
    return {
        folder
        for server in served.temp.glob(f"{scratch.SERVER_PREFIX}*")
        for folder in server.iterdir()
        if folder.name.startswith("session-")
    }


class TestSessionFolders:
    def test_when_a_session_ends_its_temporary_folder_is_gone(self, browser: Any, served: Served) -> None:
        before = session_folders(served)
        page = opened(browser, served)
        go(page, "Dump review", "Dump review")
        page.get_by_text("uploaded files", exact=True).click()
        folder = OPENJIUWEN_DUMPS / "compact015"
        page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
            [str(path) for path in sorted(folder.iterdir())]
        )
        expect(page.get_by_text("1 of 1 dump shown, in 1 folder", exact=True)).to_be_visible()
        (made,) = session_folders(served) - before
        assert list(made.rglob("*.json")), "the uploaded dump is in the session's folder"
        page.context.close()  # the session ends: its socket closes
        deadline = time.monotonic() + RELEASE_SECONDS
        while made.exists() and time.monotonic() < deadline:
            time.sleep(0.2)  # polling the server's release of the session, not waiting a fixed time
        assert not made.exists()


class TestSettingsHold:
    def test_fast_reruns_and_page_switches_never_drop_the_settings(
        self, browser: Any, served: Served
    ) -> None:
        page = opened(browser, served)
        slider = page.get_by_role("slider", name="trigger_context_ratio")
        slider.focus()
        # one change the server has taken: a reset to the default shows too
        after_rerun(page, partial(page.keyboard.press, "ArrowLeft"))
        expect(slider).to_have_attribute("aria-valuetext", "0.79")
        for _ in range(3):  # key presses and page switches as fast as a hurried reader makes them, no waiting
            slider.focus()
            for _ in range(4):
                page.keyboard.press("ArrowLeft")
            for label in ("Live compaction", "Tune", "Demo", "Dump review", "Span & trigger"):
                page.locator(
                    '[data-testid="stSidebarNav"] a', has_text=re.compile(f"^{re.escape(label)}$")
                ).click()
            slider = page.get_by_role("slider", name="trigger_context_ratio")
        # Settled by one more page, which the hurried clicks never opened: the server takes the requests in order,
        # so once that page is drawn and the app idle, every press and switch before it has run (an idle app
        # alone may not have begun the last ones yet, and the reload below would find an older address)
        go(page, "Load", "Load conversations")
        wait_idle(page)
        # A press a page switch cuts short may be lost (the browser had not sent it), so the ratio is
        # 0.79 − 0 … 12 × 0.01; what must never happen is a fall to the widget's minimum or back to the default.
        held = float(slider.get_attribute("aria-valuetext") or "nan")
        assert 0.67 <= held <= 0.79, held
        expect(page.get_by_label("context_max (tokens)")).to_have_value("16000")
        expect(page.get_by_text("Capacity used: 16,000 tokens (set explicitly)")).to_be_visible()
        page.reload()
        expect(page.get_by_role("slider", name="trigger_context_ratio")).to_have_attribute(
            "aria-valuetext", f"{held:.2f}"
        )
        expect(page.get_by_label("context_max (tokens)")).to_have_value("16000")
        assert_no_exception(page)
        page.context.close()
