"""Every agent on the dashboard: with the roots at a home holding each agent's standard place (the home of
``tests/compressor/test_every_agent.py``), the Load page's session picker offers each agent's session once, each
opens with every conversation it holds, and Span & trigger renders it; the runs of agents with no standard place
open from the folder browser. One AppTest per agent."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from compressor.formats import load_conversations
from dashboard.state import keys
from tests.compressor.test_every_agent import SAVED, STANDARD, Session, build_home, point_at
from tests.dashboard.conftest import no_exception
from tests.dashboard.test_page_load_stores import held, page_with_root
from tests.dashboard.test_page_span import decision_text


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Session]]:
    folder = tmp_path_factory.mktemp("home")
    return folder, build_home(folder)


def offered(at: AppTest) -> list[str]:
    return list(at.selectbox(key=keys.page_widget("load", "session")).options)


def open_session(at: AppTest, home: Path, session: Session) -> AppTest:
    """Pick the session in the picker by its path and press the button that opens it."""
    relative = str(session.path.relative_to(home))
    labels = offered(at)
    matching = [n for n, label in enumerate(labels) if label.endswith(relative)]
    assert len(matching) == 1, (relative, labels)
    assert labels[matching[0]].startswith(f"{session.agent} · ")
    at.selectbox(key=keys.page_widget("load", "session")).set_value(matching[0]).run()
    at.button(key=keys.page_widget("load", "open_session")).click().run()
    return at


def opened_conversations(at: AppTest) -> dict[str, object]:
    """The conversations loaded, by key, but the demo the app opens with."""
    return {key: item for key, item in held(at).items() if not key.startswith("sample:")}


def shows_what_was_opened(at: AppTest, session: Session) -> None:
    """Nothing went wrong, the conversations loaded are the loader's, and Span & trigger renders the newest."""
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    opened = opened_conversations(at)
    loaded = [item.conversation for item in opened.values()]  # type: ignore[attr-defined]
    assert [c.messages for c in loaded] == [c.messages for c in load_conversations(session.path)]
    at.switch_page("views/span.py").run()
    no_exception(at)
    assert at.session_state[keys.W_CONVERSATION] in opened  # the page shows the session just opened
    assert decision_text(at).startswith(("Compaction fires", "No compaction"))


@pytest.mark.parametrize("agent", STANDARD)
def test_the_agents_session_is_offered_opens_and_span_renders(
    agent: str, home: tuple[Path, dict[str, Session]], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, sessions = home
    point_at(folder, monkeypatch)
    at = page_with_root(folder, monkeypatch)
    no_exception(at)
    assert len(offered(at)) == len(STANDARD)  # each agent's session once: no index, no copy, no imported file
    session = sessions[agent]
    shows_what_was_opened(open_session(at, folder, session), session)


@pytest.mark.parametrize("agent", SAVED)
def test_the_agents_saved_run_opens_from_the_folder_browser_and_span_renders(
    agent: str, home: tuple[Path, dict[str, Session]], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, sessions = home
    point_at(folder, monkeypatch)
    session = sessions[agent]
    at = page_with_root(session.path.parent, monkeypatch)  # the folder it was saved in, as a root
    entries = at.selectbox(key=keys.browse_widget("load", "entry:0:"))
    labels = [label for label in entries.options if label.startswith(f"📄 {session.path.name} · ")]
    assert len(labels) == 1, list(entries.options)
    entries.set_value(labels[0]).run()
    at.button(key=keys.page_widget("load", "open_file")).click().run()
    shows_what_was_opened(at, session)
