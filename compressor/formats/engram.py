"""Engram exports of Claude Code sessions: JSONL, one content block per line,
``{timestamp, role: user|assistant|tool, content: {type: text|thinking|tool_use|tool_result, …}}``.

Invariant: consecutive assistant blocks become one assistant message (text, thinking kept beside the content as
``reasoning_content``, ``tool_use`` → tool calls); each ``tool_result`` is a ``tool`` message answering its
``tool_id``; each user line is one user turn, classified by Claude Code's rules (``claude_turns``), so the
continuation summaries Claude Code wrote after its own compactions are internal turns and recorded compactions.

Schema: the sample ``engram-claude-code-diffusion.jsonl`` (sjonas50/diffusion, see SOURCES.md): ``tool_use`` has
``tool_name``, ``tool_id``, ``input``; ``tool_result`` has ``tool_id``, ``output``, ``is_error``; thinking text is
under ``text``. Other block types are kept as content parts; lines of other roles are skipped (with a reading).
Usage: Engram writes none, so windows are counted. Model: not in the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from compressor.formats import claude_turns
from compressor.formats.anthropic import join_text
from compressor.formats.building import build_message
from compressor.formats.problems import FormatProblem, Loc, expect_dict, type_name
from compressor.formats.shape import Reader, Shape
from compressor.formats.tally import assemble
from compressor.messages import Conversation, Message

SOURCE_FORMAT = "engram"
ROLES = ("user", "assistant", "tool")  # a tuple: input values may be unhashable


def is_block_line(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("role") not in ROLES:
        return False
    content = value.get("content")
    return isinstance(content, dict) and isinstance(content.get("type"), str)


def looks_like(shape: Shape) -> bool:
    return shape.container != "object" and any(is_block_line(value) for value in shape.objects[:50])


@dataclass
class _Reply:
    """Consecutive assistant blocks, gathered before they become one message."""

    loc: Loc
    timestamp: Any
    parts: list[Any] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)

    def message(self) -> Message:
        data: dict[str, Any] = {"role": "assistant", "content": join_text(self.parts)}
        if self.timestamp is not None:
            data["timestamp"] = self.timestamp
        if self.calls:
            data["tool_calls"] = self.calls
        if self.thinking:
            data["reasoning_content"] = "\n".join(self.thinking)
        return build_message(data, self.loc)


class _Export:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.reply: _Reply | None = None
        self.tool_names: dict[str, str] = {}
        self.user: tuple[dict[str, Any], Loc] | None = None  # a user turn a later block of it may still join
        self.skipped: dict[str, int] = {}

    def flush(self) -> None:
        """Finish the turn being gathered (at most one of a reply and a user turn is open)."""
        if self.reply is not None:
            self.messages.append(self.reply.message())
            self.reply = None
        if self.user is not None:
            data, loc = self.user
            self.messages.append(build_message({**data, "content": join_text(data["content"])}, loc))
            self.user = None

    def line(self, loc: Loc, value: Any) -> None:
        line = expect_dict(value, loc, "an Engram line")
        role = line.get("role")
        if role not in ROLES:
            self.skipped[str(role)] = self.skipped.get(str(role), 0) + 1
            return
        content = line.get("content")
        if isinstance(content, str):  # plain text where a block is expected: read it as a text block
            content = {"type": "text", "text": content}
        if isinstance(content, list):  # several blocks on one line: read them as consecutive lines
            for index, block in enumerate(content):
                self.block(role, block, loc.key("content").key(index), line, same_line=index > 0)
            return
        self.block(role, content, loc.key("content"), line)

    def block(
        self, role: str, value: Any, loc: Loc, line: dict[str, Any], *, same_line: bool = False
    ) -> None:
        block = expect_dict(value, loc, "a content block")
        kind = block.get("type")
        if not isinstance(kind, str):
            raise FormatProblem(loc.key("type"), f"must be a string, got {type_name(kind)}")
        stamp = {"timestamp": line["timestamp"]} if "timestamp" in line else {}
        if role == "assistant":
            if self.user is not None:
                self.flush()
            self.assistant(block, kind, loc, line.get("timestamp"))
            return
        if role == "user" and (kind != "text" or same_line) and self.joins_user(line.get("timestamp")):
            self.user[0]["content"].append(block)  # type: ignore[index]
            return
        self.flush()
        if role == "tool":
            self.messages.append(self.result(block, kind, loc, stamp))
            return
        text = block.get("text")
        if kind == "text" and not isinstance(text, str):
            raise FormatProblem(loc.key("text"), f"must be a string, got {type_name(text)}")
        part = {"type": "text", "text": text} if kind == "text" else block
        self.user = ({**stamp, "role": "user", "content": [part]}, loc)

    def joins_user(self, timestamp: Any) -> bool:
        """An image (or other block) written with the same timestamp as the user turn before it is part of it."""
        return self.reply is None and self.user is not None and self.user[0].get("timestamp") == timestamp

    def assistant(self, block: dict[str, Any], kind: str, loc: Loc, timestamp: Any) -> None:
        if self.reply is None:
            self.reply = _Reply(loc=loc, timestamp=timestamp)
        if kind == "tool_use":
            call_id, name = _required(block, "tool_id", loc), _required(block, "tool_name", loc)
            self.tool_names[call_id] = name
            arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
            self.reply.calls.append({"id": call_id, "type": "function", "name": name, "arguments": arguments})
        elif kind in ("thinking", "redacted_thinking"):
            text = block.get("text", block.get("thinking", ""))
            if not isinstance(text, str):
                raise FormatProblem(loc.key("text"), f"must be a string, got {type_name(text)}")
            self.reply.thinking.append(text)
        elif kind == "text":
            text = block.get("text")
            if not isinstance(text, str):
                raise FormatProblem(loc.key("text"), f"must be a string, got {type_name(text)}")
            self.reply.parts.append({"type": "text", "text": text})
        else:
            self.reply.parts.append(block)

    def result(self, block: dict[str, Any], kind: str, loc: Loc, stamp: dict[str, Any]) -> Message:
        if kind != "tool_result":
            raise FormatProblem(loc.key("type"), f"a tool line holds a tool_result block, not {kind!r}")
        call_id = _required(block, "tool_id", loc)
        data: dict[str, Any] = {
            **stamp,
            "role": "tool",
            "tool_call_id": call_id,
            "content": _output(block, loc),
        }
        if call_id in self.tool_names:
            data["name"] = self.tool_names[call_id]
        if isinstance(block.get("is_error"), bool):
            data["is_error"] = block["is_error"]
        return build_message(data, loc)


def _required(block: dict[str, Any], key: str, loc: Loc) -> str:
    value = block.get(key)
    if not isinstance(value, str) or not value:
        raise FormatProblem(
            loc, f"{block.get('type')} block missing {key}" if not value else f"{key} must be a string"
        )
    return value


def _output(block: dict[str, Any], loc: Loc) -> str | list[Any]:
    output = block.get("output")
    if output is None or isinstance(output, str):
        return output or ""
    if isinstance(output, list):
        if all(isinstance(part, str | dict) for part in output):
            return join_text(output)
        raise FormatProblem(loc.key("output"), "a list output holds only strings and blocks")
    return json.dumps(output, ensure_ascii=False)


def from_lines(located: Iterable[tuple[Loc, Any]], *, name: str) -> Conversation:
    export = _Export()
    first_stamp: Any = None
    for loc, value in located:
        if first_stamp is None and isinstance(value, dict):
            first_stamp = value.get("timestamp")
        export.line(loc, value)
    export.flush()
    turns = claude_turns.classify(export.messages)
    tally = turns.tally
    for role, count in sorted(export.skipped.items()):
        tally.add("lines_skipped", count, detail=f"role {role}")
    metadata: dict[str, Any] = {"agent": "claude-code", "exporter": "engram"}
    if isinstance(first_stamp, str):
        metadata["started_at"] = first_stamp
    return assemble(
        turns.messages,
        [],
        name=name,
        source_format=SOURCE_FORMAT,
        metadata=metadata,
        compactions=turns.compactions,
        readings=tally.readings(),
    )


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=looks_like,
    read=lambda shape: [from_lines(shape.located(), name=shape.stem)],
)
