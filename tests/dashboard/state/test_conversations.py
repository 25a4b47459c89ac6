"""The session's conversations: the demo first, one on show, loaded once, and what is computed from them
searched once per conversation object."""

from __future__ import annotations

from compressor.analysis import analyze
from dashboard.state import conversations, keys
from tests.dashboard.conftest import demo_conversation, run_script


def start() -> None:
    import streamlit as st

    from dashboard.state import conversations

    conversations.init_items()
    st.session_state["current"] = conversations.current()


class TestItems:
    def test_the_demo_is_loaded_and_on_show(self) -> None:
        at = run_script(start)
        current = at.session_state["current"]
        assert current.file == conversations.DEMO_FILE and current.origin == "sample"
        assert at.session_state[keys.W_CONVERSATION] == current.key

    def test_the_bundled_samples_list_the_demo_first(self) -> None:
        names = conversations.sample_files()
        assert names[0] == conversations.DEMO_FILE
        assert names[1:] == sorted(names[1:], key=str.lower)

    def test_a_server_file_is_parsed_once_per_version(self) -> None:
        first = conversations.load_sample(conversations.DEMO_FILE)
        again = conversations.load_sample(conversations.DEMO_FILE)
        assert first[0].conversations[0] is again[0].conversations[0]


def clear_after_start() -> None:
    import streamlit as st

    from dashboard.state import conversations, keys

    conversations.init_items()
    item = conversations.current()
    assert item is not None
    st.session_state["first"] = conversations.message_secrets(item)
    st.session_state["again"] = conversations.message_secrets(item)
    st.session_state[keys.K_LIVE_RESULT] = ("signature", "result")
    conversations.clear_items()
    st.session_state["after"] = conversations.current()


class TestDerived:
    def test_secrets_are_searched_once_per_conversation(self) -> None:
        at = run_script(clear_after_start)
        assert at.session_state["first"][0] is at.session_state["again"][0]

    def test_clearing_forgets_what_was_computed(self) -> None:
        at = run_script(clear_after_start)
        assert at.session_state["after"] is None
        assert keys.K_LIVE_RESULT not in at.session_state and keys.K_SECRETS not in at.session_state

    def test_the_analysis_is_the_librarys(self) -> None:
        from dashboard.settings import DEFAULTS
        from dashboard.sources import LoadedConversation

        conversation = demo_conversation()
        item = LoadedConversation("k", "demo", "sample", "demo.json", conversation)
        # Outside a session the Live page's backend reads as the offline one: no model, as analyze() without one.
        expected = analyze(conversation, DEFAULTS.config(), context_max=DEFAULTS.context_max)
        analysis = conversations.analysis_for(item, DEFAULTS)
        assert analysis is not None and analysis.decision == expected.decision
        assert conversations.analysis_for(None, DEFAULTS) is None
