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

from dashboard.layout import page_layout  # noqa: E402
from dashboard.run_marker import run_marker  # noqa: E402
from dashboard.sidebar import sidebar  # noqa: E402
from dashboard.state import conversations, session  # noqa: E402
from dashboard.state.session import t  # noqa: E402

APP_DIR = Path(__file__).resolve().parent

#: (file, title key, url path). The first group is the conversation at hand, the second whole runs.
#: No icons: Streamlit turns the current page's material icon into a favicon fetched from fonts.gstatic.com.
#: The page files live in views/, not pages/: Streamlit treats a `pages/` folder beside the entry script as
#: a legacy multipage app until st.navigation first runs, which changes every widget's id after the first
#: run of a fresh server (losing the sidebar values) and breaks AppTest after any rerun.
PageSpec = tuple[str, str, str]
CONVERSATION_PAGES: tuple[PageSpec, ...] = (
    ("views/load.py", "nav.load", "conversations"),
    ("views/span.py", "nav.span", "span-trigger"),
    ("views/compact.py", "nav.compact", "live-compaction"),
)
RUN_PAGES: tuple[PageSpec, ...] = (
    ("views/dumps.py", "nav.dumps", "dump-review"),
    ("views/tune.py", "nav.tune", "tune-settings"),
    ("views/fleet.py", "nav.fleet", "fleet"),
    ("views/demo.py", "nav.demo", "demo-run"),
)
DEFAULT_PAGE = "views/span.py"


def _to_default_page() -> None:
    st.switch_page(DEFAULT_PAGE)


def _pages(specs: tuple[PageSpec, ...]) -> list[st.Page]:
    """The pages of one group. The default page is served at the root address, so its own address is a hidden
    page leading there (Streamlit would otherwise answer it with "Page not found")."""
    pages: list[st.Page] = []
    for file, title_key, url_path in specs:
        if file == DEFAULT_PAGE:
            pages.append(st.Page(file, title=t(title_key), default=True))
            pages.append(
                st.Page(_to_default_page, title=t(title_key), url_path=url_path, visibility="hidden")
            )
        else:
            pages.append(st.Page(file, title=t(title_key), url_path=url_path))
    return pages


def main() -> None:
    # No page_icon either: a local server must not need fonts.gstatic.com for its favicon.
    st.set_page_config(page_title="compaction-lab", layout="wide")
    session.init_session()
    conversations.init_items()
    page_layout()
    run_marker()  # the browser tests await a run by this number, not by a guess that it has started
    sidebar()
    navigation = st.navigation(
        {t("nav.group.conversation"): _pages(CONVERSATION_PAGES), t("nav.group.runs"): _pages(RUN_PAGES)}
    )
    current = session.settings()
    session.remember(current)
    session.sync_query_params(current)
    navigation.run()


if __name__ == "__main__":  # Streamlit runs the entry script as __main__; importing it draws nothing
    main()
