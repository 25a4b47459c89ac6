"""Cursor's older chats (2024, before ``cursorDiskKV``): a workspace's ``state.vscdb``, table ``ItemTable(key, value)``.

Invariant: the database is only read; two keys hold conversations and nothing else is taken from it.
``workbench.panel.aichat.view.aichat.chatdata`` holds the chat panel's ``tabs`` (``chatTitle``, ``lastSendTime``,
``bubbles``: ``type`` ``user`` or ``ai``, ``text``, ``modelType`` on a reply); ``composer.composerData`` holds
``allComposers``, each a composer whose bubbles are inline in ``conversation`` (``type`` 1 the request, 2 the
reply), read as ``formats.cursor`` reads a composer. One conversation a tab or composer that has messages, tabs
first, each group in the order Cursor stored it.

Registered before the newer store's reader: a workspace database an upgraded Cursor gave an empty ``cursorDiskKV``
still keeps its 2024 chats here.

Schema: Cursor publishes none; the keys are the ones public parsers read (slevin48/cursor-history ``db.py``
reads the chat panel's key). As for the newer store, the context a request attaches (files, selections, images)
is not read: what the model is sent of it is not established. No bubble carries usage: windows are counted;
the model a reply names (``modelType``) → ``metadata["model"]``.
"""

from __future__ import annotations

import json
from typing import Any

from compressor.formats import cursor
from compressor.formats.cursor import ASSISTANT, USER, Chat, read_chat
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list
from compressor.formats.runs import RunBuilder
from compressor.formats.source import check_depth
from compressor.formats.stores import Store, StoreReader, rows
from compressor.messages import Conversation

SOURCE_FORMAT = "cursor"
TABLE = "ItemTable"
CHAT_PANEL = "workbench.panel.aichat.view.aichat.chatdata"
COMPOSERS = "composer.composerData"
#: A chat panel bubble's type as a composer bubble's.
_BUBBLE_TYPES = {"user": USER, "ai": ASSISTANT}


def _value(store: Store, key: str) -> dict[str, Any] | None:
    found = list(rows(store, f"SELECT value FROM {TABLE} WHERE key = ?", (key,)))
    if not found:
        return None
    loc = Loc(path=f"{TABLE}[{key}]")
    value = found[0]["value"]
    try:
        parsed = json.loads(value.decode("utf-8") if isinstance(value, bytes) else value)
    except (UnicodeDecodeError, ValueError, TypeError, RecursionError):
        raise FormatProblem(loc, "not valid JSON") from None
    check_depth(parsed, loc)
    return expect_dict(parsed, loc, "an object")


def _tab(tab: Any, loc: Loc) -> Conversation | None:
    tab = expect_dict(tab, loc, "a chat tab")
    title, tab_id = tab.get("chatTitle"), str(tab.get("tabId") or "")
    metadata: dict[str, Any] = {"agent": "cursor", "tab_id": tab_id}
    if isinstance(tab.get("lastSendTime"), int) and not isinstance(tab.get("lastSendTime"), bool):
        metadata["updated_at"] = tab["lastSendTime"]
    run = RunBuilder(
        name=title if isinstance(title, str) and title.strip() else tab_id,
        source_format=SOURCE_FORMAT,
        metadata=metadata,
    )
    chat = Chat(run)
    bubbles_loc = loc.key("bubbles")
    for index, bubble in enumerate(expect_list(tab.get("bubbles", []), bubbles_loc, "bubbles")):
        bubble_loc = bubbles_loc.key(index)
        bubble = expect_dict(bubble, bubble_loc, "a bubble")
        raw = bubble.get("type")
        kind = (
            _BUBBLE_TYPES.get(raw, raw) if isinstance(raw, str) else raw
        )  # never hash a value read (a list)
        model = bubble.get("modelType")
        if kind == ASSISTANT and isinstance(model, str) and model and model != "default":
            run.metadata["model"] = model
        chat.bubble({**bubble, "type": kind, "bubbleId": bubble.get("id")}, None, bubble_loc)
    if not run.messages and not chat.texts:
        return None
    return chat.conversation(loc)


def _read_database(store: Store) -> list[Conversation]:
    out: list[Conversation] = []
    panel = _value(store, CHAT_PANEL)
    if panel is not None:
        tabs_loc = Loc(path=f"{TABLE}[{CHAT_PANEL}]").key("tabs")
        for index, tab in enumerate(expect_list(panel.get("tabs", []), tabs_loc, "tabs")):
            if (conversation := _tab(tab, tabs_loc.key(index))) is not None:
                out.append(conversation)
    composers = _value(store, COMPOSERS)
    if composers is not None:
        all_loc = Loc(path=f"{TABLE}[{COMPOSERS}]").key("allComposers")
        for index, composer in enumerate(
            expect_list(composers.get("allComposers", []), all_loc, "composers")
        ):
            composer = expect_dict(composer, all_loc.key(index), "a composer")
            key = f"composerData:{composer.get('composerId') or index}"
            if (conversation := read_chat(store, key, composer, all_loc.key(index))) is not None:
                out.append(conversation)
    if not out:
        raise FormatProblem(Loc(), "is a Cursor workspace database with no chat that has messages")
    return out


def _is_database(store: Store) -> bool:
    """A workspace's database: the keys of its chats in ``ItemTable``. A newer Cursor adds an empty ``cursorDiskKV``
    to it (the newer store's table): such a database is this reader's when its own chats are there and that table
    holds none, else the newer store's reader's (which says where a workspace's chats went)."""
    tables = store.tables()
    if store.kind != "sqlite" or TABLE not in tables:
        return False
    query = f"SELECT count(*) FROM {TABLE} WHERE key IN (?, ?)"
    if not any(row[0] for row in rows(store, query, (CHAT_PANEL, COMPOSERS))):
        return False
    return cursor.TABLE not in tables or (not cursor.holds_chats(store) and _holds_chats(store))


def _holds_chats(store: Store) -> bool:
    """Whether the database keeps a chat of its own: a panel tab with bubbles, or a composer with its bubbles inline.
    A newer Cursor's workspace database keeps only the ids of composers its ``globalStorage`` database holds (their
    heads, or ``selectedComposerIds``): it is no session. A value that is not JSON counts as a chat (reading says why)."""
    try:
        panel, composers = _value(store, CHAT_PANEL), _value(store, COMPOSERS)
    except FormatProblem:
        return True
    tabs = panel.get("tabs") if panel is not None else None
    listed = composers.get("allComposers") if composers is not None else None
    return any(
        isinstance(item, dict) and isinstance(item.get(field), list) and bool(item[field])
        for items, field in ((tabs, "bubbles"), (listed, "conversation"))
        if isinstance(items, list)
        for item in items
    )


STORE_READER = StoreReader(
    name="cursor-workspace-vscdb", looks_like=_is_database, read=_read_database, holds=_holds_chats
)
