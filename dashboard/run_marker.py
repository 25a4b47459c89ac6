"""A count of this session's script runs, written into the page for the browser tests to await (tests/e2e).

Invariant: each full run and each run of a fragment a reader drives writes the session's next number into one
hidden element; it shows nothing, takes no room, is never announced and holds nothing but that number.
"""

from __future__ import annotations

import streamlit as st

from dashboard.state import session

#: The attribute holding the number (the tests read the greatest one on the page).
ATTRIBUTE = "data-compaction-lab-run"
#: The marker's element container goes too: otherwise its gap would still take room in the column.
STYLE = f'<style>[data-testid="stElementContainer"]:has([{ATTRIBUTE}]) {{ display: none; }}</style>'


def marker_html(number: int) -> str:
    """The marker for run ``number``: hidden, out of the accessibility tree, its container hidden by ``STYLE``."""
    return f'{STYLE}<div {ATTRIBUTE}="{number}" hidden aria-hidden="true"></div>'


def run_marker() -> int:
    """Count this run and write its number into the page; the number.

    A fragment's rerun does not run the entry script, so a fragment whose widgets a reader moves calls this too
    (inside the fragment: a fragment's run may write only there)."""
    number = session.next_run_number()
    st.html(marker_html(number))
    return number
