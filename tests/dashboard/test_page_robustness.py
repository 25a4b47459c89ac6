"""Every page copes with every shared sample and with odd conversations, and says what to do when empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.state import keys
from tests.conftest import READ_TRANSCRIPTS, TRANSCRIPTS, fixture
from tests.dashboard.conftest import no_exception, texts

SAMPLE_FILES = [fixture(TRANSCRIPTS / name) for name in READ_TRANSCRIPTS]
PAGES = ("views/span.py", "views/compact.py", "views/load.py", "views/dumps.py")

ODD = {
    "only-system.json": [{"role": "system", "content": "rules only"}],
    "no-user.json": [
        {"role": "system", "content": "s"},
        {"role": "assistant", "content": "I start by myself"},
        {"role": "user", "content": "<system-reminder>internal</system-reminder>"},
    ],
    "single.json": [{"role": "user", "content": "你好，压缩一下上下文"}],
    "parts.json": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}],
        },
        {"role": "assistant", "content": None, "usage_metadata": {"total_tokens": 900}},
        {"role": "user", "content": "again"},
    ],
}


def load_and_visit(at: AppTest, name: str, data: bytes) -> AppTest:
    at.switch_page("views/load.py").run()
    at.file_uploader(key=keys.W_UPLOAD).set_value((name, data, "application/octet-stream")).run()
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    for page in PAGES:
        at.switch_page(page).run()
        no_exception(at)
    return at


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_every_shared_transcript_loads_and_every_page_renders(app: AppTest, path: Path) -> None:
    at = load_and_visit(app, path.name, path.read_bytes())
    at.switch_page("views/compact.py").run()
    at.toggle(key=keys.W_FORCE).set_value(True).run()
    at.button(key=keys.page_widget("compact", "run")).click().run()
    no_exception(at)
    result = at.session_state[keys.K_LIVE_RESULT][1]
    if result.status in ("compacted", "no_benefit"):
        assert {m.label for m in at.metric} >= {"Context messages before", "Context messages after"}
    else:  # nothing saved: no savings shown, only the headline
        assert "Saved" not in {m.label for m in at.metric}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_conversations_render_on_every_page(app: AppTest, name: str) -> None:
    at = load_and_visit(app, name, json.dumps(ODD[name], ensure_ascii=False).encode())
    at.switch_page("views/compact.py").run()
    at.toggle(key=keys.W_FORCE).set_value(True).run()
    at.button(key=keys.page_widget("compact", "run")).click().run()
    no_exception(at)


def test_a_conversation_without_a_user_request_is_shown_as_unanchored(app: AppTest) -> None:
    at = load_and_visit(app, "no-user.json", json.dumps(ODD["no-user.json"]).encode())
    at.switch_page("views/span.py").run()
    assert any("belong to no span" in w.value for w in at.warning)


def test_reported_usage_is_named_as_the_source_of_the_total(app: AppTest) -> None:
    at = load_and_visit(app, "parts.json", json.dumps(ODD["parts.json"]).encode())
    at.switch_page("views/span.py").run()
    assert "comes from reported usage: message #1 of system + context reported 900 tokens" in texts(at)


class TestEmptyStates:
    def cleared(self, app: AppTest) -> AppTest:
        app.switch_page("views/load.py").run()
        app.button(key=keys.page_widget("load", "clear")).click().run()
        no_exception(app)
        assert "Nothing is loaded" in texts(app)
        return app

    @pytest.mark.parametrize(
        ("page", "message"),
        [
            ("views/span.py", "No conversation is loaded. Open the Load page"),
            ("views/compact.py", "No conversation is loaded. Open the Load page first."),
        ],
    )
    def test_pages_without_a_conversation_say_what_to_do(self, app: AppTest, page: str, message: str) -> None:
        at = self.cleared(app)
        at.switch_page(page).run()
        no_exception(at)
        assert any(i.value.startswith(message) for i in at.info)
        assert at.get("page_link"), "an empty state links to the Load page"

    def test_a_sample_brings_a_conversation_back(self, app: AppTest) -> None:
        at = self.cleared(app)
        at.button(key=keys.page_widget("load", "open_sample")).click().run()
        no_exception(at)
        assert at.selectbox(key=keys.W_CONVERSATION).value == "sample:demo-conversation.json#0"
