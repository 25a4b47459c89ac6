"""A Cline session folder holding a compaction sidecar (cline/cline since d5db7eb, 2026-07-07): ``<id>/`` with
``<id>.messages.json``, the whole history, and ``<id>.compaction.json``, the window the last compaction left.

Invariant: the lead session reads as Cline sent it: the history before ``source_message_count`` (the run up to the
compaction), then the sidecar's messages (the compaction recorded at its summary, an internal turn), then the history
after the count; a sidecar Cline would not project leaves the history read alone. Other session files beside it
(a subagent's, ``<agent id>.messages.json``) are read as they are.

Schema: ``sdk/packages/core/src/session/models/session-compaction.ts`` at 21cb8d2 (``SessionCompactionStateSchema``
``{version: 1, updated_at, conversation_id?, source_message_count, source_prefix_hash?, source_last_message_key?,
messages, system_prompt?}``; ``projectSessionCompactionState``: the sidecar's messages, then the history from
``source_message_count`` on, when the history holds that many and its prefix matches); the path is
``services/session-artifacts.ts`` ``sessionCompactionPath``. The prefix hash is not recomputed here (it hashes user
text as ``formatDisplayUserInput`` normalises it): a count past the history's end, or a state without that hash
whose boundary key names another message, is a sidecar Cline ignores, and so is it here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from compressor.formats import cline_session
from compressor.formats.problems import FormatProblem
from compressor.formats.shape import Shape
from compressor.formats.stores import Store, StoreReader
from compressor.messages import Conversation

MESSAGES_SUFFIX = ".messages.json"
SIDECAR_SUFFIX = ".compaction.json"
#: The one ``version`` of the compaction state Cline writes and parses.
SIDECAR_VERSION = 1
_SESSION_FILE = re.compile(r".+" + re.escape(MESSAGES_SUFFIX) + "$")


def _named(store: Store, suffix: str) -> Path | None:
    """The folder's own ``<folder name><suffix>`` file, when it is a regular file in it."""
    if store.kind != "directory" or store.path is None:
        return None
    found = store.files("", re.compile(re.escape(store.path.name + suffix) + "$"))
    return found[0] if found else None


def looks_like(store: Store) -> bool:
    return _named(store, SIDECAR_SUFFIX) is not None and _named(store, MESSAGES_SUFFIX) is not None


def _session(store: Store, path: Path) -> dict[str, Any]:
    raw = store.read_json(path)
    if not isinstance(raw, dict) or not cline_session.looks_like(Shape.of_object(raw, path.name)):
        raise FormatProblem(
            store.loc(path), "is not a Cline session file (no sessionId, version 1 and messages)"
        )
    return dict(raw)


def _sidecar(store: Store, path: Path) -> tuple[int, list[Any], str | None, bool]:
    """The state's ``source_message_count``, ``messages``, ``source_last_message_key`` and whether it carries a
    ``source_prefix_hash``; a state Cline's schema refuses is a problem naming the file and field."""
    raw = store.read_json(path)
    loc = store.loc(path)
    if not isinstance(raw, dict):
        raise FormatProblem(loc, "is not a Cline compaction state (not a JSON object)")
    if raw.get("version") != SIDECAR_VERSION:
        raise FormatProblem(
            loc.key("version"), f"is not {SIDECAR_VERSION}, the compaction state Cline writes"
        )
    count, messages = raw.get("source_message_count"), raw.get("messages")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise FormatProblem(loc.key("source_message_count"), "is not a whole number of messages")
    if not isinstance(messages, list):
        raise FormatProblem(loc.key("messages"), "is not a list of messages")
    key = raw.get("source_last_message_key")
    hashed = isinstance(raw.get("source_prefix_hash"), str) and bool(raw["source_prefix_hash"])
    return count, messages, key if isinstance(key, str) and key else None, hashed


def _projects(history: list[Any], count: int, key: str | None, *, hashed: bool) -> bool:
    """Whether Cline sends the sidecar (``projectSessionCompactionState``): the history holds its count of
    messages, and its prefix hash (taken as matching: not recomputed) or, with none, its boundary key names the
    message at the boundary (an ``id:`` or ``ts:`` key is compared; a ``content:`` key is taken as matching)."""
    if count > len(history):
        return False
    if hashed:
        return True
    boundary = history[count - 1] if count else None
    if key is None or not isinstance(boundary, dict):
        return False
    if key.startswith("id:"):
        return key == f"id:{str(boundary.get('id', '')).strip()}"
    if key.startswith("ts:"):
        return key == f"ts:{boundary.get('role')}:{boundary.get('ts')}"
    return True


def read(store: Store) -> list[Conversation]:
    lead = _named(store, MESSAGES_SUFFIX)
    sidecar = _named(store, SIDECAR_SUFFIX)
    assert lead is not None and sidecar is not None and store.path is not None
    session = _session(store, lead)
    count, window, key, hashed = _sidecar(store, sidecar)
    history = session["messages"]
    if _projects(history, count, key, hashed=hashed):
        session["messages"] = [*history[:count], *window, *history[count:]]
    conversations = cline_session.read(Shape.of_object(session, store.path.name))
    for path in store.files("", _SESSION_FILE):
        if path != lead:
            name = path.name.removesuffix(MESSAGES_SUFFIX)
            conversations += cline_session.read(Shape.of_object(_session(store, path), name))
    return conversations


STORE_READER = StoreReader(name="cline-session-folder", looks_like=looks_like, read=read)
