"""What the offline backend extracts from the messages a compaction replaces: the task, constraints, tool calls
and their commands, files, errors, facts, pending items and where to resume.

Invariant: pure and deterministic; items are kept newest first up to a cap, each line capped in length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..messages import Message, ToolCall
from .redaction import ascii_lowered, defused

#: Items listed per section at most, and characters kept per item line.
MAX_ITEMS = 12
LINE_CHARS = 200

# -- small text helpers ----------------------------------------------------------------------------


def _line(text: str, limit: int = LINE_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _recent_unique(items: Iterable[str], cap: int = MAX_ITEMS) -> list[str]:
    """Distinct items ordered by their last mention, keeping the ``cap`` most recent."""
    last_seen: dict[str, int] = {}
    for position, item in enumerate(items):
        if item:
            last_seen.pop(item, None)
            last_seen[item] = position
    return list(last_seen)[-cap:]


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


_SHELL_PROMPT = re.compile(r"^\S*[$#>]$")


def _last_line(text: str) -> str:
    """The last meaningful line of a command's output (a bare shell prompt is not one)."""
    lines = (line.strip() for line in reversed(text.splitlines()))
    return next((line for line in lines if line and not _SHELL_PROMPT.match(line)), "")


# -- paths -----------------------------------------------------------------------------------------

# fmt: off
_EXTENSIONS = frozenset({
    "py", "pyi", "pyx", "ipynb", "js", "jsx", "ts", "tsx", "mjs", "cjs", "json", "jsonl", "yaml", "yml",
    "toml", "ini", "cfg", "conf", "md", "rst", "txt", "csv", "tsv", "html", "htm", "css", "scss", "less",
    "go", "rs", "java", "kt", "kts", "c", "h", "cc", "cpp", "hpp", "cs", "rb", "php", "sh", "bash", "zsh",
    "fish", "ps1", "sql", "xml", "lock", "env", "swift", "scala", "lua", "pl", "vue", "svelte", "gradle",
    "proto", "tf", "log", "patch", "diff",
})
# fmt: on
_BARE_NAMES = frozenset({"Makefile", "Dockerfile", "Justfile", "Procfile", "Gemfile", "README", "LICENSE"})
_PATH_ARGUMENTS = ("file_path", "path", "filename", "file", "target_file", "notebook_path", "filepath")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.I)
_TOKEN_SPLIT = re.compile(r"[\s\"'`()\[\]{}<>,;=|]+")
_COMPONENT = re.compile(r"[\w.@+-]+")


def _looks_like_path(token: str) -> bool:
    if "/" not in token and "." not in token and token not in _BARE_NAMES:
        return False  # the common case, decided before any splitting
    if not 2 <= len(token) <= 200 or "://" in token:
        return False
    parts = token.split("/")
    last = parts[-1] or (parts[-2] if len(parts) > 1 else "")
    has_extension = "." in last.strip(".") and last.rsplit(".", 1)[-1].lower() in _EXTENSIONS
    if len(parts) == 1:
        return has_extension or token in _BARE_NAMES
    inner = [part for part in parts if part]
    if not inner or not all(_COMPONENT.fullmatch(part) for part in inner):
        return False
    if all(part.replace(".", "").isdigit() for part in inner):
        return False  # a date or a version, not a path
    anchored = token.startswith(("/", "./", "../", "~/"))
    return anchored or has_extension or last in _BARE_NAMES or token.count("/") >= 2


def path_tokens(text: str) -> list[str]:
    """Path-looking tokens in free text, in order (URLs excluded)."""
    found: list[str] = []
    for raw in _TOKEN_SPLIT.split(_URL.sub(" ", text)):
        token = raw.strip(".:!?")
        if _looks_like_path(token):
            found.append(token)
    return found


# -- tool calls ------------------------------------------------------------------------------------


def _argument_text(call: ToolCall) -> str:
    arguments = call.parsed_arguments()
    if not arguments:
        return _line(defused(call.arguments), 80)
    pairs = [f"{key}={_line(defused(str(value)), 60)}" for key, value in list(arguments.items())[:3]]
    more = ", …" if len(arguments) > 3 else ""
    return ", ".join(pairs) + more


def _raw_command(call: ToolCall) -> str:
    """The shell command a call ran (its ``command`` or ``cmd`` argument), as given; '' when none."""
    arguments = call.parsed_arguments()
    for key in ("command", "cmd"):
        value = arguments.get(key)
        if isinstance(value, list):
            value = " ".join(str(part) for part in value)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _command(call: ToolCall) -> str:
    raw = _raw_command(call)
    return _line(defused(raw), 160) if raw else ""


def _explicit_paths(call: ToolCall) -> list[str]:
    arguments = call.parsed_arguments()
    paths: list[str] = []
    for key in _PATH_ARGUMENTS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip() and "\n" not in value and len(value) <= 300:
            paths.append(value.strip())
    for key in ("paths", "files"):
        values = arguments.get(key)
        if isinstance(values, list):
            paths.extend(v.strip() for v in values if isinstance(v, str) and v.strip() and "\n" not in v)
    return paths


# -- extraction ------------------------------------------------------------------------------------

# An error report ("ValueError: …", "error: …", "Traceback", "FAILED …"), not source code that merely
# mentions errors: numbered listing lines and except/raise/def lines are skipped.
_ERROR = re.compile(
    r"\btraceback\b|\w*(?:error|exception)\s*:|\b(?:failed|failure|fatal|panicked)\b|\bERR!", re.I
)
_ZERO_FAILURES = re.compile(r"\b(?:0|no) (?:failed|failures?|errors?)\b", re.I)
_CODE_LINE = re.compile(r"^\s*(?:\d+\s*[:|]|(?:except|raise|def|class|import|from|catch|throw)\b|#|//)")
_CONSTRAINT = re.compile(
    r"\b(must|never|always|only|prefer|avoid|without|make sure|should|shouldn't|don't|do not|keep)\b", re.I
)
_PENDING = re.compile(r"^\s*(?:[-*]\s*\[ \]|todo\b|next\b|then\b|remaining\b|still need|need to)", re.I)
_FACT = re.compile(
    r"\b(fix(?:ed)?|root cause|because|decided|found|turns out|caused by|works|passe[sd]|confirmed)\b", re.I
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_MEMORY_SUMMARY = re.compile(r"<summary>\s*(.*?)\s*</summary>", re.S | re.I)


@dataclass
class _Extract:
    """Everything pulled from the conversation, before it is laid out as sections.

    Lists are already capped as their sections show them, oldest first; the totals count every item.
    """

    counts: dict[str, int] = field(default_factory=lambda: {"user": 0, "assistant": 0, "tool": 0})
    task: str = ""
    constraints: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    calls_total: int = 0
    statements: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    commands_total: int = 0
    facts: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    explicit_files: list[str] = field(default_factory=list)
    mentioned_files: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    errors_total: int = 0
    earlier_summary: list[str] = field(default_factory=list)
    resume: str = ""


class _Recent:
    """The ``cap`` distinct items mentioned last, collected while walking the messages newest first.

    ``newest()`` equals ``_recent_unique`` over all mentions in written order: an item's newest mention
    is the first one met walking backwards, so the first ``cap`` distinct items met are the ones kept.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._newest_first: dict[str, None] = {}

    @property
    def full(self) -> bool:
        return len(self._newest_first) >= self.cap

    def add(self, items: Iterable[str]) -> None:
        """One message's items, in the order the message gives them (not even read once the cap is met)."""
        if self.full:
            return
        for item in reversed(list(items)):
            if self.full:
                return
            if item:
                self._newest_first.setdefault(item, None)

    def newest(self, count: int | None = None) -> list[str]:
        """The ``count`` (default: all collected) items mentioned last, ordered by their last mention."""
        return list(self._newest_first)[:count][::-1]


# Pieces of every line _is_error_line accepts: removing a "0 failed" phrase only joins text between two
# non-word characters, so a keyword it reveals was in the line already, or the phrase itself was.
_ERROR_HINT = re.compile(
    r"traceback|fail|fatal|panicked|err!|(?:error|exception)\s*:|\b(?:0|no) errors?\b", re.I
)
_ERROR_WORDS = ("traceback", "fail", "fatal", "panicked", "err!", "0 error", "no error")
_ERROR_COLON = re.compile(r"(?:error|exception)\s*:")


def _may_hold_error(text: str) -> bool:
    lowered = ascii_lowered(text)
    if lowered is None:
        return bool(_ERROR_HINT.search(text))
    return any(word in lowered for word in _ERROR_WORDS) or bool(_ERROR_COLON.search(lowered))


def _is_error_line(line: str) -> bool:
    return bool(_ERROR.search(_ZERO_FAILURES.sub("", line))) and not _CODE_LINE.match(line)


def _error_lines(text: str) -> list[str]:
    """The error lines of a tool result, trimmed; the hint skips texts and lines that cannot hold one."""
    if not _may_hold_error(text):
        return []
    return [_line(line) for line in text.splitlines() if _may_hold_error(line) and _is_error_line(line)]


def conversation_of(messages: Sequence[Message]) -> list[Message]:
    """The messages to summarise: no system messages, and not the final prompt message."""
    body = [m for m in messages if m.role != "system"]
    if body and body[-1].role == "user":
        body = body[:-1]
    return body


def _sentences(text: str) -> list[str]:
    return [_line(s) for s in _SENTENCE_SPLIT.split(text) if s.strip()]


def _has_command(call: ToolCall) -> bool:
    """Whether ``_command(call)`` is non-empty, without cleaning (redaction never blanks a value)."""
    return bool(_raw_command(call))


def extract(messages: list[Message]) -> _Extract:
    """Two walks: every tool result oldest first (the error total needs them all), then the rest newest
    first, doing the costly reading of a message only while a capped section can still take its items."""
    found = _Extract()
    results: dict[str, str] = {}
    errors: list[str] = []
    latest_user = -1
    for index, message in enumerate(messages):
        if message.role in found.counts:
            found.counts[message.role] += 1
        if message.is_real_user:
            latest_user = index
        elif message.role == "tool":
            text = defused(message.text)
            if message.tool_call_id:
                results[message.tool_call_id] = text
            errors.extend(_error_lines(text))
    found.errors = _recent_unique(errors)
    found.errors_total = len(errors)

    constraints, pending, facts = _Recent(MAX_ITEMS), _Recent(MAX_ITEMS), _Recent(MAX_ITEMS)
    explicit, mentioned, commands = _Recent(MAX_ITEMS), _Recent(MAX_ITEMS * 2), _Recent(8)
    calls: list[str] = []  # newest first
    statements: list[str] = []  # newest first
    summary_seen = False
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.is_real_user:
            if index != latest_user and constraints.full and mentioned.full:
                continue
            text = defused(message.text)
            sentences = _sentences(text)
            constraints.add(s for s in sentences if _CONSTRAINT.search(s))
            if not mentioned.full:
                mentioned.add(path_tokens(text))
            if index == latest_user:
                found.task = text.strip()
                pending.add(s for s in sentences if _PENDING.search(s))
        elif message.is_internal:
            if summary_seen:
                continue
            summary = _MEMORY_SUMMARY.search(defused(message.text))
            if summary:
                summary_seen = True
                found.earlier_summary = [
                    _line(s)
                    for s in summary.group(1).splitlines()
                    if s.strip() and not s.lstrip().startswith("#")
                ][:8]
        elif message.role == "assistant":
            mentions: list[str] = []
            text_wanted = len(statements) < 3 or not (mentioned.full and facts.full)
            if text_wanted or (index > latest_user and not pending.full):
                text = defused(message.text)
                if text.strip():
                    if len(statements) < 3:
                        statements.append(_line(text, 300))
                    if not mentioned.full:
                        mentions.extend(path_tokens(text))
                    sentences = _sentences(text)
                    facts.add(s for s in sentences if _FACT.search(s))
                    if index > latest_user:
                        pending.add(s for s in sentences if _PENDING.search(s))
            tool_calls = message.tool_calls or ()
            found.calls_total += len(tool_calls)
            listed: list[str] = []
            paths: list[str] = []
            ran: list[str] = []
            for call in tool_calls:
                result = results.get(call.id)
                if len(calls) < MAX_ITEMS:
                    arguments = defused(_argument_text(call))
                    outcome = _line(_first_line(result), 100) if result is not None else "no result yet"
                    listed.append(f"{call.name}({arguments}) → {outcome}")
                if not explicit.full:
                    paths.extend(defused(p) for p in _explicit_paths(call))
                if not mentioned.full:
                    mentions.extend(path_tokens(defused(call.arguments)))
                if commands.full:
                    found.commands_total += 1 if _has_command(call) else 0
                    continue
                command = defused(_command(call))
                if command:
                    found.commands_total += 1
                    last = _line(_last_line(result), 100) if result is not None else "no result yet"
                    ran.append(f"`{command}` → {last}")
            calls.extend(reversed(listed))
            explicit.add(paths)
            mentioned.add(mentions)
            commands.add(ran)
    found.constraints = constraints.newest()
    found.pending = pending.newest()
    found.commands = commands.newest()
    found.facts = facts.newest(MAX_ITEMS - len(found.commands))
    found.explicit_files = explicit.newest()
    found.mentioned_files = mentioned.newest()
    found.calls = calls[:MAX_ITEMS][::-1]
    found.statements = statements[::-1]
    found.resume = _resume_point(messages, results)
    return found


def _newest_call(messages: list[Message], call_id: str) -> ToolCall | None:
    """The call with this id that an assistant message made last."""
    for message in reversed(messages):
        if message.role == "assistant":
            for call in reversed(message.tool_calls or ()):
                if call.id == call_id:
                    return call
    return None


def _resume_point(messages: list[Message], results: dict[str, str]) -> str:
    if not messages:
        return "Nothing was compacted; continue from the messages kept after this summary."
    last = messages[-1]
    if last.role == "tool":
        call = _newest_call(messages, last.tool_call_id or "")
        name = f"{call.name}({defused(_argument_text(call))})" if call else "a tool"
        return f"The last step was {name}, which returned: {_line(_first_line(defused(last.text)), 160)}"
    if last.role == "assistant" and last.tool_calls:
        waiting = [f"{c.name}({defused(_argument_text(c))})" for c in last.tool_calls if c.id not in results]
        if waiting:
            return "Waiting for the results of: " + "; ".join(waiting)
    if last.role == "assistant" and last.text.strip():
        return f"The last assistant statement was: {_line(defused(last.text), 300)}"
    return "Continue the active task (section 1) from the latest messages kept after this summary."
