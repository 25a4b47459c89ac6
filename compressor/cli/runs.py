"""``compaction-lab runs``: the agent sessions found in the standard places, newest first, with their size
and messages."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from ..errors import ConversationFormatError
from ..formats import load_conversations
from ..formats.places import PLACES, find_sessions
from ..jsontext import json_text
from .common import EXIT_OK


def add_parser(subparsers: Any) -> None:
    agents = ", ".join(dict.fromkeys(place.agent for place in PLACES))  # every agent with a standard place
    parser = subparsers.add_parser(
        "runs", help=f"list the sessions agents wrote in their standard places: {agents}"
    )
    parser.add_argument("--home", metavar="DIR", help="look under this home folder instead of yours")
    parser.add_argument(
        "--limit", type=int, default=50, metavar="N", help="list at most N sessions (default 50)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per session")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    sessions = find_sessions(Path(args.home).expanduser() if args.home else None)
    if not sessions:
        print("no agent sessions found in the standard places (see README: Formats it reads)", file=out)
        return EXIT_OK
    for session in sessions[: max(args.limit, 0)]:
        row = session.to_dict()
        try:
            row["messages"] = sum(len(c.messages) for c in load_conversations(session.path))
        except ConversationFormatError as error:
            row["messages"] = None
            row["error"] = str(error)
        if args.json:
            print(json_text(row), file=out)
        else:
            messages = "unreadable" if row["messages"] is None else f"{row['messages']:,} messages"
            print(
                f"{row['modified']}  {row['agent']:<12} {session.size / 1024:>9,.0f} KB  {messages:<16} {session.path}",
                file=out,
            )
    if len(sessions) > args.limit and not args.json:
        print(f"… and {len(sessions) - args.limit} older (use --limit)", file=out)
    return EXIT_OK
