"""Cline CLI sessions (Cline 3.x, ``~/.cline/data/sessions/<id>/<id>.messages.json``): the session's
``system_prompt`` and its ``messages``, Anthropic-style content blocks, as the CLI's agent sends them.

Invariant: one file is one conversation; the system prompt comes first, then each message as its blocks are sent
(``tool_result`` blocks answer their ``tool_use_id``); ``metrics`` of a reply are the window of the call that
made it.

Schema: as @cline/cli 3.0.65 writes it (its session file, read here from files it wrote; the CLI ships as one
compiled bundle): the root ``{version, updated_at, agent, sessionId, origin: {source, mode, sessionId, version},
system_prompt, messages}``; a message ``{id, role, content, ts}``, a reply adding ``modelInfo {id, provider}`` and
``metrics {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens}``. The bundle takes ``inputTokens`` from
the AI SDK usage's ``inputTokens.total`` (all input, cache reads included) and ``cacheReadTokens`` beside it, so
``inputTokens + outputTokens`` is that call's window plus its reply. A ``tool_result``'s ``content`` may be a list of
the tool's own result objects (``read_files``: ``{query, result, success}``): sent as their JSON. The person's words
come wrapped in ``<user_input mode="act|plan">``: a real request; other user text beside tool results is the
CLI's own. The sibling ``<id>.json`` (run status, totals) is not read.

Newer files (``@cline/core``, which the CLI, the VS Code extension's SDK path and the desktop app share: cline/cline
``sdk/packages/core/docs/messages-contract-v1.md`` at 21cb8d2) keep no ``origin``: ``version: 1`` and ``agent``
(lead, subagent, teammate) name them. A ``file`` block (a file the person attached) is sent as ``<file_content
path="…">`` text. Before July 2026 a compaction rewrote the list, marking a message by ``metadata.kind``:
``compaction_summary`` (an agentic summary, a "Context summary:" user turn the agent wrote: internal, recorded with
its ``tokensBefore``), or ``compaction`` on the first kept request of a basic fold, whose summary is the
``<SYSTEM_NOTICE>`` blocks folded into the kept requests (no window before is stated: ``usageBefore`` sums usage).
Since d5db7eb the file keeps the whole history and the compacted list (same markers) goes to the sidecar
``<id>.compaction.json`` (``{version, updated_at, source_message_count, messages}``), which a file reader cannot
reach: the session folder holding both is read by ``cline_sidecar``, the file alone is its whole history.
"""

from __future__ import annotations

from typing import Any

from compressor.formats import anthropic
from compressor.formats.building import build_conversation, build_message, indexed
from compressor.formats.problems import Loc, expect_dict, expect_list
from compressor.formats.runs import call_usage, json_text, token_count
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation, Message, Reading
from compressor.run_records import RecordedCompaction

SOURCE_FORMAT = "cline"
USER_INPUT = "<user_input"
#: Who wrote a session file (``messages-contract-v1.md``): the lead agent, a subagent or a team's teammate.
AGENTS = ("lead", "subagent", "teammate")
#: ``metadata.kind`` of the message a compaction leaves: the summary an agentic compaction puts first
#: (``compaction-shared.ts`` ``buildSummaryMessage``), or the first turn a basic one folded its notices into
#: (``basic-compaction.ts``: each kept request gets a ``<SYSTEM_NOTICE>`` of what was done after it).
SUMMARY_KIND = "compaction_summary"
FOLD_KIND = "compaction"
NOTICE = "<SYSTEM_NOTICE>"


def looks_like(shape: Shape) -> bool:
    raw = shape.raw if shape.container == "object" else None
    return (
        isinstance(raw, dict)
        and isinstance(raw.get("sessionId"), str)
        and isinstance(raw.get("messages"), list)
        and (isinstance(raw.get("origin"), dict) or (raw.get("version") == 1 and raw.get("agent") in AGENTS))
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _result_content(content: Any) -> Any:
    """A tool's own result objects (no block ``type``) as the JSON the model is sent; blocks stay blocks."""
    if isinstance(content, list) and any(isinstance(item, dict) and "type" not in item for item in content):
        return json_text(content)
    return content


def _sent_block(block: Any) -> Any:
    """A block as it is sent: a tool result's own objects as their JSON; an attached ``file`` as the text Cline
    sends for it (``sdk/packages/shared/src/llms/ai-sdk-format.ts``, ``prompt/format.ts`` ``formatFileContentBlock``)."""
    if not isinstance(block, dict):
        return block
    if block.get("type") == "tool_result":
        return {**block, "content": _result_content(block.get("content"))}
    if block.get("type") == "file" and isinstance(block.get("content"), str):
        text = f'<file_content path="{block.get("path", "")}">\n{block["content"]}\n</file_content>'
        return {"type": "text", "text": text}
    return block


def _message(data: dict[str, Any], loc: Loc) -> list[Message]:
    """The message as ours: a reply with its usage and model; a user turn's tool results, then the CLI's own text
    beside them (internal)."""
    role, content = data.get("role"), data.get("content")
    blocks = content if isinstance(content, list) else None
    fixed: dict[str, Any] = {"role": role, "content": content}
    if blocks is not None:
        fixed["content"] = [_sent_block(block) for block in blocks]
    if role == "assistant":
        metrics, model = _dict(data.get("metrics")), _dict(data.get("modelInfo")).get("id")
        usage = call_usage(
            metrics.get("inputTokens"),
            metrics.get("outputTokens"),
            cache_read_tokens=metrics.get("cacheReadTokens"),
        )
        fixed.update({"usage_metadata": usage} if usage is not None else {})
        fixed.update({"model": model} if isinstance(model, str) and model else {})
    elif role == "user":
        texts = [b.get("text", "") for b in blocks or [] if isinstance(b, dict) and b.get("type") == "text"]
        asked = any(isinstance(text, str) and text.lstrip().startswith(USER_INPUT) for text in texts)
        results = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks or [])
        if results and texts and not asked:
            fixed["content"] = [
                b for b in blocks or [] if not (isinstance(b, dict) and b.get("type") == "text")
            ]
            notes = anthropic.join_text(
                [b for b in blocks or [] if isinstance(b, dict) and b.get("type") == "text"]
            )
            notice = build_message({"role": "user", "content": notes, "internal": True}, loc)
            return [*anthropic.convert_message(fixed, loc), notice]
    return anthropic.convert_message(fixed, loc)


def read(shape: Shape) -> list[Conversation]:
    raw = shape.raw
    messages: list[Message] = []
    prompt = raw.get("system_prompt")
    if isinstance(prompt, str) and prompt.strip():
        messages.append(build_message({"role": "system", "content": prompt}, Loc().key("system_prompt")))
    base = Loc().key("messages")
    items = expect_list(raw["messages"], base, "messages")
    model = None
    compactions: list[RecordedCompaction] = []
    for loc, item in indexed(items, base):
        data = expect_dict(item, loc, "a message")
        built = _message(data, loc)
        compaction = _compaction(data, items, at=len(messages))
        if compaction is not None:
            compactions.append(compaction)
            if _dict(data.get("metadata")).get("kind") == SUMMARY_KIND:  # the agent's turn, not the person's
                built = [m.model_copy(update={"internal": True}) if m.role == "user" else m for m in built]
        messages += built
        model = _dict(data.get("modelInfo")).get("id") or model
    conversation = build_conversation(messages, [], name=shape.stem, source_format=SOURCE_FORMAT, loc=Loc())
    shift = len(conversation.system)
    recorded = [c.model_copy(update={"index": c.index - shift}) for c in compactions]
    origin = _dict(raw.get("origin"))
    metadata = {"agent": "cline", "session_id": raw["sessionId"], "cline_version": origin.get("version")}
    readings = list(conversation.readings)
    if isinstance(model, str) and model:
        metadata["model"] = model
        readings.append(Reading(code="model_from_file", detail=model))
    internal = sum(1 for message in conversation.messages if message.role == "user" and message.internal)
    if internal:
        readings.append(Reading(code="internal_user_turns", count=internal))
    if recorded:
        readings.append(Reading(code="recorded_compactions", count=len(recorded)))
    metadata = {key: value for key, value in metadata.items() if value is not None}
    update = {"metadata": {**conversation.metadata, **metadata}, "readings": readings}
    return [conversation.model_copy(update={**update, "recorded_compactions": recorded})]


def _compaction(data: dict[str, Any], items: list[Any], *, at: int) -> RecordedCompaction | None:
    """The compaction a message records, if its ``metadata.kind`` says it is one. An agentic summary states the
    window it replaced (``tokensBefore``); a basic fold states only the usage summed over the calls it dropped
    (``usageBefore``), no window, and its summary is the notices it folded into every kept request."""
    meta = _dict(data.get("metadata"))
    if meta.get("kind") == SUMMARY_KIND:
        summary = meta.get("summary")
        content = data.get("content")
        blocks = content if isinstance(content, list) else []
        written = "\n".join(
            b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
        text = summary if isinstance(summary, str) and summary else written
        return RecordedCompaction(
            index=at, source=SOURCE_FORMAT, summary=text, tokens_before=token_count(meta.get("tokensBefore"))
        )
    if meta.get("kind") == FOLD_KIND:
        notices = [
            block["text"]
            for item in items
            if isinstance(item, dict) and isinstance(item.get("content"), list)
            for block in item["content"]
            if isinstance(block, dict)
            and isinstance(block.get("text"), str)
            and block["text"].startswith(NOTICE)
        ]
        return RecordedCompaction(index=at, source=SOURCE_FORMAT, summary="\n\n".join(notices))
    return None


READER = Reader(name="cline-cli-session", looks_like=looks_like, read=read)
