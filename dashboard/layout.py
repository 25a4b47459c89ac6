"""The page's own layout rules, sent once per run: on a screen narrower than ``NARROW_PX`` the sidebar starts
collapsed (Streamlit itself collapses it only below 768 px), and metric numbers and buttons never cut their text.

Invariant: the script only clicks Streamlit's own collapse button, once per page load and only while the reader
has not chosen a state for the sidebar (Streamlit remembers that choice); it reads and sends nothing.
"""

from __future__ import annotations

import streamlit as st

#: Below this width the sidebar starts collapsed.
NARROW_PX = 900

STYLE = """
<style>
/* A metric's number and label wrap instead of ending in "14,…" (the cards wrap onto a new line too). */
[data-testid="stMetricValue"] > div, [data-testid="stMetricLabel"] p {
  overflow: visible !important; text-overflow: clip !important; white-space: normal !important;
}
[data-testid="stMetric"] { min-width: 9rem; }
/* A button shows its whole label: it grows, and its words may wrap, rather than being cut to "P..". */
[data-testid="stBaseButton-primary"] p, [data-testid="stBaseButton-secondary"] p {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}
</style>
"""

SCRIPT = f"""
<script>
(() => {{
  if (window.__compactionLabNarrow) return;
  window.__compactionLabNarrow = true;
  const chosen = () => Object.keys(window.localStorage).some(key => key.startsWith("stSidebarCollapsed-"));
  let tries = 0;
  const collapse = () => {{
    if (window.innerWidth >= {NARROW_PX} || chosen()) return;
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    const button = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (sidebar && button && sidebar.getAttribute("data-collapsed") !== "true") {{
      button.click();
    }} else if (!sidebar && tries++ < 50) {{
      window.setTimeout(collapse, 100);
    }}
  }};
  collapse();
}})();
</script>
"""


def page_layout() -> None:
    """The style and the narrow-screen rule, as one element that takes no room on the page."""
    st.html(STYLE + SCRIPT, unsafe_allow_javascript=True)
