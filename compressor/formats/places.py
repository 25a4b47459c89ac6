"""Where coding agents write their session files, and the sessions found there, newest first.

Invariant: only reads directory listings and file metadata (``stat``); nothing is parsed here, and symlinks
are not followed out of an agent's folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Place:
    """One agent's session folder: where it is (relative to home, or from an environment variable) and which
    files in it are sessions (glob patterns, recursive)."""

    agent: str
    folder: str  # relative to the home directory
    patterns: tuple[str, ...]
    env: str | None = None  # an environment variable that moves the folder (the agent's own)
    env_suffix: str = ""  # the part below that variable's folder

    def root(self, home: Path, environ: Mapping[str, str]) -> Path:
        if self.env and environ.get(self.env):
            return Path(environ[self.env]).expanduser() / self.env_suffix
        return home / self.folder


_VSCODE_STORAGE = (".config/Code/User/globalStorage", "Library/Application Support/Code/User/globalStorage")

#: The standard places, as each agent documents them (README: "Formats it reads").
PLACES: tuple[Place, ...] = (
    Place("claude-code", ".claude/projects", ("**/*.jsonl",), env="CLAUDE_CONFIG_DIR", env_suffix="projects"),
    Place("codex", ".codex/sessions", ("**/rollout-*.jsonl",), env="CODEX_HOME", env_suffix="sessions"),
    Place("gemini-cli", ".gemini/tmp", ("*/chats/session-*.json", "*/chats/session-*.jsonl")),
    Place("qwen-code", ".qwen/projects", ("*/chats/*.jsonl",)),
    Place("opencode", ".local/share/opencode/storage/session", ("**/*.json",)),
    *(
        Place(agent, f"{storage}/{extension}/tasks", ("*/api_conversation_history.json",))
        for storage in _VSCODE_STORAGE
        for agent, extension in (
            ("cline", "saoudrizwan.claude-dev"),
            ("roo-code", "rooveterinaryinc.roo-cline"),
        )
    ),
)


@dataclass(frozen=True, kw_only=True)
class SessionFile:
    agent: str
    path: Path
    size: int
    modified: datetime

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "path": str(self.path),
            "size": self.size,
            "modified": self.modified.isoformat(timespec="seconds"),
        }


def find_sessions(
    home: Path | None = None, environ: Mapping[str, str] | None = None, places: tuple[Place, ...] = PLACES
) -> list[SessionFile]:
    """Every session file in the standard places that exist, newest first (by modification time)."""
    home = Path.home() if home is None else home
    environ = os.environ if environ is None else environ
    found: dict[Path, SessionFile] = {}
    for place in places:
        root = place.root(home, environ)
        if not root.is_dir():
            continue
        for path in _matches(root, place.patterns):
            try:
                info = path.stat()
            except OSError:
                continue
            found.setdefault(
                path,
                SessionFile(
                    agent=place.agent,
                    path=path,
                    size=info.st_size,
                    modified=datetime.fromtimestamp(info.st_mtime, UTC),
                ),
            )
    return sorted(found.values(), key=lambda session: (session.modified, str(session.path)), reverse=True)


def _matches(root: Path, patterns: tuple[str, ...]) -> Iterator[Path]:
    resolved = root.resolve()
    for pattern in patterns:
        for path in root.glob(pattern):
            # Only regular files whose real place is inside the agent's folder.
            if path.is_file() and not path.is_symlink() and path.resolve().is_relative_to(resolved):
                yield path
