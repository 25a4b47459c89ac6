"""The sidebar's settings change only through a widget or the URL: however fast and however many the reruns,
page switches, language switches and fragment runs, they never fall back to the widgets' minimums."""

from __future__ import annotations

import random

from streamlit.testing.v1 import AppTest

from dashboard.settings import TRIGGER_MIN, Settings
from dashboard.state import keys
from tests.dashboard.conftest import APP, APP_TIMEOUT, no_exception, run_script

PAGES = (
    "views/load.py",
    "views/span.py",
    "views/compact.py",
    "views/dumps.py",
    "views/tune.py",
    "views/demo.py",
)


def sidebar(at: AppTest) -> tuple[object, ...]:
    return (
        at.slider(key=keys.W_TRIGGER).value,
        at.slider(key=keys.W_MIN_TARGET).value,
        at.number_input(key=keys.W_KEEP).value,
        at.number_input(key=keys.W_CONTEXT_MAX).value,
        at.selectbox(key=keys.W_MODEL).value,
    )


def restore_and_draw() -> None:
    import streamlit as st

    from dashboard.settings import CONTEXT_MAX_MAX, KEEP_MAX
    from dashboard.state import keys, session

    session.init_session()
    trigger = st.slider("trigger", min_value=0.05, max_value=0.99, step=0.01, key=keys.W_TRIGGER)
    keep = st.number_input("keep", min_value=0, max_value=KEEP_MAX, key=keys.W_KEEP)
    context_max = st.number_input(
        "context_max", min_value=1, max_value=CONTEXT_MAX_MAX, key=keys.W_CONTEXT_MAX
    )
    st.session_state["drawn"] = (trigger, keep, context_max)


def cut_short_then_rerun() -> None:
    """A selection made, a run cut short before the picker is drawn, then a rerun with the browser's old choice."""
    import streamlit as st

    from dashboard.sources import loaded_items
    from dashboard.state import conversations, keys

    conversations.init_items()  # the demo, selected
    demo = st.session_state[keys.W_CONVERSATION]
    conversations.add_items(
        loaded_items("sample", conversations.load_sample("swe-agent-function-calling.traj"))
    )
    conversations.init_items()  # the run that applies the selection ... and is cut short here
    st.session_state[keys.W_CONVERSATION] = demo  # the next run: the browser still sends the demo
    conversations.init_items()
    st.session_state["after_rerun"] = st.session_state[keys.W_CONVERSATION]
    conversations.picker_drawn()
    st.session_state["after_drawn"] = st.session_state.get(keys.K_PENDING_SELECT)


def opened() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    at.slider(key=keys.W_TRIGGER).set_value(0.6).run()
    at.number_input(key=keys.W_CONTEXT_MAX).set_value(20_000).run()
    at.number_input(key=keys.W_KEEP).set_value(2).run()
    return at


class TestSettingsHold:
    def test_a_widget_value_streamlit_dropped_comes_back_not_its_minimum(self) -> None:
        held = Settings(trigger_context_ratio=0.6, context_max=20_000, keep_recent_messages=2)
        at = run_script(restore_and_draw, state={keys.K_SEEDED: True, keys.K_SETTINGS: held})
        assert at.session_state["drawn"] == (0.6, 2, 20_000)  # not the widgets' minimums 0.05, 0, 1

    def test_a_widget_the_session_still_holds_is_left_as_the_user_set_it(self) -> None:
        held = Settings(trigger_context_ratio=0.6)
        at = run_script(
            restore_and_draw, state={keys.K_SEEDED: True, keys.K_SETTINGS: held, keys.W_TRIGGER: 0.7}
        )
        assert at.session_state["drawn"][0] == 0.7

    def test_settings_the_program_wrote_win_over_the_browsers_old_values_until_drawn(self) -> None:
        """A run cut short by the next (fast reruns) leaves the browser with its old values: they come back."""
        applied = Settings(trigger_context_ratio=0.6, context_max=20_000)
        stale = {keys.W_TRIGGER: 0.8, keys.W_CONTEXT_MAX: 16_000}  # what the browser still sends
        state = {keys.K_SEEDED: True, keys.K_SETTINGS: applied, keys.K_SETTINGS_PENDING: True, **stale}
        at = run_script(restore_and_draw, state=state)
        assert at.session_state["drawn"][0] == 0.6 and at.session_state["drawn"][2] == 20_000

    def test_a_selected_conversation_wins_over_the_browsers_old_choice_until_drawn(self) -> None:
        at = run_script(cut_short_then_rerun)
        assert at.session_state["after_rerun"] == "sample:swe-agent-function-calling.traj#0"
        assert at.session_state["after_drawn"] is None  # drawn: no longer pending

    def test_hammering_reruns_never_moves_a_setting(self) -> None:
        at = opened()
        held = sidebar(at)
        assert held[0] != TRIGGER_MIN and held[3] != 1
        moves = random.Random(15)
        for _ in range(60):
            action = moves.choice(("page", "page", "run", "language", "play", "step"))
            if action == "page":
                at.switch_page(moves.choice(PAGES))
            elif action == "language":
                at.radio(key=keys.W_LANG).set_value(moves.choice(("en", "zh")))
            elif action == "play":
                play = [b for b in at.button if b.key == keys.page_widget("demo", "play")]
                if play:  # on the Demo page: its fragment reruns on its own timer from now on
                    play[0].click()
            at.run()
            no_exception(at)
            assert sidebar(at) == held, action

    def test_the_model_box_keeps_its_value_after_apply_to_sidebar(self) -> None:
        at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
        at.radio(key=keys.W_CAPACITY_MODE).set_value("model").run()
        at.selectbox(key=keys.W_MODEL).set_value("gpt-4o").run()
        at.radio(key=keys.W_CAPACITY_MODE).set_value("number").run()  # the box is disabled, not emptied
        at.switch_page("views/tune.py").run()
        apply = at.button(key=keys.page_widget("tune", "apply"))
        if not apply.disabled:
            apply.click().run()
        no_exception(at)
        assert at.selectbox(key=keys.W_MODEL).value == "gpt-4o"
