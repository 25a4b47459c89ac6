"""Claude Code session logs (``~/.claude/projects/*/*.jsonl``): one line per content block, merged per reply.

Invariant: the lines of one API reply (same ``message.id``) become ONE assistant message, placed where its
first line was; sidechain lines (but in a subagent's own file) and lines that carry nothing the model is sent are
skipped; tool results become ``tool`` messages.

A subagent's own transcript (``<session>/subagents/agent-<id>.jsonl`` in Claude Code 2.1, ``agent-<id>.jsonl``
beside the session in 2.0) holds only sidechain lines (``isSidechain: true``, ``agentId``): there the sidechain IS
the conversation, so it is read (``agentId`` → ``metadata["agent_id"]``, ``metadata["sidechain"] = True``).

Usage is repeated on every line of a reply; the last line's usage is kept (see ``anthropic.usage_metadata``
for how it maps to ``usage_metadata``). Per-line bookkeeping (cwd, version, toolUseResult …) is dropped,
except ``uuid`` and ``timestamp`` of the reply's first line.

Compactions: a ``system`` line with ``subtype: "compact_boundary"`` marks one Claude Code made; its
``compactMetadata`` (``trigger``, ``preTokens``) is kept on the continuation summary that follows it (the user line
flagged ``isCompactSummary``), which ``claude_turns`` records as a compaction (``preTokens`` → ``tokens_before``).
When a 2.1 compaction kept the newest messages verbatim (``compactMetadata.preservedSegment``), they are read again
after the line they hang off (``claude_kept``), so from the summary on the messages are the window the agent sent.
User turns are classified by Claude Code's rules, shared with the Engram reader (``claude_turns``). The session
id (``sessionId``) and the model of the latest reply go to the conversation's metadata.

Lines Claude Code writes itself, read as what they are to the model (Claude Code's ``utils/messages.ts``:
``createUserMessage``, ``createAssistantMessage``, ``createAssistantAPIErrorMessage``, ``normalizeMessagesForAPI``):
- ``isMeta`` user lines (a custom command's expanded prompt, the local-command caveat, Stop-hook feedback the model
  answers) are hidden from the person's screen but sent to the model: kept, as internal user turns;
- an API error (``isApiErrorMessage: true``, model ``"<synthetic>"``, text such as "API Error: 529 …", "Prompt is
  too long" or a usage-limit notice; in headless output an ``assistant`` message of model ``"<synthetic>"`` with an
  ``error``) is what Claude Code shows when a model call FAILED: no reply came, its usage is zero, and
  ``normalizeMessagesForAPI`` drops it from every later request. It is left out, counted in a reading
  (``api_errors_left_out``), so the replay sees no model call there and the next reply's usage anchors the window;
- any other ``"<synthetic>"`` reply (``createAssistantMessage``: "No response requested." after a turn that asked
  for none, or the sentinel ``conversationRecovery`` appends on resume after an interrupted turn) is written without
  a model call: no window was sent there, its usage is all zero. Every assistant message is a call point of the
  replay (SPEC §6/§8: the trigger is checked before each call), and the data model has no "assistant turn that was
  not a call", so such a reply is left out too, counted in a reading (``synthetic_replies_left_out``): the replay
  checks no trigger where no call was made, and the next real reply's measured usage already holds its few words.
  (Public usage and transcript tools skip ``<synthetic>`` lines the same way.) Neither kind names the run's model.

Attachments (Claude Code 2.1: ``type: "attachment"`` lines, ``attachment {type, …}``): context Claude Code adds to
a request — the environment, the model's identity, the skill and agent listings, hook context, reminders — and,
from 2.1.2xx, ``rendered [{content}]``: the text the model was sent for it (a ``<system-reminder>`` block). An
attachment with rendered text is an internal user turn holding that text. A ``queued_command`` (``origin.kind:
"human"``) is what the person typed while the model was working, sent within the running turn: a real request (its
rendered text, else its ``prompt``); a hook's ``hook_additional_context`` is its ``content`` when nothing is rendered
(hooks documentation: the context is added for the model). Another attachment with no rendered text (older versions,
or a kind the model is not sent, e.g. ``hook_success``) is skipped and counted (``lines_skipped``). A local command and its output, which 1.0
wrote as user lines (``<command-name>``, ``<local-command-stdout>``), 2.1 writes as ``system`` lines of subtype
``local_command``; they stay in the conversation Claude Code keeps (a compaction lists them among the messages it
preserves) and are read as the internal user turns the 1.0 lines were.

Rewinds (Esc Esc, an edited prompt) leave the abandoned turns in the file: only the branch the session went on with
is read (``claude_branches``: the ``parentUuid`` chain ending at the last line read), the other lines are left out
and counted (``rewound_lines_left_out``).

Headless output (``claude -p --output-format stream-json``) holds the same message lines after a ``system`` line of
``subtype: "init"`` (``session_id``, ``model``), and ends with a ``result`` line (its ``usage`` and
``total_cost_usd`` sum the whole run: kept in the metadata, never read as a window); its compaction boundary names
its metadata ``compact_metadata {trigger, pre_tokens}``. Claude Code does not print the prompt there: unless a user
text line follows the ``init``, an empty real request stands for it (with a reading).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from compressor.formats import anthropic, claude_branches, claude_kept, claude_turns
from compressor.formats.problems import FormatProblem, Loc, expect_dict, type_name
from compressor.formats.shape import Reader
from compressor.formats.tally import assemble
from compressor.messages import Conversation, Message

#: Line types that carry a message sent to (or received from) the model.
MESSAGE_LINE_TYPES = ("user", "assistant")  # a tuple: input values may be unhashable
#: The flag of a subagent's lines (a conversation of its own), which are not part of the main one.
SIDECHAIN = "isSidechain"
#: The flag of a user line Claude Code wrote and hid from the screen, which it still sends to the model.
META_FLAG = "isMeta"
#: The model Claude Code names on a reply it wrote itself (no model call made it).
SYNTHETIC_MODEL = "<synthetic>"
#: The ``subtype`` of the system line Claude Code writes where it compacted the conversation.
COMPACT_BOUNDARY = "compact_boundary"
#: Line fields worth keeping on the message they produce.
LINE_EXTRAS = ("uuid", "timestamp", "isCompactSummary")
#: What stands for the prompt of a headless run, which Claude Code does not print (see the module docstring).
PROMPT_METADATA = {"stands_for": "the prompt claude -p was given (not in its output)"}
#: What a headless run's ``result`` line says of the whole run, kept in the metadata under the same names.
RESULT_FIELDS = ("total_cost_usd", "num_turns", "duration_ms", "usage")
#: The line type of context Claude Code attaches to a request (see the module docstring).
ATTACHMENT = "attachment"
#: The ``system`` subtype 2.1 gives a local command and its output (1.0 wrote them as user lines).
LOCAL_COMMAND = "local_command"
#: The attachment kind of the context a hook added (UserPromptSubmit / SessionStart ``additionalContext``), which
#: Claude Code sends to the model whether or not the line records its rendered text.
HOOK_CONTEXT = "hook_additional_context"
#: The attachment kind of a message the person typed while the model was working.
QUEUED_COMMAND = "queued_command"
#: API message fields that are not content (kept as extras, from a reply's last line).
_NOT_EXTRA = frozenset({"role", "content", "usage", "type"})


def looks_like_session(values: Iterable[Any]) -> bool:
    """Whether parsed lines look like a Claude Code session (``type`` + nested ``message``)."""
    return any(
        isinstance(value, dict)
        and value.get("type") in MESSAGE_LINE_TYPES
        and isinstance(value.get("message"), dict)
        for value in values
    )


@dataclass
class _Reply:
    """The lines of one assistant reply, gathered before they become one message."""

    loc: Loc
    extras: dict[str, Any]
    blocks: list[Any] = field(default_factory=list)
    usage: dict[str, Any] | None = None


def is_subagent_transcript(values: Iterable[Any]) -> bool:
    """Whether every message line is a sidechain line: a subagent's own transcript (see the module docstring)."""
    flags = [
        value.get(SIDECHAIN) is True
        for value in values
        if isinstance(value, dict) and value.get("type") in MESSAGE_LINE_TYPES
    ]
    return bool(flags) and all(flags)


def from_lines(located: Iterable[tuple[Loc, Any]], *, name: str, sidechain: bool = False) -> Conversation:
    """One Conversation from a session's lines (each with its location, for error messages); with ``sidechain``,
    the lines of a subagent's own transcript."""
    located = list(located)  # read twice: once for the branch the session went on with, once for its messages
    left_behind = claude_branches.abandoned((value for _, value in located), sidechain=sidechain)
    segments = claude_kept.kept_segments((value for _, value in located), sidechain=sidechain)
    marks: dict[str, int] = {}  # where each compaction boundary stood among the messages (claude_kept)
    rewound: set[str] = set()
    entries: list[Message | _Reply] = []
    replies: dict[str, _Reply] = {}
    seen: set[str] = set()
    boundary: dict[str, Any] | None = (
        None  # the compactMetadata of a compaction whose summary is still to come
    )
    session: Any = None
    agent_id: Any = None
    prompt_due = False  # a headless run began (``init``): its prompt is due before the next message line
    stood_in = 0
    api_errors = synthetic = 0
    unrendered = 0
    result: dict[str, Any] = {}
    for loc, value in located:
        line = expect_dict(value, loc, "a session line")
        session = line.get("sessionId", line.get("session_id", session))
        if line.get("type") == "system" and line.get("subtype") == "init":
            prompt_due = True
            continue
        if line.get("type") == "result":
            result.update({key: line[key] for key in RESULT_FIELDS if key in line})
            continue
        if prompt_due and line.get("type") in MESSAGE_LINE_TYPES and not _no_call(line):
            prompt_due = False
            if not _prompt_line(line):
                entries.append(Message(role="user", content="", metadata=dict(PROMPT_METADATA)))
                stood_in += 1
        if line.get("type") == "system" and line.get("subtype") == COMPACT_BOUNDARY:
            meta = line.get(claude_turns.COMPACT_METADATA)
            boundary = meta if isinstance(meta, dict) else _headless_boundary(line.get("compact_metadata"))
            if isinstance(line.get("uuid"), str):
                marks.setdefault(line["uuid"], len(entries))
            continue
        if line.get(SIDECHAIN) is True and not sidechain:
            continue
        uuid = line.get("uuid")
        if isinstance(uuid, str) and uuid in left_behind:
            if claude_branches.is_read(line):  # counted once, as a line logged twice is read once
                rewound.add(uuid)
            continue
        if _local_command(line) and not _seen_before(line, seen):
            extras = {key: line[key] for key in LINE_EXTRAS if key in line}
            data = {**extras, "role": "user", "content": line["content"], claude_turns.META: True}
            entries.extend(anthropic.convert_message(data, loc))
            continue
        if line.get("type") == ATTACHMENT:
            attached = _attachment(line)
            if attached is None:
                unrendered += 1
            elif not _seen_before(line, seen):
                entries.append(_attached_message(attached, loc))
            continue
        if line.get("type") not in MESSAGE_LINE_TYPES:
            continue
        agent_id = line.get("agentId", agent_id)
        if _seen_before(line, seen):
            continue
        if is_api_error(line):
            api_errors += 1
            continue
        if is_synthetic_reply(line):
            synthetic += 1
            continue
        summary = line.get("type") == "user" and line.get("isCompactSummary") is True
        message_loc = loc.key("message")
        message = expect_dict(line.get("message"), message_loc, "a message")
        extras = {key: line[key] for key in LINE_EXTRAS if key in line}
        if line["type"] == "user" and line.get(META_FLAG) is True:
            extras[claude_turns.META] = True  # read as internal by claude_turns
        if line["type"] == "user":
            data = {**extras, **message, "role": "user"}
            if boundary is not None and (summary or _continues(message)):
                data[claude_turns.COMPACT_METADATA] = boundary
                boundary = None
            entries.extend(anthropic.convert_message(data, message_loc))
            continue
        reply_id = message.get("id")
        reply = replies.get(reply_id) if isinstance(reply_id, str) else None
        if reply is None:
            reply = _Reply(loc=message_loc, extras=extras)
            entries.append(reply)
            if isinstance(reply_id, str):
                replies[reply_id] = reply
        _add_line(reply, message, message_loc)
    messages = [entry if isinstance(entry, Message) else _finish(entry) for entry in entries]
    messages, kept = claude_kept.with_kept(messages, segments, marks)
    turns = claude_turns.classify(messages)
    metadata: dict[str, Any] = {"agent": "claude-code"}
    if isinstance(session, str):
        metadata["session_id"] = session
    if sidechain:
        metadata["sidechain"] = True
        if isinstance(agent_id, str) and agent_id:
            metadata["agent_id"] = agent_id
    model = next(
        (m.model_extra.get("model") for m in reversed(messages) if m.role == "assistant" and m.model_extra),
        None,
    )
    if isinstance(model, str) and model:
        metadata["model"] = model
        turns.tally.note("model_from_file", model)
    if result:
        metadata["result"] = result
    turns.tally.add("prompts_not_recorded", stood_in)
    turns.tally.add("api_errors_left_out", api_errors)
    turns.tally.add("synthetic_replies_left_out", synthetic)
    turns.tally.add("lines_skipped", unrendered, detail="attachments with no rendered text")
    turns.tally.add("rewound_lines_left_out", len(rewound))
    turns.tally.add("kept_messages_read_again", kept)
    return assemble(
        turns.messages,
        [],
        name=name,
        source_format="claude-code",
        metadata=metadata,
        compactions=turns.compactions,
        readings=turns.tally.readings(),
    )


def _seen_before(line: dict[str, Any], seen: set[str]) -> bool:
    """Whether a line's ``uuid`` was read already (a resumed session may log the same line twice)."""
    uuid = line.get("uuid")
    if not isinstance(uuid, str):
        return False
    if uuid in seen:
        return True
    seen.add(uuid)
    return False


def _attachment(line: dict[str, Any]) -> dict[str, Any] | None:
    """The user message an attachment line was sent as, or None when the file does not say (see the docstring)."""
    attachment = line.get(ATTACHMENT)
    kind = attachment.get("type") if isinstance(attachment, dict) else None
    rendered = line.get("rendered")
    parts = (
        [part.get("content") for part in rendered if isinstance(part, dict)]
        if isinstance(rendered, list)
        else []
    )
    text = "\n".join(part for part in parts if isinstance(part, str) and part)
    extras = {key: line[key] for key in LINE_EXTRAS if key in line}
    if kind == QUEUED_COMMAND and isinstance(attachment, dict):
        origin = attachment.get("origin")
        human = not isinstance(origin, dict) or origin.get("kind") in (None, "human")
        prompt = attachment.get("prompt")
        if human and (text or (isinstance(prompt, str) and prompt)):
            # One text block, as Claude Code sends it beside the turn's tool results: a request (SPEC §2: content
            # that is not a string is a real user message) even when it is wrapped in a <system-reminder>.
            block = {"type": "text", "text": text or prompt}
            return {**extras, "role": "user", "content": [block], claude_turns.QUEUED: True}
    if not text and kind == HOOK_CONTEXT and isinstance(attachment, dict):
        text = _hook_context(attachment.get("content"))
    if not text:
        return None
    return {**extras, "role": "user", "content": text, claude_turns.META: True, ATTACHMENT: kind}


def _hook_context(content: Any) -> str:
    """The context a hook added (``additionalContext``), as the attachment keeps it: a text or a list of texts."""
    pieces = [content] if isinstance(content, str) else content if isinstance(content, list) else []
    return "\n".join(piece for piece in pieces if isinstance(piece, str) and piece)


def _local_command(line: dict[str, Any]) -> bool:
    """A local command or its output as 2.1 writes it: a ``system`` line of subtype ``local_command``."""
    return (
        line.get("type") == "system"
        and line.get("subtype") == LOCAL_COMMAND
        and isinstance(line.get("content"), str)
        and bool(line["content"])
    )


def _attached_message(data: dict[str, Any], loc: Loc) -> Message:
    if claude_turns.QUEUED in data:  # kept as its one block (convert_message would make it a plain string)
        return Message.model_validate(data)
    (message,) = anthropic.convert_message(data, loc)
    return message


def is_api_error(line: dict[str, Any]) -> bool:
    """Whether a line is the error Claude Code wrote in a failed model call's place (see the module docstring)."""
    if line.get("type") != "assistant":
        return False
    if line.get("isApiErrorMessage") is True:
        return True
    message = line.get("message")
    synthetic = isinstance(message, dict) and message.get("model") == SYNTHETIC_MODEL
    return synthetic and isinstance(line.get("error"), str) and bool(line["error"])  # headless output


def is_synthetic_reply(line: dict[str, Any]) -> bool:
    """Whether a line is a reply Claude Code wrote itself, model ``<synthetic>``, with no model call (see above)."""
    message = line.get("message")
    synthetic = isinstance(message, dict) and message.get("model") == SYNTHETIC_MODEL
    return synthetic and line.get("type") == "assistant"


def _no_call(line: dict[str, Any]) -> bool:
    """Whether a line stands where no model call was made: a failed call's error or Claude Code's own reply."""
    return is_api_error(line) or is_synthetic_reply(line)


def _headless_boundary(meta: Any) -> dict[str, Any]:
    """Headless output's ``compact_metadata {trigger, pre_tokens}`` in the session file's names."""
    if not isinstance(meta, dict):
        return {}
    named = {"trigger": meta.get("trigger"), "preTokens": meta.get("pre_tokens")}
    return {key: value for key, value in named.items() if value is not None}


def _prompt_line(line: dict[str, Any]) -> bool:
    """A user line with words of its own (the prompt echoed), not only tool results."""
    message = line.get("message")
    if line.get("type") != "user" or not isinstance(message, dict):
        return False
    content = message.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "text" for block in content
    )


def _continues(message: dict[str, Any]) -> bool:
    """Whether a user message is a continuation summary (older sessions do not flag it)."""
    content = message.get("content")
    first = content[0] if isinstance(content, list) and content else content
    text = first.get("text") if isinstance(first, dict) else first
    return isinstance(text, str) and text.lstrip().startswith(claude_turns.CONTINUATION_PREFIX)


def _add_line(reply: _Reply, message: dict[str, Any], loc: Loc) -> None:
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}] if content else []
    elif content is None:
        content = []
    elif not isinstance(content, list):
        raise FormatProblem(
            loc.key("content"), f"must be a string or a list of blocks, got {type_name(content)}"
        )
    for index, block in enumerate(content):
        # Check blocks here, so an error names the line they came from rather than the merged reply.
        if isinstance(block, dict) and block.get("type") == "tool_use":
            anthropic.tool_call(block, loc.key("content").key(index))
        if isinstance(block, dict) and block.get("type") == "tool_result":
            raise FormatProblem(loc.key("content").key(index), "a tool_result block belongs in a user line")
    reply.blocks.extend(content)
    if message.get("usage") is not None:
        reply.usage = anthropic.usage_metadata(message["usage"], loc.key("usage"))
    reply.extras.update({key: value for key, value in message.items() if key not in _NOT_EXTRA})


def _finish(reply: _Reply) -> Message:
    data: dict[str, Any] = {**reply.extras, "role": "assistant", "content": reply.blocks}
    if reply.usage is not None:
        data["usage_metadata"] = reply.usage
    (message,) = anthropic.convert_message(data, reply.loc)
    return message


READER = Reader(
    name="claude-code",
    # a single object is one line of a session: the loader offers it again as a one-line file
    looks_like=lambda shape: shape.container != "object" and looks_like_session(shape.objects),
    read=lambda shape: [
        from_lines(shape.located(), name=shape.stem, sidechain=is_subagent_transcript(shape.objects))
    ],
)
