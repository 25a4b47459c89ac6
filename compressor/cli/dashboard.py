"""``compaction-lab dashboard``: start the Streamlit app (the one way the library reaches the UI)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from dashboard.launch import launch


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("dashboard", help="open the Streamlit dashboard")
    parser.add_argument("streamlit_args", nargs=argparse.REMAINDER)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return launch(args.streamlit_args)
