"""OpenAI Agents SDK ``SQLiteSession`` databases: table ``agent_messages(id, session_id, message_data, created_at)``,
each ``message_data`` one Responses input item as JSON; one conversation per ``session_id``.

Invariant: the database is only read (``stores.Store.connect``: a ``mode=ro`` URI, or an upload deserialised in
memory); rows are taken in ``id`` order, as ``SQLiteSession.get_items`` returns them, and go through the shared
Responses item parser (``responses``), so roles, pairing and recorded compactions follow its rules.

Schema: openai/openai-agents-python ``src/agents/memory/sqlite_session.py`` (table and column names; the tables
can be renamed, so any table with ``session_id`` and ``message_data`` columns is read when ``agent_messages`` is
absent). Rows whose ``message_data`` is not JSON are skipped, as the SDK skips them. An
``OpenAIResponsesCompactionSession`` over SQLite leaves a ``compaction`` item after its compactions (encrypted
summary). The SDK stores no usage, so windows are counted.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from compressor.formats.problems import FormatProblem, Loc
from compressor.formats.responses import from_items
from compressor.formats.source import check_depth
from compressor.formats.stores import Store, StoreReader, rows
from compressor.messages import Conversation, Reading

SOURCE_FORMAT = "openai-agents-sqlite"
MESSAGES_TABLE = "agent_messages"
COLUMNS = ("session_id", "message_data")


def _columns(store: Store, table: str) -> frozenset[str]:
    connection = store.connect()
    try:
        return frozenset(str(row[1]) for row in connection.execute(f'PRAGMA table_info("{table}")'))
    except sqlite3.Error:
        return frozenset()
    finally:
        connection.close()


def messages_table(store: Store) -> str | None:
    """The table holding the session items: ``agent_messages``, else the first with the SDK's two columns."""
    tables = sorted(store.tables())
    if MESSAGES_TABLE in tables:
        tables = [MESSAGES_TABLE]
    for table in tables:
        if '"' not in table and set(COLUMNS) <= _columns(store, table):
            return table
    return None


def read(store: Store) -> list[Conversation]:
    table = messages_table(store)
    if table is None:
        raise FormatProblem(Loc(), f"has no {MESSAGES_TABLE} table")
    order = "id" if "id" in _columns(store, table) else "rowid"
    sessions: dict[str, list[tuple[Loc, Any]]] = {}
    unreadable: dict[str, int] = {}
    for row in rows(
        store, f'SELECT {order} AS row_id, session_id, message_data FROM "{table}" ORDER BY {order}'
    ):
        session = str(row["session_id"])
        loc = Loc(path=f"{table} row {row['row_id']}").key("message_data")
        items = sessions.setdefault(session, [])
        try:
            value = json.loads(row["message_data"])
        except (TypeError, ValueError, RecursionError):
            unreadable[session] = unreadable.get(session, 0) + 1
            continue
        check_depth(value, loc)
        items.append((loc, value))
    if not sessions:
        raise FormatProblem(Loc(), f"{table} holds no rows")
    out: list[Conversation] = []
    for index, (session, items) in enumerate(sessions.items()):
        name = store.stem if len(sessions) == 1 else f"{store.stem} #{index} (session {session})"
        metadata = {"agent": "openai-agents", "session_id": session}
        conversation = from_items(
            items,
            name=name,
            metadata=metadata,
            loc=Loc(path=f"session {session}"),
            source_format=SOURCE_FORMAT,
        )
        if unreadable.get(session):
            skipped = Reading(
                code="lines_skipped", count=unreadable[session], detail="rows that are not JSON"
            )
            conversation = conversation.model_copy(update={"readings": [*conversation.readings, skipped]})
        out.append(conversation)
    return out


STORE_READER = StoreReader(
    name=SOURCE_FORMAT,
    looks_like=lambda store: store.kind == "sqlite" and messages_table(store) is not None,
    read=read,
)
