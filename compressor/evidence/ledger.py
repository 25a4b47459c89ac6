"""Building the artifact ledger of the messages a compaction replaced: what each message says, by category.

Invariant: one pass over the messages, deterministic; every artifact carries the index of the message it came
from (``offset`` + position); what is read from where is the table below, and nothing else is read.

| category    | read from                                                                                    |
|-------------|----------------------------------------------------------------------------------------------|
| paths       | user and assistant text, tool-call arguments (not file contents), commands, earlier summaries |
| commands    | the ``command``/``cmd`` argument of any tool call (``bash -lc X`` unwrapped to ``X``); commands an |
|             | earlier summary writes as code (a shell fence, or inline code starting with a known program)  |
| errors      | error lines of tool results (source listings excluded)                                       |
| identifiers | user and assistant text, tool-call arguments, commands, earlier summaries                    |
| numbers     | user and assistant text, earlier summaries, the last lines of each command's output          |
| tools       | every tool call, by name, with its failed calls                                               |
| constraints | sentences of real user messages saying must / never / always / don't / should / avoid …     |
| todos       | the open items of the latest todo list a tool call wrote, and TODO / "- [ ]" / "Next:" lines  |
| decisions   | user and assistant sentences saying decided / chose / instead of / going with …              |

Internal user turns (reminders, notices) are skipped, except a memory block or a message listed as carrying
an earlier summary, which is read like assistant text.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from ..markers import MEMORY_OPEN
from ..messages import Message, ToolCall
from . import recognisers as rec
from .artifacts import Artifact, Category, Ledger

#: Tool-call arguments that hold file contents or edits, not names: never read for paths or identifiers.
CONTENT_ARGUMENTS = frozenset(
    {
        "content",
        "new_string",
        "old_string",
        "new_str",
        "old_str",
        "file_text",
        "text",
        "code",
        "body",
        "patch",
        "input",
        "edits",
        "new_source",
        "todos",
        "plan",
    }
)
#: Tool-call arguments that name a file outright.
PATH_ARGUMENTS = ("file_path", "path", "filename", "file", "target_file", "notebook_path", "filepath")
#: Lines at the end of a command's output read for numbers (where test and benchmark totals are printed).
OUTPUT_TAIL_LINES = 5
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"})
_SUMMARY = re.compile(r"<summary>\s*(.*?)\s*</summary>", re.S | re.I)
_DONE = frozenset({"completed", "complete", "done", "cancelled", "canceled"})


def command_of(call: ToolCall) -> str:
    """The shell command a call ran, stripped ('' when it ran none); ``["bash", "-lc", X]`` gives ``X``."""
    arguments = call.parsed_arguments()
    for key in ("command", "cmd"):
        value = arguments.get(key)
        if isinstance(value, list) and value:
            parts = [str(part) for part in value]
            if len(parts) >= 3 and parts[0] in _SHELLS and parts[1] in ("-c", "-lc", "-ic"):
                value = parts[-1]
            else:
                value = " ".join(parts)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def named_paths(arguments: dict[str, Any]) -> list[str]:
    """Paths a call's arguments name outright (``file_path``, ``path``, …, ``paths``/``files`` lists)."""
    paths: list[str] = []
    for key in PATH_ARGUMENTS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip() and "\n" not in value and len(value) <= 300:
            paths.append(value.strip())
    for key in ("paths", "files"):
        values = arguments.get(key)
        if isinstance(values, list):
            paths.extend(v.strip() for v in values if isinstance(v, str) and v.strip() and "\n" not in v)
    return paths


def _argument_texts(arguments: dict[str, Any]) -> list[str]:
    """The string values of the arguments that are names or options, not contents (one level of lists)."""
    texts: list[str] = []
    for key, value in arguments.items():
        if key in CONTENT_ARGUMENTS or key in PATH_ARGUMENTS:
            continue
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, list):
            texts.extend(v for v in value if isinstance(v, str))
    return texts


def failed(message: Message) -> bool:
    """Whether a tool result reports failure: the file's own flag, or an error-shaped first line."""
    extra = message.model_extra or {}
    if extra.get("is_error") is True or (message.metadata or {}).get("is_error") is True:
        return True
    if str(extra.get("status", "")).lower() in ("error", "failed", "failure"):
        return True
    head = message.text.lstrip()[:200]
    if head.startswith(("<tool_use_error>", "Error:", "error:", "ERROR")):
        return True
    exit_code = re.match(r"Exit code (\d+)", head)
    return bool(exit_code and exit_code.group(1) != "0")


def open_todos(call: ToolCall) -> list[str] | None:
    """The open items of a todo list a call writes (Claude Code's TodoWrite, Codex's update_plan), or None."""
    arguments = call.parsed_arguments()
    entries = arguments.get("todos", arguments.get("plan"))
    if not isinstance(entries, list):
        return None
    items: list[str] = []
    for entry in entries:
        if isinstance(entry, dict):
            text = entry.get("content", entry.get("step", entry.get("text")))
            status = str(entry.get("status", "")).lower()
            if isinstance(text, str) and text.strip() and status not in _DONE:
                items.append(rec.flat(text, rec.SENTENCE_CHARS))
    return items


class _Tally:
    """Artifacts by (category, key) as the walk finds them: text, first and last message, the messages that
    mention it (for tools: the number of calls) and failed calls."""

    def __init__(self) -> None:
        self.found: dict[tuple[Category, str], list[Any]] = {}  # [text, first, last, mentions, failures]

    def add(self, category: Category, text: str, key: str, index: int) -> None:
        if not key:
            return
        entry = self.found.get((category, key))
        if entry is None:
            self.found[(category, key)] = [text, index, index, 1 if category == "tools" else {index}, 0]
            return
        if category == "tools":
            entry[3] += 1
        else:
            entry[3].add(index)
        entry[2] = index

    def artifacts(self) -> Iterable[Artifact]:
        for (category, key), (text, first, last, mentions, failures) in self.found.items():
            yield Artifact(
                category=category,
                text=text,
                key=key,
                index=first,
                last_index=last,
                mentions=mentions if isinstance(mentions, int) else len(mentions),
                failures=failures,
            )


def _merge_paths(tally: _Tally) -> None:
    """A path that is the tail of exactly one longer path is the same file (``src/a.py`` of ``/r/src/a.py``);
    a bare name that tails several paths names none of them and is dropped."""
    keys = sorted((key for category, key in tally.found if category == "paths"), key=len, reverse=True)
    by_name: dict[str, list[str]] = {}
    root: dict[str, str] = {}
    for key in keys:
        name = key.rsplit("/", 1)[-1]
        longer = {root[other] for other in by_name.get(name, ()) if other.endswith("/" + key)}
        by_name.setdefault(name, []).append(key)
        if not longer:
            root[key] = key
            continue
        entry = tally.found.pop(("paths", key))
        if len(longer) > 1:
            root[key] = key
            if "/" in key:  # a shared tail with a folder is still a name the user may look for
                tally.found[("paths", key)] = entry
            continue
        target = tally.found[("paths", next(iter(longer)))]
        root[key] = next(iter(longer))
        target[1] = min(target[1], entry[1])
        target[2] = max(target[2], entry[2])
        target[3] |= entry[3]


def build_ledger(messages: Sequence[Message], *, offset: int = 0, carriers: Collection[int] = ()) -> Ledger:
    """The ledger of ``messages``, numbered from ``offset``; ``carriers`` are indexes (with the offset) of internal
    messages that carry an earlier summary, read like assistant text (memory blocks are recognised anyway)."""
    tally = _Tally()
    calls: dict[str, tuple[str, bool]] = {}  # call id → (tool name, ran a command)
    todo_list: list[tuple[str, int]] = []
    for position, message in enumerate(messages):
        index = offset + position
        if message.role == "tool":
            _read_result(tally, message, index, calls)
        elif message.role == "assistant":
            _read_text(tally, message.text, index, decisions=True)
            for call in message.tool_calls or ():
                written = _read_call(tally, call, index, calls)
                if written is not None:
                    todo_list = [(item, index) for item in written]
        elif message.is_real_user:
            text = message.text
            _read_text(tally, text, index, decisions=True)
            for sentence in rec.sentences(text):
                if rec.CONSTRAINT.search(sentence):
                    tally.add("constraints", sentence, _prose_key(sentence), index)
        elif message.role == "user" and (index in carriers or message.text.lstrip().startswith(MEMORY_OPEN)):
            text = message.text
            summary = _SUMMARY.search(text) if text.lstrip().startswith(MEMORY_OPEN) else None
            carried = summary.group(1) if summary else text
            _read_text(tally, carried, index, decisions=True)
            for command in rec.code_commands(carried):
                tally.add("commands", command, command_key(command), index)
    for item, index in todo_list:
        tally.add("todos", item, _prose_key(item), index)
    _merge_paths(tally)
    return Ledger.of_items(offset, offset + len(messages), tally.artifacts())


def _prose_key(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def _read_text(tally: _Tally, text: str, index: int, *, decisions: bool) -> None:
    if not text.strip():
        return
    for path in rec.path_tokens(text):
        tally.add("paths", path, rec.path_key(path), index)
    for identifier in rec.identifiers(text):
        tally.add("identifiers", identifier, rec.identifier_key(identifier), index)
    for written, canonical in rec.quantities(text):
        tally.add("numbers", written, canonical, index)
    for sentence in rec.sentences(text):
        if rec.OPEN_ITEM.search(sentence):
            tally.add("todos", sentence, _prose_key(sentence), index)
        elif decisions and rec.DECISION.search(sentence):
            tally.add("decisions", sentence, _prose_key(sentence), index)


def _read_call(
    tally: _Tally, call: ToolCall, index: int, calls: dict[str, tuple[str, bool]]
) -> list[str] | None:
    arguments = call.parsed_arguments()
    command = command_of(call)
    calls[call.id] = (call.name, bool(command))
    tally.add("tools", call.name, call.name.lower(), index)
    for path in named_paths(arguments):
        tally.add("paths", path, rec.path_key(path), index)
    texts = _argument_texts(arguments)
    if command:
        tally.add("commands", command, command_key(command), index)
    for text in texts:
        for path in rec.path_tokens(text):
            tally.add("paths", path, rec.path_key(path), index)
        for identifier in rec.identifiers(text):
            tally.add("identifiers", identifier, rec.identifier_key(identifier), index)
    return open_todos(call)


def command_key(command: str) -> str:
    """A command as compared verbatim: whitespace runs (newlines included) collapsed to one space."""
    return " ".join(command.split())


def _read_result(tally: _Tally, message: Message, index: int, calls: dict[str, tuple[str, bool]]) -> None:
    text = message.text
    name, ran_command = calls.get(message.tool_call_id or "", ("", False))
    if name:
        # A second result for the same call adds nothing to the call count.
        entry = tally.found.get(("tools", name.lower()))
        if entry is not None and failed(message):
            entry[4] += 1
    for line in rec.error_lines(text):
        if rec.telling_error(line) and not rec.PROGRESS.search(line):
            tally.add("errors", line, error_key(line), index)
    if ran_command:
        lines = [line for line in text.splitlines()[-4 * OUTPUT_TAIL_LINES :] if line.strip()]
        for line in lines[-OUTPUT_TAIL_LINES:]:
            if rec.PROGRESS.search(line):
                continue
            for written, canonical in rec.quantities(line):
                tally.add("numbers", written, canonical, index)


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ERROR_DECORATION = re.compile(r"^(?:E\s+|>\s+|\[\w+\]\s+|\d{4}-\d\d-\d\d[T ][\d:.,]+\s*)+")


def error_key(line: str) -> str:
    """An error line as compared: colour codes, pytest's ``E`` gutter and leading timestamps dropped, lower case."""
    cleaned = _ERROR_DECORATION.sub("", _ANSI.sub("", line).strip())
    return " ".join(cleaned.lower().split()).rstrip("…").strip()
