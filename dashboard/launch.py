"""Start the dashboard: ``streamlit run dashboard/app.py`` with the project's Streamlit settings.

Invariant: the server binds to 127.0.0.1, runs headless and sends no usage statistics unless the caller
passes its own value for one of those options; extra arguments go to ``streamlit run`` unchanged.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

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
}


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


def launch(argv: Sequence[str] | None = None) -> int:
    """Run the dashboard until it is stopped; returns Streamlit's exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return subprocess.call(command(args), cwd=PROJECT_DIR)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(launch())
