"""Continue sessions (``~/.continue/sessions/<sessionId>.json``, written by the VS Code / JetBrains extension and by
the ``cn`` CLI): a session object whose ``history`` is a list of chat history items, read as Continue sends them.

Invariant: each history item gives the messages Continue puts in a request for it, in order; every tool call is
answered once (from the call's ``toolCallStates`` entry as Continue renders it, else from a ``tool`` item with its
id, else a stand-in), and each ``conversationSummary`` is one recorded compaction at the message carrying it.

Schema: continuedev/continue ``core/index.d.ts`` (``Session``, ``ChatHistoryItem``, ``ChatMessage`` roles
user/assistant/thinking/system/tool, ``MessagePart`` text/imageUrl, ``ToolCallDelta``, ``ToolCallState``, ``Usage``),
``core/util/history.ts`` and ``paths.ts`` (where and how a session is written), and how a request is built from it:
the IDE's ``gui/src/redux/util/constructMessages.ts`` and the CLI's ``core/util/messageConversion.ts``
(``convertFromUnifiedHistory``); compactions: ``core/util/conversationCompaction.ts`` and ``extensions/cli/src/
compaction.ts``. A file the CLI wrote is told by its user items' ``editorState``, a plain string there
(``session.ts``, ``modifySessionBeforeSave``); the IDE keeps its editor's document object.

Context items (files, code, docs the person attached with @): Continue puts their text in front of what the
person typed in the same user turn (the IDE as one text part each, ``content + "\\n"``; the CLI wrapped in
``<context name="…">``), so the model reads them and they fill the window: they are kept there, as sent, and the
turn stays a real request (the person chose them); their names are in ``metadata.context_items``.

Left out as Continue leaves them out of a request: ``system`` items (the system message is built afresh for each
request, from config and rules the file does not hold), empty user or assistant items, and a ``tool`` item whose
call the ``toolCallStates`` already answer. ``thinking`` items go with the next reply as ``reasoning_content``.
Compactions: in the IDE a summary on item *i* replaces items up to *i* (it goes into the system message), so an
internal user message carrying ``Previous conversation summary:`` follows the item; the CLI replaces the history
by an assistant message that is the summary, which then carries it, and saves only that history: the usage after
its summary measured the window the file shows (the loader keeps it; after the IDE's, it is marked stale). After an
auto-compaction the CLI adds a user message ``continue`` itself: internal. A model without native tools gets its calls
as text in the IDE (``systemMessageTools``); the file does not say so, so calls are read as native ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compressor.formats import anthropic
from compressor.formats.building import build_message, is_number, token_count
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, type_name
from compressor.formats.shape import Reader, Shape
from compressor.formats.tally import Tally, assemble, fill_unanswered, reported_before
from compressor.messages import Conversation, RecordedCompaction

SOURCE_FORMAT = "continue"
#: The user message the CLI adds itself to go on after an auto-compaction in a turn (``extensions/cli``, "Added
#: continuation message after compaction").
AUTO_CONTINUE = "continue"
ROLES = ("user", "assistant", "thinking", "system", "tool")
#: What the IDE sends for a call by its state (``core/tools/constants.ts``).
NO_OUTPUT = "No tool output"
CANCELLED = "The user cancelled this tool call."
ERRORED = "There was an error calling the tool."
#: What the CLI sends for a call whose state holds no output (``convertFromUnifiedHistory``).
CLI_NO_OUTPUT = "Tool cancelled"
#: The IDE's terminal tool, whose result also shows each output's status.
TERMINAL_TOOL = "run_terminal_command"
SUMMARY_LEAD = "Previous conversation summary:\n\n "
NO_RESULT = "(no result: the session ends before this tool returned)"


def _is_item(value: Any) -> bool:
    message = value.get("message") if isinstance(value, dict) else None
    return isinstance(message, dict) and message.get("role") in ROLES


def looks_like(shape: Shape) -> bool:
    if shape.container != "object":
        return False
    raw = shape.raw
    history = raw.get("history")
    if not isinstance(raw.get("sessionId"), str) or not isinstance(history, list):
        return False
    return all(map(_is_item, history[:20]))


def _is_index_entry(value: Any) -> bool:
    return (
        isinstance(value, dict) and "sessionId" in value and "dateCreated" in value and "history" not in value
    )


def looks_like_index(shape: Shape) -> bool:
    return (
        shape.container == "array" and bool(shape.objects) and all(map(_is_index_entry, shape.objects[:20]))
    )


def _refuse_index(shape: Shape) -> list[Conversation]:
    raise FormatProblem(
        Loc(),
        "is Continue's sessions index (sessions.json): it lists sessions, each kept in <sessionId>.json beside it; "
        "open one of those",
    )


def _text(content: Any) -> str:
    """A message's text without its images (Continue's ``stripImages``)."""
    if isinstance(content, str):
        return content
    return "\n".join(
        part["text"]
        for part in (content if isinstance(content, list) else ())
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
    )


def _parts(content: Any, loc: Loc) -> list[Any]:
    """Content as parts: text parts as they are, an ``imageUrl`` part as an ``image_url`` one."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    out: list[Any] = []
    for index, part in enumerate(expect_list(content, loc, "content parts")):
        part = expect_dict(part, loc.key(index), "a content part")
        image = part.get("imageUrl")
        if part.get("type") == "imageUrl" and isinstance(image, dict):
            out.append({"type": "image_url", "image_url": image})
        else:
            out.append(part)
    return out


#: A message's usage keys: Continue's ``Usage`` (camelCase), or the stream's OpenAI usage the CLI keeps as it came
#: (``extensions/cli`` ``streamChatResponse``: ``prompt_tokens``, ``completion_tokens``, plus ``model``, ``cost_cents``).
USAGE_KEYS = (
    ("promptTokens", "completionTokens", "promptTokensDetails", "cachedTokens"),
    ("prompt_tokens", "completion_tokens", "prompt_tokens_details", "cached_tokens"),
)


def _usage(usage: Any, loc: Loc) -> dict[str, Any] | None:
    """Continue's ``Usage`` (OpenAI's: the prompt counts cached tokens too) as ``usage_metadata``."""
    if usage is None:
        return None
    usage = expect_dict(usage, loc, "a usage object")
    prompt_key, completion_key, details_key, cached_key = next(
        (keys for keys in USAGE_KEYS if keys[0] in usage), USAGE_KEYS[0]
    )
    prompt = token_count(usage.get(prompt_key), loc.key(prompt_key))
    completion = token_count(usage.get(completion_key), loc.key(completion_key))
    details = usage.get(details_key)
    details_loc = loc.key(details_key)
    details = expect_dict(details, details_loc, "token details") if details is not None else {}
    cached = token_count(details.get(cached_key), details_loc.key(cached_key))
    token_count(details.get("cacheWriteTokens"), details_loc.key("cacheWriteTokens"))
    if prompt is None or completion is None:
        return None
    out = {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion}
    if cached is not None:
        out["cached_tokens"] = cached
    return out


def _states(item: dict[str, Any], loc: Loc) -> list[dict[str, Any]]:
    """The item's tool call states (``toolCallStates``; one ``toolCallState`` before July 2025)."""
    if item.get("toolCallStates") is not None:
        states_loc = loc.key("toolCallStates")
        states = expect_list(item["toolCallStates"], states_loc, "tool call states")
        return [expect_dict(state, states_loc.key(i), "a tool call state") for i, state in enumerate(states)]
    if item.get("toolCallState") is not None:
        return [expect_dict(item["toolCallState"], loc.key("toolCallState"), "a tool call state")]
    return []


def _output(output: Any, loc: Loc) -> list[tuple[str, str | None]] | None:
    """A state's output items as (content, status), or None when it has no ``output``."""
    if output is None:
        return None
    out: list[tuple[str, str | None]] = []
    for index, item in enumerate(expect_list(output, loc, "tool output")):
        item = expect_dict(item, loc.key(index), "an output item")
        content, status = item.get("content"), item.get("status")
        out.append((content if isinstance(content, str) else "", status if isinstance(status, str) else None))
    return out


def _call(delta: Any, loc: Loc) -> dict[str, Any]:
    delta = expect_dict(delta, loc, "a tool call")
    if not isinstance(delta.get("id"), str | None):
        raise FormatProblem(loc.key("id"), f"must be a string, got {type_name(delta.get('id'))}")
    function = delta.get("function") if isinstance(delta.get("function"), dict) else {}
    arguments = function.get("arguments")
    return {
        "id": delta.get("id"),
        "type": "function",
        "name": function.get("name"),
        "arguments": arguments if isinstance(arguments, str) else "{}",
    }


@dataclass
class _Session:
    cli: bool  # written by the cn CLI, which renders context and results its own way
    entries: list[tuple[dict[str, Any], Loc]] = field(default_factory=list)
    compactions: list[tuple[int, str]] = field(default_factory=list)  # (entry index, summary)
    answered: set[str] = field(default_factory=set)
    reasoning: list[str] = field(default_factory=list)  # thinking waiting for the next reply
    tally: Tally = field(default_factory=Tally)

    def add(self, item: dict[str, Any], loc: Loc) -> None:
        message = expect_dict(item.get("message"), loc.key("message"), "a message")
        role = message.get("role")
        message_loc = loc.key("message")
        if role == "user":
            self._user(item, message, message_loc, loc)
        elif role == "assistant":
            self._assistant(item, message, message_loc, loc)
        elif role == "thinking":
            self.reasoning.append(_text(message.get("content")))
        elif role == "tool":
            self._tool_item(message, message_loc)
        elif role == "system":
            self.tally.add("lines_skipped", detail="system items (the system message is built per request)")
        else:
            raise FormatProblem(
                message_loc.key("role"), f"unknown role {role!r} (expected {', '.join(ROLES)})"
            )
        summary = item.get("conversationSummary")
        if isinstance(summary, str) and summary.strip():
            self._compaction(summary, role, message, loc)

    def _user(self, item: dict[str, Any], message: dict[str, Any], loc: Loc, item_loc: Loc) -> None:
        if self.reasoning:  # a reply that never came: its thinking goes with no later one
            self.tally.add("lines_skipped", detail="thinking with no reply after it")
            self.reasoning = []
        content = message.get("content")
        if isinstance(content, str) and not content.strip():
            self.tally.add("lines_skipped", detail="empty items")
            return
        parts = _parts(content, loc.key("content"))
        contexts = expect_list(item.get("contextItems") or [], item_loc.key("contextItems"), "context items")
        contexts = [
            expect_dict(ctx, item_loc.key("contextItems").key(i), "a context item")
            for i, ctx in enumerate(contexts)
        ]
        texts = [ctx.get("content") if isinstance(ctx.get("content"), str) else "" for ctx in contexts]
        if self.cli and contexts and isinstance(content, str):
            wrapped = "".join(
                f'<context name="{ctx.get("name")}">\n{text}\n</context>\n\n'
                for ctx, text in zip(contexts, texts, strict=True)
            )
            parts = [{"type": "text", "text": wrapped + content}]
        elif not self.cli:
            parts = [{"type": "text", "text": f"{text}\n"} for text in texts if text.strip()] + parts
        data: dict[str, Any] = {"role": "user", "content": anthropic.join_text(parts)}
        if self.cli and self.compactions and content == AUTO_CONTINUE and not self._asked_since_compaction():
            data["internal"] = True  # the CLI's own nudge after an auto-compaction (streamChatResponse)
        if contexts:
            data["metadata"] = {"context_items": [str(ctx.get("name", "")) for ctx in contexts]}
            self.tally.add("context_items_included", len(contexts))  # worded in census.READING_TEXT
        self.entries.append((data, loc))

    def _assistant(self, item: dict[str, Any], message: dict[str, Any], loc: Loc, item_loc: Loc) -> None:
        states = _states(item, item_loc)
        deltas = message.get("toolCalls")
        calls_loc = loc.key("toolCalls")
        if deltas:
            calls = [
                _call(d, calls_loc.key(i)) for i, d in enumerate(expect_list(deltas, calls_loc, "tool calls"))
            ]
        else:
            calls_loc = item_loc.key("toolCallStates")
            calls = [_call(s.get("toolCall"), calls_loc.key(i).key("toolCall")) for i, s in enumerate(states)]
        content = message.get("content")
        if isinstance(content, str) and not content.strip() and not calls:
            self.tally.add("lines_skipped", detail="empty items")
            return
        data: dict[str, Any] = {
            "role": "assistant",
            "content": anthropic.join_text(_parts(content, loc.key("content"))),
        }
        if calls:
            data["tool_calls"] = calls
        usage = _usage(message.get("usage"), loc.key("usage"))
        if usage is not None:
            data["usage_metadata"] = usage
        reasoning = item.get("reasoning")
        if isinstance(reasoning, dict) and isinstance(reasoning.get("text"), str) and reasoning["text"]:
            self.reasoning.append(reasoning["text"])  # <think> text Continue took out of the reply
        if self.reasoning:
            data["reasoning_content"] = "\n".join(self.reasoning)
            self.reasoning = []
        self.entries.append((data, loc))
        names = {call["id"]: call["name"] for call in calls}
        for index, state in enumerate(states):
            self._state_result(state, names, item_loc.key("toolCallStates").key(index))

    def _state_result(self, state: dict[str, Any], names: dict[Any, Any], loc: Loc) -> None:
        call = state.get("toolCall")
        call_id = (call.get("id") if isinstance(call, dict) else None) or state.get("toolCallId")
        if not isinstance(call_id, str) or not call_id:
            raise FormatProblem(loc, "a tool call state without toolCallId")
        items = _output(state.get("output"), loc.key("output"))
        texts = [(text, status) for text, status in items or ()]
        name = names.get(call_id)
        status = state.get("status")
        if self.cli:
            content = "\n".join(text for text, _ in texts) if texts else CLI_NO_OUTPUT
        elif status == "canceled":
            content = CANCELLED
        elif items is not None:  # an empty list too: Continue tests the array, which is never false
            withstatus = name == TERMINAL_TOOL
            content = "\n\n".join(
                f"{text}\n[Status: {st}]" if withstatus and st else text for text, st in texts
            )
        elif status == "errored":
            content = ERRORED
        else:
            content = NO_OUTPUT
        data: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": content}
        if isinstance(name, str):
            data["name"] = name
        if isinstance(status, str):
            data["metadata"] = {"status": status}
        self.answered.add(call_id)
        self.entries.append((data, loc))

    def _tool_item(self, message: dict[str, Any], loc: Loc) -> None:
        call_id = message.get("toolCallId")
        if not isinstance(call_id, str) or not call_id:
            raise FormatProblem(loc, "a tool message without toolCallId")
        if call_id in self.answered:
            self.tally.add("lines_skipped", detail="tool items its call's state already answers")
            return
        content = message.get("content")
        if not isinstance(content, str):
            raise FormatProblem(loc.key("content"), f"must be a string, got {type_name(content)}")
        self.answered.add(call_id)
        self.entries.append(({"role": "tool", "tool_call_id": call_id, "content": content}, loc))

    def _compaction(self, summary: str, role: Any, message: dict[str, Any], loc: Loc) -> None:
        carried = role == "assistant" and _text(message.get("content")).strip() == summary.strip()
        if not carried:
            self.entries.append(({"role": "user", "content": SUMMARY_LEAD + summary, "internal": True}, loc))
        self.compactions.append((len(self.entries) - 1, summary))

    def _asked_since_compaction(self) -> bool:
        since = self.entries[self.compactions[-1][0] + 1 :]
        return any(data["role"] == "user" and not data.get("internal") for data, _ in since)

    def tokens_before(self, entry: int) -> int | None:
        return reported_before(self.entries, entry)


def _metadata(raw: dict[str, Any], tally: Tally) -> dict[str, Any]:
    metadata: dict[str, Any] = {"agent": "continue", "session_id": raw["sessionId"]}
    for key, name in (("title", "title"), ("workspaceDirectory", "workspace_directory"), ("mode", "mode")):
        if isinstance(raw.get(key), str) and raw[key]:
            metadata[name] = raw[key]
    model = raw.get("chatModelTitle")
    if isinstance(model, str) and model:
        metadata["model"] = model  # the title of the chat model chosen in Continue's config
        tally.note("model_from_file", model)
    if isinstance(raw.get("usage"), dict):
        totals = _usage(raw["usage"], Loc().key("usage")) or {}  # summed over the session's calls
        cost = raw["usage"].get("totalCost")
        if cost is not None and not is_number(cost):
            where = Loc().key("usage").key("totalCost")
            raise FormatProblem(where, f"must be a number, got {type_name(cost)}")
        metadata["session_usage"] = {**totals, **({"total_cost": cost} if cost is not None else {})}
    return metadata


def from_session(raw: dict[str, Any], *, name: str) -> Conversation:
    history_loc = Loc().key("history")
    history = expect_list(raw.get("history"), history_loc, "history")
    cli = any(
        _is_item(item) and item["message"]["role"] == "user" and isinstance(item.get("editorState"), str)
        for item in history
    )
    session = _Session(cli=cli)
    for index, item in enumerate(history):
        session.add(expect_dict(item, history_loc.key(index), "a history item"), history_loc.key(index))
    if session.reasoning:
        session.tally.add("lines_skipped", detail="thinking with no reply after it")
    messages = [build_message(data, loc) for data, loc in session.entries]
    compactions = [
        RecordedCompaction(
            index=entry, source=SOURCE_FORMAT, summary=summary, tokens_before=session.tokens_before(entry)
        )
        for entry, summary in session.compactions
    ]
    messages, compactions, filled = fill_unanswered(messages, compactions, NO_RESULT)
    session.tally.add("recorded_compactions", len(compactions))
    session.tally.add("results_filled_in", filled, note=f'"{NO_RESULT}"')
    metadata = _metadata(raw, session.tally)
    metadata["writer"] = "cli" if cli else "ide"
    return assemble(
        messages,
        [],
        name=name,
        source_format=SOURCE_FORMAT,
        metadata=metadata,
        compactions=compactions,
        readings=session.tally.readings(),
    )


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=looks_like,
    read=lambda shape: [from_session(shape.raw, name=shape.stem)],
)
#: ``sessions.json`` beside the sessions lists them (id, title, date, workspace): an index, never a run.
INDEX_READER = Reader(name="continue-sessions-index", looks_like=looks_like_index, read=_refuse_index)
