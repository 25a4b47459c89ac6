"""The shared sidebar: the language, the conversation at hand, and the compressor settings every page uses.

Invariant: the widgets' keys hold the values (``state.keys``), so ``state.session.settings()`` reads what the
sidebar shows; every label is in the session's language and no value is computed here.
"""

from __future__ import annotations

import streamlit as st

from compressor.tokens import COUNTER_NAMES
from compressor.windows import model_windows

from .i18n import LANGUAGE_NAMES, capacity_text, option_labels
from .settings import (
    CONTEXT_MAX_MAX,
    KEEP_MAX,
    LANGUAGES,
    MIN_TARGET_MAX,
    MIN_TARGET_MIN,
    TRIGGER_MAX,
    TRIGGER_MIN,
)
from .state import conversations, keys, session
from .state.session import t


def sidebar() -> None:
    """Draw the shared settings widgets in the sidebar.

    Each widget is also given the session's held setting as its default: a widget the browser draws afresh (a run
    cut short, a remounted sidebar) then starts at the setting, never at its minimum.
    """
    language = session.language()
    held = session.held_settings()
    models = sorted(model_windows(), key=str.lower)
    with st.sidebar:
        st.radio(
            t("sidebar.language"),
            LANGUAGES,
            index=LANGUAGES.index(held.language),
            format_func=lambda code: LANGUAGE_NAMES[code],
            key=keys.W_LANG,
            horizontal=True,
            on_change=session.on_language_change,
        )
        loaded = conversations.items()
        if loaded:
            st.selectbox(
                t("sidebar.conversation"),
                list(loaded),
                format_func=lambda key: loaded[key].label if key in loaded else str(key),
                key=keys.W_CONVERSATION,
                help=t("sidebar.conversation_help"),
            )
        conversations.picker_drawn()
        st.subheader(t("sidebar.settings"))
        st.slider(
            t("sidebar.trigger"),
            min_value=TRIGGER_MIN,
            max_value=TRIGGER_MAX,
            value=held.trigger_context_ratio,
            step=0.01,
            key=keys.W_TRIGGER,
            help=t("sidebar.trigger_help"),
        )
        st.slider(
            t("sidebar.min_target"),
            min_value=MIN_TARGET_MIN,
            max_value=MIN_TARGET_MAX,
            value=held.min_target_context_ratio,
            step=0.01,
            key=keys.W_MIN_TARGET,
            help=t("sidebar.min_target_help"),
        )
        st.number_input(
            t("sidebar.keep"),
            min_value=0,
            max_value=KEEP_MAX,
            value=held.keep_recent_messages,
            step=1,
            key=keys.W_KEEP,
            help=t("sidebar.keep_help"),
        )
        mode = st.radio(
            t("sidebar.capacity"),
            ("number", "model"),
            index=("number", "model").index(held.capacity_mode),
            format_func=option_labels("sidebar.capacity.", language),
            key=keys.W_CAPACITY_MODE,
            horizontal=True,
            help=t("sidebar.capacity_help"),
        )
        st.number_input(
            t("sidebar.context_max"),
            min_value=1,
            max_value=CONTEXT_MAX_MAX,
            value=held.context_max,
            step=1000,
            key=keys.W_CONTEXT_MAX,
            disabled=mode != "number",
        )
        windows = model_windows()
        st.selectbox(
            t("sidebar.model"),
            models,
            index=models.index(held.model) if held.model in models else 0,
            format_func=lambda name: f"{name} · {windows[name]:,}",
            key=keys.W_MODEL,
            disabled=mode != "model",
        )
        capacity = session.capacity(session.settings())
        st.caption(t("sidebar.capacity_used", capacity=capacity_text(capacity, language)))
        st.selectbox(
            t("sidebar.counter"),
            COUNTER_NAMES,
            index=COUNTER_NAMES.index(held.counter) if held.counter in COUNTER_NAMES else 0,
            format_func=option_labels("counter.", language),
            key=keys.W_COUNTER,
            help=t("sidebar.counter_help"),
        )
        st.button(t("sidebar.reset"), on_click=session.reset_settings)
        st.caption(t("sidebar.share"))
