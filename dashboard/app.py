"""compaction-lab dashboard: the entry point ``streamlit run dashboard/app.py`` starts.

Invariant: the shared sidebar settings are drawn here, before any page runs, from the session (seeded
once from the URL) and written back to the URL, so every page analyses with the same values.
"""

from __future__ import annotations

import sys
from pathlib import Path

_PROJECT = Path(__file__).resolve().parent.parent
if str(_PROJECT) not in sys.path:  # `streamlit run` puts only dashboard/ on the path
    sys.path.insert(0, str(_PROJECT))

import streamlit as st  # noqa: E402

from compressor.tokens import COUNTER_NAMES  # noqa: E402
from compressor.windows import model_windows  # noqa: E402
from dashboard import state  # noqa: E402
from dashboard.i18n import LANGUAGE_NAMES, capacity_text, t  # noqa: E402
from dashboard.settings import (  # noqa: E402
    CONTEXT_MAX_MAX,
    KEEP_MAX,
    LANGUAGES,
    MIN_TARGET_MAX,
    MIN_TARGET_MIN,
    TRIGGER_MAX,
    TRIGGER_MIN,
)

_HERE = Path(__file__).resolve().parent

#: (file, title key, icon, url path). The first group is the conversation at hand, the second whole runs.
CONVERSATION_PAGES = (
    ("pages/load.py", "nav.load", ":material/upload_file:", "load"),
    ("pages/span.py", "nav.span", ":material/view_timeline:", "span"),
    ("pages/compact.py", "nav.compact", ":material/compress:", "compact"),
)
RUN_PAGES = (
    ("pages/dumps.py", "nav.dumps", ":material/folder_open:", "dumps"),
    # Added when their files exist (issue 5): replay and tuning of a whole run, and a stakeholder demo.
    ("pages/tune.py", "nav.tune", ":material/tune:", "tune"),
    ("pages/demo.py", "nav.demo", ":material/slideshow:", "demo"),
)
DEFAULT_PAGE = "pages/span.py"


def _page(file: str, title_key: str, icon: str, url_path: str) -> st.Page:
    return st.Page(file, title=t(title_key), icon=icon, url_path=url_path, default=file == DEFAULT_PAGE)


def _pages(specs: tuple[tuple[str, str, str, str], ...]) -> list[st.Page]:
    return [_page(*spec) for spec in specs if (_HERE / spec[0]).is_file()]


def sidebar() -> None:
    """Language, the conversation at hand, and the compressor settings every page uses."""
    with st.sidebar:
        st.radio(
            t("sidebar.language"),
            LANGUAGES,
            format_func=lambda code: LANGUAGE_NAMES[code],
            key=state.W_LANG,
            horizontal=True,
        )
        loaded = state.items()
        if loaded:
            st.selectbox(
                t("sidebar.conversation"),
                list(loaded),
                format_func=lambda key: loaded[key].label if key in loaded else str(key),
                key=state.W_CONVERSATION,
                help=t("sidebar.conversation_help"),
            )
        st.subheader(t("sidebar.settings"))
        st.slider(
            t("sidebar.trigger"),
            min_value=TRIGGER_MIN,
            max_value=TRIGGER_MAX,
            step=0.01,
            key=state.W_TRIGGER,
            help=t("sidebar.trigger_help"),
        )
        st.slider(
            t("sidebar.min_target"),
            min_value=MIN_TARGET_MIN,
            max_value=MIN_TARGET_MAX,
            step=0.01,
            key=state.W_MIN_TARGET,
            help=t("sidebar.min_target_help"),
        )
        st.number_input(
            t("sidebar.keep"),
            min_value=0,
            max_value=KEEP_MAX,
            step=1,
            key=state.W_KEEP,
            help=t("sidebar.keep_help"),
        )
        mode = st.radio(
            t("sidebar.capacity"),
            ("number", "model"),
            format_func=lambda value: t(f"sidebar.capacity.{value}"),
            key=state.W_CAPACITY_MODE,
            horizontal=True,
            help=t("sidebar.capacity_help"),
        )
        st.number_input(
            t("sidebar.context_max"),
            min_value=1,
            max_value=CONTEXT_MAX_MAX,
            step=1000,
            key=state.W_CONTEXT_MAX,
            disabled=mode != "number",
        )
        windows = model_windows()
        st.selectbox(
            t("sidebar.model"),
            sorted(windows, key=str.lower),
            format_func=lambda name: f"{name} · {windows[name]:,}",
            key=state.W_MODEL,
            disabled=mode != "model",
        )
        st.caption(t("sidebar.capacity_used", capacity=capacity_text(state.capacity(state.settings()))))
        st.selectbox(
            t("sidebar.counter"),
            COUNTER_NAMES,
            format_func=lambda name: t(f"counter.{name}"),
            key=state.W_COUNTER,
            help=t("sidebar.counter_help"),
        )
        st.button(t("sidebar.reset"), on_click=state.reset_settings)
        st.caption(t("sidebar.share"))


def main() -> None:
    st.set_page_config(page_title="compaction-lab", page_icon=":material/compress:", layout="wide")
    state.init_session()
    navigation = st.navigation(
        {t("nav.group.conversation"): _pages(CONVERSATION_PAGES), t("nav.group.runs"): _pages(RUN_PAGES)}
    )
    sidebar()
    state.sync_query_params(state.settings())
    navigation.run()


main()
