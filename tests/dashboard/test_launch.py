"""`compaction-lab dashboard` runs `streamlit run dashboard/app.py` bound to 127.0.0.1 with no telemetry."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dashboard import launch


def flags(command: list[str]) -> dict[str, str]:
    return dict(arg[2:].split("=", 1) for arg in command if arg.startswith("--") and "=" in arg)


class TestCommand:
    def test_runs_the_app_with_this_python(self) -> None:
        command = launch.command([])
        assert command[:5] == [sys.executable, "-m", "streamlit", "run", str(launch.APP)]
        assert launch.APP.name == "app.py" and launch.APP.is_file()

    def test_honours_the_project_config(self) -> None:
        options = flags(launch.command([]))
        assert options["server.address"] == "127.0.0.1"
        assert options["server.headless"] == "true"
        assert options["server.maxUploadSize"] == "200"
        assert options["browser.gatherUsageStats"] == "false"
        assert options["theme.primaryColor"].startswith("#")

    def test_safe_defaults_without_a_config_file(self, tmp_path: Path) -> None:
        options = flags(launch.command([], config_file=tmp_path / "missing.toml"))
        assert options == {
            "server.address": "127.0.0.1",
            "server.headless": "true",
            "server.maxUploadSize": "200",
            "browser.gatherUsageStats": "false",
            "client.showErrorDetails": "type",  # an error on the page never shows a traceback's server paths
            "global.disableWidgetStateDuplicationWarning": "true",
        }

    def test_caller_options_win_and_are_not_doubled(self) -> None:
        command = launch.command(["--server.port", "8600", "--server.address=0.0.0.0"])
        assert command[-3:] == ["--server.port", "8600", "--server.address=0.0.0.0"]
        assert [arg for arg in command if arg.startswith("--server.address")] == ["--server.address=0.0.0.0"]


class TestAddress:
    def test_the_page_is_served_at_the_configured_address(self, tmp_path: Path) -> None:
        assert launch.address([], config_file=tmp_path / "missing.toml") == "http://127.0.0.1:8501"
        assert launch.address(["--server.port", "8600"]) == "http://127.0.0.1:8600"
        assert launch.address(["--server.port=8700", "--server.address=0.0.0.0"]) == "http://127.0.0.1:8700"

    def test_the_cli_takes_a_port(self) -> None:
        import argparse

        from compressor.cli import dashboard as command

        parser = argparse.ArgumentParser()
        command.add_parser(parser.add_subparsers())
        args = parser.parse_args(["dashboard", "--port", "8600"])
        assert args.port == 8600 and args.streamlit_args == []
        with pytest.raises(SystemExit):
            parser.parse_args(["dashboard", "--port", "70000"])
