"""Amazon Q Developer CLI (``q chat``) conversations, and Kiro CLI's, which kept Q's chat engine: the
``ConversationState`` Q saves after every reply in its database (one row a working directory) and ``/save`` writes.

Invariant: a state is read as Q sends it to the model (``as_sendable_conversation_state``), entry by entry: nothing
is added that Q does not send but a marked stand-in result; a field Q could not deserialize names its location in one
line. The database is read by ``amazon_q_store``.

Schema: aws/amazon-q-developer-cli at 15cc8f3 (2026-04; the chat code is v1.19.7's, cf39ab6, 2025-11):
``crates/chat-cli/src/database/mod.rs`` and ``sqlite_migrations/`` (``conversations (key TEXT PRIMARY KEY, value
TEXT)``, 007; the key is the working directory, the value the state as ``serde_json``), ``cli/chat/conversation.rs``
(``ConversationState``, ``HistoryEntry``, ``context_messages``, ``replace_history_with_summary``,
``enforce_conversation_invariants``), ``cli/chat/message.rs`` (``UserMessage``, ``UserMessageContent``,
``AssistantMessage``, ``content_with_context``), ``cli/chat/parser.rs`` (``RequestMetadata``),
``api_client/model.rs`` (``Tool``, ``ImageBlock``). serde's enums are externally tagged (``{"Prompt": {"prompt":
…}}``). Before 398a011 (v1.13, 2025-07) an entry was a ``[user, assistant]`` pair and ``latest_summary`` a string;
both are read.

- A ``Prompt`` is a request, sent with what Q puts before it: the time block (``Current time: <weekday>, <RFC 3339>``)
  and ``additional_context`` (a prompt hook's output), the prompt then between ``--- USER MESSAGE BEGIN/END ---``.
  Images go as data URLs. Q's own overflow notice is internal.
- ``ToolUseResults`` / ``CancelledToolUses``: each result a tool message by ``tool_use_id`` (``Error`` marked; ``Json``
  blocks as compact JSON, blocks joined by lines); a cancelled turn's prompt (the person's words) follows as a request.
  A result to no call of the reply before is sent by Q as text (``replace_content_with_tool_use_results``): an internal
  turn. A call the next turn leaves unanswered gets Q's own "cancelled" result (``enforce_conversation_invariants``);
  the calls of the last reply, whose results Q had not saved yet, get a marked stand-in.
- ``Response`` / ``ToolUse``: an assistant message and its calls (``name`` and ``args`` as exposed to the model).
- ``next_message`` (set when ``/save`` ran between a turn and its reply) is read as the turn it is.
- Compaction: ``/compact`` (and the automatic one on a context overflow) drops the history it summarised and keeps
  ``latest_summary``; Q then opens every request with a context turn carrying it and its fixed reply. Both are read
  first, the summary turn internal and recorded as a compaction (no token counts are kept).
- Not in the state, so not read: the context files' and agent-spawn hooks' text Q puts in that context turn (read from
  disk at each request; the paths are ``metadata["context_files"]``, the whole turn's length in characters when last
  sent, ``context_message_length``, is ``metadata["context_turn_chars"]``), the agent's prompt, the system prompt,
  the ``transcript`` (the screen's copy), and a tangent's stashed main conversation (skipped, with a reading).
- Metadata: ``model_info.model_id`` (older ``model``, else the latest request's ``model_id``), its
  ``context_window_tokens``, the working directory (the row's key, else the turns' ``env_state``), the conversation id
  and the agent profile. The state records no token usage: windows are counted.

Kiro CLI (closed source; Q's successor) keeps the same state in its own ``data.sqlite3``, table ``conversations_v2``
(``key``, ``conversation_id``, ``value``, ``created_at``, ``updated_at``; several conversations a directory). That
table is not in Q's source: its columns are what several public readers of real Kiro databases agree on
(marcus/sidecar issue #100, kapmcli/kapm issue #13, kenn-io/agentsview #506, samzong/Recall #2); the value is read
with Q's rules. Kiro's newer session files (``~/.kiro/sessions/cli/<id>.json`` beside ``<id>.jsonl``) are another
format, not read here: public readers agree on their envelope and text blocks, none on their tool blocks' fields.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

from compressor.formats.building import MAX_TOKEN_COUNT
from compressor.formats.problems import (
    FormatProblem,
    Loc,
    expect_dict,
    expect_list,
    expect_text,
    short,
    type_name,
)
from compressor.formats.roles import TurnRules
from compressor.formats.runs import RunBuilder, token_count
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation, Reading, ToolDef

SOURCE_FORMAT = "amazon-q"
CONTEXT_START = "--- CONTEXT ENTRY BEGIN ---\n"
CONTEXT_END = "--- CONTEXT ENTRY END ---\n\n"
USER_START = "--- USER MESSAGE BEGIN ---\n"
USER_END = "--- USER MESSAGE END ---\n\n"
#: What ``context_messages`` writes before the summary ``/compact`` kept.
SUMMARY_PREAMBLE = (
    "This summary contains ALL relevant information from our previous conversation including tool uses, results, "
    "code analysis, and file operations. YOU MUST reference this information when answering questions and "
    "explicitly acknowledge specific details from the summary when they're relevant to the current question.\n\n"
    "SUMMARY CONTENT:\n"
)
#: The reply ``context_messages`` pairs with the context turn.
ACKNOWLEDGED = (
    "I will fully incorporate this information when generating my responses, and explicitly acknowledge relevant "
    "parts of the summary when answering questions."
)
#: The result ``new_cancelled_tool_uses`` gives each call the person did not let run.
CANCELLED = "Tool use was cancelled by the user"
#: The stand-in for the last reply's calls: Q saves a reply as it arrives, before its tools run.
NOT_SAVED = "(no result saved: Q stores a reply when it arrives, before its tools run)"
#: What ``replace_content_with_tool_use_results`` sends when the results hold no text.
REDACTED = "<tool result redacted>"
Q_RULES = TurnRules(internal_prefixes=("The conversation history has overflowed, clearing state",))
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
IMAGE_TYPES = {"Gif": "image/gif", "Jpeg": "image/jpeg", "Png": "image/png", "Webp": "image/webp"}
USER_KINDS = ("Prompt", "ToolUseResults", "CancelledToolUses")
ASSISTANT_KINDS = ("Response", "ToolUse")


def is_state(value: Any) -> bool:
    """A serialized ``ConversationState``: its id, its history and one of the fields only it writes."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("conversation_id"), str)
        and isinstance(value.get("history"), list)
        and ("valid_history_range" in value or "transcript" in value)
    )


def _variant(value: Any, loc: Loc, kinds: tuple[str, ...], what: str) -> tuple[str, dict[str, Any], Loc]:
    """An externally tagged serde enum: ``{"<Kind>": {...}}`` → (kind, its fields, where they are)."""
    value = expect_dict(value, loc, what)
    if len(value) != 1 or next(iter(value)) not in kinds:
        raise FormatProblem(loc, f"must be one of {', '.join(kinds)} ({what}), got keys {short(list(value))}")
    kind = next(iter(value))
    return kind, expect_dict(value[kind], loc.key(kind), what), loc.key(kind)


def _time_block(value: Any, loc: Loc) -> str:
    """The block ``content_with_context`` puts before a timestamped turn (milliseconds, the offset written out)."""
    if value is None:
        return ""
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise FormatProblem(loc, f"must be an RFC 3339 timestamp, got {short(value)}")
    stamp = when.isoformat(timespec="milliseconds")
    return f"{CONTEXT_START}Current time: {WEEKDAYS[when.weekday()]}, {stamp}\n{CONTEXT_END}"


def _sent_text(user: dict[str, Any], prompt: str | None, loc: Loc) -> str:
    """``content_with_context``: the time block, the hook context, then the prompt (delimited if anything is before)."""
    text = _time_block(user.get("timestamp"), loc.key("timestamp"))
    extra = expect_text(user, "additional_context", loc, required=False)
    if extra:
        text += extra + "\n"
    if prompt is not None:
        text += f"{USER_START}{prompt}{USER_END}" if text else prompt
    return text.strip()


def _block_text(block: Any, loc: Loc) -> str:
    kind = next(iter(block)) if isinstance(block, dict) and len(block) == 1 else None
    if kind == "Text" and isinstance(block["Text"], str):
        return str(block["Text"])
    if kind == "Json":
        return json.dumps(block["Json"], ensure_ascii=False, separators=(",", ":"))
    raise FormatProblem(loc, f"must be a Text or Json result block, got {short(block)}")


def _images(user: dict[str, Any], loc: Loc) -> list[dict[str, Any]]:
    images = user.get("images")
    parts: list[dict[str, Any]] = []
    for index, image in enumerate(expect_list(images, loc, "images") if images is not None else []):
        where = loc.key(index)
        image = expect_dict(image, where, "an image block")
        mime = IMAGE_TYPES.get(image.get("format"))  # type: ignore[arg-type]
        source = image.get("source")
        raw = source.get("Bytes") if isinstance(source, dict) else None
        if mime is None or not isinstance(raw, list):
            raise FormatProblem(where, "must be {format: Gif|Jpeg|Png|Webp, source: {Bytes: [...]}}")
        try:
            data = bytes(raw)
        except (TypeError, ValueError):
            raise FormatProblem(where.key("source"), "Bytes must be numbers from 0 to 255") from None
        url = f"data:{mime};base64,{base64.b64encode(data).decode()}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


class _State:
    """One ConversationState read into a RunBuilder, turn by turn, as Q sends it."""

    def __init__(self, run: RunBuilder, state: dict[str, Any], loc: Loc) -> None:
        self.run, self.state, self.loc = run, state, loc
        self.open_calls: list[tuple[str, str]] = []  # (id, name) of the latest reply's calls still unanswered
        self.cancelled = 0
        self.cwd: str | None = None

    def read(self) -> Conversation:
        self._summary()
        loc = self.loc.key("history")
        for index, entry in enumerate(expect_list(self.state["history"], loc, "the history")):
            user, assistant, metadata = self._entry(entry, loc.key(index))
            self._user(user, loc.key(index).key("user"))
            self._assistant(assistant, loc.key(index).key("assistant"))
            model = metadata.get("model_id") if isinstance(metadata, dict) else None
            if isinstance(model, str) and model:
                self.run.metadata["request_model"] = model
        if self.state.get("next_message") is not None:
            self._user(self.state["next_message"], self.loc.key("next_message"))
        for call_id, name in self.open_calls:
            self.run.add({"role": "tool", "tool_call_id": call_id, "name": name, "content": NOT_SAVED}, loc)
        self._notes(len(self.open_calls))
        return self.run.conversation(self.loc)

    def _entry(self, entry: Any, loc: Loc) -> tuple[Any, Any, Any]:
        if isinstance(entry, list):  # before v1.13: a (user, assistant) pair
            if len(entry) != 2:
                raise FormatProblem(loc, f"must be a [user, assistant] pair, got {len(entry)} items")
            return entry[0], entry[1], None
        entry = expect_dict(entry, loc, "a history entry")
        for key in ("user", "assistant"):
            if key not in entry:
                raise FormatProblem(loc, f"missing {key}")
        return entry["user"], entry["assistant"], entry.get("request_metadata")

    def _summary(self) -> None:
        value = self.state.get("latest_summary")
        if value is None:
            return
        loc = self.loc.key("latest_summary")
        summary = (
            value[0] if isinstance(value, list) and len(value) == 2 else value
        )  # (summary, RequestMetadata)
        if not isinstance(summary, str):
            raise FormatProblem(loc, f"must be a summary or [summary, metadata], got {type_name(value)}")
        content = f"{CONTEXT_START}{SUMMARY_PREAMBLE}{summary}\n{CONTEXT_END}".strip()
        self.run.add({"role": "user", "content": content, "internal": True}, loc)
        self.run.record_compaction(summary)
        self.run.add({"role": "assistant", "content": ACKNOWLEDGED}, loc)

    def _user(self, value: Any, loc: Loc) -> None:
        user = expect_dict(value, loc, "a user message")
        kind, content, where = _variant(
            user.get("content"), loc.key("content"), USER_KINDS, "a user message content"
        )
        self._note_cwd(user)
        prompt: str | None = None
        if kind == "Prompt":
            prompt = expect_text(content, "prompt", where)
        else:
            if kind == "CancelledToolUses" and content.get("prompt") is not None:
                prompt = expect_text(content, "prompt", where)
            self._results(content.get("tool_use_results"), where.key("tool_use_results"))
        self._cancel_open(loc)
        text = _sent_text(user, prompt, loc)
        images = _images(user, loc.key("images"))
        if not text and not images:
            return
        sent: str | list[dict[str, Any]] = [*([{"type": "text", "text": text}] if text else []), *images]
        if not images:
            sent = text
        data: dict[str, Any] = {"role": "user", "content": sent}
        if prompt is None or Q_RULES.kind(prompt) == "internal":
            data["internal"] = True  # only the time block and results' images, or Q's own words
        self.run.add(data, loc)

    def _results(self, value: Any, loc: Loc) -> None:
        calls = dict(self.open_calls)
        stray: list[str] = []
        strays = 0
        for index, result in enumerate(expect_list(value, loc, "tool results")):
            where = loc.key(index)
            result = expect_dict(result, where, "a tool result")
            call_id = expect_text(result, "tool_use_id", where)
            blocks = expect_list(result.get("content"), where.key("content"), "result blocks")
            texts = [_block_text(block, where.key("content").key(n)) for n, block in enumerate(blocks)]
            if call_id not in calls:
                stray.extend(texts)
                strays += 1
                continue
            tool: dict[str, Any] = {
                "role": "tool",
                "tool_call_id": call_id,
                "name": calls.pop(call_id),
                "content": "\n".join(texts),
            }
            if result.get("status") == "Error":
                tool["is_error"] = True
            self.run.add(tool, where)
        self.open_calls = [(call_id, name) for call_id, name in self.open_calls if call_id in calls]
        if strays:  # Q sends results with no call before them as the turn's text
            self.run.add({"role": "user", "content": " ".join(stray) or REDACTED, "internal": True}, loc)
            self.run.skip("tool results to no call (sent as text)")

    def _cancel_open(self, loc: Loc) -> None:
        for call_id, name in self.open_calls:
            self.run.add(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "name": name,
                    "content": CANCELLED,
                    "is_error": True,
                },
                loc,
            )
            self.cancelled += 1
        self.open_calls = []

    def _assistant(self, value: Any, loc: Loc) -> None:
        kind, reply, where = _variant(value, loc, ASSISTANT_KINDS, "an assistant message")
        data: dict[str, Any] = {"role": "assistant", "content": expect_text(reply, "content", where)}
        if isinstance(reply.get("message_id"), str):
            data["id"] = reply["message_id"]
        if kind == "ToolUse":
            calls = []
            for index, use in enumerate(
                expect_list(reply.get("tool_uses"), where.key("tool_uses"), "tool uses")
            ):
                use = expect_dict(use, where.key("tool_uses").key(index), "a tool use")
                args = use.get("args")
                arguments = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
                calls.append(
                    {"id": use.get("id"), "type": "function", "name": use.get("name"), "arguments": arguments}
                )
            if calls:
                data["tool_calls"] = calls
        message = self.run.add(data, where)
        self.open_calls = [(call.id, call.name) for call in message.tool_calls or ()]

    def _note_cwd(self, user: dict[str, Any]) -> None:
        env = user.get("env_context")
        state = env.get("env_state") if isinstance(env, dict) else None
        cwd = state.get("current_working_directory") if isinstance(state, dict) else None
        if self.cwd is None and isinstance(cwd, str) and cwd:
            self.cwd = cwd

    def _notes(self, unsaved: int) -> None:
        if self.cancelled:
            self.run.extra_readings.append(
                Reading(code="results_filled_in", count=self.cancelled, detail=f'"{CANCELLED}"')
            )
        if unsaved:
            self.run.extra_readings.append(
                Reading(code="results_filled_in", count=unsaved, detail=f'"{NOT_SAVED}"')
            )
        if self.state.get("tangent_state") is not None:
            self.run.skip("the main conversation a tangent stashed")
        if self.cwd is not None:
            self.run.metadata.setdefault("cwd", self.cwd)
        request_model = self.run.metadata.pop("request_model", None)
        if request_model is not None:
            self.run.metadata.setdefault("model", request_model)


def _window(value: Any) -> int | None:
    count = token_count(value)
    return count if count and count <= MAX_TOKEN_COUNT else None


def state_metadata(state: dict[str, Any], agent: str) -> dict[str, Any]:
    """What a state says about its conversation (the turns add the working directory and a request's model)."""
    metadata: dict[str, Any] = {"agent": agent, "conversation_id": state["conversation_id"]}
    info = state.get("model_info")
    if isinstance(info, dict) and isinstance(info.get("model_id"), str) and info["model_id"]:
        metadata["model"] = info["model_id"]
        if (window := _window(info.get("context_window_tokens"))) is not None:
            metadata["context_window"] = window
    elif isinstance(state.get("model"), str) and state["model"]:
        metadata["model"] = state["model"]
    manager = state.get("context_manager")
    if isinstance(manager, dict):
        paths = manager.get("paths")
        if isinstance(paths, list) and all(isinstance(path, str) for path in paths) and paths:
            metadata["context_files"] = list(paths)
        if isinstance(manager.get("current_profile"), str) and manager["current_profile"]:
            metadata["profile"] = manager["current_profile"]
    length = state.get("context_message_length")
    if isinstance(length, int) and not isinstance(length, bool) and 0 < length <= MAX_TOKEN_COUNT:
        metadata["context_turn_chars"] = (
            length  # what the unstored files added: compare with the summary turn
        )
    return metadata


def tool_defs(value: Any, loc: Loc) -> list[ToolDef]:
    """The tools the state offers the model: ``{origin: [{"ToolSpecification": {...}}]}``."""
    if value is None:
        return []
    out: list[ToolDef] = []
    for origin, tools in expect_dict(value, loc, "the tools").items():
        for index, tool in enumerate(expect_list(tools, loc.key(origin), "tools")):
            _, spec, where = _variant(tool, loc.key(origin).key(index), ("ToolSpecification",), "a tool")
            schema = spec.get("input_schema")
            parameters = schema.get("json") if isinstance(schema, dict) else None
            out.append(
                ToolDef(
                    name=expect_text(spec, "name", where),
                    description=expect_text(spec, "description", where, required=False),
                    parameters=parameters if isinstance(parameters, dict) else {},
                )
            )
    return out


def from_state(
    state: Any, *, name: str, loc: Loc | None = None, agent: str = "amazon-q", cwd: str | None = None
) -> Conversation:
    """One conversation from a ConversationState (``cwd``: the database key it was saved under)."""
    loc = loc or Loc()
    state = expect_dict(state, loc, "a conversation state")
    for key, kind, word in (("conversation_id", str, "a string"), ("history", list, "a list")):
        if not isinstance(
            state.get(key), kind
        ):  # what Q cannot do without; the rest has defaults, or is not read
            raise FormatProblem(loc.key(key), f"must be {word}, got {type_name(state.get(key))}")
    metadata = state_metadata(state, agent)
    if cwd:
        metadata["cwd"] = cwd
    run = RunBuilder(name=name, source_format=SOURCE_FORMAT, metadata=metadata)
    run.tools.extend(tool_defs(state.get("tools"), loc.key("tools")))
    return _State(run, state, loc).read()


def _read(shape: Shape) -> list[Conversation]:
    return [from_state(shape.raw, name=shape.stem)]


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=lambda shape: shape.container == "object" and is_state(shape.raw),
    read=_read,
)
