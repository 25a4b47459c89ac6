"""Where coding agents write their session files, and the sessions found there, newest first.

Invariant: only reads directory listings and file metadata (``stat``), and symlinks are not followed out of an
agent's folder; the one thing opened is a store a place names by a pattern (one of many), which its store reader is
asked whether it keeps conversations (``keeps_conversations``). An agent that keeps all its sessions in one store
(OpenCode) is listed as that store, once, as a store reader takes it whole; never as the files inside it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compressor.errors import ConversationFormatError
from compressor.formats.compressed import hidden_by_plain_sibling
from compressor.formats.problems import FormatProblem
from compressor.formats.registry import STORE_READERS
from compressor.formats.stores import Store, open_store
from compressor.formats.tallies import database_tally, folder_tally


@dataclass(frozen=True)
class Place:
    """One agent's session folder: where it is (relative to home, or from an environment variable) and which
    files in it are sessions (glob patterns, recursive), or which store in it holds them all."""

    agent: str
    folder: str | None  # relative to the home directory; None: only where ``env`` points, when it is set
    patterns: tuple[str, ...]
    env: str | None = None  # an environment variable that moves the folder (the agent's own)
    env_suffix: str = ""  # the part below that variable's folder
    env_fallback: str | None = None  # the agent's next variable that moves it, when ``env`` is not set
    # Further variables, each with the part below its folder, tried in order after those (Cline's data folder).
    env_chain: tuple[tuple[str, str], ...] = ()
    # Stores read whole (a database file, or a folder a store reader takes), below the folder. The first one
    # there is the agent's every session: a later one is what it migrated from and still holds the same ones.
    stores: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()  # file names the patterns match that are no session (an index)
    # A suffix the agent moved to: a match with a sibling of the same name and this suffix is that session's older
    # copy (VS Code keeps ``<id>.json`` beside the ``<id>.jsonl`` log that replaced it) and is not listed.
    newer_suffix: str = ""
    # Files beside the first store that it imported and the agent left behind (Goose's <id>.jsonl): not listed.
    imported: tuple[str, ...] = ()
    # The names the agent gives its session files (a regular expression a whole name matches), when it keeps side
    # files the patterns match too beside them (Qwen Code's <id>.ledger.jsonl): a match named otherwise is not listed.
    names: str = ""
    # Stores named by glob patterns below the folder, every match one of its own (Cursor: a database a workspace),
    # listed when the store reader that takes it says it keeps conversations (``StoreReader.holds``).
    store_patterns: tuple[str, ...] = ()
    # A matched file whose folder a store reader takes is listed as that folder, once (Cline's session folder
    # once a compaction sidecar is beside its history: the folder reads as Cline sends it, the file alone not).
    session_folders: bool = False

    def root(self, home: Path, environ: Mapping[str, str]) -> Path | None:
        chain = ((self.env, self.env_suffix), (self.env_fallback, self.env_suffix), *self.env_chain)
        for variable, suffix in chain:
            if variable and environ.get(variable):
                return Path(environ[variable]).expanduser() / suffix
        return home / self.folder if self.folder is not None else None


#: Editors built on VS Code that run its extensions (Cline and its forks); each keeps its own globalStorage.
_VSCODE_EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
_VSCODE_USER = tuple(
    f"{base}/{editor}/User"
    for base in (".config", "Library/Application Support")
    for editor in _VSCODE_EDITORS
)
_VSCODE_STORAGE = tuple(f"{user}/globalStorage" for user in _VSCODE_USER)
#: Where VS Code keeps each workspace's chat sessions, and an empty window's (chatSessionStore.ts).
_CHAT_SESSIONS = tuple(
    f"{folder}/*.{suffix}"
    for folder in ("workspaceStorage/*/chatSessions", "globalStorage/emptyWindowChatSessions")
    for suffix in ("json", "jsonl")
)

#: The standard places, as each agent documents them (README: "Formats it reads").
PLACES: tuple[Place, ...] = (
    Place("claude-code", ".claude/projects", ("**/*.jsonl",), env="CLAUDE_CONFIG_DIR", env_suffix="projects"),
    # Codex 0.137 on rewrites a rollout idle for a week as rollout-….jsonl.zst (codex-rs/rollout compression.rs)
    Place(
        "codex",
        ".codex/sessions",
        ("**/rollout-*.jsonl", "**/rollout-*.jsonl.zst"),
        env="CODEX_HOME",
        env_suffix="sessions",
    ),
    # a thread the user archived moves, whole, to archived_sessions/ (codex-rs/rollout: ARCHIVED_SESSIONS_SUBDIR)
    Place(
        "codex",
        ".codex/archived_sessions",
        ("rollout-*.jsonl", "rollout-*.jsonl.zst"),
        env="CODEX_HOME",
        env_suffix="archived_sessions",
    ),
    # A subagent's session goes below its parent's, chats/<parent session id>/<session id>.jsonl; GEMINI_CLI_HOME
    # stands in for the home directory (chatRecordingService.ts initialize; utils/paths.ts homedir).
    Place(
        "gemini-cli",
        ".gemini/tmp",
        ("*/chats/session-*.json", "*/chats/session-*.jsonl", "*/chats/*/*.jsonl"),
        env="GEMINI_CLI_HOME",
        env_suffix=".gemini/tmp",
    ),
    # Qwen Code names a session <id>.jsonl and lists only those (sessionService.ts SESSION_FILE_PATTERN): beside them
    # it keeps each session's side files, <id>.ledger.jsonl (its prompt ledger), <id>.worktree.json, <id>.pr.json.
    # An archived session moves, with its side files, to chats/archive/ (getArchiveChatsDir). Sessions live under
    # the runtime folder: QWEN_RUNTIME_DIR, else QWEN_HOME, else ~/.qwen (config/storage.ts getRuntimeBaseDir).
    Place(
        "qwen-code",
        ".qwen/projects",
        ("*/chats/*.jsonl", "*/chats/archive/*.jsonl"),
        env="QWEN_RUNTIME_DIR",
        env_suffix="projects",
        env_fallback="QWEN_HOME",
        names=r"[0-9a-fA-F-]{32,36}\.jsonl",
    ),
    # OpenCode 1.2 moved storage/ into opencode.db and leaves the folder behind (storage/json-migration.ts).
    Place(
        "opencode",
        ".local/share/opencode",
        (),
        env="XDG_DATA_HOME",
        env_suffix="opencode",
        stores=("opencode.db", "storage"),
    ),
    # The Kilo Code CLI (7.x, an OpenCode fork) keeps OpenCode's database as kilo.db in its own data folder.
    Place("kilo-code", ".local/share/kilo", (), env="XDG_DATA_HOME", env_suffix="kilo", stores=("kilo.db",)),
    # Goose 1.10 moved its sessions into sessions.db and imported the older <id>.jsonl files, which stay behind.
    Place(
        "goose",
        ".local/share/goose/sessions",
        (),
        env="XDG_DATA_HOME",
        env_suffix="goose/sessions",
        stores=("sessions.db",),
        imported=("*.jsonl",),
    ),
    # GOOSE_PATH_ROOT (an absolute path) holds all of Goose's folders, its data in data/ (config/paths.rs).
    Place(
        "goose",
        None,
        (),
        env="GOOSE_PATH_ROOT",
        env_suffix="data/sessions",
        stores=("sessions.db",),
        imported=("*.jsonl",),
    ),
    # Goose before it moved to the XDG folders (block/goose PR #1153, February 2025) kept a <name>.jsonl a session
    # under ~/.config/goose/sessions (messages only: the metadata line came in March, PR #1453); never imported.
    Place("goose", ".config/goose/sessions", ("*.jsonl",)),
    # Cursor keeps every workspace's agent chats in its own storage database (table cursorDiskKV); before that (2024)
    # each workspace's database kept its chats (workspaceStorage/<hash>/state.vscdb, table ItemTable).
    *(
        Place("cursor", f"{base}/Cursor/User/globalStorage", (), stores=("state.vscdb",))
        for base in (".config", "Library/Application Support")
    ),
    *(
        Place("cursor", f"{base}/Cursor/User/workspaceStorage", (), store_patterns=("*/state.vscdb",))
        for base in (".config", "Library/Application Support")
    ),
    *(
        Place(agent, f"{storage}/{extension}/tasks", ("*/api_conversation_history.json",))
        for storage in _VSCODE_STORAGE
        for agent, extension in (
            ("cline", "saoudrizwan.claude-dev"),
            ("roo-code", "rooveterinaryinc.roo-cline"),
            ("kilo-code", "kilocode.kilo-code"),
        )
    ),
    # The Cline CLI (3.x) and @cline/core keep a session a folder, <id>/<id>.messages.json beside its <id>.json run
    # record, in the sessions folder: CLINE_SESSION_DATA_DIR, else the data folder's sessions/; the data folder is
    # CLINE_DATA_DIR, else $CLINE_DIR/data, else ~/.cline/data (cline/cline sdk/packages/shared/src/storage/paths.ts).
    Place(
        "cline",
        ".cline/data/sessions",
        ("*/*.messages.json",),
        env="CLINE_SESSION_DATA_DIR",
        env_chain=(("CLINE_DATA_DIR", "sessions"), ("CLINE_DIR", "data/sessions")),
        session_folders=True,
    ),
    # Cline's tasks outside VS Code's storage (the data folder's tasks/<id>/: apps/vscode legacy-state-reader.ts).
    Place(
        "cline",
        ".cline/data/tasks",
        ("*/api_conversation_history.json",),
        env="CLINE_DATA_DIR",
        env_suffix="tasks",
        env_chain=(("CLINE_DIR", "data/tasks"),),
    ),
    # GitHub Copilot Chat, as VS Code saves its sessions (1.109 and later: a .jsonl log beside the older .json).
    *(Place("copilot-chat", user, _CHAT_SESSIONS, newer_suffix=".jsonl") for user in _VSCODE_USER),
    # Amazon Q's chat keeps each working directory's conversation in data.sqlite3 of its data folder (dirs'
    # data_local_dir: $XDG_DATA_HOME or ~/.local/share, macOS Application Support); Kiro CLI in its own, likewise.
    *(
        place
        for agent in ("amazon-q", "kiro-cli")
        for place in (
            Place(
                agent,
                f".local/share/{agent}",
                (),
                env="XDG_DATA_HOME",
                env_suffix=agent,
                stores=("data.sqlite3",),
            ),
            Place(agent, f"Library/Application Support/{agent}", (), stores=("data.sqlite3",)),
        )
    ),
    # Continue (IDE and cn CLI); sessions.json beside the sessions is their index (core/util/paths.ts).
    Place(
        "continue",
        ".continue/sessions",
        ("*.json",),
        env="CONTINUE_GLOBAL_DIR",
        env_suffix="sessions",
        exclude=("sessions.json",),
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
        if root is None or not root.is_dir():
            continue
        for path in _matches(root, place.patterns):
            if (
                path.name in place.exclude
                or _side_file(path, place)
                or _superseded(path, place.newer_suffix)
                or hidden_by_plain_sibling(path)
            ):
                continue
            if place.session_folders and is_store_folder(path.parent):
                measured = _measure(path.parent)
                if measured is not None:
                    found.setdefault(path.parent, _session(place.agent, path.parent, *measured))
                continue
            try:
                info = path.stat()
            except OSError:
                continue
            found.setdefault(path, _session(place.agent, path, info.st_size, info.st_mtime))
        stores = [
            _store(root, place.stores),
            *(p for p in _matches(root, place.store_patterns) if keeps_conversations(p)),
        ]
        for store in stores:
            measured = _measure(store) if store is not None else None
            if store is not None and measured is not None:
                found.setdefault(store, _session(place.agent, store, *measured))
    return sorted(found.values(), key=lambda session: (session.modified, str(session.path)), reverse=True)


def _matches(root: Path, patterns: tuple[str, ...]) -> Iterator[Path]:
    resolved = root.resolve()
    for pattern in patterns:
        for path in root.glob(pattern):
            # Only regular files whose real place is inside the agent's folder.
            if path.is_file() and not path.is_symlink() and path.resolve().is_relative_to(resolved):
                yield path


def _side_file(path: Path, place: Place) -> bool:
    """A file the place's patterns match that is not named as the agent names its sessions (see ``Place.names``)."""
    return bool(place.names) and re.fullmatch(place.names, path.name) is None


#: The places whose agent keeps side files beside its sessions, with where they are: their folder and patterns.
_NAMED: tuple[tuple[str, Place], ...] = tuple(
    (f"{place.folder}/{pattern}", place)
    for place in PLACES
    if place.names and place.folder is not None
    for pattern in place.patterns
)


#: The places naming their stores by patterns, with where those are: their folder and patterns.
_PATTERN_STORES: tuple[str, ...] = tuple(
    f"{place.folder}/{pattern}"
    for place in PLACES
    if place.folder is not None
    for pattern in place.store_patterns
)


def keeps_conversations(path: Path) -> bool:
    """Whether a database a place's store pattern names keeps conversations, as the store reader that takes it says
    (``StoreReader.holds``); opened read-only, for that question only. One no reader takes, or that cannot be
    read, keeps none."""
    try:
        store = open_store(path)
        if store is None:
            return False
        reader = next((reader for reader in STORE_READERS if reader.looks_like(store)), None)
        return reader is not None and (reader.holds is None or reader.holds(store))
    except (ConversationFormatError, FormatProblem, OSError):
        return False


def _superseded(path: Path, newer_suffix: str) -> bool:
    """A session file the agent has since rewritten under ``newer_suffix`` beside it (a regular file, no link)."""
    if not newer_suffix or path.suffix == newer_suffix:
        return False
    newer = path.with_suffix(newer_suffix)
    return newer.is_file() and not newer.is_symlink()


#: The patterns of the places whose agent moved to a newer suffix, with that suffix (each pair once).
_REWRITTEN: tuple[tuple[str, str], ...] = tuple(
    dict.fromkeys(
        (pattern, place.newer_suffix) for place in PLACES if place.newer_suffix for pattern in place.patterns
    )
)


def _leaving_beside(places: tuple[Place, ...]) -> dict[str, tuple[Place, ...]]:
    """The places that leave something beside their sessions, by the name of their folder ("opencode")."""
    found: dict[str, tuple[Place, ...]] = {}
    for place in places:
        if place.exclude or len(place.stores) > 1 or place.imported:
            name = Path(place.env_suffix if place.folder is None else place.folder).name
            found[name] = (*found.get(name, ()), place)
    return found


_BESIDE = _leaving_beside(PLACES)


def left_out(path: Path) -> bool:
    """A file or store folder that the standard places do not list, wherever its folder was found (a fleet
    walking any folder): an older copy beside its newer file (a place's pattern matches the path's tail,
    ``workspaceStorage/*/chatSessions/*.json``), an index, a store the agent migrated from to the first one
    beside it, a file that store imported (by the names of the place's folder, its stores and files), a side
    file of an agent that names its sessions (below the place's folder, by the place's patterns and names), a
    store a place's store pattern names that keeps no conversation (``keeps_conversations``), or a compressed file
    beside its plain one (``x.jsonl.zst`` while ``x.jsonl`` is there: the same run, mid-rewrite)."""
    if hidden_by_plain_sibling(path):
        return True
    if any(
        path.suffix != newer and path.match(pattern) and _superseded(path, newer)
        for pattern, newer in _REWRITTEN
    ):
        return True
    if any(path.match(where) and _side_file(path, place) for where, place in _NAMED):
        return True
    if any(path.match(where) for where in _PATTERN_STORES) and not keeps_conversations(path):
        return True
    for place in _BESIDE.get(path.parent.name, ()):
        if path.name in place.exclude:
            return True
        later = path.name in place.stores or any(path.match(pattern) for pattern in place.imported)
        if later and _store(path.parent, place.stores) not in (None, path):
            return True
    return False


def _session(agent: str, path: Path, size: int, mtime: float) -> SessionFile:
    return SessionFile(agent=agent, path=path, size=size, modified=datetime.fromtimestamp(mtime, UTC))


def _store(root: Path, names: tuple[str, ...]) -> Path | None:
    """The first of ``names`` below ``root`` that is a store: a regular file (a database, opened only when
    read), or a folder a store reader takes; no link is followed."""
    for name in names:
        path = root / name
        if path.is_symlink():
            continue
        if path.is_file():
            return path
        if path.is_dir() and is_store_folder(path):
            return path
    return None


def is_store_folder(folder: Path) -> bool:
    """A store reader takes ``folder`` whole (OpenCode's ``storage/``, an OpenHands SDK conversation)."""
    store = Store("directory", str(folder), folder.name, path=folder)
    try:
        return any(reader.looks_like(store) for reader in STORE_READERS)
    except (FormatProblem, OSError):  # a folder that cannot be listed, or a link out of it
        return False


def _measure(path: Path) -> tuple[int, float] | None:
    """(bytes, newest change) of a store: its file's with its write-ahead log (``database_tally``), or over every
    file and folder in a folder (a session added or rewritten anywhere in it changes one of them); None when it
    went away meanwhile."""
    try:
        info = path.stat()
    except OSError:
        return None
    if not path.is_dir():
        size, newest = database_tally(path, info)
        return size, newest / 1e9
    size, newest = folder_tally(path, info.st_mtime_ns)
    return size, newest / 1e9
