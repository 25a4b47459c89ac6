"""State reinjection: the ``<recovered_context>`` message that re-adds recently read files and loaded skills (SPEC §12).

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
- Read tools: only ``read_file`` by default, as openJiuwen. Claude Code's ``Read`` (which also passes ``file_path``)
  is **our extension**, used only when asked for (``read_tools=WITH_CLAUDE_CODE_READ``); such files are marked
  ``extension`` so no page passes them off as openJiuwen's.
- Skills (``skills.py``): SKILL.md files loaded with ``skill_tool`` or read with ``read_file`` come back in their
  own section, before the files, as openJiuwen's skills builder does.
- The message is written in our own words; ``Reinjection.openjiuwen_tokens`` is what openJiuwen's message for the
  same files and skills costs (``upstream_sizing``), which is what the replay counts.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .messages import Message, ToolCall
from .skills import select_skills
from .tokens import TokenCounter
from .tool_results import (
    EXCLUDED_PATH_PARTS,
    argument_path,
    is_excluded_path,
    parse_tool_result,
    result_text_of,
)
from .upstream_sizing import ReadEntry, reinjection_tokens

__all__ = [
    "EXCLUDED_PATH_PARTS",
    "argument_path",
    "is_excluded_path",
    "parse_tool_result",
    "result_text_of",
]

#: The only read tool openJiuwen recognises, and so the default.
OPENJIUWEN_READ_TOOLS: tuple[str, ...] = ("read_file",)
READ_FILE_TOOLS: tuple[str, ...] = OPENJIUWEN_READ_TOOLS
#: Our extension: Claude Code's ``Read`` recovered too, for runs recorded by Claude Code.
WITH_CLAUDE_CODE_READ: tuple[str, ...] = ("read_file", "Read")

MAX_FILES = 5
TOTAL_CHAR_BUDGET = 50_000
PER_FILE_CHARS = 15_000
SECTION_CHAR_CAP = 12_000

#: openJiuwen's other reinjection builders read agent session state (plan files, plan mode, todo lists,
#: background tasks) that a conversation file does not hold; they are reported as not available offline.
UNAVAILABLE_BUILDERS: tuple[str, ...] = ("plan", "plan_mode", "todo", "task_status")

OPEN_TAG = "<recovered_context>"
CLOSE_TAG = "</recovered_context>"
SECTION_OPEN = '<section name="read_file">'
SKILLS_SECTION_OPEN = '<section name="skills">'
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
    tool: str = "read_file"  # the read tool that returned it
    content: str = ""  # the whole content the tool returned

    @property
    def budget_charge(self) -> int:
        return min(self.chars, PER_FILE_CHARS)

    @property
    def extension(self) -> bool:
        """Recovered by our extension (a read tool openJiuwen does not know), not by openJiuwen."""
        return self.tool not in OPENJIUWEN_READ_TOOLS

    def upstream_entry(self) -> ReadEntry:
        """This file as openJiuwen's read_file section lays it out."""
        lines = "unknown" if self.lines_returned is None else str(self.lines_returned)
        return ReadEntry(self.path, lines, self.partial, self.content)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "lines_returned": self.lines_returned,
            "partial": self.partial,
            "chars": self.chars,
            "truncated": self.truncated,
            "call_id": self.call_id,
            "result_index": self.result_index,
            "tool": self.tool,
            "extension": self.extension,
        }


@dataclass(frozen=True)
class Reinjection:
    """The recovered-context message and what went into it."""

    message: Message
    files: tuple[ReinjectedFile, ...]
    unavailable: tuple[str, ...] = UNAVAILABLE_BUILDERS
    section_truncated: bool = False
    skills: tuple[str, ...] = ()  # the skill snapshots, oldest first

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(item.path for item in self.files)

    @property
    def extension_paths(self) -> tuple[str, ...]:
        """Files only our extension recovers (openJiuwen's own message would not hold them)."""
        return tuple(item.path for item in self.files if item.extension)

    @property
    def text(self) -> str:
        return self.message.text

    def openjiuwen_tokens(self, counter: TokenCounter) -> int:
        """Per-message tokens of openJiuwen's message for the same skills and files, as openJiuwen lays them out.

        Files only our extension recovers are laid out as openJiuwen lays out its own ``read_file`` files.
        """
        return reinjection_tokens(counter, self.skills, [item.upstream_entry() for item in self.files])

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message.to_openjiuwen(),
            "files": [item.to_dict() for item in self.files],
            "skills": list(self.skills),
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

    ``original`` is the context before compaction (system messages excluded); ``kept`` is what stays around the
    new memory block: prefix, the memory block itself, and tail (the skills builder compares with all three).
    """
    visible = visible_result_paths(kept)
    rounds = completed_rounds(original)
    candidates: list[ReinjectedFile] = []
    for start, end in reversed(rounds):
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
    skills = select_skills(original, rounds, kept)
    if not selected and not skills:
        return None
    selected.reverse()  # newest-first selection, chronological output
    return reinjection_from_files(selected, skills)


def reinjection_from_files(files: Sequence[ReinjectedFile], skills: Sequence[str] = ()) -> Reinjection:
    """The recovered-context message for files (chronological) and skills (oldest first) already selected."""
    sections: list[str] = []
    if skills:
        body, _ = cap_text("\n\n".join(skills), SECTION_CHAR_CAP, SECTION_CUT_MARKER)
        sections.append(f"{SKILLS_SECTION_OPEN}\n{body}\n{SECTION_CLOSE}")
    section_truncated = False
    if files:
        body, section_truncated = cap_text(
            render_section(files).strip(), SECTION_CHAR_CAP, SECTION_CUT_MARKER
        )
        sections.append(f"{SECTION_OPEN}\n{body}\n{SECTION_CLOSE}")
    content = (
        f"{OPEN_TAG}\n<instruction>\n{INSTRUCTION}\n</instruction>\n\n"
        + "\n\n".join(sections)
        + f"\n{CLOSE_TAG}"
    )
    return Reinjection(
        message=Message(role="user", content=content),
        files=tuple(files),
        section_truncated=section_truncated,
        skills=tuple(skills),
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
    path: Any = ""
    content: str = result_text
    line_count: Any = None
    if isinstance(parsed, dict):
        path = parsed.get("file_path") or ""
        if isinstance(parsed.get("content"), str):
            content = parsed["content"]
        line_count = parsed.get("line_count")
    if not isinstance(path, str):  # a file_path that is not text: openJiuwen takes nothing from this read
        return None
    path = path or argument_path(arguments, call.arguments)
    if not path:
        return None
    lines: int | None
    if line_count is None:
        lines = len(content.splitlines())
    elif isinstance(line_count, int):
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
        tool=call.name,
        content=content,
    )


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
