"""The session's settings come from the URL once, are read back checked, go back to the URL, and the
session's language is the one ``t()`` speaks."""

from __future__ import annotations

from dashboard.settings import DEFAULTS, Settings, to_query
from dashboard.state import keys
from tests.dashboard.conftest import run_script


def seed_and_read() -> None:
    import streamlit as st

    from dashboard.state import session

    session.init_session()
    st.session_state["settings"] = session.settings()
    st.session_state["said"] = session.t("nav.load")
    st.session_state["language"] = session.language()
    session.remember(st.session_state["settings"])  # as the app does once the sidebar is drawn


class TestSeeding:
    def test_the_url_seeds_the_sidebar(self) -> None:
        at = run_script(seed_and_read, query={"trigger": "0.6", "keep": "3", "lang": "zh"})
        settings = at.session_state["settings"]
        assert (settings.trigger_context_ratio, settings.keep_recent_messages) == (0.6, 3)
        assert at.session_state[keys.W_TRIGGER] == 0.6
        assert (at.session_state["language"], at.session_state["said"]) == ("zh", "加载")

    def test_only_once_per_session(self) -> None:
        at = run_script(seed_and_read, query={"trigger": "0.6"})
        at.session_state[keys.W_TRIGGER] = 0.7  # the user moved the slider
        at.query_params["trigger"] = "0.5"
        at.run()
        assert at.session_state["settings"].trigger_context_ratio == 0.7

    def test_a_bad_value_reads_back_checked(self) -> None:
        at = run_script(seed_and_read, state={keys.K_SEEDED: True, keys.W_TRIGGER: 5.0, keys.W_LANG: "fr"})
        assert at.session_state["settings"].trigger_context_ratio == 0.99
        assert (at.session_state["language"], at.session_state["said"]) == ("en", "Load")


def reset_then_read() -> None:
    import streamlit as st

    from dashboard.settings import Settings
    from dashboard.state import session

    session.apply_settings(Settings(trigger_context_ratio=0.55, language="zh"))
    st.session_state["applied"] = session.settings()
    session.reset_settings()
    st.session_state["reset"] = session.settings()
    session.sync_query_params(st.session_state["applied"])


class TestChanges:
    def test_reset_keeps_the_language(self) -> None:
        at = run_script(reset_then_read)
        assert at.session_state["applied"] == Settings(trigger_context_ratio=0.55, language="zh")
        assert at.session_state["reset"] == Settings(language="zh")
        assert at.session_state["reset"].compaction_key == DEFAULTS.compaction_key

    def test_the_url_holds_the_settings(self) -> None:
        at = run_script(reset_then_read)
        expected = to_query(Settings(trigger_context_ratio=0.55, language="zh"))
        assert {key: at.query_params[key] for key in expected} == expected
