"""What ``goose session export`` writes (``--format json``, the default; also what ``goose session import`` reads back):
one Goose ``Session`` as ``serde_json::to_string_pretty`` writes it, its messages in ``conversation``. One conversation.

Invariant: the messages are read by ``goose.from_messages`` with the rules of Goose's session files and sessions.db;
the session's own fields give the name, the metadata and the session's token counts, nothing else.

Schema (block/goose): ``crates/goose-cli/src/commands/session.rs`` at 0d01d8b (``handle_session_export``:
``get_session(id, true)``, then ``to_string_pretty(&session)``); ``Session`` in ``crates/goose/src/session/
session_manager.rs`` at 0164300 (schema 5: ``id``, ``working_dir``, ``name`` alias ``description``, the flat token
counts, ``conversation``, ``message_count``) and ``session/model.rs`` at 865e4a0 (``provider_name``, ``model_config``,
``goose_mode``); newer Goose nests the counts in ``usage`` and ``accumulated_usage`` (``Usage``: ``input_tokens``,
``output_tokens``, ``total_tokens``, ``cache_read_input_tokens``, ``cache_write_input_tokens``), as
``session/import_formats/mod.rs`` at 41af6ba builds an export and upgrades an older one; ``conversation/mod.rs`` at
08dc478: a ``Conversation`` is serialized as its list of messages.
"""

from __future__ import annotations

from typing import Any

from compressor.formats.building import indexed
from compressor.formats.goose import USAGE_KEYS, from_messages
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, short, type_name
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "goose"
#: Where newer Goose keeps a session's counts (``usage``: the provider's last call; ``accumulated_usage``: the sums),
#: and the prefix each gets among the flat names older Goose used (``USAGE_KEYS``).
NESTED_USAGE = {"usage": "", "accumulated_usage": "accumulated_"}


def looks_like(shape: Shape) -> bool:
    """A Session: ``working_dir`` (Goose's own import tells its export by it) beside ``conversation`` and
    ``message_count``."""
    if shape.container != "object":
        return False
    raw = shape.raw
    return isinstance(raw.get("working_dir"), str) and "conversation" in raw and "message_count" in raw


def _flat_usage(session: dict[str, Any], loc: Loc) -> dict[str, Any]:
    """The session's counts under the flat names ``goose.session_metadata`` reads (a nested one wins)."""
    flat = {key: session[key] for key in USAGE_KEYS if key in session}
    for field, prefix in NESTED_USAGE.items():
        usage = session.get(field)
        if usage is None:
            continue
        usage = expect_dict(usage, loc.key(field), "token usage")
        for name in ("input_tokens", "output_tokens", "total_tokens"):
            if usage.get(name) is not None:
                flat[prefix + name] = usage[name]
    return flat


def read(shape: Shape) -> list[Conversation]:
    session = shape.raw
    messages = session.get("conversation")
    if messages is None:
        raise FormatProblem(
            Loc().key("conversation"),
            "is null: the session was exported without its messages",
        )
    messages = expect_list(messages, Loc().key("conversation"), "the session's messages")
    session_id = session.get("id")
    if session_id is not None and not isinstance(session_id, str):
        raise FormatProblem(
            Loc().key("id"), f"must be a string, got {type_name(session_id)} {short(session_id)}"
        )
    facts = {**session, **_flat_usage(session, Loc())}
    located = indexed(messages, Loc().key("conversation"))
    return [from_messages(facts, session_id or shape.stem, located)]


READER = Reader(name="goose-export", looks_like=looks_like, read=read)
