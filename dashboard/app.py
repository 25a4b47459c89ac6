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
from dashboard.i18n import LANGUAGE_NAMES, capacity_text, option_labels, t  # noqa: E402
from dashboard.settings import (  # noqa: E402
    CONTEXT_MAX_MAX,
    KEEP_MAX,
    LANGUAGES,
    MIN_TARGET_MAX,
    MIN_TARGET_MIN,
    TRIGGER_MAX,
    TRIGGER_MIN,
)

APP_DIR = Path(__file__).resolve().parent

#: (file, title key, url path). The first group is the conversation at hand, the second whole runs.
#: No icons: Streamlit turns the current page's material icon into a favicon fetched from fonts.gstatic.com.
#: The page files live in views/, not pages/: Streamlit treats a `pages/` folder beside the entry script as
#: a legacy multipage app until st.navigation first runs, which changes every widget's id after the first
#: run of a fresh server (losing the sidebar values) and breaks AppTest after any rerun.
CONVERSATION_PAGES = (
    ("views/load.py", "nav.load", "conversations"),
    ("views/span.py", "nav.span", "span-trigger"),
    ("views/compact.py", "nav.compact", "live-compaction"),
)
RUN_PAGES = (
    ("views/dumps.py", "nav.dumps", "dump-review"),
    # Added when their files exist (issue 5): replay and tuning of a whole run, and a stakeholder demo.
    ("views/tune.py", "nav.tune", "tune-settings"),
    ("views/demo.py", "nav.demo", "demo-run"),
)
DEFAULT_PAGE = "views/span.py"


def _page(file: str, title_key: str, url_path: str) -> st.Page:
    return st.Page(file, title=t(title_key), url_path=url_path, default=file == DEFAULT_PAGE)


PageSpec = tuple[str, str, str]


def available(specs: tuple[PageSpec, ...]) -> list[PageSpec]:
    """The pages whose file exists (Tune and Demo appear once they are written)."""
    return [spec for spec in specs if (APP_DIR / spec[0]).is_file()]


def _pages(specs: tuple[PageSpec, ...]) -> list[st.Page]:
    return [_page(*spec) for spec in available(specs)]


def sidebar() -> None:
    """Language, the conversation at hand, and the compressor settings every page uses."""
    with st.sidebar:
        st.radio(
            t("sidebar.language"),
            LANGUAGES,
            format_func=lambda code: LANGUAGE_NAMES[code],
            key=state.W_LANG,
            horizontal=True,
            on_change=state.on_language_change,
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
            format_func=option_labels("sidebar.capacity."),
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
            format_func=option_labels("counter."),
            key=state.W_COUNTER,
            help=t("sidebar.counter_help"),
        )
        st.button(t("sidebar.reset"), on_click=state.reset_settings)
        st.caption(t("sidebar.share"))


def main() -> None:
    # No page_icon either: a local server must not need fonts.gstatic.com for its favicon.
    st.set_page_config(page_title="compaction-lab", layout="wide")
    state.init_session()
    sidebar()
    navigation = st.navigation(
        {t("nav.group.conversation"): _pages(CONVERSATION_PAGES), t("nav.group.runs"): _pages(RUN_PAGES)}
    )
    state.sync_query_params(state.settings())
    navigation.run()


if __name__ == "__main__":  # Streamlit runs the entry script as __main__; importing it draws nothing
    main()
