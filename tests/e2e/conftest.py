"""The dashboard served by ``streamlit run`` on 127.0.0.1, and Debian's Chromium driven by Playwright.

Under ``CI=true`` a missing Chromium is a failure, never a skip: CI installs it in ``.ci/run``. The server is
started the way ``make dashboard`` starts it: the bind address comes from the project's .streamlit/config.toml.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "tests" / "e2e" / "artifacts"
#: Where the browser test writes its screenshots: an ignored folder, so a test run never changes tracked files;
#: ``make screenshots`` points it at docs/screenshots to refresh the README's pictures.
SCREENSHOTS = Path(os.environ.get("COMPACTION_LAB_SCREENSHOTS") or ARTIFACTS / "screenshots")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
STARTUP_SECONDS = 60.0
#: Longest wait for one condition in the browser (a rerun on a busy 2-core machine can take a few seconds).
CONDITION_TIMEOUT_MS = 30_000


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    path = chromium_path()
    if path is None:
        message = "Debian's chromium is not installed (apt-get install chromium); .ci/run installs it"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@contextmanager
def served_app(env: dict[str, str], folder: Path) -> Iterator[str]:
    """``streamlit run dashboard/app.py`` with ``env`` as a user would start it; its address once it answers."""
    port = _free_port()
    log = (folder / "server.log").open("w")
    # No --server.address: config.toml must bind the server to 127.0.0.1 (test_dashboard_e2e checks the socket).
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "dashboard/app.py",
            "--server.port",
            str(port),
            "--server.headless",
            "true",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_SECONDS
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"streamlit exited with {process.returncode}; see {log.name}")
            if healthy(url):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not answer within {STARTUP_SECONDS:.0f} s; see {log.name}")
            time.sleep(0.2)  # polling readiness of a separate process, not waiting for a fixed time
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def healthy(url: str) -> bool:
    """Whether the server at ``url`` answers its health check."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _base_env(home: Path) -> dict[str, str]:
    env = {**os.environ, "HOME": str(home), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    for name in ("API_BASE", "API_KEY", "MODEL_NAME", "COMPACTION_LAB_ROOTS"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="session")
def dashboard_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app as a user starts it, with the default roots (the project's dumps/ and the samples) and no endpoint."""
    with served_app(_base_env(tmp_path_factory.mktemp("home")), tmp_path_factory.mktemp("streamlit")) as url:
        yield url


#: The key the configured server holds for its own endpoint; it must never reach a visitor's endpoint or page.
SERVER_KEY = "sk-server-canary-e2e-5a4b3c2d1e0f"


@dataclass(frozen=True)
class Served:
    """A configured app: its address, its temp folder, a root the tests write into, and its own endpoint."""

    url: str
    temp: Path
    follow: Path
    own: Any  # tests.support.openai_server.ScriptedServer: the server's API_BASE


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The app with roots holding openJiuwen's sample dumps and a folder the tests write into, its own temp folder
    (to watch session folders come and go), and an endpoint of its own with ``SERVER_KEY``."""
    from tests.conftest import OPENJIUWEN_DUMPS
    from tests.support.openai_server import ScriptedServer

    temp, follow = tmp_path_factory.mktemp("server-temp"), tmp_path_factory.mktemp("follow")
    roots = [REPO / "dumps", REPO / "dashboard" / "samples", OPENJIUWEN_DUMPS, follow]
    snapshot = "<state_snapshot>\n### 1. Active task\nnoted\n</state_snapshot>"
    with ScriptedServer([snapshot] * 20) as own:
        env = {
            **_base_env(tmp_path_factory.mktemp("home")),
            "COMPACTION_LAB_ROOTS": os.pathsep.join(str(root) for root in roots),
            "TMPDIR": str(temp),
            "API_BASE": own.url,
            "API_KEY": SERVER_KEY,
            "MODEL_NAME": "server-model",
        }
        with served_app(env, tmp_path_factory.mktemp("streamlit")) as url:
            yield Served(url=url, temp=temp, follow=follow, own=own)


@pytest.fixture(scope="session")
def browser(chromium_executable: str) -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=CONDITION_TIMEOUT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def new_page(browser: Any, width: int = 1400, height: int = 1000) -> Any:
    """A page in a browser context of its own (a session of its own on the server), collecting console errors."""
    context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
    context.set_default_timeout(CONDITION_TIMEOUT_MS)
    opened = context.new_page()
    opened.console_errors = []  # collected for tests that assert a clean console
    opened.on(
        "console",
        lambda message: opened.console_errors.append(message.text) if message.type == "error" else None,
    )
    return opened


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    opened = new_page(browser)
    yield opened
    opened.context.close()
