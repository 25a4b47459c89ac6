"""``compaction-lab dashboard``: start the Streamlit app (the one way the library reaches the UI)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from dashboard.launch import launch


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65_535:
        raise argparse.ArgumentTypeError(f"--port: {text!r} is not a port number (1-65535)")
    return port


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dashboard",
        help="serve the Streamlit dashboard on 127.0.0.1 (the address is printed; open it in a browser)",
    )
    parser.add_argument("--port", type=_port, help="the port to serve on (default 8501)")
    parser.add_argument("streamlit_args", nargs=argparse.REMAINDER, help="more options for streamlit run")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return launch(args.streamlit_args, port=args.port, out=out)
