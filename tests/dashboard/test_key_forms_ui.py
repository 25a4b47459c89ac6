"""The typed key in any form never reaches the page (issue 15): a hostile endpoint on 127.0.0.1 writes the key back
in each encoding (tests/support/hostile_server.py), in a reply and in an error, and no spelling of it
(tests/support/key_forms.py) is in anything the app sent to the browser, the downloads it offers, or the files of
the session (live dumps and their debug log)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.state import keys
from tests.dashboard.conftest import no_exception, unescaped
from tests.dashboard.test_security_ui import (
    TYPED_KEY,
    TestTypedApiKey,
    choose_openai,
    rendered_except_the_key_field,
    run_compaction,
    session_files,
)
from tests.support.hostile_server import ENCODINGS, HostileServer, echo_key
from tests.support.key_forms import spellings


def live_run(app: AppTest, status: int, encoding: str) -> AppTest:
    app.switch_page("views/compact.py").run()
    with HostileServer(echo_key(encoding, status)) as server:
        choose_openai(app, server.url)
        run_compaction(app)
        assert server.requests and server.requests[0].key == TYPED_KEY  # the key was really in play
    no_exception(app)
    return app


def leaks(at: AppTest) -> dict[str, list[str]]:
    shown = {
        "page": rendered_except_the_key_field(at),
        "url": json.dumps(dict(at.query_params)),
        "result": json.dumps(at.session_state[keys.K_LIVE_RESULT][1].to_dict(), default=str),
    }
    offered = TestTypedApiKey().offered_downloads(at)
    shown.update(
        {
            f"download {number}": data.decode("utf-8", "replace")
            for number, data in enumerate(offered.values())
        }
    )
    shown.update({path.name: path.read_text("utf-8", "replace") for path in session_files()})
    found = {name: spellings(text, TYPED_KEY) for name, text in shown.items()}
    return {name: forms for name, forms in found.items() if forms}


class TestEveryFormOfTheTypedKey:
    @pytest.mark.parametrize("encoding", list(ENCODINGS))
    def test_a_reply_quoting_it(self, app: AppTest, encoding: str) -> None:
        at = live_run(app, 200, encoding)
        assert any(element.value.startswith("Compacted") for element in at.success)
        assert leaks(at) == {}

    @pytest.mark.parametrize("encoding", list(ENCODINGS))
    def test_an_error_quoting_it(self, app: AppTest, encoding: str) -> None:
        at = live_run(app, 401, encoding)
        assert at.error and leaks(at) == {}


class TestAKeyNoHeaderCanCarry:
    @pytest.mark.parametrize(
        ("typed", "words"),
        [(f"{TYPED_KEY}\r", "ends in a carriage return"), (f"{TYPED_KEY[:8]}\t{TYPED_KEY[8:]}", "holds a tab"),
         (f"{TYPED_KEY}\u200b", "the control character U+200B")],
        ids=["windows-line-ending", "pasted-tab", "zero-width-space"],
    )  # fmt: skip
    def test_it_is_refused_on_the_page_and_never_sent(self, app: AppTest, typed: str, words: str) -> None:
        app.switch_page("views/compact.py").run()
        with HostileServer(echo_key("plain")) as server:
            choose_openai(app, server.url, key=typed)
            run_compaction(app)
            assert server.requests == []
        no_exception(app)
        errors = [unescaped(element.value) for element in app.error]
        assert len(errors) == 1 and words in errors[0] and "not sent" in errors[0]
        assert spellings(rendered_except_the_key_field(app), TYPED_KEY) == []
