"""Fixtures for the dashboard tests: the bundled samples, the shared openJiuwen dumps, and AppTest runs."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from streamlit.runtime import caching
from streamlit.testing.v1 import AppTest

from benchmarks.generate import conversation_dicts
from compressor.analysis import Analysis, analyze
from compressor.config import CurrentRoundCompressorConfig
from compressor.formats import load_conversation
from compressor.messages import Conversation
from compressor.replay import Recommendation, Simulation, Sweep, recommend, simulate, sweep
from dashboard import roots
from tests.conftest import OPENJIUWEN_DUMPS

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
SAMPLES = roots.SAMPLES_DIR
DEMO = SAMPLES / "demo-conversation.json"
APP_TIMEOUT = 30
#: The session id AppTest gives every run in a process (its session-scoped caches outlive one AppTest).
APPTEST_SESSION = "test session id"


def end_session() -> None:
    """What Streamlit does when a session ends: release the session's resources (its temporary folders)."""
    caching.clear_session_resource_cache(APPTEST_SESSION)


@pytest.fixture(autouse=True)
def _fresh_session() -> Iterator[None]:
    """Each test starts as a new session: nothing left in the session-scoped caches of the one before."""
    yield
    end_session()


def demo_conversation() -> Conversation:
    return load_conversation(DEMO)


def demo_analysis(**settings: object) -> Analysis:
    config = CurrentRoundCompressorConfig().with_settings(**settings)
    return analyze(demo_conversation(), config, context_max=16_000)


#: The capacity of the generated run the report and the run figures are checked on.
GENERATED_CONTEXT_MAX = 100_000
Run = tuple[Simulation, Sweep, Recommendation]


@pytest.fixture(scope="session")
def generated_run() -> Run:
    """A generated 300-message agent run replayed at ratio 0.6 / keep 2, a 3 × 2 sweep of it and its recommendation."""
    conversation = Conversation.from_messages(conversation_dicts(300, seed=4), name="generated run")
    config = CurrentRoundCompressorConfig(
        trigger_context_ratio=0.6, keep_recent_messages=2, min_target_context_ratio=0.02
    )
    simulation = simulate(conversation, config, context_max=GENERATED_CONTEXT_MAX, summary="ratio:0.1")
    swept = sweep(
        conversation,
        ratios=(0.5, 0.6, 0.8),
        keeps=(0, 2),
        min_targets=(0.02,),
        context_max=GENERATED_CONTEXT_MAX,
        summary="ratio:0.1",
    )
    return simulation, swept, recommend(swept, headroom=0.1)


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    """The dashboard after its first run (on the default page), with the default roots."""
    monkeypatch.delenv(roots.ROOTS_ENV, raising=False)
    monkeypatch.delenv("API_KEY", raising=False)
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
    return at.run()


@pytest.fixture
def dump_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A root holding copies of openJiuwen's own sample dumps (three folders with their debug logs)."""
    if not OPENJIUWEN_DUMPS.is_dir():
        raise RuntimeError(f"openJiuwen sample dumps missing at {OPENJIUWEN_DUMPS}")
    root = tmp_path / "root"
    shutil.copytree(OPENJIUWEN_DUMPS, root / "openjiuwen-dumps")
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    monkeypatch.setenv(roots.ROOTS_ENV, str(root))
    yield root


def texts(at: AppTest) -> str:
    """Every piece of text the run rendered, joined, with markdown backslash escapes removed."""
    parts: list[str] = []
    for kind in (
        "title",
        "header",
        "subheader",
        "markdown",
        "caption",
        "text",
        "code",
        "success",
        "info",
        "warning",
        "error",
    ):
        parts.extend(str(element.value) for element in getattr(at, kind))
    parts.extend(f"{metric.label} {metric.value}" for metric in at.metric)
    return unescaped("\n".join(parts))


def unescaped(markdown: str) -> str:
    """A markdown slot's text as the browser shows it (backslash escapes removed)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def run_script(
    script: Callable[[], None],
    *,
    state: Mapping[str, Any] | None = None,
    query: Mapping[str, str] | None = None,
) -> AppTest:
    """``script`` run once as a Streamlit script (imports inside it), with ``state`` put in the session and
    ``query`` in the URL first; what it leaves in ``st.session_state`` is read from the returned AppTest."""
    at = AppTest.from_function(script, default_timeout=APP_TIMEOUT)
    for key, value in (state or {}).items():
        at.session_state[key] = value
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    no_exception(at)
    return at
