"""The session's settings and language: seeded once from the URL, held by the sidebar's widgets, written back
to the URL, and ``t()`` — our strings in the session's language.

Invariant: this is the one module that reads the session's language; everything else is given it. The
settings read back are checked the way a shared link is, so they are never invalid.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from compressor.windows import Capacity, resolve_context_max

from ..i18n import translate
from ..settings import (
    DEFAULTS,
    LANGUAGES,
    Q_CONTEXT_MAX,
    Q_COUNTER,
    Q_KEEP,
    Q_LANG,
    Q_MIN_TARGET,
    Q_MODEL,
    Q_TRIGGER,
    CapacityMode,
    Settings,
    from_query,
    to_query,
)
from . import keys


def init_session() -> None:
    """Run first on every rerun: seed the sidebar's settings from the URL once per session; put back settings
    the program wrote (a link, Apply, Reset) until the sidebar has drawn them; restore any sidebar value
    Streamlit no longer holds from the settings the session last had.

    Why: a run can be cut short by the next one (fast reruns) before the sidebar is drawn, and the browser then
    sends its old values again; and a widget whose key is missing is drawn at its default, which for these
    widgets is their minimum (context_max 1, trigger 0.05): without both rules the settings could change, or
    collapse to the minimums, without a widget or the URL moving.
    """
    state = st.session_state
    if not state.get(keys.K_SEEDED):
        _write_settings(from_query(st.query_params.to_dict()))
        state[keys.K_SEEDED] = True
        return
    held = state.get(keys.K_SETTINGS)
    if not isinstance(held, Settings):
        held = settings()
    pending = bool(state.get(keys.K_SETTINGS_PENDING))
    for widget, name in keys.SETTING_WIDGETS.items():
        if pending or widget not in state:
            state[widget] = getattr(held, name)


def held_settings() -> Settings:
    """The settings the session holds (the sidebar's last, or the ones the program just wrote)."""
    held = st.session_state.get(keys.K_SETTINGS)
    return held if isinstance(held, Settings) else settings()


def remember(current: Settings) -> None:
    """After the sidebar is drawn: keep the settings it shows (what ``init_session`` restores); any settings
    the program wrote have now reached the widgets."""
    st.session_state[keys.K_SETTINGS] = current
    st.session_state[keys.K_SETTINGS_PENDING] = False


def _write_settings(settings: Settings) -> None:
    for widget, name in keys.SETTING_WIDGETS.items():
        st.session_state[widget] = getattr(settings, name)
    st.session_state[keys.K_SETTINGS] = settings
    st.session_state[keys.K_SETTINGS_PENDING] = (
        True  # written again on every run until the sidebar shows them
    )


def settings() -> Settings:
    """The settings the sidebar widgets hold now, checked the way a shared link is (never invalid)."""
    state = st.session_state
    params: dict[str, Any] = {
        Q_TRIGGER: state.get(keys.W_TRIGGER),
        Q_MIN_TARGET: state.get(keys.W_MIN_TARGET),
        Q_KEEP: state.get(keys.W_KEEP),
        Q_CONTEXT_MAX: state.get(keys.W_CONTEXT_MAX),
        Q_COUNTER: state.get(keys.W_COUNTER),
        Q_LANG: state.get(keys.W_LANG),
    }
    read = from_query({name: value for name, value in params.items() if value is not None})
    # The Model box keeps its choice while the capacity is a number (it is only disabled), so an "Apply to
    # sidebar" that writes every setting back never resets it.
    model = state.get(keys.W_MODEL)
    chosen = from_query({Q_MODEL: model}) if isinstance(model, str) else read
    by_model = state.get(keys.W_CAPACITY_MODE) == "model" and chosen.capacity_mode == "model"
    mode: CapacityMode = "model" if by_model else "number"
    return replace(read, model=chosen.model, capacity_mode=mode)


def apply_settings(new: Settings) -> None:
    """Widget callback: put other settings in the sidebar, e.g. ``st.button(..., on_click=apply_settings,
    args=(settings,))`` for a Tune page's "apply to sidebar" (callbacks run before the sidebar is drawn)."""
    _write_settings(new)


def queue_settings(new: Settings) -> None:
    """Put other settings in the sidebar from inside a run (a fragment's button; the widgets are drawn already):
    the next run writes them, and the caller reruns the app."""
    st.session_state[keys.K_SETTINGS] = new
    st.session_state[keys.K_SETTINGS_PENDING] = True


def reset_settings() -> None:
    """Sidebar button callback: back to the defaults (the language is kept)."""
    _write_settings(Settings(language=language()))


def sync_query_params(current: Settings) -> None:
    """Mirror the settings into the URL so the page address can be shared (never a secret)."""
    wanted = to_query(current)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def on_language_change() -> None:
    """Language radio callback. Streamlit stores a radio's or selectbox's value as its shown label, so a
    label that changes language would no longer match and the widget would fall back to its default;
    writing each value back as the Python value keeps the choice."""
    for key in keys.LANGUAGE_SENSITIVE:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def next_run_number() -> int:
    """Count one more script run of this session (the whole page or a fragment) and return its number."""
    number = int(st.session_state.get(keys.K_RUN_COUNT, 0)) + 1
    st.session_state[keys.K_RUN_COUNT] = number
    return number


def language() -> str:
    """The language chosen in the sidebar (English until one is chosen)."""
    value = st.session_state.get(keys.W_LANG, DEFAULTS.language)
    return value if value in LANGUAGES else DEFAULTS.language


def t(key: str, **fmt: Any) -> str:
    """Our string ``key`` in the session's language, formatted with ``fmt``."""
    return translate(language(), key, **fmt)


def capacity(current: Settings) -> Capacity:
    """Where ``context_max`` comes from under these settings, and how many tokens it is."""
    return resolve_context_max(current.explicit_context_max, current.capacity_model)
