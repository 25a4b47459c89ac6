"""The run marker: each run of the app (and of a fragment on the page) writes the session's next number into one
hidden element, which holds that number only; the browser tests await runs by it (tests/e2e: after_rerun)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from streamlit.testing.v1 import AppTest

from dashboard import run_marker
from dashboard.state import keys
from tests.dashboard.conftest import no_exception

#: A marker exactly as the browser receives it; the number is the only part that varies.
MARKER = re.compile(
    re.escape(run_marker.STYLE) + rf'<div {run_marker.ATTRIBUTE}="(\d+)" hidden aria-hidden="true"></div>'
)


def numbers(at: AppTest) -> list[int]:
    """The run numbers on the page, in page order; every HTML element but the layout rule must be a marker."""
    bodies = [element.proto.body for element in at.get("html")][1:]  # the first is dashboard.layout's
    found = [MARKER.fullmatch(body) for body in bodies]
    assert all(found), bodies
    return [int(match.group(1)) for match in found if match]


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


class TestEveryRunIsNumbered:
    def test_the_first_run_numbers_the_app_and_the_pages_fragment(self, app: AppTest) -> None:
        # Span & trigger, the default page, draws one fragment (the message viewer): it counts its own runs
        assert numbers(app) == [1, 2]
        assert app.session_state[keys.K_RUN_COUNT] == 2

    def test_each_rerun_and_page_switch_counts_on(self, app: AppTest) -> None:
        app.run()
        assert numbers(app) == [3, 4]
        app.switch_page("views/load.py").run()
        no_exception(app)
        assert numbers(app) == [5]  # the Load page has no fragment
        app.switch_page("views/demo.py").run()
        no_exception(app)
        assert numbers(app) == [6, 7]  # the Demo page's step is a fragment


class TestTheMarkerShowsNothing:
    def test_it_is_hidden_from_sight_and_from_screen_readers_and_holds_only_its_number(self) -> None:
        parsed = _Tags()
        parsed.feed(run_marker.marker_html(42))
        (style, _), (div, attributes) = parsed.tags
        assert (style, div) == ("style", "div")
        assert attributes == {run_marker.ATTRIBUTE: "42", "hidden": None, "aria-hidden": "true"}
        css = "".join(parsed.text)  # the style rule is the only text: the div itself is empty
        assert css == re.sub(r"</?style>", "", run_marker.STYLE)

    def test_its_container_takes_no_room(self) -> None:
        # the element's container would keep its gap in the page's column; the rule removes it from the layout
        assert re.fullmatch(
            r'<style>\[data-testid="stElementContainer"\]:has\(\[data-compaction-lab-run\]\) '
            r"\{ display: none; \}</style>",
            run_marker.STYLE,
        )
