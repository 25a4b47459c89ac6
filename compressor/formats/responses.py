"""OpenAI Responses items (``message``, ``function_call``, ``function_call_output``, ``reasoning``, custom and local
shell calls, …) as messages: the one item parser behind Codex rollouts, a raw Responses ``input`` array and an
OpenAI Agents SDK session.

Invariant: the consecutive output items of one model call (reasoning, assistant text, its calls) become ONE
assistant message; each ``*_output`` item becomes a ``tool`` message answering its ``call_id``; a call the file
never answers gets the result ``"aborted"``, as Codex's own history normalisation gives it, and an output that
answers no call is left out (Codex drops those too).

Schema: openai/codex ``codex-rs/protocol/src/models.rs`` (``ResponseItem``, ``ContentItem``,
``FunctionCallOutputPayload``: a string, content items, or the older ``{content, success}``) and the Responses API
input item types. Server-side items with no output item (``web_search_call``, ``image_generation_call``,
``mcp_call`` …) stay on the assistant message as content parts (priced as JSON, base64 results left out).

Roles (``CODEX_RULES``, from ``codex-rs/core`` ``is_contextual_user_fragment``): a user message is internal when
any of its text parts is context Codex injects — ``# AGENTS.md instructions for …``, a block made only of
``<environment_context>``, ``<user_instructions>``, ``<skill>``, ``<user_shell_command>``, ``<turn_aborted>``,
``<subagent_notification>`` or ``<subagents>`` (case-insensitive, as Codex compares). A user message starting with
Codex's compaction summary prefix is a compaction summary: internal, and a recorded compaction. Developer and
system messages are ``system`` messages. Other user messages are real requests. A message naming its parts' kinds
(newer Codex: ``user.text`` typed, ``agents_md.*``, ``hooks.additional_context`` … added) is real when one is typed.
"""

from __future__ import annotations

import json
from typing import Any

from compressor.formats.building import build_tools
from compressor.formats.problems import FormatProblem, Loc, expect_dict, short, type_name
from compressor.formats.responses_content import content_of, output_of, part_text, text_of
from compressor.formats.roles import TurnRules
from compressor.formats.session_log import SessionLog, tool_defs
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

SOURCE_FORMAT = "openai-responses"
#: The result Codex gives a call that has none (``context_manager/normalize.rs``).
ABORTED = "aborted"
ABORTED_NOTE = "as Codex gives a call that has none"
#: How Codex's compaction summary message starts (``codex-rs/core/templates/compact/summary_prefix.md``).
SUMMARY_PREFIX = (
    "Another language model started to solve this problem and produced a summary of its thinking process."
)
#: The kind newer Codex gives the part of a user message the person typed (``content_item_kinds``).
HUMAN_TEXT = "user.text"


def content_kinds(item: dict[str, Any]) -> list[str] | None:
    """What each part of a message is, as newer Codex names them; None when the item does not say."""
    passthrough = item.get("internal_chat_message_metadata_passthrough")
    kinds = passthrough.get("content_item_kinds") if isinstance(passthrough, dict) else None
    ok = isinstance(kinds, list) and kinds and all(isinstance(kind, str) for kind in kinds)
    return kinds if ok else None


CODEX_RULES = TurnRules(
    internal_prefixes=("# agents.md instructions for ",),
    internal_tags=(
        "environment_context",
        "user_instructions",
        "skill",
        "user_shell_command",
        "turn_aborted",
        "subagent_notification",
        "subagents",
    ),
)

#: Items a model call outputs that carry a call the harness answers with an output item: type → tool name.
CALL_TYPES = {
    "function_call": None,  # the item names its function
    "custom_tool_call": None,
    "local_shell_call": "local_shell",
    "tool_search_call": "tool_search",
    "computer_call": "computer",
}
OUTPUT_TYPES = (
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
    "tool_search_output",
    "computer_call_output",
    "mcp_tool_call_output",
)
#: Items a model call outputs that are done server-side (no output item follows): kept as content parts.
SERVER_TYPES = (
    "web_search_call",
    "image_generation_call",
    "file_search_call",
    "code_interpreter_call",
    "mcp_call",
)
#: Large payloads left out of a server item's content part.
_BULKY_KEYS = frozenset({"result", "encrypted_content", "outputs"})
#: Harness bookkeeping that is not part of what the model saw.
IGNORED_TYPES = (
    "ghost_snapshot",
    "item_reference",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "compaction_trigger",  # a request control, not an item of the history (Codex's models.rs)
    "configuration_update",  # a reasoning-effort change for the next call: a setting, no text in the window
)
COMPACTION_TYPES = ("compaction", "compaction_summary", "context_compaction")
#: What Codex adds to a history beside the Responses API's own items (codex-rs/protocol/src/models.rs): a message
#: another agent of the run sent this one, and tool definitions added to the prompt mid-run.
AGENT_MESSAGE, ADDITIONAL_TOOLS = "agent_message", "additional_tools"
MESSAGE_ROLES = ("user", "assistant", "developer", "system")
#: Content part types only the Responses API uses (a chat-completions list never has them).
RESPONSES_PART_TYPES = ("input_text", "output_text", "input_image", "input_file", "input_audio", "refusal")
ITEM_TYPES = (
    "message",
    "reasoning",
    *CALL_TYPES,
    *OUTPUT_TYPES,
    *SERVER_TYPES,
    *IGNORED_TYPES,
    *COMPACTION_TYPES,
    AGENT_MESSAGE,
    ADDITIONAL_TOOLS,
)


def is_item(value: Any) -> bool:
    """A Responses item: a typed item, or a role message whose content uses Responses part types."""
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if kind == "message":
        return value.get("role") in MESSAGE_ROLES
    if isinstance(kind, str):
        return kind in ITEM_TYPES and kind != "message"
    content = value.get("content")
    return (
        value.get("role") in MESSAGE_ROLES
        and isinstance(content, list)
        and any(isinstance(part, dict) and part.get("type") in RESPONSES_PART_TYPES for part in content)
    )


def is_typed_item(value: Any) -> bool:
    """An item no chat-completions message could be (a chat list may hold plain ``{role, content}`` messages)."""
    return is_item(value) and (value.get("type") != "message" or isinstance(value.get("content"), list))


def _arguments(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def _text_field(item: dict[str, Any], key: str, loc: Loc) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        what = (
            f"missing {key}"
            if value in (None, "")
            else f"must be a string, got {type_name(value)} {short(value)}"
        )
        raise FormatProblem(loc.key(key) if value not in (None, "") else loc, what)
    return value


class ItemParser:
    """Turns Responses items into entries of a ``SessionLog``, one model call's outputs per assistant message."""

    def __init__(self, log: SessionLog) -> None:
        self.log = log
        self._turn: int | None = None  # entry index of the assistant message being gathered
        self._searches: list[str] = []  # ids of tool searches no output has answered yet, oldest first

    def end_turn(self) -> None:
        """The current model call's outputs are complete."""
        self._turn = None

    def item(self, loc: Loc, value: Any) -> None:
        item = expect_dict(value, loc, "a Responses item")
        kind = item.get("type", "message")
        if not isinstance(kind, str):
            raise FormatProblem(loc.key("type"), f"must be a string, got {type_name(kind)}")
        if kind == "message":
            self._message(item, loc)
        elif kind == "reasoning":
            self._reasoning(item, loc)
        elif kind in CALL_TYPES:
            self._call(item, kind, loc)
        elif kind in OUTPUT_TYPES:
            self._output(item, loc)
        elif kind in SERVER_TYPES:
            part = {key: field for key, field in item.items() if key not in _BULKY_KEYS}
            self._assistant(loc)["content"].append(part)
        elif kind in COMPACTION_TYPES:
            self.end_turn()
            if self.log.compaction_at_end() is not None:
                self.log.skip("compaction items repeating the compaction just recorded")
                return
            self.log.compaction(
                "", loc, encrypted=True, content="[compaction summary, encrypted by the server]"
            )
        elif kind == AGENT_MESSAGE:
            self._agent_message(item, loc)
        elif kind == ADDITIONAL_TOOLS:
            known = {tool.name for tool in self.log.tools}
            added = tool_defs(item.get("tools"), loc.key("tools"))
            self.log.tools.extend(tool for tool in added if tool.name not in known)
        elif kind in IGNORED_TYPES:
            self.log.skip(f"{kind} items")
        else:
            self.log.skip(f"{kind} items (unknown)")

    def _assistant(self, loc: Loc) -> dict[str, Any]:
        if self._turn is None:
            self._turn = self.log.add({"role": "assistant", "content": []}, loc)
        return self.log.entries[self._turn].data

    def _message(self, item: dict[str, Any], loc: Loc) -> None:
        role = item.get("role")
        if role not in MESSAGE_ROLES:
            raise FormatProblem(
                loc.key("role"), f"unknown role {short(role)} (expected user, assistant, developer or system)"
            )
        content = content_of(item.get("content"), loc.key("content"), self.log)
        if role == "assistant":
            data = self._assistant(loc)
            data["content"].extend(
                [{"type": "text", "text": content}] if isinstance(content, str) else content
            )
            if isinstance(item.get("phase"), str):
                data["phase"] = item["phase"]
            return
        self.end_turn()
        if role != "user":
            self.log.add({"role": "system", "content": content}, loc)
            return
        text = text_of(item.get("content"))
        if text.startswith(SUMMARY_PREFIX):
            self.log.compaction(text, loc)
            return
        kinds = content_kinds(item)
        if kinds is not None:
            internal = HUMAN_TEXT not in kinds
        else:
            internal = any(
                CODEX_RULES.kind(piece.lower()) == "internal" for piece in _texts(item.get("content"))
            )
        self.log.add({"role": "user", "content": content, "internal": internal}, loc)

    def _agent_message(self, item: dict[str, Any], loc: Loc) -> None:
        """What another agent of the run told this one: in its context as a turn the harness wrote (internal)."""
        self.end_turn()
        data: dict[str, Any] = {
            "role": "user",
            "content": content_of(item.get("content"), loc.key("content"), self.log),
        }
        data["internal"] = True
        data.update({key: item[key] for key in ("author", "recipient") if isinstance(item.get(key), str)})
        self.log.add(data, loc)

    def _reasoning(self, item: dict[str, Any], loc: Loc) -> None:
        texts = [text_of(item.get("summary")), text_of(item.get("content"))]
        text = "\n".join(piece for piece in texts if piece)
        if not text:
            return
        data = self._assistant(loc)
        data["reasoning_content"] = "\n".join(filter(None, [data.get("reasoning_content"), text]))

    def _call(self, item: dict[str, Any], kind: str, loc: Loc) -> None:
        if kind == "local_shell_call":
            call_id = item.get("call_id") or item.get("id")
            if not isinstance(call_id, str) or not call_id:
                raise FormatProblem(loc, "missing call_id")
        elif kind == "tool_search_call":
            call_id = self._search_id(item, loc)
        else:
            call_id = _text_field(item, "call_id", loc)
        name = CALL_TYPES[kind] or _text_field(item, "name", loc)
        if kind == "custom_tool_call":
            arguments = _arguments(item.get("input"))
        elif kind in ("local_shell_call", "computer_call"):
            arguments = _arguments(item.get("action"))
        else:
            arguments = _arguments(item.get("arguments"))
        data = self._assistant(loc)
        data.setdefault("tool_calls", []).append(
            {"id": call_id, "type": "function", "name": name, "arguments": arguments}
        )

    def _search_id(self, item: dict[str, Any], loc: Loc) -> str:
        """A tool search's call id. One the server ran has none (``call_id`` null; Codex's RolloutLine schema
        allows it on both items): its item id stands in, and the output that follows answers it."""
        call_id = item.get("call_id")
        if call_id is None:
            call_id = item.get("id") if isinstance(item.get("id"), str) and item["id"] else None
            call_id = call_id or f"tool_search-{loc.line if loc.line is not None else len(self.log.entries)}"
        elif not isinstance(call_id, str) or not call_id:
            call_id = _text_field(item, "call_id", loc)
        self._searches.append(call_id)
        return call_id

    def _output(self, item: dict[str, Any], loc: Loc) -> None:
        self.end_turn()
        if item.get("type") == "tool_search_output" and item.get("call_id") is None and self._searches:
            call_id = self._searches.pop(0)  # a search the server ran: its output answers the oldest one
        else:
            call_id = _text_field(item, "call_id", loc)
            if call_id in self._searches:
                self._searches.remove(call_id)
        key = "tools" if item.get("type") == "tool_search_output" else "output"
        content = output_of(item.get(key), loc.key(key), self.log)
        self.log.add({"role": "tool", "tool_call_id": call_id, "content": content}, loc)


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    parts = content if isinstance(content, list) else []
    return [piece for part in parts if isinstance(part, dict) and (piece := part_text(part))]


def finish_content(log: SessionLog) -> None:
    """Assistant content gathered as parts becomes a string when it is only text (as a chat message holds it)."""
    for entry in log.entries:
        content = entry.data.get("content")
        if entry.data.get("role") != "assistant" or not isinstance(content, list):
            continue
        if all(isinstance(part, dict) and part.get("type") == "text" for part in content):
            entry.data["content"] = "\n".join(str(part.get("text", "")) for part in content)


def from_items(
    located: Any,
    *,
    name: str,
    metadata: dict[str, Any] | None = None,
    loc: Loc | None = None,
    source_format: str = SOURCE_FORMAT,
    skipped: dict[str, int] | None = None,
) -> Conversation:
    """One conversation from Responses items, each with its location; ``skipped`` counts what the caller left out."""
    log = SessionLog(source_format=source_format, metadata=dict(metadata or {}))
    log.skipped.update(skipped or {})
    parser = ItemParser(log)
    for item_loc, value in located:
        if isinstance(value, dict) and "type" not in value and "role" not in value:
            log.skip("records that are not Responses items")
            continue
        parser.item(item_loc, value)
    finish_content(log)
    return log.conversation(name, loc, unanswered=ABORTED, unanswered_note=ABORTED_NOTE)


def _from_request(shape: Shape) -> list[Conversation]:
    """A Responses request body: ``{model?, instructions?, input: [...], tools?}``."""
    body: dict[str, Any] = shape.raw
    items = body.get("input")
    located: list[tuple[Loc, Any]] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        located.append(
            (Loc().key("instructions"), {"type": "message", "role": "system", "content": instructions})
        )
    if isinstance(items, list):
        located.extend((Loc().key("input").key(index), item) for index, item in enumerate(items))
    metadata = {"model": body["model"]} if isinstance(body.get("model"), str) else {}
    conversation = from_items(located, name=shape.stem, metadata=metadata)
    given = body.get("tools")
    tools = [
        tool
        for tool in (given if isinstance(given, list) else ())
        if isinstance(tool, dict) and isinstance(tool.get("name"), str)
    ]
    if not tools:
        return [conversation]
    return [conversation.model_copy(update={"tools": build_tools(tools, Loc().key("tools"))})]


def _looks_like(shape: Shape) -> bool:
    if shape.container == "object":
        items = shape.raw.get("input")
        return isinstance(items, list) and "messages" not in shape.raw and any(map(is_item, items))
    return any(map(is_typed_item, shape.objects[:200]))


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=_looks_like,
    read=lambda shape: (
        _from_request(shape)
        if shape.container == "object"
        else [from_items(shape.located(), name=shape.stem)]
    ),
)
