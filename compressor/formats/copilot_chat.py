"""GitHub Copilot Chat sessions as VS Code saves them (``User/workspaceStorage/<hash>/chatSessions/<sessionId>.json``
and, from VS Code 1.109, the ``.jsonl`` log beside it; empty windows under ``User/globalStorage/
emptyWindowChatSessions/``), each request read as the messages Copilot sends the model for it in later requests.

Invariant: every request gives its user message, then one assistant message per tool-call round with the calls
that have a recorded result, each result a ``tool`` message right after its round; a summary Copilot made of the
conversation is one internal user message, where the summary takes over, and one recorded compaction; so is a
compaction the Responses API made (a round's ``compaction``), its summary encrypted, right before that round.

Schema: microsoft/vscode ``src/vs/workbench/contrib/chat/common/model/chatModel.ts`` (``ISerializableChatData`` 3,
``ISerializableChatRequestData``, ``SerializedChatResponsePart``), ``chatSessionStore.ts`` (where and when each file
is written; the log wins over the flat file), ``chatSessionOperationLog.ts`` (the log's state, read by
``copilot_log``); the Copilot Chat extension (microsoft/vscode-copilot-chat) ``src/extension/prompt/common/
conversation.ts`` (``IResultMetadata``: ``renderedUserMessage``, ``renderedGlobalContext``, ``toolCallRounds``,
``toolCallResults``, ``maxToolCallsExceeded``, ``summary``, ``promptTokens``/``outputTokens``), ``intents.ts`` and
``toolCallRound.ts`` (a round: ``id``, ``response``, ``toolCalls`` of ``{id, name, arguments}``, ``thinking``,
``usage``, ``summary``), and what a later request is sent: ``prompts/node/agent/summarizedConversationHistory.tsx``
(``ConversationHistory``) and ``agentPrompt.tsx`` (the frozen user message), ``prompts/node/panel/toolCalling.tsx``
(historical calls without a result are left out; an empty result is ``(empty)``).

- The user message is ``renderedUserMessage`` when Copilot kept it (attachments, context and the typed request, as
  sent: the turn stays a real request); otherwise the typed text, with the attachments' names in its metadata (the
  file does not hold what they said). ``renderedGlobalContext`` (environment and workspace, sent once before the
  history) is an internal user message at the start. A request made by a button (``confirmation``: continue after
  the tool-call limit or an error) sends no user message.
- Tool results (``LanguageModelToolResult``: text parts, prompt-tsx trees) are their text; data parts are left out.
  Call ids stay as stored, with the ``__vscode-N`` suffix VS Code adds (Copilot strips it from calls and results
  alike before sending: ``stripInternalToolCallIds``).
- A request without rounds (Ask mode, other participants) is its reply's markdown; a failed one with no reply is
  left out. A request undone by restoring a checkpoint (``shouldBeRemovedOnSend``) is left out, as Copilot does.
- A round's ``compaction`` (``toolCallRound.ts``; ``OpenAIContextManagementResponse``, what the Responses API's
  ``context_management`` returns): ``endpoint/node/responsesApi.ts`` sends it first in that round's assistant message
  and leaves every message before it out of the request (``rawMessagesToResponseAPI``), so it is a compaction there.
- Usage: a round's ``usage`` (OpenAI's counts) on its message; else the turn's ``promptTokens``/``outputTokens``
  (Copilot's metadata) or ``promptTokens``/``completionTokens`` (VS Code's, newer) on its last reply. Files of most
  versions hold none: the windows are then counted. No system prompt is stored: none is added.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from compressor.formats import anthropic, copilot_parts
from compressor.formats.building import build_message, is_number, token_count
from compressor.formats.copilot_log import replay, starts_a_log
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, type_name
from compressor.formats.shape import Reader, Shape
from compressor.formats.tally import Tally, assemble, reported_before
from compressor.messages import Conversation, RecordedCompaction

SOURCE_FORMAT = "copilot-chat"
#: How Copilot hands a summary to the model (``SummaryMessageElement``, a ``Tag`` named conversation-summary).
SUMMARY_TAG = "conversation-summary"
#: A round's ``compaction``: the Responses API's own, ``{type: "compaction", id, encrypted_content}``.
SERVER_COMPACTION = "compaction"
#: What stands for a summary only the server can read.
ENCRYPTED_SUMMARY = "[compaction summary, encrypted by the server]"


def _is_request(value: Any) -> bool:
    return isinstance(value, dict) and "message" in value and ("requestId" in value or "response" in value)


def looks_like(shape: Shape) -> bool:
    """A session object (a request shaped like VS Code's among the first), or a log whose first entry is one."""
    if shape.container == "lines":
        return starts_a_log(next(iter(shape.objects), None))
    if shape.container != "object":
        return False
    raw = shape.raw
    if starts_a_log(raw):
        return True
    requests = raw.get("requests")
    if not isinstance(requests, list):
        return False
    marked = isinstance(raw.get("responderUsername"), str) or (
        isinstance(raw.get("sessionId"), str) and "creationDate" in raw
    )
    return marked and (not requests or any(map(_is_request, requests[:20])))


def _state(shape: Shape) -> tuple[dict[str, Any], str]:
    """The session object and how it was written (``log`` or ``json``)."""
    if shape.container == "lines":
        return replay(shape.located(), owned=shape.consume), "log"
    if starts_a_log(shape.raw):
        return replay([(Loc(), shape.raw)]), "log"
    return shape.raw, "json"


def _model(request: dict[str, Any]) -> str | None:
    """The request's model, without the vendor VS Code puts in front (``copilot/gpt-4.1`` → ``gpt-4.1``)."""
    model = request.get("modelId")
    if not isinstance(model, str) or not model:
        return None
    return model.split("/", 1)[1] if "/" in model else model


def _summaries(requests: list[Any]) -> tuple[dict[str, str], set[str]]:
    """Each summarised round's id with its summary (from a turn's ``summary`` or from the round itself), and the id
    of every round."""
    found: dict[str, str] = {}
    ids: set[str] = set()
    for request in requests:
        metadata = _metadata_of(request)
        summary = metadata.get("summary")
        if (
            isinstance(summary, dict)
            and isinstance(summary.get("toolCallRoundId"), str)
            and isinstance(summary.get("text"), str)
            and summary["text"].strip()
        ):
            found.setdefault(summary["toolCallRoundId"], summary["text"])
        for round_ in _listed(metadata.get("toolCallRounds")):
            if isinstance(round_, dict) and isinstance(round_.get("id"), str):
                ids.add(round_["id"])
                text = round_.get("summary")
                if isinstance(text, str) and text.strip():
                    found.setdefault(round_["id"], text)
    return found, ids


def _listed(value: Any) -> list[Any]:
    """``value`` when it is a list, else no items (for fields only looked through, never read as messages)."""
    return value if isinstance(value, list) else []


def _metadata_of(request: Any) -> dict[str, Any]:
    result = request.get("result") if isinstance(request, dict) else None
    metadata = result.get("metadata") if isinstance(result, dict) else None
    return metadata if isinstance(metadata, dict) else {}


@dataclass
class _Session:
    summaries: dict[str, str]
    rounds: set[str]  # the id of every round in the file
    entries: list[tuple[dict[str, Any], Loc]] = field(default_factory=list)
    compactions: list[tuple[int, str]] = field(default_factory=list)  # (entry index, summary)
    models: list[str] = field(default_factory=list)  # every model the requests name, first use first
    model: str | None = None  # the latest request's
    tally: Tally = field(default_factory=Tally)

    def request(self, request: dict[str, Any], loc: Loc, following: dict[str, Any] | None) -> None:
        if request.get("shouldBeRemovedOnSend") or request.get("isHidden") is True:
            self.tally.add("lines_skipped", detail="requests undone by restoring a checkpoint")
            return
        metadata = _metadata_of(request)
        metadata_loc = loc.key("result").key("metadata")
        model = _model(request)
        if model:
            self.model = model
            if model not in self.models:
                self.models.append(model)
        if isinstance(metadata.get("renderedGlobalContext"), list) and not self.entries:
            parts = copilot_parts.raw_parts(
                metadata["renderedGlobalContext"], metadata_loc.key("renderedGlobalContext")
            )
            self.entries.append(
                ({"role": "user", "content": anthropic.join_text(parts), "internal": True}, loc)
            )
        start = len(self.entries)
        summary = metadata.get("summary")
        round_id = summary.get("toolCallRoundId") if isinstance(summary, dict) else None
        if isinstance(round_id, str) and round_id not in self.rounds:
            text = self.summaries.pop(round_id, None)  # its round is not in the file: before the turn
            if text is not None:
                self._compaction(text, loc)
        confirmation = request.get("confirmation")
        if isinstance(confirmation, str) and confirmation:
            self.tally.add(
                "lines_skipped", detail="button presses that continue a request (no user message sent)"
            )
        else:
            self._user(request, metadata, loc, model)
        rounds = metadata.get("toolCallRounds")
        if rounds:
            results = dict(
                expect_dict(
                    metadata.get("toolCallResults") or {}, metadata_loc.key("toolCallResults"), "tool results"
                )
            )
            if metadata.get("maxToolCallsExceeded") is True and following is not None:
                later = _metadata_of(following).get("toolCallResults")
                results.update(
                    later if isinstance(later, dict) else {}
                )  # the call's result came with the next turn
            rounds_loc = metadata_loc.key("toolCallRounds")
            for index, round_ in enumerate(expect_list(rounds, rounds_loc, "tool-call rounds")):
                self._round(
                    expect_dict(round_, rounds_loc.key(index), "a tool-call round"),
                    results,
                    rounds_loc.key(index),
                )
        else:
            self._reply(request, loc)
        self._finish(request, metadata, loc, start)

    def _user(self, request: dict[str, Any], metadata: dict[str, Any], loc: Loc, model: str | None) -> None:
        message = request.get("message")
        text = message.get("text") if isinstance(message, dict) else message
        if not isinstance(text, str):
            raise FormatProblem(loc.key("message"), f"must hold the request's text, got {type_name(message)}")
        variable_data = request.get("variableData")
        variables = variable_data.get("variables") if isinstance(variable_data, dict) else None
        names = [str(v.get("name", "")) for v in _listed(variables) if isinstance(v, dict)]
        rendered = metadata.get("renderedUserMessage")
        where = loc.key("result").key("metadata").key("renderedUserMessage")
        content: Any = anthropic.join_text(copilot_parts.raw_parts(rendered, where)) if rendered else text
        if rendered and names:
            self.tally.add("context_items_included", len(names))  # Copilot rendered them into the message
        data: dict[str, Any] = {"role": "user", "content": content}
        extra: dict[str, Any] = {}
        if isinstance(request.get("requestId"), str):
            extra["request_id"] = request["requestId"]
        if is_number(request.get("timestamp")):
            extra["timestamp"] = request["timestamp"]
        if model:
            extra["model"] = model
        if names:
            extra["attachments"] = names
        if extra:
            data["metadata"] = extra
        self.entries.append((data, loc.key("message")))

    def _round(self, round_: dict[str, Any], results: dict[str, Any], loc: Loc) -> None:
        calls_loc = loc.key("toolCalls")
        calls = [
            expect_dict(c, calls_loc.key(i), "a tool call")
            for i, c in enumerate(expect_list(round_.get("toolCalls") or [], calls_loc, "tool calls"))
        ]
        kept = []
        for index, call in enumerate(calls):
            for key in ("id", "name"):
                if not isinstance(call.get(key), str) or not call[key]:
                    raise FormatProblem(calls_loc.key(index), f"a tool call without {key}")
            if call["id"] in results:
                kept.append(call)
        if len(kept) < len(calls):
            self.tally.add(
                "lines_skipped",
                len(calls) - len(kept),
                detail="tool calls with no recorded result, which Copilot leaves out",
            )
        response = round_.get("response")
        if calls and not kept:
            return  # Copilot drops the whole round, its text too
        compaction = round_.get("compaction")
        if isinstance(compaction, dict) and compaction.get("type") == SERVER_COMPACTION:
            # sent first in this round's reply, and every message before it is left out of later requests
            self._compaction(None, loc.key("compaction"))
        data: dict[str, Any] = {"role": "assistant", "content": response if isinstance(response, str) else ""}
        if kept:
            data["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "name": c["name"],
                    "arguments": c.get("arguments")
                    if isinstance(c.get("arguments"), str)
                    else json.dumps(c.get("arguments") or {}),
                }
                for c in kept
            ]
        usage = copilot_parts.round_usage(round_.get("usage"), loc.key("usage"))
        if usage is not None:
            data["usage_metadata"] = usage
        reasoning = copilot_parts.thinking(round_.get("thinking"))
        if reasoning:
            data["reasoning_content"] = reasoning  # generated, but not sent again in later requests
        if isinstance(round_.get("id"), str):
            data["metadata"] = {"round_id": round_["id"]}
        self.entries.append((data, loc))
        for call in kept:
            result_loc = Loc(loc.line, "toolCallResults").key(call["id"])
            content = copilot_parts.result_text(results[call["id"]], result_loc, self.tally)
            self.entries.append(
                (
                    {"role": "tool", "tool_call_id": call["id"], "name": call["name"], "content": content},
                    result_loc,
                )
            )
        round_id = round_.get("id")
        summary = self.summaries.pop(round_id, None) if isinstance(round_id, str) else None
        if summary is not None:
            self._compaction(summary, loc)

    def _reply(self, request: dict[str, Any], loc: Loc) -> None:
        text = copilot_parts.markdown(request.get("response"))
        if text.strip():
            self.entries.append(({"role": "assistant", "content": text}, loc.key("response")))
        elif isinstance(request.get("result"), dict) and request["result"].get("errorDetails"):
            self.tally.add("api_errors_left_out")
        else:
            self.tally.add("lines_skipped", detail="requests with no reply")

    def _finish(self, request: dict[str, Any], metadata: dict[str, Any], loc: Loc, start: int) -> None:
        """The turn's own counts and timing on its last reply (the counts only when no round carries any)."""
        last = next((data for data, _ in reversed(self.entries[start:]) if data["role"] == "assistant"), None)
        if last is None:
            return
        usage = copilot_parts.turn_usage(request, metadata, loc)
        if usage is not None and "usage_metadata" not in last:
            last["usage_metadata"] = usage
        extra = dict(last.get("metadata") or {})
        state = request.get("modelState")
        if isinstance(state, dict) and is_number(state.get("completedAt")):
            extra["completed_at"] = state["completedAt"]
        timings = request["result"].get("timings") if isinstance(request.get("result"), dict) else None
        if isinstance(timings, dict) and is_number(timings.get("totalElapsed")):
            extra["elapsed_ms"] = timings["totalElapsed"]
        if extra:
            last["metadata"] = extra

    def _compaction(self, summary: str | None, loc: Loc) -> None:
        """Copilot's own summary (``summary``), or the server's encrypted one (None), from here on."""
        text = f"<{SUMMARY_TAG}>\n{summary}\n</{SUMMARY_TAG}>" if summary is not None else ENCRYPTED_SUMMARY
        self.entries.append(({"role": "user", "content": text, "internal": True}, loc))
        self.compactions.append((len(self.entries) - 1, summary or ""))
        if summary is None:
            self.tally.add("summaries_encrypted")

    def tokens_before(self, entry: int) -> int | None:
        return reported_before(self.entries, entry)


def _session_metadata(raw: dict[str, Any], session: _Session, writer: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {"agent": "copilot-chat", "writer": writer}
    for key, name in (
        ("sessionId", "session_id"),
        ("customTitle", "title"),
        ("responderUsername", "responder"),
    ):
        if isinstance(raw.get(key), str) and raw[key]:
            metadata[name] = raw[key]
    if is_number(raw.get("creationDate")):
        metadata["created_at"] = raw["creationDate"]
    if session.model:
        metadata["model"] = session.model
        session.tally.note("model_from_file", session.model)
        window = _prompt_budget(raw, session.model)
        if window:
            metadata["context_window"] = window
        if len(session.models) > 1:
            metadata["models"] = list(session.models)
    return metadata


def _prompt_budget(raw: dict[str, Any], model: str) -> int | None:
    """The prompt budget VS Code lists for the model the picker still holds (``maxInputTokens``), when that is the
    model the last request used: Copilot fits each request into it, below the model's own window."""
    state = raw.get("inputState")
    selected = state.get("selectedModel") if isinstance(state, dict) else None
    identifier = selected.get("identifier") if isinstance(selected, dict) else None
    info = selected.get("metadata") if isinstance(selected, dict) else None
    if not isinstance(identifier, str) or identifier.split("/", 1)[-1] != model or not isinstance(info, dict):
        return None
    where = Loc().key("inputState").key("selectedModel").key("metadata").key("maxInputTokens")
    return token_count(info.get("maxInputTokens"), where) or None


def from_session(raw: dict[str, Any], *, name: str, writer: str) -> Conversation:
    requests_loc = Loc().key("requests")
    requests = expect_list(raw.get("requests"), requests_loc, "requests")
    if not requests:
        raise FormatProblem(requests_loc, "holds no requests: the chat session is empty")
    summaries, rounds = _summaries(requests)
    session = _Session(summaries=summaries, rounds=rounds)
    for index, request in enumerate(requests):
        following = requests[index + 1] if index + 1 < len(requests) else None
        loc = requests_loc.key(index)
        session.request(
            expect_dict(request, loc, "a request"), loc, following if isinstance(following, dict) else None
        )
    messages = [build_message(data, loc) for data, loc in session.entries]
    compactions = [
        RecordedCompaction(
            index=entry, source=SOURCE_FORMAT, summary=text, tokens_before=session.tokens_before(entry)
        )
        for entry, text in session.compactions
    ]
    session.tally.add("internal_user_turns", sum(1 for data, _ in session.entries if data.get("internal")))
    session.tally.add("recorded_compactions", len(compactions))
    return assemble(
        messages,
        [],
        name=name,
        source_format=SOURCE_FORMAT,
        metadata=_session_metadata(raw, session, writer),
        compactions=compactions,
        readings=session.tally.readings(),
    )


def _read(shape: Shape) -> list[Conversation]:
    state, writer = _state(shape)
    return [from_session(state, name=shape.stem, writer=writer)]


READER = Reader(name=SOURCE_FORMAT, looks_like=looks_like, read=_read)
