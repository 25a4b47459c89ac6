"""Whole-run replays for the Tune and Demo pages: the Tune page's summary model and sweep grid, the
replays and sweeps made with them (remembered per session), the live replay, and the Demo page's playback.

Invariant: a replay or sweep is made once per conversation object and setting in a session (a slider
revisiting a value is free) and is never reused for another conversation; only a confirmed live replay
calls a model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import streamlit as st

from compressor.overhead import hidden_overhead
from compressor.replay import LiveCostEstimate, Simulation, SummaryKind, Sweep, estimate_live_cost, simulate
from compressor.replay import sweep as run_sweep

from ..settings import Settings
from ..sources import LoadedConversation
from . import keys, live

#: How a replayed compaction's summary is sized (``compressor.replay.SummaryModel``); "live" calls the backend
#: the Live compaction page configures, once per compaction, after the user confirms the estimate.
SUMMARY_KINDS: tuple[SummaryKind, ...] = ("ratio", "fixed", "offline", "live")
#: What the pages replay with while a live replay waits for its confirmation, and what the sweep uses when
#: "live" is chosen (a sweep never calls a model). ratio:0.1 is instant; the offline backend costs about
#: a millisecond per message per compaction, too slow for a sweep of a long run.
STAND_IN_SUMMARY = "ratio:0.1"
SWEEP_STEPS: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1)
KEEP_CHOICES: tuple[int, ...] = (0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64)
TUNE_DEFAULTS: dict[str, Any] = {
    keys.W_SUMMARY_KIND: "ratio",
    keys.W_SUMMARY_TOKENS: 1500,
    keys.W_SUMMARY_RATIO: 0.1,
    keys.W_SWEEP_RATIOS: (0.5, 0.95),
    keys.W_SWEEP_STEP: 0.05,
    keys.W_SWEEP_KEEPS: [0, 2, 4, 8],
    keys.W_HEADROOM: 0.1,
}
#: Replays kept per session (each setting the sliders visit is one); the oldest is dropped first.
REPLAYS_KEPT = 24
#: Seconds between two steps of the Demo page's playback.
DEMO_INTERVAL_SECONDS = 1.2

_Value = TypeVar("_Value")
_RunKey = tuple[object, ...]


# -- pure rules the session values go through --------------------------------------------------------


def summary_spec(kind: str, tokens: int, ratio: float) -> str:
    """The summary model a replay without a model call uses (``fixed:N``, ``ratio:X``, ``offline``), with the
    stand-in for "live"; N is at least 1 and X within [0.01, 1]."""
    if kind == "fixed":
        return f"fixed:{max(int(tokens), 1)}"
    if kind == "ratio":
        return f"ratio:{min(max(float(ratio), 0.01), 1.0):g}"
    if kind == "offline":
        return "offline"
    return STAND_IN_SUMMARY


def grid_of(
    low: float, high: float, step: float, keeps: Sequence[int], current: Settings
) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """Ratios from ``low`` to ``high`` by ``step`` and the ``keeps``, always holding ``current``'s own ratio
    and keep so the sidebar's setting is one of the cells."""
    count = int((high - low) / step + 1e-9) + 1 if high >= low else 1
    ratios = {round(low + number * step, 2) for number in range(count)} | {current.trigger_context_ratio}
    kept = {int(keep) for keep in keeps} | {current.keep_recent_messages}
    return tuple(sorted(ratios)), tuple(sorted(kept))


def step_within(value: object, steps: int) -> int:
    """A Demo step (1-based) kept within 1..steps; anything unreadable is the first step."""
    try:
        step = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        step = 1
    return min(max(step, 1), max(steps, 1))


# -- the Tune page's choices -----------------------------------------------------------------------


def init_tune() -> None:
    """Seed the Tune page's widgets with their defaults (once: later values are the user's)."""
    for key, value in TUNE_DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = list(value) if isinstance(value, list) else value


def _tune(key: str) -> Any:
    return st.session_state.get(key, TUNE_DEFAULTS[key])


def summary_kind() -> SummaryKind:
    kind = _tune(keys.W_SUMMARY_KIND)
    return kind if kind in SUMMARY_KINDS else "ratio"


def replay_summary() -> str:
    """The summary model a replay without a model call uses: the Tune page's choice, or the stand-in for "live"."""
    return summary_spec(summary_kind(), _tune(keys.W_SUMMARY_TOKENS), _tune(keys.W_SUMMARY_RATIO))


def headroom() -> float:
    return float(_tune(keys.W_HEADROOM))


def sweep_grid(current: Settings) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """The Tune page's grid (``grid_of`` its widgets' values)."""
    low, high = (float(value) for value in _tune(keys.W_SWEEP_RATIOS))
    step = float(_tune(keys.W_SWEEP_STEP)) or TUNE_DEFAULTS[keys.W_SWEEP_STEP]
    return grid_of(low, high, step, _tune(keys.W_SWEEP_KEEPS), current)


# -- replays and sweeps, remembered ------------------------------------------------------------------


def _store() -> dict[_RunKey, tuple[object, Any]]:
    store: dict[_RunKey, tuple[object, Any]] = st.session_state.setdefault(keys.K_RUNS, {})
    return store


def _remembered(key: _RunKey, item: LoadedConversation, make: Callable[[], _Value]) -> _Value:
    """``make()`` once per key and conversation object in this session."""
    store = _store()
    found = store.pop(key, None)
    if found is None or found[0] is not item.conversation:
        found = (item.conversation, make())
    store[key] = found  # newest last
    while len(store) > REPLAYS_KEPT:
        del store[next(iter(store))]
    value: _Value = found[1]
    return value


def _recalled(key: _RunKey, item: LoadedConversation) -> object:
    """What ``_remembered`` holds for this key and conversation, or None (nothing is made)."""
    found = _store().get(key)
    return found[1] if found is not None and found[0] is item.conversation else None


def hidden_overhead_of(item: LoadedConversation, current: Settings) -> int:
    """The hidden overhead a replay carries for this run: measured from its reported usage (a Claude Code run's
    own system prompt and tools), 0 for a run that reports none. Counted windows after a compaction hold it too,
    so a replay does not overstate what compaction saves."""
    return hidden_overhead(item.conversation, current.counter).tokens


def _replay_options(current: Settings) -> dict[str, Any]:
    return {
        "context_max": current.explicit_context_max,
        "model": current.capacity_model,
        "counter": current.counter,
    }


def _run_options(item: LoadedConversation, current: Settings) -> dict[str, Any]:
    return {**_replay_options(current), "hidden_overhead": hidden_overhead_of(item, current)}


def simulation_for(item: LoadedConversation, current: Settings, summary: str) -> Simulation:
    """``simulate()`` of a conversation under the sidebar settings with a summary model that calls nothing."""
    return _remembered(
        ("simulate", item.key, current.compaction_key, summary),
        item,
        lambda: simulate(item.conversation, current.config(), summary=summary, **_run_options(item, current)),
    )


def _sweep_key(
    item: LoadedConversation, current: Settings, summary: str, ratios: Sequence[float], keeps: Sequence[int]
) -> _RunKey:
    grid = (tuple(ratios), tuple(keeps), current.min_target_context_ratio)
    return ("sweep", item.key, current.compaction_key, summary, grid)


def _sweep_maker(
    item: LoadedConversation, current: Settings, summary: str, ratios: Sequence[float], keeps: Sequence[int]
) -> Callable[[], Sweep]:
    conversation, options, min_target = (
        item.conversation,
        _run_options(item, current),
        current.min_target_context_ratio,
    )
    return lambda: run_sweep(
        conversation, ratios=ratios, keeps=keeps, min_targets=[min_target], summary=summary, **options
    )


def sweep_for(
    item: LoadedConversation, current: Settings, summary: str, ratios: Sequence[float], keeps: Sequence[int]
) -> Sweep:
    """``sweep()`` of ratios × keeps at the sidebar's min target and capacity."""
    key = _sweep_key(item, current, summary, ratios, keeps)
    return _remembered(key, item, _sweep_maker(item, current, summary, ratios, keeps))


def deferred_sweep(item: LoadedConversation, current: Settings) -> Callable[[], Sweep]:
    """The Tune page's sweep of this conversation, for a download made only when clicked: the remembered one
    when the Tune page made it, else a function making it then. The function reads no session value, so it
    may run on Streamlit's download thread."""
    ratios, keeps = sweep_grid(current)
    summary = replay_summary()
    found = _recalled(_sweep_key(item, current, summary, ratios, keeps), item)
    if isinstance(found, Sweep):
        return lambda: found
    return _sweep_maker(item, current, summary, ratios, keeps)


def live_estimate(item: LoadedConversation, current: Settings) -> LiveCostEstimate:
    """What a live replay would send (``estimate_live_cost``), shown before the user confirms it."""
    return _remembered(
        ("estimate", item.key, current.compaction_key),
        item,
        lambda: estimate_live_cost(item.conversation, current.config(), **_replay_options(current)),
    )


def live_confirm_key(estimate: LiveCostEstimate) -> str:
    """The confirm checkbox's key names the estimate it confirms: a new estimate needs a new confirmation."""
    return f"{keys.W_LIVE_CONFIRM}{estimate.calls}_{estimate.request_tokens}"


def _live_signature(item: LoadedConversation, current: Settings) -> live.Signature:
    state = st.session_state
    endpoint = (str(state.get(keys.W_BACKEND) or ""), *live.endpoint(), live.uses_server_endpoint())
    return (item.key, current.compaction_key, endpoint)


def run_live_replay(item: LoadedConversation, current: Settings) -> Simulation:
    """Replay calling the Live compaction page's backend at every compaction, and keep the result in the
    session; raises ConfigError/ValueError naming a missing field of the backend."""
    backend = live.live_backend()
    model, client = live.live_configs()
    simulation = simulate(
        item.conversation,
        current.config(model=model, model_client=client),
        summary=backend,
        **_run_options(item, current),
    )
    st.session_state[keys.K_LIVE_REPLAY] = (_live_signature(item, current), item.conversation, simulation)
    return simulation


def live_replay(item: LoadedConversation, current: Settings) -> Simulation | None:
    """The live replay of this conversation under these settings and this backend, if one was run."""
    found = st.session_state.get(keys.K_LIVE_REPLAY)
    if (
        isinstance(found, tuple)
        and found[0] == _live_signature(item, current)
        and found[1] is item.conversation
    ):
        simulation: Simulation = found[2]
        return simulation
    return None


def replay(item: LoadedConversation, current: Settings) -> Simulation:
    """The run both pages show: the live replay when "live" is chosen and was run, else the Tune page's
    summary model (the stand-in while a live replay waits)."""
    if summary_kind() == "live":
        found = live_replay(item, current)
        if found is not None:
            return found
    return simulation_for(item, current, replay_summary())


# -- Demo playback: the step is the slider's value (1-based); "playing" advances it once per timed rerun --


def demo_playing() -> bool:
    return bool(st.session_state.get(keys.K_DEMO_PLAYING))


def demo_step(steps: int) -> int:
    """The step shown, kept within 1..steps (another conversation may have fewer steps)."""
    step = step_within(st.session_state.get(keys.W_DEMO_STEP, 1), steps)
    st.session_state[keys.W_DEMO_STEP] = step
    return step


def set_demo_step(step: int) -> None:
    """Button callback (and playback): show ``step``."""
    st.session_state[keys.W_DEMO_STEP] = step


def toggle_demo(steps: int) -> None:
    """Play/pause button callback; playing from the last step starts over."""
    playing = not demo_playing()
    st.session_state[keys.K_DEMO_PLAYING] = playing
    if playing and demo_step(steps) >= steps:
        set_demo_step(1)


def advance_demo(steps: int) -> bool:
    """One step further while playing; False when the playback just reached the last step and stopped."""
    step = demo_step(steps) + 1
    if step <= steps:
        set_demo_step(step)
    if step >= steps:
        st.session_state[keys.K_DEMO_PLAYING] = False
        return False
    return True
