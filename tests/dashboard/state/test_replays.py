"""The Tune page's choices as rules (summary model, grid, Demo step), and replays made once per conversation
object and setting in a session."""

from __future__ import annotations

import pytest

from compressor.replay import sweep
from dashboard.settings import Settings
from dashboard.state import keys, replays
from tests.dashboard.conftest import demo_conversation, run_script


class TestRules:
    @pytest.mark.parametrize(
        ("kind", "tokens", "ratio", "spec"),
        [
            ("fixed", 500, 0.1, "fixed:500"),
            ("fixed", 0, 0.1, "fixed:1"),
            ("ratio", 1500, 0.25, "ratio:0.25"),
            ("ratio", 1500, 3.0, "ratio:1"),
            ("ratio", 1500, 0.0, "ratio:0.01"),
            ("offline", 1500, 0.1, "offline"),
            ("live", 1500, 0.3, replays.STAND_IN_SUMMARY),
        ],
    )
    def test_the_summary_model(self, kind: str, tokens: int, ratio: float, spec: str) -> None:
        assert replays.summary_spec(kind, tokens, ratio) == spec

    @pytest.mark.parametrize(
        ("low", "high", "step", "keeps", "ratios", "kept"),
        [
            (0.6, 0.7, 0.05, [0, 4], (0.6, 0.65, 0.7, 0.8), (0, 4)),
            (0.5, 0.95, 0.05, [2], (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95), (0, 2)),
            (0.9, 0.6, 0.1, [], (0.8, 0.9), (0,)),
        ],
    )
    def test_the_grid_always_holds_the_sidebars_setting(
        self,
        low: float,
        high: float,
        step: float,
        keeps: list[int],
        ratios: tuple[float, ...],
        kept: tuple[int, ...],
    ) -> None:
        assert replays.grid_of(low, high, step, keeps, Settings()) == (ratios, kept)

    @pytest.mark.parametrize(
        ("value", "steps", "step"), [(5, 10, 5), (18, 2, 2), (0, 3, 1), ("x", 3, 1), (None, 0, 1)]
    )
    def test_the_demo_step_stays_in_range(self, value: object, steps: int, step: int) -> None:
        assert replays.step_within(value, steps) == step


def replay_twice() -> None:
    import streamlit as st

    from dashboard.settings import Settings
    from dashboard.sources import LoadedConversation
    from dashboard.state import replays
    from tests.dashboard.conftest import demo_conversation

    item = LoadedConversation("demo", "demo", "sample", "demo.json", demo_conversation())
    other = LoadedConversation("demo", "demo", "sample", "demo.json", demo_conversation())
    settings = Settings()
    st.session_state["first"] = replays.replay(item, settings)
    st.session_state["again"] = replays.replay(item, settings)
    st.session_state["other"] = replays.replay(other, settings)
    st.session_state["later"] = replays.deferred_sweep(item, settings)()
    ratios, keeps = replays.sweep_grid(settings)
    swept = replays.sweep_for(item, settings, replays.replay_summary(), ratios, keeps)
    st.session_state["swept"] = swept
    st.session_state["remembered"] = replays.deferred_sweep(item, settings)()


class TestRemembered:
    def test_a_replay_is_made_once_per_conversation_object(self) -> None:
        at = run_script(replay_twice)
        assert at.session_state["again"] is at.session_state["first"]
        assert at.session_state["other"] is not at.session_state["first"]
        assert at.session_state["other"].outcome == at.session_state["first"].outcome

    def test_a_deferred_sweep_is_the_remembered_one_or_the_same_sweep_made_later(self) -> None:
        at = run_script(replay_twice)
        assert at.session_state["remembered"] is at.session_state["swept"]
        expected = sweep(
            demo_conversation(),
            ratios=replays.grid_of(0.5, 0.95, 0.05, [0, 2, 4, 8], Settings())[0],
            keeps=(0, 2, 4, 8),
            context_max=16_000,
            summary="ratio:0.1",
        )
        assert at.session_state["later"].outcomes == expected.outcomes

    def test_the_session_keeps_a_bounded_number(self) -> None:
        at = run_script(replay_twice)
        assert 0 < len(at.session_state[keys.K_RUNS]) <= replays.REPLAYS_KEPT


def play() -> None:
    import streamlit as st

    from dashboard.state import replays

    replays.set_demo_step(2)
    replays.toggle_demo(3)
    st.session_state["playing"] = replays.demo_playing()
    st.session_state["more"] = replays.advance_demo(3)
    st.session_state["step"] = replays.demo_step(3)
    st.session_state["stopped"] = not replays.demo_playing()


def test_playback_stops_at_the_last_step() -> None:
    at = run_script(play)
    assert at.session_state["playing"] is True
    assert at.session_state["more"] is False
    assert (at.session_state["step"], at.session_state["stopped"]) == (3, True)
