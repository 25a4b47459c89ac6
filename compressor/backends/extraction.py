"""What the offline backend extracts from the messages a compaction replaces, as candidate lines of its snapshot:
the narrative (the task, tool calls with their outcome, the latest statements, findings, pending items, an earlier
summary, where to resume) and the evidence of the artifact ledger (paths, commands, errors, identifiers, rules).

Invariant: pure and deterministic; every candidate says its section, tier and priority (recency and reuse), and
offline.py alone decides which fit the budget. Narrative lists are capped, each narrative line in length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..evidence.artifacts import Artifact, Category, Ledger
from ..evidence.ledger import command_key, command_of
from ..evidence.matching import PathDepths
from ..evidence.recognisers import flat, path_tokens
from ..messages import Message, ToolCall, ToolDef
from .redaction import defused

#: Tool calls listed at most in the completed-work section, and characters kept per narrative line.
MAX_ITEMS = 12
LINE_CHARS = 200
#: Commands shown with the last line of their output (the newest ones), and the characters of that line.
COMMAND_OUTCOMES = 8
OUTCOME_CHARS = 100
#: Tiers in the order the budget is spent: the user's rules, open items and the latest statement, then the
#: evidence the issue asks for (paths and identifiers, commands, errors), the narrative last.
TIER_FIRST, TIER_PATHS, TIER_COMMANDS, TIER_EVIDENCE, TIER_DETAIL, TIER_NARRATIVE = 1, 2, 3, 4, 5, 6
#: The priority of what is wanted before any evidence of its tier (whatever it costs).
URGENT = 1_000.0
#: Files named on one folder line at most.
GROUP_NAMES = 8
#: The newest tool calls listed as detail, before the older ones compete with the narrative.
RECENT_CALLS = 4

# -- small text helpers ----------------------------------------------------------------------------


def _line(text: str, limit: int = LINE_CHARS) -> str:
    return flat(text, limit)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


_SHELL_PROMPT = re.compile(r"^\S*[$#>]$")


def last_line(text: str) -> str:
    """The last meaningful line of a command's output (a bare shell prompt is not one)."""
    lines = (line.strip() for line in reversed(text.splitlines()))
    return next((line for line in lines if line and not _SHELL_PROMPT.match(line)), "")


def _argument_text(call: ToolCall) -> str:
    arguments = call.parsed_arguments()
    if not arguments:
        return _line(defused(call.arguments), 80)
    pairs = [f"{key}={_line(defused(str(value)), 60)}" for key, value in list(arguments.items())[:3]]
    more = ", …" if len(arguments) > 3 else ""
    return ", ".join(pairs) + more


# -- extraction ------------------------------------------------------------------------------------

_PENDING = re.compile(r"^\s*(?:[-*]\s*\[ \]|todo\b|next\b|then\b|remaining\b|still need|need to)", re.I)
_FACT = re.compile(
    r"\b(fix(?:ed)?|root cause|because|decided|found|turns out|caused by|works|passe[sd]|confirmed)\b", re.I
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_MEMORY_SUMMARY = re.compile(r"<summary>\s*(.*?)\s*</summary>", re.S | re.I)


@dataclass
class Narrative:
    """The story of the compacted messages, before it is laid out as sections.

    Lists are already capped, oldest first; ``calls_total`` counts every tool call.
    """

    counts: dict[str, int] = field(default_factory=lambda: {"user": 0, "assistant": 0, "tool": 0})
    task: str = ""
    calls: list[str] = field(default_factory=list)
    calls_total: int = 0
    statements: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    earlier_summary: list[str] = field(default_factory=list)
    results: dict[str, str] = field(default_factory=dict)  # call id → its (defused) result text
    resume: str = ""


class _Recent:
    """The ``cap`` distinct items mentioned last, collected while walking the messages newest first."""

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

    def newest(self) -> list[str]:
        """The items collected, ordered by their last mention."""
        return list(self._newest_first)[::-1]


def conversation_of(messages: Sequence[Message]) -> list[Message]:
    """The messages to summarise: no system messages, and not the final prompt message."""
    body = [m for m in messages if m.role != "system"]
    if body and body[-1].role == "user":
        body = body[:-1]
    return body


def _sentences(text: str) -> list[str]:
    return [_line(s) for s in _SENTENCE_SPLIT.split(text) if s.strip()]


def narrate(messages: list[Message]) -> Narrative:
    """Two walks: the tool results oldest first (the outcomes of calls), then the rest newest first, reading a
    message only while a capped list can still take its items."""
    found = Narrative()
    results = found.results
    latest_user = -1
    for index, message in enumerate(messages):
        if message.role in found.counts:
            found.counts[message.role] += 1
        if message.is_real_user:
            latest_user = index
        elif message.role == "tool" and message.tool_call_id:
            results[message.tool_call_id] = defused(message.text)

    pending, facts = _Recent(MAX_ITEMS), _Recent(MAX_ITEMS)
    calls: list[str] = []  # newest first
    statements: list[str] = []  # newest first
    summary_seen = False
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.is_real_user:
            if index == latest_user:
                text = defused(message.text)
                found.task = text.strip()
                pending.add(s for s in _sentences(text) if _PENDING.search(s))
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
            if len(statements) < 3 or not facts.full or (index > latest_user and not pending.full):
                text = defused(message.text)
                if text.strip():
                    if len(statements) < 3:
                        statements.append(_line(text, 300))
                    sentences = _sentences(text)
                    facts.add(s for s in sentences if _FACT.search(s))
                    if index > latest_user:
                        pending.add(s for s in sentences if _PENDING.search(s))
            tool_calls = message.tool_calls or ()
            found.calls_total += len(tool_calls)
            listed: list[str] = []
            for call in tool_calls:
                if len(calls) + len(listed) >= MAX_ITEMS:
                    break
                result = results.get(call.id)
                outcome = _line(_first_line(result), 100) if result is not None else "no result yet"
                listed.append(f"{call.name}({defused(_argument_text(call))}) → {outcome}")
            calls.extend(reversed(listed))
    found.pending = pending.newest()
    found.facts = facts.newest()
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


# -- candidate lines of the snapshot -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Line:
    """One candidate line of the snapshot: where it goes, how urgently it is wanted, and its text."""

    section: int  # 1-based section number
    group: str  # a label heading a run of lines inside the section ("" for none)
    order: tuple[object, ...]  # layout order inside its group
    text: str
    tier: int
    priority: float


def priority(item: Artifact, span: int) -> float:
    """Recency and reuse: the latest mention's place in the span, and the mentions (up to eight)."""
    recency = (item.last_index + 1) / span if span else 1.0
    return 0.6 * recency + 0.4 * min(item.mentions, 8) / 8


def common_root(paths: Sequence[str]) -> str:
    """The deepest folder (two parts or more) holding at least 60 % of the absolute paths, or ''."""
    absolute = [p for p in paths if p.startswith("/")]
    best = ""
    for depth in range(2, 12):
        heads: dict[str, int] = {}
        for path in absolute:
            parts = path.strip("/").split("/")
            if len(parts) > depth:
                head = "/" + "/".join(parts[:depth])
                heads[head] = heads.get(head, 0) + 1
        top = max(heads.items(), key=lambda kv: (kv[1], kv[0]), default=("", 0))
        if top[1] < 0.6 * len(absolute) or top[1] < 3:
            break
        best = top[0]
    return best


def path_lines(paths: Sequence[Artifact], span: int) -> tuple[list[Line], list[Line], str]:
    """The paths two ways, and their common root: one line per path (relative to the root where that still names
    it), and by folder, naming each file by its shortest tail no other path of the ledger shares (``base.py``, or
    ``samplers/base.py`` when two folders hold one)."""
    depths = PathDepths(p.key for p in paths)
    root = common_root([p.key for p in paths])
    shown: dict[str, str] = {}
    for item in paths:
        text = item.key
        if root and text.startswith(root + "/"):
            relative = text[len(root) + 1 :]
            # Relative only when it still names the file alone and still reads as a path (".env.example" alone
            # does not).
            if len(relative.split("/")) >= depths.depth.get(item.key, 99) and path_tokens(relative) == [
                relative
            ]:
                text = relative
        if text != root:
            shown[item.key] = text
    single = [
        Line(8, "", (shown[item.key],), f"- {defused(shown[item.key])}", TIER_PATHS, priority(item, span))
        for item in paths
        if item.key in shown
    ]
    folders: dict[str, list[Artifact]] = {}
    for item in paths:
        if item.key in shown:
            folder, slash, _ = shown[item.key].rstrip("/").rpartition("/")
            folders.setdefault(folder if slash else "", []).append(item)
    grouped: list[Line] = []
    for folder, items in sorted(folders.items()):
        named: list[tuple[str, Artifact]] = []
        for item in items:
            parts = item.key.rstrip("/").split("/")
            tail = "/".join(parts[-depths.depth.get(item.key, len(parts)) :])
            if folder and path_tokens(tail) == [tail]:  # a tail that still reads as a path names the file
                named.append((tail, item))
            else:
                text = shown[item.key]
                grouped.append(Line(8, "", (text,), f"- {defused(text)}", TIER_PATHS, priority(item, span)))
        if len(named) == 1:
            text = shown[named[0][1].key]
            grouped.append(
                Line(8, "", (text,), f"- {defused(text)}", TIER_PATHS, priority(named[0][1], span))
            )
        elif named:
            # Chunks of GROUP_NAMES, the most wanted first, so that a tight budget still takes the newest files.
            named.sort(key=lambda pair: (-priority(pair[1], span), pair[0]))
            for start in range(0, len(named), GROUP_NAMES):
                chunk = named[start : start + GROUP_NAMES]
                names = ", ".join(sorted(tail for tail, _ in chunk))
                wanted = priority(chunk[0][1], span)
                grouped.append(
                    Line(
                        8, "", (folder, start), f"- {defused(folder)}/: {defused(names)}", TIER_PATHS, wanted
                    )
                )
    return single, grouped, root


def evidence_lines(ledger: Ledger, body: Sequence[Message], narrative: Narrative) -> list[Line]:
    """Candidate lines for the ledger's identifiers, commands, errors, rules, open items and decisions."""
    span = len(body)
    lines: list[Line] = []
    for item in ledger.of("identifiers"):
        lines.append(
            Line(
                7, "Identifiers:", (item.index,), f"- {defused(item.text)}", TIER_PATHS, priority(item, span)
            )
        )
    outcomes: dict[str, str] = {}
    for message in body:
        for call in message.tool_calls or ():
            command = command_of(call)
            result = narrative.results.get(call.id)
            if command and result is not None:
                outcomes[command_key(command)] = last_line(result)
    commands = ledger.of("commands")
    newest = {item.key for item in sorted(commands, key=lambda c: c.last_index)[-COMMAND_OUTCOMES:]}
    for item in commands:
        text = defused(item.text)
        outcome = outcomes.get(item.key, "")
        tail = f" → {defused(outcome[:OUTCOME_CHARS])}" if item.key in newest and outcome else ""
        if "\n" in text:
            shown = f"- ran{tail}:\n```\n{text}\n```"
        else:
            shown = f"- {text}{tail}" if "`" in text else f"- `{text}`{tail}"
        lines.append(
            Line(7, "Commands run (verbatim):", (item.last_index, item.key), shown, 0, priority(item, span))
        )
    for number, item in enumerate(ledger.of("errors")):
        lines.append(Line(9, "", (number,), f"- {defused(item.text)}", TIER_EVIDENCE, priority(item, span)))
    # The user's rules and the open items are few and wanted first (the newest MAX_ITEMS of each; the rest
    # compete as evidence).
    sections: tuple[tuple[Category, int], ...] = (("constraints", 2), ("todos", 6))
    for category, section in sections:
        items = ledger.of(category)
        recent = {id(item) for item in sorted(items, key=lambda item: item.last_index)[-MAX_ITEMS:]}
        for item in items:
            tier, wanted = (
                (TIER_FIRST, URGENT) if id(item) in recent else (TIER_EVIDENCE, priority(item, span))
            )
            lines.append(Line(section, "", (item.index,), f"- {defused(item.text)}", tier, wanted))
    for item in ledger.of("decisions"):
        lines.append(
            Line(7, "Decisions:", (item.index,), f"- {defused(item.text)}", TIER_DETAIL, priority(item, span))
        )
    return lines


def narrative_lines(found: Narrative, tools: Sequence[ToolDef], ledger: Ledger) -> list[Line]:
    lines: list[Line] = []
    todos = {item.text for item in ledger.of("todos")}
    files = [item.key for item in ledger.of("paths")]
    for number, call in enumerate(found.calls):
        tier = TIER_DETAIL if number >= len(found.calls) - RECENT_CALLS else TIER_NARRATIVE
        lines.append(Line(3, "", (number,), f"- {call}", tier, number / max(len(found.calls), 1)))
    for number, statement in enumerate(found.statements):
        last = number == len(found.statements) - 1
        lines.append(
            Line(
                4,
                "",
                (number,),
                f"- {statement}",
                TIER_FIRST if last else TIER_NARRATIVE,
                URGENT if last else 1.0 + number,
            )
        )
    for number, sentence in enumerate(found.pending):
        if sentence in todos:
            continue
        lines.append(Line(6, "", (10**6 + number,), f"- {sentence}", TIER_DETAIL, number / 100))
    for number, fact in enumerate(found.facts):
        lines.append(Line(7, "Findings:", (number,), f"- {fact}", TIER_NARRATIVE, number / 100))
    if tools:
        names = [tool.name for tool in tools]
        text = "- Tools available: " + ", ".join(names[:20]) + (", …" if len(names) > 20 else "")
        lines.append(Line(10, "", (1,), text, TIER_DETAIL, 0.5))
    if found.earlier_summary:
        lines.append(
            Line(
                10, "", (2,), "- An earlier summary was compacted too; its first lines:", TIER_NARRATIVE, 0.9
            )
        )
        for number, line in enumerate(found.earlier_summary):
            lines.append(Line(10, "", (3, number), f"  {line}", TIER_NARRATIVE, 0.8 - number / 100))
    by_folder: dict[str, list[str]] = {}
    for path in files:
        folder, slash, name = path.rstrip("/").rpartition("/")
        by_folder.setdefault(f"{folder}/" if slash else "./", []).append(name or path)
    for folder, names in sorted(by_folder.items()):
        lines.append(Line(11, "", (folder,), f"- {folder} {', '.join(names)}", TIER_NARRATIVE + 1, 0.0))
    return lines
