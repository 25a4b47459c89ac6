"""Goose's ``sessions.db`` (Goose 1.10 and later, under its data folder: ``~/.local/share/goose/sessions/``): tables
``sessions`` (one row a session: name, working_dir, session_type, token counts, provider_name, model_config_json)
and ``messages`` (one row a message: role, content_json, created_timestamp, metadata_json, message_id).

Invariant: the database is only read (``stores.Store.connect``); rows are taken as Goose's ``get_conversation``
takes them (by ``timestamp``, the row id breaking ties), rows of another role skipped and unparsable metadata read
as visible to all, as Goose does; each row becomes a Message read by ``goose`` with the same rules as the JSONL.

Schema: block/goose ``crates/goose/src/session/session_manager.rs`` (``create_schema`` and the migrations up to
schema 9, read at dbec165; schema 5 at 0164300): columns added by later migrations (metadata_json 3, name 4,
session_type 5, provider_name and model_config_json 6, message_id 7) may be absent.
"""

from __future__ import annotations

import json
from contextlib import suppress
from typing import Any

from compressor.formats.goose import ROLES, from_messages
from compressor.formats.problems import FormatProblem, Loc
from compressor.formats.source import check_depth
from compressor.formats.stores import Store, StoreReader, rows
from compressor.messages import Conversation

TABLES = frozenset({"sessions", "messages"})
COLUMNS = frozenset({"session_id", "role", "content_json"})


def _json_column(text: Any, loc: Loc) -> Any:
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else text
    except (ValueError, RecursionError):
        raise FormatProblem(loc, "not valid JSON") from None
    check_depth(value, loc)
    return value


def _read_database(store: Store) -> list[Conversation]:
    sessions: dict[str, dict[str, Any]] = {}
    for row in rows(store, "SELECT * FROM sessions ORDER BY created_at, id"):
        session = dict(row)
        config = session.get("model_config_json")
        if isinstance(config, str):
            with suppress(ValueError, RecursionError):  # Goose drops a model config it cannot parse too
                session["model_config"] = json.loads(config)
        sessions[str(session["id"])] = session
    messages: dict[str, list[tuple[Loc, Any]]] = {}
    for row in rows(store, "SELECT * FROM messages ORDER BY timestamp, id"):
        values = dict(row)
        loc = Loc(path=f"messages row {values.get('id')}")
        if values.get("role") not in ROLES:
            continue  # Goose skips a row of another role when it reads a conversation
        metadata = values.get("metadata_json")
        try:
            metadata = json.loads(metadata) if isinstance(metadata, str) else None
            check_depth(metadata, loc.key("metadata_json"))
        except (ValueError, RecursionError):
            metadata = None  # Goose reads unparsable metadata as the default (visible to all)
        message = {
            "role": values["role"],
            "created": values.get("created_timestamp"),
            "content": _json_column(values.get("content_json"), loc.key("content_json")),
            "metadata": metadata if isinstance(metadata, dict) else None,
        }
        if isinstance(values.get("message_id"), str):
            message["id"] = values["message_id"]
        messages.setdefault(str(values.get("session_id")), []).append((loc, message))
    order = [key for key in sessions if key in messages] + sorted(set(messages) - set(sessions))
    out = [
        from_messages(sessions.get(key, {}), key, messages[key], loc=Loc(path=f"session {key}"))
        for key in order
    ]
    if not out:
        raise FormatProblem(Loc(), "is a Goose sessions database with no session that has messages")
    return out


def _is_database(store: Store) -> bool:
    if store.kind != "sqlite" or not store.tables() >= TABLES:
        return False
    columns = {str(row[1]) for row in rows(store, "PRAGMA table_info(messages)")}
    return columns >= COLUMNS


STORE_READER = StoreReader(name="goose-db", looks_like=_is_database, read=_read_database)
