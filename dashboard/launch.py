"""Start the dashboard: ``streamlit run dashboard/app.py`` with the project's Streamlit settings, and say where it
is served (nothing opens a browser: the server runs headless).

Invariant: the server binds to 127.0.0.1, runs headless and sends no usage statistics unless the caller
passes its own value for one of those options; extra arguments go to ``streamlit run`` unchanged.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

APP = Path(__file__).resolve().parent / "app.py"
PROJECT_DIR = APP.parent.parent
CONFIG_FILE = PROJECT_DIR / ".streamlit" / "config.toml"

#: Used when the project's config.toml is not there (e.g. an installed wheel); the file wins otherwise.
BUILTIN_OPTIONS: dict[str, Any] = {
    "server.address": "127.0.0.1",
    "server.headless": True,
    "server.maxUploadSize": 200,
    "browser.gatherUsageStats": False,
    "client.showErrorDetails": "type",
    "global.disableWidgetStateDuplicationWarning": True,
}
#: Streamlit's own port when neither the caller nor config.toml names one.
DEFAULT_PORT = 8501


def config_options(config_file: Path = CONFIG_FILE) -> dict[str, Any]:
    """``section.key`` → value from a Streamlit config.toml, over the built-in safe defaults."""
    options = dict(BUILTIN_OPTIONS)
    if config_file.is_file():
        with config_file.open("rb") as handle:
            data = tomllib.load(handle)
        options.update(_flatten(data))
    return options


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def _flag_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def command(argv: Sequence[str] = (), *, config_file: Path = CONFIG_FILE) -> list[str]:
    """The ``streamlit run`` command line; an option the caller gives is not given twice."""
    given = {arg.split("=", 1)[0].lstrip("-") for arg in argv if arg.startswith("--")}
    flags = [
        f"--{name}={_flag_value(value)}"
        for name, value in config_options(config_file).items()
        if name not in given and not isinstance(value, list | dict)
    ]
    return [sys.executable, "-m", "streamlit", "run", str(APP), *flags, *argv]


def _given(argv: Sequence[str], name: str) -> str | None:
    """The value the caller gives for ``--name=value`` or ``--name value``, if any."""
    for index, arg in enumerate(argv):
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
        if arg == f"--{name}" and index + 1 < len(argv):
            return argv[index + 1]
    return None


def address(argv: Sequence[str] = (), *, config_file: Path = CONFIG_FILE) -> str:
    """The address the page will be served at, e.g. ``http://127.0.0.1:8501``."""
    options = config_options(config_file)
    host = _given(argv, "server.address") or str(options.get("server.address", "127.0.0.1"))
    port = _given(argv, "server.port") or str(options.get("server.port", DEFAULT_PORT))
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
    return f"http://{shown}:{port}"


def launch(argv: Sequence[str] | None = None, *, port: int | None = None, out: TextIO | None = None) -> int:
    """Run the dashboard until it is stopped, after saying where it is served; returns Streamlit's exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if port is not None:
        args = ["--server.port", str(port), *args]
    print(
        f"compaction-lab dashboard: serving the page at {address(args)} - open it in a browser (Ctrl+C stops it).",
        file=out or sys.stdout,
        flush=True,
    )
    try:
        return subprocess.call(command(args), cwd=PROJECT_DIR)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(launch())
