"""The formats the loader knows, in the order it tries them: the first reader whose ``looks_like`` holds reads.

Invariant: one ordered table for JSON objects, arrays and JSONL lines alike; adding a format is one module with
a ``Reader`` and one line here. Specific shapes come before general ones (a message list matches many files).
"""

from __future__ import annotations

from compressor.formats import (
    agents_sqlite,
    ai_sdk,
    ai_sdk_ui,
    amazon_q,
    amazon_q_store,
    antigravity,
    atif,
    chat,
    claude_code,
    cline,
    cline_session,
    cline_sidecar,
    codex,
    codex_exec,
    codex_exec_legacy,
    continue_dev,
    copilot_chat,
    crush,
    cursor,
    cursor_workspace,
    engram,
    gemini,
    gemini_history,
    gemini_stream,
    goose,
    goose_export,
    goose_store,
    harbor_traces,
    langchain,
    opencode,
    opencode_export,
    opencode_run,
    openhands,
    openhands_sdk,
    otel_traces,
    pydantic_ai,
    pydantic_ai_runs,
    qwen,
    records,
    responses,
    swe_agent,
    swe_agent_mini,
    swe_agent_text,
    trajectory_rows,
)
from compressor.formats.problems import FormatProblem, Loc
from compressor.formats.shape import Reader, Shape
from compressor.formats.stores import Store, StoreReader, rows
from compressor.messages import Conversation

READERS: tuple[Reader, ...] = (
    openhands.READER,
    openhands_sdk.READER,
    codex.READER,
    codex_exec.READER,
    codex_exec_legacy.READER,
    opencode_run.READER,
    opencode_export.READER,  # before the readers of {"messages": [...]} objects
    goose.READER,
    goose_export.READER,
    gemini_stream.READER,
    qwen.READER,
    gemini.READER,
    gemini_history.READER,
    antigravity.READER,
    atif.READER,
    harbor_traces.READER,
    otel_traces.READER,
    continue_dev.READER,
    continue_dev.INDEX_READER,
    copilot_chat.READER,
    amazon_q.READER,
    pydantic_ai.READER,  # before SWE-agent's: a saved history may be wrapped as {"history": [...]}
    pydantic_ai_runs.READER,
    swe_agent_text.READER,
    swe_agent.READER,
    swe_agent_mini.READER,
    trajectory_rows.READER,
    records.READER,
    cline.READER,  # before the AI SDK's: Roo's reasoning blocks look like its reasoning parts
    cline_session.READER,
    ai_sdk.READER,
    ai_sdk_ui.READER,
    langchain.READER,
    chat.OBJECT_READER,
    claude_code.READER,
    engram.READER,
    chat.ANTHROPIC_READER,  # before the Responses reader: a saved Anthropic reply is a `type: message` too
    responses.READER,
    chat.MESSAGES_READER,
    chat.NUMBERED_READER,
)


def reader_for(shape: Shape) -> Reader | None:
    """The first reader that recognises ``shape``, or None."""
    return next((reader for reader in READERS if reader.looks_like(shape)), None)


#: Formats stored as a folder of files or an SQLite database, in the order they are tried.
STORE_READERS: tuple[StoreReader, ...] = (
    openhands_sdk.STORE_READER,
    cline_sidecar.STORE_READER,
    opencode.FOLDER_READER,
    opencode.DATABASE_READER,
    goose_store.STORE_READER,
    crush.STORE_READER,
    cursor_workspace.STORE_READER,  # before cursor's: it takes only a workspace database keeping chats of its own
    cursor.STORE_READER,
    amazon_q_store.STORE_READER,
    agents_sqlite.STORE_READER,
)


def read_store(store: Store) -> list[Conversation]:
    """The conversations a folder or database holds, read by the first store reader that recognises it."""
    reader = next((reader for reader in STORE_READERS if reader.looks_like(store)), None)
    if reader is None:
        if store.kind == "sqlite" and not store.tables():
            list(
                rows(store, "SELECT name FROM sqlite_master")
            )  # a corrupt file says so, not "no format I know"
        what = "a directory" if store.kind == "directory" else "an SQLite database"
        names = ", ".join(reader.name for reader in STORE_READERS)
        raise FormatProblem(Loc(), f"is {what} holding no conversation in a format I know (tried: {names})")
    return reader.read(store)
