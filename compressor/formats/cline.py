"""Cline, Roo Code and Kilo Code task histories (``tasks/<id>/api_conversation_history.json``): the Anthropic-style
message array the agent sends, in which every tool result comes back as user text.

Invariant: a tool result (a ``tool_result`` block, or a text block opening ``[<tool>( for '<arg>')?] Result:``)
becomes a ``tool`` message answering the assistant's tool use before it — a ``tool_use`` block of that name not
answered yet, else the ``<tool>…</tool>`` XML in the assistant's text, which becomes a synthesised tool call and
leaves the text, else the next unanswered ``tool_use`` by order; what else the user turn holds is one user message,
real or internal by Cline's rules. A tool use the history never answers gets a stand-in result.

Schema: cline/cline ``src/core/task/index.ts`` (the first turn ``<task>…</task>`` + ``<environment_details>``;
``[TASK RESUMPTION]`` turns), ``src/core/prompts/responses.ts`` (``formatResponse``), ``ToolResultUtils.ts`` and the
tool handlers (see ``cline_tools``); ``src/shared/messages/content.ts`` (``ClineStorageMessage``: ``modelInfo``,
``metrics.tokens{prompt, completion, cached}``, ``ts``).

Roles. Real requests: the ``<task>``, a ``[TASK RESUMPTION]`` turn, new instructions the person typed, and the
person's words inside a result — the ``<answer>`` to ``ask_followup_question``, ``<feedback>`` after
``attempt_completion`` or on a denied tool, a plan-mode ``<user_message>`` — which are split off the result into a
user message of their own. Internal: a turn that is only ``<environment_details>`` (injected context), Cline's
"[ERROR] You did not use a tool…" nudge and its truncation notices. Compactions: the result of ``summarize_task``
(or ``condense``) carries the summary that replaced the history; it is recorded at that ``tool`` message, with the
summarising call's reported window as ``tokens_before``.

Forks: Roo Code (RooCodeInc/Roo-Code) and Kilo Code (Kilo-Org/kilocode) write the same file (``ApiMessage`` in
``src/core/task-persistence/apiMessages.ts``: the message with ``ts`` and their own fields, kept as extras). Their
condense (``src/core/condense/index.ts``) appends a summary marked ``isSummary`` (a user message opening
``## Conversation Summary``; before May 2025's "fresh start" an assistant message) and tags what it replaced with
``condenseParent``: the summary is an internal turn recorded as a compaction, the tagged messages stay. A sliding-
window truncation marker (``isTruncationMarker``) is an internal turn; reasoning blocks in a reply go beside its
content, and a standalone ``type: "reasoning"`` item of older files is left out. The file does not say which of
the three wrote it, so ``metadata`` names no agent (the standard place does: ``formats.places``).

Window: the environment details' ``# Context Window Usage`` line states the model's context window (``N / WK
tokens used``): the latest one → ``metadata["context_window"]``.

Usage: ``metrics.tokens`` of an assistant message → ``usage_metadata`` with ``total_tokens`` = prompt + completion +
cached, the sum Cline's own context manager uses as the window of that call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from compressor.formats import anthropic, cline_tools
from compressor.formats.building import build_message, is_number
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, type_name
from compressor.formats.roles import TurnRules
from compressor.formats.shape import Reader, Shape
from compressor.formats.tally import Tally, assemble, fill_unanswered
from compressor.messages import Conversation, Message, RecordedCompaction

SOURCE_FORMAT = "cline"

CLINE_RULES = TurnRules(
    internal_prefixes=(
        "[ERROR] You did not use a tool in your previous response",
        "[Continue assisting the user!]",
        "[NOTE] Some previous conversation history with the user has been removed",
        "Warning: this is a legacy conversation",
        "[Sliding window truncation:",  # Roo / Kilo (context-management/index.ts)
    ),
    internal_tags=("environment_details",),
    tool_result=cline_tools.TOOL_RESULT,
)
#: The result given to a tool use the history never answers (the task stopped, or the file ends, before it).
NO_RESULT = "(no result: the history ends before this tool returned)"
#: Openings of the parts of a Cline/Roo user turn that are not a tool's result.
_MARKERS = ("<environment_details>", "<task>", "[TASK RESUMPTION]")
#: Openings only Cline/Roo write; a file is read as Cline's when one of its user turns shows one (``<task>`` alone
#: is not enough: other prompts use that tag too).
_SIGNATURES = ("<environment_details>", "[TASK RESUMPTION]")
#: The model's window in the environment details: ``(contextWindow / 1000).toLocaleString()`` + "K"
#: (``getEnvironmentDetails``, "# Context Window Usage"; en-US digits).
_WINDOW = re.compile(r"# Context Window Usage\n[\d,]+ / (\d[\d,]*(?:\.\d+)?)K tokens used")
#: Blocks Roo / Kilo keep in a reply beside what it says: the model's reasoning, a provider's thought signature.
_REASONING_BLOCKS = ("reasoning", "thoughtSignature")
#: How a Roo / Kilo condense summary opens.
SUMMARY_HEADING = "## Conversation Summary"


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    out: list[str] = []
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            out.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            out.extend(_texts(block.get("content")))
    return out


def _opens_other_part(text: str) -> bool:
    """Whether a text block after a result is not part of it: the person's words, injected context, a new turn."""
    return (
        cline_tools.starts_user_words(text)
        or text.lstrip().startswith(_MARKERS)
        or CLINE_RULES.kind(text) == "internal"
    )


def is_cline_turn(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("role") != "user":
        return False
    return any(
        text.lstrip().startswith(_SIGNATURES)
        or "\n<environment_details>" in text
        or cline_tools.result_tool(text)
        for text in _texts(value.get("content"))
    )


def looks_like(shape: Shape) -> bool:
    if shape.container == "object":
        return False
    users = [value for value in shape.objects[:80] if isinstance(value, dict) and value.get("role") == "user"]
    return any(is_cline_turn(value) for value in users)


@dataclass
class _Assistant:
    """An assistant message kept as data until the user turn after it says which tool uses it answered."""

    data: dict[str, Any]
    loc: Loc
    position: int  # its index in the messages
    parts: list[Any]
    native: list[tuple[str, str]]  # (id, name) of its tool_use blocks, in order
    answered: set[str] = field(default_factory=set)
    synthesised: list[dict[str, Any]] = field(default_factory=list)

    def call_for(self, tool: str) -> tuple[str, dict[str, Any] | None]:
        """The id of the tool use a text result for ``tool`` answers, and the call when it had to be synthesised.

        In turn: an unanswered ``tool_use`` of that name; the ``<tool>`` XML in the text (made a call); the first
        unanswered ``tool_use`` (by order); a call synthesised from the result's header alone.
        """
        waiting = [(call_id, name) for call_id, name in self.native if call_id not in self.answered]
        chosen = next((call_id for call_id, name in waiting if name == tool), None)
        written: cline_tools.TextCall | None = None
        if chosen is None:
            written = self._take_written(tool)
            if written is None and waiting:
                chosen = waiting[0][0]
        if chosen is not None:
            self.answered.add(chosen)
            return chosen, None
        call_id = f"cline_{self.position}_{len(self.synthesised)}"
        arguments = written.arguments() if written is not None else "{}"
        call = {"id": call_id, "type": "function", "name": tool, "arguments": arguments}
        self.synthesised.append(call)
        return call_id, call

    def _take_written(self, tool: str) -> cline_tools.TextCall | None:
        """The first ``<tool>…</tool>`` use in the text parts, taken out of the text."""
        for index, part in enumerate(self.parts):
            text = part.get("text") if isinstance(part, dict) and part.get("type") == "text" else None
            found = cline_tools.find_call(text, tool) if isinstance(text, str) else None
            if found is not None and isinstance(text, str):
                self.parts[index] = {**part, "text": (text[: found.start] + text[found.end :]).strip()}
                return found
        return None

    def message(self) -> Message:
        data = {**self.data, "content": [part for part in self.parts if part != {"type": "text", "text": ""}]}
        if self.synthesised:
            data["tool_calls"] = [*(data.get("tool_calls") or []), *self.synthesised]
        (message,) = anthropic.convert_message(data, self.loc)
        return message


class _History:
    def __init__(self) -> None:
        self.messages: list[Message | _Assistant] = []
        self.assistant: _Assistant | None = None
        self.compactions: list[RecordedCompaction] = []
        self.tally = Tally()
        self.model: str | None = None
        self.window: int | None = None  # the context window the latest environment details state

    def add_assistant(self, data: dict[str, Any], loc: Loc) -> None:
        content = data.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        parts = (
            list(expect_list(content, loc.key("content"), "content blocks")) if content is not None else []
        )
        reasoning = [b for b in parts if isinstance(b, dict) and b.get("type") in _REASONING_BLOCKS]
        parts = [b for b in parts if not (isinstance(b, dict) and b.get("type") in _REASONING_BLOCKS)]
        native: list[tuple[str, str]] = []
        for index, block in enumerate(parts):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                call = anthropic.tool_call(block, loc.key("content").key(index))
                native.append((call["id"], call["name"]))
        extras = {key: value for key, value in data.items() if key not in ("content", "metrics")}
        usage = _usage(data.get("metrics"), loc.key("metrics"))
        if usage is not None:
            extras["usage_metadata"] = usage
        if "metrics" in data:
            extras["metrics"] = data["metrics"]
        if reasoning:
            extras["reasoning_blocks"] = reasoning
            text = "\n".join(b["text"] for b in reasoning if isinstance(b.get("text"), str))
            if text and not isinstance(extras.get("reasoning_content"), str):
                extras["reasoning_content"] = text
        model = data.get("modelInfo", {}).get("modelId") if isinstance(data.get("modelInfo"), dict) else None
        self.model = model if isinstance(model, str) and model else self.model
        self.assistant = _Assistant(extras, loc, len(self.messages), parts, native)
        self.messages.append(self.assistant)
        if data.get("isSummary") is True:  # Roo's condense before its "fresh start": the reply is the summary
            self._summary("\n".join(_texts(parts)))

    def add_user(self, data: dict[str, Any], loc: Loc) -> None:
        content = data.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        blocks = expect_list(blocks, loc.key("content"), "content blocks")
        extras = {key: value for key, value in data.items() if key not in ("role", "content")}
        for said in _texts(blocks):
            found = _WINDOW.search(said)
            self.window = round(float(found.group(1).replace(",", "")) * 1000) if found else self.window
        if data.get("isSummary") is True:  # Roo / Kilo condense: this user turn is the summary the model sees
            summary = {**extras, "role": "user", "content": anthropic.join_text(blocks), "internal": True}
            self.messages.append(build_message(summary, loc))
            self.tally.add("internal_user_turns")
            self._summary(next(iter(_texts(blocks)), ""))  # the first block; the rest is context it carries
            return
        rest: list[Any] = []
        result: tuple[str, list[Any], Loc] | None = None  # an open text result: its tool and parts so far

        def close() -> None:
            nonlocal result
            if result is not None:
                self._text_result(*result, extras=extras, rest=rest)
                result = None

        for index, block in enumerate(blocks):
            block_loc = loc.key("content").key(index)
            if not isinstance(block, str | dict):
                raise FormatProblem(block_loc, f"a content block must be an object, got {type_name(block)}")
            text = block if isinstance(block, str) else block.get("text")
            if isinstance(block, dict) and block.get("type") == "tool_result":
                close()
                self._native_result(block, block_loc, extras, rest)
            elif isinstance(text, str) and (tool := cline_tools.result_tool(text)) is not None:
                close()
                result = (tool, [block], block_loc)
            elif result is not None and not (isinstance(text, str) and _opens_other_part(text)):
                result[1].append(block)
            else:
                close()
                rest.append(block)
        close()
        if rest:
            self._user(rest, extras, loc)

    def _text_result(
        self, tool: str, parts: list[Any], block_loc: Loc, *, extras: dict[str, Any], rest: list[Any]
    ) -> None:
        if self.assistant is None:  # a result with no tool use before it: nothing to pair it with
            rest.extend(parts)
            return
        call_id, synthesised = self.assistant.call_for(tool)
        self.tally.add("tool_results_from_user_text")
        if synthesised is not None:
            self.tally.add("tool_calls_from_text")
        self._tool_message(tool, call_id, anthropic.join_text(parts), block_loc, extras, rest)

    def _native_result(
        self, block: dict[str, Any], loc: Loc, extras: dict[str, Any], rest: list[Any]
    ) -> None:
        message = anthropic.tool_result_message(block, loc, extras)
        call_id = str(message.tool_call_id)
        tool = next(
            (name for cid, name in (self.assistant.native if self.assistant else []) if cid == call_id), ""
        )
        if self.assistant is not None:
            self.assistant.answered.add(call_id)
        self._tool_message(
            tool, call_id, message.content, loc, {**extras, **(message.model_extra or {})}, rest
        )

    def _tool_message(
        self, tool: str, call_id: str, content: Any, loc: Loc, extras: dict[str, Any], rest: list[Any]
    ) -> None:
        if isinstance(content, str):
            content, words = cline_tools.split_user_words(tool, content)
            if words:
                rest.append({"type": "text", "text": words})
        data = {**extras, "role": "tool", "tool_call_id": call_id, "content": content}
        if tool:
            data["name"] = tool
        self.messages.append(build_message(data, loc))
        if tool in cline_tools.COMPACTION_TOOLS:
            self._compaction(tool, call_id, content)

    def _compaction(self, tool: str, call_id: str, content: Any) -> None:
        text = content if isinstance(content, str) else ""
        summary = cline_tools.continuation_summary(text)
        assistant = self.assistant
        call = next((c for c in (assistant.synthesised if assistant else []) if c["id"] == call_id), None)
        if summary is None and tool == "summarize_task":
            return
        context = _context_argument(assistant, call_id, call)
        before: Any = (assistant.data.get("usage_metadata") or {}).get("total_tokens") if assistant else None
        self.compactions.append(
            RecordedCompaction(
                index=len(self.messages) - 1,
                source=SOURCE_FORMAT,
                summary=context or summary or text,
                tokens_before=int(before) if is_number(before) else None,
            )
        )

    def _summary(self, text: str) -> None:
        """A Roo / Kilo condense summary, carried by the latest message."""
        summary = text.strip().removeprefix(SUMMARY_HEADING).strip()
        before: Any = None
        for entry in reversed(self.messages[:-1]):
            if isinstance(entry, _Assistant):
                before = (entry.data.get("usage_metadata") or {}).get("total_tokens")
                break
        self.compactions.append(
            RecordedCompaction(
                index=len(self.messages) - 1,
                source=SOURCE_FORMAT,
                summary=summary or text,
                tokens_before=int(before) if is_number(before) else None,
            )
        )

    def _user(self, parts: list[Any], extras: dict[str, Any], loc: Loc) -> None:
        content = anthropic.join_text(parts)
        text = content if isinstance(content, str) else "\n".join(_texts(parts))
        internal = CLINE_RULES.kind(text) != "request"
        self.tally.add("internal_user_turns", int(internal))
        self.messages.append(
            build_message({**extras, "role": "user", "content": content, "internal": internal}, loc)
        )

    def finished(self) -> list[Message]:
        return [entry.message() if isinstance(entry, _Assistant) else entry for entry in self.messages]


def _context_argument(assistant: _Assistant | None, call_id: str, call: dict[str, Any] | None) -> str | None:
    """The summary the model passed to the compaction tool (its ``context`` parameter), when it can be read."""
    arguments: Any = call["arguments"] if call else None
    if arguments is None and assistant is not None:
        block = next(
            (
                b
                for b in assistant.parts
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") == call_id
            ),
            None,
        )
        arguments = block.get("input") if block else None
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    value = arguments.get("context") if isinstance(arguments, dict) else None
    return value if isinstance(value, str) and value.strip() else None


def _usage(metrics: Any, loc: Loc) -> dict[str, Any] | None:
    if not isinstance(metrics, dict) or not isinstance(metrics.get("tokens"), dict):
        return None
    tokens = metrics["tokens"]
    numbers: dict[str, int] = {}
    for key in ("prompt", "completion", "cached"):
        value = tokens.get(key)
        if value is not None and not is_number(value):
            raise FormatProblem(loc.key("tokens").key(key), f"must be a number, got {type_name(value)}")
        numbers[key] = int(value) if value is not None else 0
    prompt = numbers["prompt"] + numbers["cached"]
    return {
        "input_tokens": prompt,
        "output_tokens": numbers["completion"],
        "total_tokens": prompt + numbers["completion"],
        "cached_tokens": numbers["cached"],
    }


def from_history(located: Iterable[tuple[Loc, Any]], *, name: str) -> Conversation:
    history = _History()
    for loc, item in located:
        data = expect_dict(item, loc, "a message")
        role = data.get("role")
        if role == "assistant":
            history.add_assistant(data, loc)
        elif role == "user":
            history.add_user(data, loc)
        elif role is None and data.get("type") == "reasoning":  # older Roo: a reasoning item between messages
            history.tally.add("lines_skipped", detail="reasoning items (not a message)")
        else:
            history.messages.append(build_message(data, loc))
    messages, compactions, filled = fill_unanswered(history.finished(), history.compactions, NO_RESULT)
    history.tally.add("recorded_compactions", len(compactions))
    history.tally.add("results_filled_in", filled, note=f'"{NO_RESULT}"')
    # No "agent": Cline, Roo Code and Kilo Code write the same file; the place it was found in names which (fleet).
    metadata: dict[str, Any] = {}
    if history.model:
        metadata["model"] = history.model
        history.tally.note("model_from_file", history.model)
    if history.window:
        metadata["context_window"] = history.window
    return assemble(
        messages,
        [],
        name=name,
        source_format=SOURCE_FORMAT,
        metadata=metadata,
        compactions=compactions,
        readings=history.tally.readings(),
    )


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=looks_like,
    read=lambda shape: [from_history(shape.located(), name=shape.stem)],
)
