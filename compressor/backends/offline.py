"""The offline backend: a deterministic, extractive state snapshot built from the request messages alone.

Invariant: the same messages always give the same reply — both blocks and all 11 sections, every section
capped, every secret-looking string replaced by "[redacted]" — and nothing leaves the machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..messages import Message, ToolCall, ToolDef
from ..prompt import SNAPSHOT_SECTIONS
from .base import ModelReply

__all__ = ["LABEL", "SNAPSHOT_SECTIONS", "OfflineBackend", "build_reply", "redact"]

LABEL = "offline (extractive)"
#: Items listed per section at most, and characters kept per item line.
MAX_ITEMS = 12
LINE_CHARS = 200
TASK_CHARS = 1200
REDACTED = "[redacted]"

# -- secrets ---------------------------------------------------------------------------------------

_SECRET_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S),
        REDACTED,
    ),
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@", re.I), rf"\1{REDACTED}@"),
    (re.compile(r"(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}", re.I), rf"\1{REDACTED}"),
    (
        re.compile(
            r"""(\b(?:password|passwd|pwd|secret|client[_-]?secret|token|access[_-]?token|api[_-]?key|"""
            r"""access[_-]?key|secret[_-]?key)["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&"'}]+)""",
            re.I,
        ),
        rf"\1{REDACTED}",
    ),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), REDACTED),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), REDACTED),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), REDACTED),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), REDACTED),
)


def redact(text: str) -> str:
    """``text`` with API keys, bearer tokens, passwords and private keys replaced by "[redacted]"."""
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


_BLOCK_TAG = re.compile(r"</?\s*(?:state_snapshot|coverage_check)\s*>", re.I)


def _clean(text: str) -> str:
    """Redacted, and with our own block tags defused so quoted text cannot end the snapshot early."""
    return _BLOCK_TAG.sub(lambda tag: tag.group(0).replace("<", "(").replace(">", ")"), redact(text))


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
        return _line(_clean(call.arguments), 80)
    pairs = [f"{key}={_line(_clean(str(value)), 60)}" for key, value in list(arguments.items())[:3]]
    more = ", …" if len(arguments) > 3 else ""
    return ", ".join(pairs) + more


def _command(call: ToolCall) -> str:
    arguments = call.parsed_arguments()
    for key in ("command", "cmd"):
        value = arguments.get(key)
        if isinstance(value, list):
            value = " ".join(str(part) for part in value)
        if isinstance(value, str) and value.strip():
            return _line(_clean(value), 160)
    return ""


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
    """Everything pulled from the conversation, before it is laid out as sections."""

    counts: dict[str, int] = field(default_factory=lambda: {"user": 0, "assistant": 0, "tool": 0})
    task: str = ""
    constraints: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    statements: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    explicit_files: list[str] = field(default_factory=list)
    mentioned_files: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    earlier_summary: list[str] = field(default_factory=list)
    resume: str = ""


def _is_error_line(line: str) -> bool:
    return bool(_ERROR.search(_ZERO_FAILURES.sub("", line))) and not _CODE_LINE.match(line)


def _conversation(messages: Sequence[Message]) -> list[Message]:
    """The messages to summarise: no system messages, and not the final prompt message."""
    body = [m for m in messages if m.role != "system"]
    if body and body[-1].role == "user":
        body = body[:-1]
    return body


def _extract(messages: list[Message]) -> _Extract:
    found = _Extract()
    results: dict[str, str] = {
        m.tool_call_id: _clean(m.text) for m in messages if m.role == "tool" and m.tool_call_id
    }
    calls_by_id: dict[str, ToolCall] = {}
    latest_user = max((i for i, m in enumerate(messages) if m.is_real_user), default=-1)
    for index, message in enumerate(messages):
        text = _clean(message.text)
        if message.role in found.counts:
            found.counts[message.role] += 1
        if message.is_real_user:
            sentences = [_line(s) for s in _SENTENCE_SPLIT.split(text) if s.strip()]
            found.constraints.extend(s for s in sentences if _CONSTRAINT.search(s))
            found.mentioned_files.extend(path_tokens(text))
            if index == latest_user:
                found.task = text.strip()
                found.pending.extend(s for s in sentences if _PENDING.search(s))
        elif message.is_internal:
            summary = _MEMORY_SUMMARY.search(text)
            if summary:
                lines = [
                    _line(s)
                    for s in summary.group(1).splitlines()
                    if s.strip() and not s.lstrip().startswith("#")
                ]
                found.earlier_summary = lines[:8]
        elif message.role == "assistant":
            if text.strip():
                found.statements.append(_line(text, 300))
                found.mentioned_files.extend(path_tokens(text))
                sentences = [_line(s) for s in _SENTENCE_SPLIT.split(text) if s.strip()]
                found.facts.extend(s for s in sentences if _FACT.search(s))
                if index > latest_user:
                    found.pending.extend(s for s in sentences if _PENDING.search(s))
            for call in message.tool_calls or ():
                calls_by_id[call.id] = call
                arguments = _clean(_argument_text(call))
                result = results.get(call.id)
                outcome = _line(_first_line(result), 100) if result is not None else "no result yet"
                found.calls.append(f"{call.name}({arguments}) → {outcome}")
                found.explicit_files.extend(_clean(p) for p in _explicit_paths(call))
                found.mentioned_files.extend(path_tokens(_clean(call.arguments)))
                command = _clean(_command(call))
                if command:
                    last = _line(_last_line(result), 100) if result is not None else "no result yet"
                    found.commands.append(f"`{command}` → {last}")
        elif message.role == "tool":
            found.errors.extend(_line(line) for line in text.splitlines() if _is_error_line(line))
    found.resume = _resume_point(messages, calls_by_id, results)
    return found


def _resume_point(messages: list[Message], calls: dict[str, ToolCall], results: dict[str, str]) -> str:
    if not messages:
        return "Nothing was compacted; continue from the messages kept after this summary."
    last = messages[-1]
    if last.role == "tool":
        call = calls.get(last.tool_call_id or "")
        name = f"{call.name}({_clean(_argument_text(call))})" if call else "a tool"
        return f"The last step was {name}, which returned: {_line(_first_line(_clean(last.text)), 160)}"
    if last.role == "assistant" and last.tool_calls:
        waiting = [f"{c.name}({_clean(_argument_text(c))})" for c in last.tool_calls if c.id not in results]
        if waiting:
            return "Waiting for the results of: " + "; ".join(waiting)
    if last.role == "assistant" and last.text.strip():
        return f"The last assistant statement was: {_line(_clean(last.text), 300)}"
    return "Continue the active task (section 1) from the latest messages kept after this summary."


# -- layout ----------------------------------------------------------------------------------------


def _bullets(items: Sequence[str], empty: str, *, total: int | None = None) -> str:
    if not items:
        return f"- {empty}"
    lines = [f"- {item}" for item in items]
    if total is not None and total > len(items):
        lines.insert(0, f"- ({total - len(items)} earlier items not listed)")
    return "\n".join(lines)


def _structure(files: Sequence[str]) -> list[str]:
    by_folder: dict[str, list[str]] = {}
    for path in files:
        folder, slash, name = path.rstrip("/").rpartition("/")
        by_folder.setdefault(f"{folder}/" if slash else "./", []).append(name or path)
    return [f"{folder} {', '.join(names)}" for folder, names in sorted(by_folder.items())]


def build_reply(messages: Sequence[Message], tools: Sequence[ToolDef] = ()) -> str:
    """The offline reply for one compaction request: a coverage check and an 11-section state snapshot."""
    body = _conversation(messages)
    found = _extract(body)
    task = found.task or "No user request is among the compacted messages; follow the latest one kept."
    if len(task) > TASK_CHARS:
        task = task[: TASK_CHARS - 1] + "…"
    # Quoted, so a heading inside the user's text cannot pass for a section of the snapshot.
    task = "\n".join(f"> {line}".rstrip() for line in task.splitlines())
    explicit = _recent_unique(found.explicit_files)
    mentioned = [p for p in _recent_unique(found.mentioned_files, MAX_ITEMS * 2) if p not in explicit]
    files = explicit + mentioned[: MAX_ITEMS - len(explicit)]
    # A bare file name adds nothing when a longer path to the same name is listed.
    files = [p for p in files if "/" in p or not any(o.endswith(f"/{p}") for o in files)]
    commands = _recent_unique(found.commands, 8)
    facts = commands + _recent_unique(found.facts, MAX_ITEMS - len(commands))
    counts = found.counts
    critical = [
        f"Extracted offline from {len(body)} messages (user {counts['user']}, assistant {counts['assistant']}, "
        f"tool {counts['tool']}) without a model; quotes are verbatim but trimmed.",
    ]
    if tools:
        names = [tool.name for tool in tools]
        critical.append("Tools available: " + ", ".join(names[:20]) + (", …" if len(names) > 20 else ""))
    if found.earlier_summary:
        critical.append("An earlier summary was compacted too; its first lines:")
        critical.extend(f"  {line}" for line in found.earlier_summary)
    sections = (
        task,
        _bullets(_recent_unique(found.constraints), "none stated in the compacted messages"),
        _bullets(found.calls[-MAX_ITEMS:], "no tool calls in the compacted messages", total=len(found.calls)),
        _bullets(found.statements[-3:], "no assistant statements in the compacted messages"),
        found.resume,
        _bullets(
            _recent_unique(found.pending),
            "continue the active task from the resume point above",
        ),
        _bullets(facts, "no commands or findings recorded"),
        _bullets(files, "no files mentioned"),
        _bullets(_recent_unique(found.errors), "no errors seen in tool results"),
        "\n".join(f"- {line}" if not line.startswith("  ") else line for line in critical),
        _bullets(_structure(files), "no files mentioned"),
    )
    snapshot = "\n\n".join(
        f"### {number}. {title}\n{content}"
        for number, (title, content) in enumerate(zip(SNAPSHOT_SECTIONS, sections, strict=True), start=1)
    )
    coverage = "\n".join(
        (
            f"- Messages covered: {len(body)} (user {counts['user']}, assistant {counts['assistant']}, "
            f"tool {counts['tool']}).",
            "- Latest user request: " + ("restated in section 1." if found.task else "none in this range."),
            f"- Tool calls: {len(found.calls)}; commands: {len(found.commands)}; files: {len(files)}; "
            f"error lines: {len(found.errors)}.",
            "- Secret-looking values are replaced by [redacted].",
        )
    )
    return redact(
        f"<coverage_check>\n{coverage}\n</coverage_check>\n\n<state_snapshot>\n{snapshot}\n</state_snapshot>"
    )


class OfflineBackend:
    """Answers every request with an extractive snapshot of the request's own messages."""

    kind = "offline"
    label = LABEL

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolDef]) -> ModelReply:
        return ModelReply(content=build_reply(messages, tools))
