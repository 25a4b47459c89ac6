"""What ``opencode export <session>`` prints: one session as ``{info, messages: [{info, parts}]}``, the session's row,
each message's info and its parts as OpenCode stores them.

Invariant: the messages are read by the storage reader (``opencode.from_session``), so an export reads exactly as the
same session in ``opencode.db`` or the storage folder does (source format ``opencode``).

Schema: sst/opencode ``packages/opencode/src/cli/cmd/export.ts`` and ``src/session/transfer.ts`` (``ExportData``:
``info`` the session, ``messages`` the ``MessageV2.WithParts`` list); the test fixture
``packages/opencode/test/session/fixtures/exported-session.json`` is a real capture.
"""

from __future__ import annotations

from typing import Any

from compressor.formats.opencode import StoredMessage, from_session
from compressor.formats.problems import Loc, expect_dict, expect_list
from compressor.formats.shape import Reader
from compressor.messages import Conversation


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("info"), dict)
        and isinstance(value["info"].get("role"), str)
        and isinstance(value.get("parts"), list)
    )


def is_export(value: Any) -> bool:
    """A session export: the session's ``info`` (with its id) and messages that each carry ``info`` and ``parts``."""
    if not isinstance(value, dict) or not isinstance(value.get("info"), dict):
        return False
    messages = value.get("messages")
    return (
        isinstance(value["info"].get("id"), str)
        and isinstance(messages, list)
        and bool(messages)
        and all(map(_is_message, messages[:20]))
    )


def from_export(value: dict[str, Any], *, name: str) -> Conversation:
    messages = []
    for index, item in enumerate(expect_list(value.get("messages"), Loc().key("messages"), "messages")):
        loc = Loc().key("messages").key(index)
        message = expect_dict(item, loc, "a message")
        info = expect_dict(message.get("info"), loc.key("info"), "a message's info")
        parts = expect_list(message.get("parts"), loc.key("parts"), "a message's parts")
        located = [
            (loc.key("parts").key(at), expect_dict(part, loc.key("parts").key(at), "a part"))
            for at, part in enumerate(parts)
        ]
        messages.append(StoredMessage(info=info, parts=located, loc=loc.key("info")))
    return from_session(value["info"], messages, fallback_name=name)


READER = Reader(
    name="opencode-export",
    looks_like=lambda shape: shape.container == "object" and is_export(shape.raw),
    read=lambda shape: [from_export(shape.raw, name=shape.stem)],
)
