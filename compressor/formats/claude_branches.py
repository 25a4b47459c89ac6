"""The branch a Claude Code session went on with, and the lines a rewind (Esc Esc, an edited prompt) left behind.

Invariant: a line is abandoned only when its ``parentUuid`` links lead to the live chain without being on it; a line
the links do not tie to the live chain (a break in them, another root, no ``uuid``) is never called abandoned.

Claude Code appends every line and never rewrites one: a rewind starts a new line whose ``parentUuid`` is the line
before the prompt rewound to, so the old turns stay in the file, a branch nothing continues. What the agent went on
with is the chain of ``parentUuid`` links that ends at the file's last line the reader reads, as Claude Code rebuilds
it on resume, with two repairs Claude Code makes too:
- a ``compact_boundary`` line starts a new root (``parentUuid: null``); its ``logicalParentUuid`` names the line it
  follows, and the chain goes on there, so a rewind before a compaction is found as well;
- the lines of one reply (``message.id``) are chained one after the other while the result of each tool call hangs
  off the line of its own call, so the parallel calls of one reply fork the links: the other lines of a reply on the
  chain, and the tool results hanging off any of them, are on the chain too.
Sidechain lines are left out of the links in a main session (they are a subagent's); in a subagent's own file they
are the conversation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: The line field naming the line a line follows.
PARENT = "parentUuid"
#: The field of a compaction boundary naming the line it follows (its ``parentUuid`` is null).
LOGICAL_PARENT = "logicalParentUuid"
#: Line types the reader turns into messages; the chain ends at the last of them.
READ_TYPES = ("user", "assistant", "attachment")


def abandoned(lines: Iterable[Any], *, sidechain: bool = False) -> frozenset[str]:
    """The ``uuid`` of every line on a branch the session did not go on with (see the module docstring)."""
    nodes = linked_lines(lines, sidechain=sidechain)
    leaf = next((uuid for uuid in reversed(nodes) if is_read(nodes[uuid])), None)
    if leaf is None:
        return frozenset()
    live = with_parallel_lines(nodes, _chain(nodes, leaf))
    return frozenset(uuid for uuid, off in _off_the_chain(nodes, live).items() if off)


def linked_lines(lines: Iterable[Any], *, sidechain: bool = False) -> dict[str, dict[str, Any]]:
    """The lines the links tie together, by ``uuid``, in file order: a line logged twice keeps its first place;
    sidechain lines only in a subagent's own file."""
    nodes: dict[str, dict[str, Any]] = {}
    for line in lines:
        if not isinstance(line, dict) or (line.get("isSidechain") is True and not sidechain):
            continue
        uuid = line.get("uuid")
        if isinstance(uuid, str) and uuid and uuid not in nodes:
            nodes[uuid] = line
    return nodes


def is_read(line: dict[str, Any]) -> bool:
    """Whether the session reader makes a message of a line (of its kind; it may still skip it)."""
    kind = line.get("type")
    return kind in READ_TYPES or (kind == "system" and line.get("subtype") == "local_command")


def parent(line: dict[str, Any], *, logical: bool) -> str | None:
    """The line a line follows; with ``logical``, a compaction boundary follows its ``logicalParentUuid``."""
    parent = line.get(PARENT)
    if parent is None and logical and line.get("subtype") == "compact_boundary":
        parent = line.get(LOGICAL_PARENT)
    return parent if isinstance(parent, str) else None


def _chain(nodes: dict[str, dict[str, Any]], leaf: str) -> set[str]:
    """The lines the leaf follows, itself included, through compaction boundaries; a cycle ends the walk."""
    chain: set[str] = set()
    current: str | None = leaf
    while current is not None and current in nodes and current not in chain:
        chain.add(current)
        current = parent(nodes[current], logical=True)
    return chain


def with_parallel_lines(nodes: dict[str, dict[str, Any]], chain: set[str]) -> set[str]:
    """The chain, with the other lines of each reply on it and the tool results that hang off the reply's lines."""
    replies: dict[str, list[str]] = {}
    for uuid, line in nodes.items():
        reply = _reply_id(line)
        if reply is not None:
            replies.setdefault(reply, []).append(uuid)
    live = set(chain)
    for uuid in chain:
        reply = _reply_id(nodes[uuid])
        if reply is not None:
            live.update(replies[reply])
    results = {
        uuid
        for uuid, line in nodes.items()
        if uuid not in live and parent(line, logical=False) in live and _holds_tool_result(line)
    }
    return live | results


def _reply_id(line: dict[str, Any]) -> str | None:
    message = line.get("message")
    reply = message.get("id") if line.get("type") == "assistant" and isinstance(message, dict) else None
    return reply if isinstance(reply, str) and reply else None


def _holds_tool_result(line: dict[str, Any]) -> bool:
    message = line.get("message")
    content = message.get("content") if line.get("type") == "user" and isinstance(message, dict) else None
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    )


def _off_the_chain(nodes: dict[str, dict[str, Any]], live: set[str]) -> dict[str, bool]:
    """For each line not on the chain, whether its parent links reach the chain (no compaction links followed: a
    boundary is a root here, so what follows one is never taken for a branch of what came before it)."""
    verdict: dict[str, bool] = {}
    for start in nodes:
        path: list[str] = []
        seen: set[str] = set()
        current: str | None = start
        while True:
            if current in live:
                reached = True
                break
            if current is None or current not in nodes or current in seen:
                reached = False
                break
            if current in verdict:
                reached = verdict[current]
                break
            path.append(current)
            seen.add(current)
            current = parent(nodes[current], logical=False)
        verdict.update(dict.fromkeys(path, reached))
    return verdict
