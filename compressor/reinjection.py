"""State reinjection: the ``<recovered_context>`` message that re-adds recently read files (SPEC §12).

Invariant: only files that read calls returned in completed rounds of the original context are recovered,
never one whose JSON result is still visible in the kept messages; the message is a pure function of its inputs.

Choices where SPEC §12 leaves room (each matches what openJiuwen 0.1.19.post2 produced on the reference cases):

- *Visible in the kept messages* means: a kept ``tool`` message whose result parses as a JSON object (or the
  ``data={...}`` form of a printed tool output) with a string ``file_path``. Any tool counts, not only read calls,
  because the path is what the model can still see. A kept **plain-text** read result does not hide its path:
  its text does not name the file, so openJiuwen reinjects that file even though its content is also kept
  (reference cases compact000 and compact001 do exactly this).
- Rounds are walked newest first; inside one round, calls are taken in the order the assistant made them, and
  the first snapshot seen for a path wins ("one entry per path, the newest read").
- The budget is spent the way openJiuwen spends it: a file is taken while budget remains before it, so the file
  that exhausts the 50,000 characters is still included (four 15,000-character files fit, not three).
- Read tools: ``read_file`` (openJiuwen's tool) and ``Read`` (Claude Code's, which also passes ``file_path``),
  both matched exactly. openJiuwen itself matches only ``read_file``: pass ``read_tools=OPENJIUWEN_READ_TOOLS``
  to reproduce it on conversations whose agent had a tool named ``Read``.
- The whole section is capped at 12,000 characters (head and tail around a marker). openJiuwen also caps each
  file block at 12,000 first; that step never changes the visible text, because any block longer than the cap
  makes the section longer than the cap too, and the section cut keeps the same leading and trailing characters.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .messages import Message, ToolCall

#: Tool names whose results are recovered by default (see the module docstring).
READ_FILE_TOOLS: tuple[str, ...] = ("read_file", "Read")
#: The only read tool openJiuwen itself recognises.
OPENJIUWEN_READ_TOOLS: tuple[str, ...] = ("read_file",)

MAX_FILES = 5
TOTAL_CHAR_BUDGET = 50_000
PER_FILE_CHARS = 15_000
SECTION_CHAR_CAP = 12_000
#: Paths containing one of these (after ``\\`` → ``/`` and lower-casing) are never recovered.
EXCLUDED_PATH_PARTS: tuple[str, ...] = ("/.git/", "/node_modules/", "/__pycache__/")

#: openJiuwen's other reinjection builders read agent session state (plan files, todo lists, background tasks,
#: loaded skills) that a conversation file does not hold; they are reported as not available offline.
UNAVAILABLE_BUILDERS: tuple[str, ...] = ("plan", "plan_mode", "todo", "task_status", "skills")

OPEN_TAG = "<recovered_context>"
CLOSE_TAG = "</recovered_context>"
SECTION_OPEN = '<section name="read_file">'
SECTION_CLOSE = "</section>"

INSTRUCTION = (
    "The files below were read with tools before the conversation was compacted. They are reproduced\n"
    "here so you do not have to read them again. They show each file as it was when it was read, and\n"
    "the file may have changed since. This is recovered background, not a new request from the user."
)
#: Placed between the first and last halves of a file longer than PER_FILE_CHARS.
FILE_CUT_MARKER = "\n[... the middle of this file was left out of the recovered copy ...]\n"
#: Placed between the head and tail of a section longer than SECTION_CHAR_CAP.
SECTION_CUT_MARKER = "\n[... recovered files shortened here to fit the size limit ...]\n"
PARTIAL_NOTE = "Partial read: the call asked for an offset or a line limit, so this is only part of the file."


@dataclass(frozen=True)
class ReinjectedFile:
    """One recovered file: where it came from and how much of it the message carries."""

    path: str
    lines_returned: int | None  # None when the result's line_count is present but not a number
    partial: bool  # the call had ``offset`` or ``limit``
    chars: int  # length of the content the tool returned
    truncated: bool  # longer than PER_FILE_CHARS, so only its first and last halves are kept
    call_id: str
    result_index: int  # index of the tool message in the original context
    text: str  # the content as placed in the message (FILE_CUT_MARKER in the middle when truncated)

    @property
    def budget_charge(self) -> int:
        return min(self.chars, PER_FILE_CHARS)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "lines_returned": self.lines_returned,
            "partial": self.partial,
            "chars": self.chars,
            "truncated": self.truncated,
            "call_id": self.call_id,
            "result_index": self.result_index,
        }


@dataclass(frozen=True)
class Reinjection:
    """The recovered-context message and what went into it."""

    message: Message
    files: tuple[ReinjectedFile, ...]
    unavailable: tuple[str, ...] = UNAVAILABLE_BUILDERS
    section_truncated: bool = False

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(item.path for item in self.files)

    @property
    def text(self) -> str:
        return self.message.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message.to_openjiuwen(),
            "files": [item.to_dict() for item in self.files],
            "unavailable": list(self.unavailable),
            "section_truncated": self.section_truncated,
            "chars": len(self.message.text),
        }


def build_reinjection(
    original: Sequence[Message],
    kept: Sequence[Message],
    *,
    read_tools: Collection[str] = READ_FILE_TOOLS,
) -> Reinjection | None:
    """The recovered-context message for a compaction of ``original`` that keeps ``kept`` verbatim, or None.

    ``original`` is the context before compaction (system messages excluded); ``kept`` is prefix + tail.
    """
    visible = visible_result_paths(kept)
    candidates: list[ReinjectedFile] = []
    for start, end in reversed(completed_rounds(original)):
        for call, result_index in _read_calls(original, start, end, read_tools):
            snapshot = _snapshot(call, original[result_index], result_index)
            if snapshot is None or snapshot.path in visible or is_excluded_path(snapshot.path):
                continue
            candidates.append(snapshot)

    selected: list[ReinjectedFile] = []
    seen: set[str] = set()
    remaining = TOTAL_CHAR_BUDGET
    for snapshot in candidates:
        if snapshot.path in seen:
            continue
        seen.add(snapshot.path)
        selected.append(snapshot)
        remaining -= snapshot.budget_charge
        if len(selected) >= MAX_FILES or remaining <= 0:
            break
    if not selected:
        return None
    selected.reverse()  # newest-first selection, chronological output
    return reinjection_from_files(selected)


def reinjection_from_files(files: Sequence[ReinjectedFile]) -> Reinjection:
    """The recovered-context message for files already selected, in chronological order (section capped)."""
    section, section_truncated = cap_text(render_section(files), SECTION_CHAR_CAP, SECTION_CUT_MARKER)
    content = f"{OPEN_TAG}\n<instruction>\n{INSTRUCTION}\n</instruction>\n\n{SECTION_OPEN}\n{section}\n{SECTION_CLOSE}\n{CLOSE_TAG}"
    return Reinjection(
        message=Message(role="user", content=content),
        files=tuple(files),
        section_truncated=section_truncated,
    )


# -- rounds ------------------------------------------------------------------------------------


def completed_rounds(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """Half-open ranges of the completed rounds, oldest first.

    A round starts at the first message after the previous round (a user message restarts it while no tool
    results are pending) and ends at an assistant message without tool calls, or at the result that answers
    the last outstanding call of the latest assistant message. A trailing unfinished round is left out.
    """
    rounds: list[tuple[int, int]] = []
    start: int | None = None
    pending: set[str] | None = None
    for index, message in enumerate(messages):
        if start is None or (message.role == "user" and pending is None):
            start = index
        if message.role == "assistant":
            ids = {call_id for call_id in message.call_ids if call_id}
            if message.tool_calls and ids:
                pending = ids  # a newer call list replaces any calls still unanswered
                continue
            rounds.append((start, index + 1))
            start, pending = None, None
        elif message.role == "tool" and pending is not None:
            pending.discard(message.tool_call_id or "")
            if not pending:
                rounds.append((start, index + 1))
                start, pending = None, None
    return rounds


def _read_calls(
    messages: Sequence[Message], start: int, end: int, read_tools: Collection[str]
) -> Iterator[tuple[ToolCall, int]]:
    """Read calls of one round in call order, each with the index of its (last) result inside the round."""
    for index in range(start, end):
        for call in messages[index].tool_calls or ():
            if call.name not in read_tools:
                continue
            result_index = _result_index(messages, start, end, call.id)
            if result_index is not None:
                yield call, result_index


def _result_index(messages: Sequence[Message], start: int, end: int, call_id: str) -> int | None:
    for index in range(end - 1, start - 1, -1):
        message = messages[index]
        if message.role == "tool" and message.tool_call_id == call_id:
            return index
    return None


# -- one snapshot --------------------------------------------------------------------------------


def read_snapshot(call: ToolCall, result: Message, result_index: int) -> ReinjectedFile | None:
    """What a read call's result contributes (path, lines, text), or None when it names no file."""
    return _snapshot(call, result, result_index)


def _snapshot(call: ToolCall, result: Message, result_index: int) -> ReinjectedFile | None:
    result_text = result_text_of(result)
    if not result_text:
        return None
    parsed = parse_tool_result(result_text)
    arguments = call.parsed_arguments()
    path = ""
    content: str = result_text
    line_count: Any = None
    if isinstance(parsed, dict):
        if isinstance(parsed.get("file_path"), str):
            path = parsed["file_path"]
        if isinstance(parsed.get("content"), str):
            content = parsed["content"]
        line_count = parsed.get("line_count")
    path = path or argument_path(arguments, call.arguments)
    if not path:
        return None
    lines: int | None
    if line_count is None:
        lines = len(content.splitlines())
    elif isinstance(line_count, int) and not isinstance(line_count, bool):
        lines = line_count
    else:
        lines = None
    truncated = len(content) > PER_FILE_CHARS
    text = content
    if truncated:
        half = PER_FILE_CHARS // 2
        text = content[:half] + FILE_CUT_MARKER + content[-(PER_FILE_CHARS - half) :]
    return ReinjectedFile(
        path=path,
        lines_returned=lines,
        partial=arguments.get("offset") is not None or arguments.get("limit") is not None,
        chars=len(content),
        truncated=truncated,
        call_id=call.id,
        result_index=result_index,
        text=text,
    )


def result_text_of(message: Message) -> str:
    """A tool result as text: string content as is, list content as JSON (as openJiuwen reads it)."""
    if isinstance(message.content, str):
        return message.content
    return json.dumps(message.content, ensure_ascii=False)


_DATA_FIELD = re.compile(r"\bdata=(?P<data>\{.*?\})(?:\s+\w+=|$)", re.DOTALL)


def parse_tool_result(text: str) -> Any:
    """The JSON value of a result; for a printed tool output (``… data={...} …``) the ``data`` dict; else None."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    match = _DATA_FIELD.search(text)
    if match is None:
        return None
    try:
        value = ast.literal_eval(match.group("data"))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def argument_path(arguments: dict[str, Any], raw_arguments: str) -> str:
    """``file_path`` else ``path`` from the call arguments; falls back to a text search if they are not JSON."""
    keys = ("file_path", "path")
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    for key in keys:
        match = re.search(rf'"{key}"\s*:\s*"([^"]+)"', raw_arguments)
        if match:
            return match.group(1).strip()
    return ""


def visible_result_paths(kept: Sequence[Message]) -> set[str]:
    """Paths named by the ``file_path`` of a JSON (or ``data={...}``) tool result among the kept messages."""
    paths: set[str] = set()
    for message in kept:
        if message.role != "tool":
            continue
        parsed = parse_tool_result(result_text_of(message))
        if isinstance(parsed, dict) and isinstance(parsed.get("file_path"), str):
            paths.add(parsed["file_path"])
    return paths


def is_excluded_path(path: str) -> bool:
    normalised = path.replace("\\", "/").lower()
    return any(part in normalised for part in EXCLUDED_PATH_PARTS)


# -- rendering -------------------------------------------------------------------------------------


def render_entry(item: ReinjectedFile) -> str:
    lines = [
        f"Recently read file: {item.path}",
        f"Lines returned: {item.lines_returned if item.lines_returned is not None else 'unknown'}",
    ]
    if item.partial:
        lines.append(PARTIAL_NOTE)
    lines.extend(["", item.text])
    return "\n".join(lines)


def render_section(files: Sequence[ReinjectedFile]) -> str:
    return "\n\n".join(render_entry(item) for item in files)


def cap_text(text: str, limit: int, marker: str) -> tuple[str, bool]:
    """``text`` unchanged when it fits ``limit``; else its first and last halves around ``marker``."""
    if limit <= 0 or len(text) <= limit:
        return text, False
    head = text[: limit // 2]
    return head + marker + text[len(text) - (limit - len(head)) :], True
