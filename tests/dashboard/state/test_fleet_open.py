"""Opening a fleet run on a page: the conversation is shown as every other loaded one is, a lone surrogate
in its text written ``\\udXXX`` (a page cannot send one to the browser)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from dashboard.state import keys


def _open(path: str) -> None:
    import streamlit as st

    from dashboard.state import fleet

    st.session_state["page"] = fleet.open_run(path, 0, "span", (0.8, 2, 0.1), 16_000)


def _opened(tmp_path: Path, content: str) -> AppTest:
    run = tmp_path / "run.json"
    run.write_text(f'[{{"role": "user", "content": "{content}"}}]', encoding="utf-8")
    at = AppTest.from_function(_open, args=(str(run),)).run()
    assert not at.exception
    return at


def test_a_run_with_a_lone_surrogate_opens_escaped(tmp_path: Path) -> None:
    at = _opened(tmp_path, "before \\ud800 after")
    assert at.session_state["page"] == "views/span.py"
    (item,) = at.session_state[keys.K_ITEMS].values()
    text = item.conversation.messages[0].content
    assert text == "before \\ud800 after"
    text.encode("utf-8")  # nothing a browser cannot be sent


def test_a_plain_run_opens_unchanged(tmp_path: Path) -> None:
    at = _opened(tmp_path, "plain words")
    (item,) = at.session_state[keys.K_ITEMS].values()
    assert item.conversation.messages[0].content == "plain words"
    assert item.origin == "fleet"
