"""Amazon Q Developer CLI's database (``data.sqlite3`` in its data folder: ``~/.local/share/amazon-q/`` on Linux,
``~/Library/Application Support/amazon-q/`` on macOS) and Kiro CLI's (the same under ``kiro-cli/``): one
ConversationState a row, read by ``amazon_q``.

Invariant: only the conversation tables are queried (``auth_kv`` and ``state`` hold tokens and credentials and are
never read); rows are taken in the order they were last written (Q's ``INSERT OR REPLACE`` gives a rewritten row a
new rowid; Kiro's ``updated_at``); a row whose value is not JSON names its table and key.

Tables: Q's ``conversations (key TEXT PRIMARY KEY, value TEXT)`` (migration 007, the key the working directory);
Kiro's ``conversations_v2`` (``key``, ``conversation_id``, ``value``, ``created_at``, ``updated_at``; see
``amazon_q``). Both databases also hold Q's ``migrations`` and ``state`` tables, which tell them from other SQLite
files. A conversation Kiro holds in both tables is read once, from ``conversations_v2``; a row ``/clear`` emptied
is left out.
"""

from __future__ import annotations

import json
from typing import Any

from compressor.formats.amazon_q import SOURCE_FORMAT, from_state
from compressor.formats.problems import FormatProblem, Loc, expect_dict
from compressor.formats.source import check_depth
from compressor.formats.stores import Store, StoreReader, rows
from compressor.messages import Conversation

Q_TABLE, Q_COLUMNS = "conversations", frozenset({"key", "value"})
KIRO_TABLE, KIRO_COLUMNS = "conversations_v2", frozenset({"key", "conversation_id", "value", "updated_at"})


def _key_text(value: Any) -> str | None:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return value if isinstance(value, str) else None


def _row_state(text: Any, loc: Loc) -> Any:
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else None
    except (ValueError, RecursionError):
        value = None
    if value is None:
        raise FormatProblem(loc, "not valid JSON")
    check_depth(value, loc)
    return value


def _has_columns(store: Store, table: str, columns: frozenset[str]) -> bool:
    return {str(row[1]) for row in rows(store, f"PRAGMA table_info({table})")} >= columns


def _is_database(store: Store) -> bool:
    if store.kind != "sqlite":
        return False
    tables = store.tables()
    if not {"migrations", "state"} <= tables:
        return False
    return (KIRO_TABLE in tables and _has_columns(store, KIRO_TABLE, KIRO_COLUMNS)) or (
        Q_TABLE in tables and _has_columns(store, Q_TABLE, Q_COLUMNS)
    )


def _read_database(store: Store) -> list[Conversation]:
    tables = store.tables()
    out: list[Conversation] = []
    seen: set[str] = set()
    if KIRO_TABLE in tables:
        query = f"SELECT key, conversation_id, value FROM {KIRO_TABLE} ORDER BY updated_at, rowid"
        for row in rows(store, query):
            key, conversation_id = _key_text(row["key"]), _key_text(row["conversation_id"])
            loc = Loc(path=f"{KIRO_TABLE} row {conversation_id}")
            state = _row_state(row["value"], loc.key("value"))
            out.append(_from_row(state, conversation_id or "", loc.key("value"), "kiro-cli", key))
            seen.add(str(conversation_id))
    if Q_TABLE in tables:
        for row in rows(store, f"SELECT key, value FROM {Q_TABLE} ORDER BY rowid"):
            key = _key_text(row["key"])
            loc = Loc(path=f"{Q_TABLE} row {key}")
            state = _row_state(row["value"], loc.key("value"))
            if isinstance(state, dict) and state.get("conversation_id") in seen:
                continue  # Kiro's copy of a conversation it took over from Q
            out.append(_from_row(state, key or "", loc.key("value"), "amazon-q", key))
    out = [conversation for conversation in out if conversation.messages]
    if not out:
        raise FormatProblem(
            Loc(), "is an Amazon Q / Kiro CLI database with no conversation that has messages"
        )
    return out


def _from_row(state: Any, name: str, loc: Loc, agent: str, key: str | None) -> Conversation:
    state = expect_dict(state, loc, "a conversation state")
    if (
        state.get("history") == []
        and state.get("latest_summary") is None
        and state.get("next_message") is None
    ):
        return Conversation(name=name, source_format=SOURCE_FORMAT)  # cleared: nothing Q would send
    return from_state(state, name=name, loc=loc, agent=agent, cwd=key)


STORE_READER = StoreReader(name="amazon-q-db", looks_like=_is_database, read=_read_database)
