"""The offline backend: a deterministic, extractive state snapshot built from the request messages alone, within
a size budget, keeping the evidence first: every file path, the commands run, the errors seen, the identifiers.

Invariant: the same messages and budget always give the same reply — both blocks and all 11 sections, every
secret-looking string replaced by "[redacted]" — and nothing leaves the machine. The snapshot (what a memory
block carries) costs at most the budget in cl100k tokens, unless the 11 headings and a short task alone do not fit.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..markers import COVERAGE_TAG, SNAPSHOT_TAG
from ..messages import Message, ToolDef
from ..prompt import SNAPSHOT_SECTIONS, extract_summary
from ..quality.artifacts import Artifact, Category, Ledger
from ..quality.ledger import build_ledger, command_key, command_of
from ..quality.matching import PathDepths
from ..quality.recognisers import path_tokens
from ..tokens import TokenCounter, get_counter
from .base import ModelReply
from .extraction import MAX_ITEMS, Narrative, conversation_of, last_line, narrate
from .redaction import defused, redact

__all__ = [
    "DEFAULT_SHARE", "LABEL", "MAX_ITEMS", "MIN_BUDGET", "SNAPSHOT_SECTIONS", "OfflineBackend", "build_reply",
    "default_budget", "offline_summary",
]

LABEL = "offline (extractive)"
#: Characters kept of the user's request, and the share of the budget it may take (never below TASK_MIN_CHARS).
TASK_CHARS = 1200
TASK_MIN_CHARS = 300
TASK_SHARE = 0.08
#: With no budget given, the snapshot may cost this share of the compacted messages' tokens, and at least
#: MIN_BUDGET tokens (the 11 sections and the evidence of a short span need about that much).
DEFAULT_SHARE = 0.05
MIN_BUDGET = 1_000
#: The counter budgets are measured with.
BUDGET_COUNTER = "cl100k_base"
#: Commands shown with the last line of their output (the newest ones), and the characters of that line.
COMMAND_OUTCOMES = 8
OUTCOME_CHARS = 100
#: Tiers in the order the budget is spent: the user's rules, open items and the latest statement, then the
#: evidence the issue asks for (paths and identifiers, commands, errors), the narrative last.
TIER_FIRST, TIER_PATHS, TIER_COMMANDS, TIER_EVIDENCE, TIER_DETAIL, TIER_NARRATIVE = 1, 2, 3, 4, 5, 6
SHORT_COMMAND, LONG_COMMAND = 60, 200  # tokens
#: The share of the commands (the most wanted per token, none longer than LONG_COMMAND) listed right after
#: the paths, before errors and the rest of the evidence compete for the budget.
COMMAND_SHARE = 0.6
#: The priority of what is wanted before any evidence of its tier (whatever it costs).
URGENT = 1_000.0
#: The newest tool calls listed as detail, before the older ones compete with the narrative.
RECENT_CALLS = 4


def default_budget(span_tokens: int) -> int:
    """The snapshot budget when none is given: DEFAULT_SHARE of the span, and at least MIN_BUDGET tokens."""
    return max(int(span_tokens * DEFAULT_SHARE), MIN_BUDGET)


@dataclass(frozen=True, slots=True)
class _Line:
    """One candidate line of the snapshot: where it goes, how urgently it is wanted, and its text."""

    section: int  # 1-based section number
    group: str  # a label heading a run of lines inside the section ("" for none)
    order: tuple[object, ...]  # layout order inside its group
    text: str
    tier: int
    priority: float


def _priority(item: Artifact, span: int) -> float:
    """Recency and reuse: the latest mention's place in the span, and the mentions (up to eight)."""
    recency = (item.last_index + 1) / span if span else 1.0
    return 0.6 * recency + 0.4 * min(item.mentions, 8) / 8


def _root(paths: Sequence[str]) -> str:
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


def _evidence(ledger: Ledger, body: Sequence[Message], narrative: Narrative) -> tuple[list[_Line], str]:
    """Candidate lines for the ledger's paths, identifiers, commands and errors, and the paths' root folder."""
    span = len(body)
    lines: list[_Line] = []
    paths = ledger.of("paths")
    depths = PathDepths(p.key for p in paths)
    root = _root([p.key for p in paths])
    for item in paths:
        shown = item.key
        if root and shown.startswith(root + "/"):
            relative = shown[len(root) + 1 :]
            # Relative only when it still names the file alone and still reads as a path (".env.example" alone
            # does not).
            if len(relative.split("/")) >= depths.depth.get(item.key, 99) and path_tokens(relative) == [relative]:
                shown = relative
        if shown != root:
            lines.append(_Line(8, "", (shown,), f"- {defused(shown)}", TIER_PATHS, _priority(item, span)))
    for item in ledger.of("identifiers"):
        lines.append(_Line(7, "Identifiers:", (item.index,), f"- {defused(item.text)}", TIER_PATHS,
                           _priority(item, span)))
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
        lines.append(_Line(7, "Commands run (verbatim):", (item.last_index, item.key), shown, 0,
                           _priority(item, span)))
    for number, item in enumerate(ledger.of("errors")):
        lines.append(_Line(9, "", (number,), f"- {defused(item.text)}", TIER_EVIDENCE, _priority(item, span)))
    # The user's rules and the open items are few and wanted first (the newest MAX_ITEMS of each; the rest
    # compete as evidence).
    sections: tuple[tuple[Category, int], ...] = (("constraints", 2), ("todos", 6))
    for category, section in sections:
        items = ledger.of(category)
        recent = {id(item) for item in sorted(items, key=lambda item: item.last_index)[-MAX_ITEMS:]}
        for item in items:
            tier, wanted = (TIER_FIRST, URGENT) if id(item) in recent else (TIER_EVIDENCE, _priority(item, span))
            lines.append(_Line(section, "", (item.index,), f"- {defused(item.text)}", tier, wanted))
    for item in ledger.of("decisions"):
        lines.append(_Line(7, "Decisions:", (item.index,), f"- {defused(item.text)}", TIER_DETAIL,
                           _priority(item, span)))
    return lines, root


def _narrative(found: Narrative, tools: Sequence[ToolDef], ledger: Ledger) -> list[_Line]:
    lines: list[_Line] = []
    todos = {item.text for item in ledger.of("todos")}
    files = [item.key for item in ledger.of("paths")]
    for number, call in enumerate(found.calls):
        tier = TIER_DETAIL if number >= len(found.calls) - RECENT_CALLS else TIER_NARRATIVE
        lines.append(_Line(3, "", (number,), f"- {call}", tier, number / max(len(found.calls), 1)))
    for number, statement in enumerate(found.statements):
        last = number == len(found.statements) - 1
        lines.append(_Line(4, "", (number,), f"- {statement}", TIER_FIRST if last else TIER_NARRATIVE,
                           URGENT if last else 1.0 + number))
    for number, sentence in enumerate(found.pending):
        if sentence in todos:
            continue
        lines.append(_Line(6, "", (10**6 + number,), f"- {sentence}", TIER_DETAIL, number / 100))
    for number, fact in enumerate(found.facts):
        lines.append(_Line(7, "Findings:", (number,), f"- {fact}", TIER_NARRATIVE, number / 100))
    if tools:
        names = [tool.name for tool in tools]
        text = "- Tools available: " + ", ".join(names[:20]) + (", …" if len(names) > 20 else "")
        lines.append(_Line(10, "", (1,), text, TIER_DETAIL, 0.5))
    if found.earlier_summary:
        lines.append(_Line(10, "", (2,), "- An earlier summary was compacted too; its first lines:",
                           TIER_NARRATIVE, 0.9))
        for number, line in enumerate(found.earlier_summary):
            lines.append(_Line(10, "", (3, number), f"  {line}", TIER_NARRATIVE, 0.8 - number / 100))
    by_folder: dict[str, list[str]] = {}
    for path in files:
        folder, slash, name = path.rstrip("/").rpartition("/")
        by_folder.setdefault(f"{folder}/" if slash else "./", []).append(name or path)
    for folder, names in sorted(by_folder.items()):
        lines.append(_Line(11, "", (folder,), f"- {folder} {', '.join(names)}", TIER_NARRATIVE + 1, 0.0))
    return lines


_EMPTY = {
    2: "none stated in the compacted messages",
    3: "no tool calls in the compacted messages",
    4: "no assistant statements in the compacted messages",
    6: "continue the active task from the resume point above",
    7: "no commands or findings recorded",
    8: "no files mentioned",
    9: "no errors seen in tool results",
    11: "no files mentioned",
}


def _layout(
    fixed: dict[int, str], chosen: Sequence[_Line], left: dict[tuple[int, str], int], calls_hidden: int
) -> str:
    """The snapshot text: fixed text first, then the chosen lines by group, each group saying how many of its
    lines the budget left out; a section with nothing to say says so."""
    blocks = []
    for number, title in enumerate(SNAPSHOT_SECTIONS, start=1):
        lines = [line for line in chosen if line.section == number]
        groups = sorted({line.group for line in lines} | {g for (n, g), count in left.items() if n == number and count})
        rows: list[str] = [fixed[number]] if number in fixed else []
        if number == 3 and calls_hidden and lines:
            rows.append(f"- ({calls_hidden} earlier items not listed)")
        for group in groups:
            if group:
                rows.append(group)
            rows.extend(line.text for line in sorted((ln for ln in lines if ln.group == group), key=lambda ln: ln.order))
            if left.get((number, group)):
                rows.append(f"- ({left[(number, group)]} more not listed: over the size budget)")
        content = "\n".join(rows) if rows else f"- {_EMPTY.get(number, 'none')}"
        blocks.append(f"### {number}. {title}\n{content}")
    return "\n\n".join(blocks)


def build_reply(
    messages: Sequence[Message],
    tools: Sequence[ToolDef] = (),
    *,
    budget_tokens: int | None = None,
    carriers: Collection[int] = (),
) -> str:
    """The offline reply for one compaction request: a coverage check and an 11-section state snapshot whose
    text costs at most ``budget_tokens`` (default: ``default_budget`` of the compacted messages). ``carriers``
    are positions in ``messages`` of internal turns carrying an agent's earlier summary, read like its text
    (our own memory blocks are recognised anyway)."""
    counter = get_counter(BUDGET_COUNTER)
    body = conversation_of(messages)
    budget = budget_tokens if budget_tokens is not None else default_budget(counter.count(body))
    found = narrate(body)
    # conversation_of drops the system messages: carry the carriers' positions over to the body.
    positions = {at: n for n, at in enumerate(i for i, m in enumerate(messages) if m.role != "system")}
    ledger = build_ledger(body, carriers={positions[at] for at in carriers if at in positions})
    task = _task(counter, found.task, budget)
    counts = found.counts
    evidence, root = _evidence(ledger, body, found)
    candidates = [*evidence, *_narrative(found, tools, ledger)]
    critical = (
        f"- Extracted offline from {len(body)} messages (user {counts['user']}, assistant {counts['assistant']}, "
        f"tool {counts['tool']}) without a model; quotes are verbatim but trimmed."
    )
    if root:
        critical += f"\n- Paths in section 8 are relative to {defused(root)}/ unless they start with /."
    fixed = {1: task, 5: found.resume, 10: critical}
    chosen = _choose(counter, fixed, candidates, budget, found.calls_total - len(found.calls))
    snapshot = _snapshot(fixed, chosen, candidates, found.calls_total - len(found.calls))
    kept = {section: sum(1 for line in chosen if line.section == section) for section in (7, 8, 9)}
    coverage = "\n".join(
        (
            f"- Messages covered: {len(body)} (user {counts['user']}, assistant {counts['assistant']}, "
            f"tool {counts['tool']}).",
            "- Latest user request: " + ("restated in section 1." if found.task else "none in this range."),
            f"- Tool calls: {found.calls_total}; commands: {len(ledger.of('commands'))}; files: "
            f"{len(ledger.of('paths'))}; errors: {len(ledger.of('errors'))}; identifiers: "
            f"{len(ledger.of('identifiers'))} (distinct).",
            f"- Budget: {budget:,} tokens; listed {kept[8]} file lines, {kept[9]} error lines and {kept[7]} lines of "
            "commands, identifiers, decisions and findings.",
            "- Secret-looking values are replaced by [redacted].",
        )
    )
    return redact(f"<{COVERAGE_TAG}>\n{coverage}\n</{COVERAGE_TAG}>\n\n<{SNAPSHOT_TAG}>\n{snapshot}\n</{SNAPSHOT_TAG}>")


def _snapshot(fixed: dict[int, str], chosen: Sequence[_Line], candidates: Sequence[_Line], hidden: int) -> str:
    left: dict[tuple[int, str], int] = {}
    chosen_set = set(map(id, chosen))
    for line in candidates:
        if id(line) not in chosen_set and line.section != 10:
            key = (line.section, line.group)
            left[key] = left.get(key, 0) + 1
    return _layout(fixed, chosen, left, hidden)


def _task(counter: TokenCounter, request: str, budget: int) -> str:
    """The latest request, quoted: whole when it is short, else its head and its end (where a pasted log
    ends in its error) within TASK_SHARE of the budget and TASK_CHARS characters."""
    if not request:
        return "> No user request is among the compacted messages; follow the latest one kept."
    cap = max(int(budget * TASK_SHARE), 1)
    chars = min(TASK_CHARS, len(request))
    text = request
    while chars > TASK_MIN_CHARS and (len(text) > TASK_CHARS or counter.tok(text) > cap):
        head = int(chars * 0.6)
        text = request[:head].rstrip() + "\n…\n" + request[len(request) - (chars - head) :].lstrip()
        chars = int(chars * 0.8)
    # Quoted, so a heading inside the user's text cannot pass for a section of the snapshot.
    return "\n".join(f"> {line}".rstrip() for line in text.splitlines())


def _tiers(candidates: Sequence[_Line], costs: Sequence[int]) -> list[int]:
    """Each line's tier; a command's (tier 0) by its cost: the first COMMAND_SHARE of them by priority per
    token come right after the paths, the other short ones are evidence, longer ones detail, the longest last."""
    commands = sorted(
        (n for n, line in enumerate(candidates) if line.tier == 0 and costs[n] <= LONG_COMMAND),
        key=lambda n: (-candidates[n].priority / max(costs[n], 1), candidates[n].text),
    )
    first = set(commands[: math.ceil(COMMAND_SHARE * sum(1 for line in candidates if line.tier == 0))])
    tiers = []
    for n, (line, cost) in enumerate(zip(candidates, costs, strict=True)):
        if line.tier:
            tiers.append(line.tier)
        elif n in first:
            tiers.append(TIER_COMMANDS)
        else:
            tiers.append(TIER_EVIDENCE if cost <= SHORT_COMMAND else TIER_DETAIL if cost <= LONG_COMMAND else TIER_NARRATIVE)
    return tiers


def _rank(line: _Line, cost: int, tier: int) -> tuple[int, float, str]:
    """Tier first; inside the command and evidence tiers the most wanted per token first (more short items
    beat one long), elsewhere the most wanted first."""
    wanted = line.priority / max(cost, 1) if tier in (TIER_COMMANDS, TIER_EVIDENCE) else line.priority
    return (tier, -wanted, line.text)


def _choose(
    counter: TokenCounter, fixed: dict[int, str], candidates: Sequence[_Line], budget: int, hidden: int
) -> list[_Line]:
    """The lines that fit the budget, taken by tier then priority; checked on the real text and trimmed."""
    costs = counter.tok_many([line.text + "\n" for line in candidates])
    tiers = _tiers(candidates, costs)
    ranked = [
        (line, cost)
        for line, cost, _ in sorted(zip(candidates, costs, tiers, strict=True), key=lambda row: _rank(*row))
    ]
    labels = {line.group: counter.tok(line.group + "\n") for line in candidates if line.group}
    room = budget - counter.tok(_snapshot(fixed, [], candidates, hidden))
    chosen: list[_Line] = []
    groups: set[tuple[int, str]] = set()
    for line, cost in ranked:
        label = labels[line.group] if line.group and (line.section, line.group) not in groups else 0
        if cost + label <= room:
            chosen.append(line)
            groups.add((line.section, line.group))
            room -= cost + label
    # The estimate adds lines one by one; the text may merge differently: drop the last taken until it fits.
    while chosen and counter.tok(_snapshot(fixed, chosen, candidates, hidden)) > budget:
        chosen.pop()
    return chosen


def offline_summary(
    messages: Sequence[Message],
    tools: Sequence[ToolDef] = (),
    *,
    budget_tokens: int | None = None,
    carriers: Collection[int] = (),
) -> str:
    """The summary a compaction keeps from the offline reply (its state snapshot), for ``messages`` as the
    request holds them (system messages first, a final prompt message last: both skipped if present)."""
    return extract_summary(build_reply(messages, tools, budget_tokens=budget_tokens, carriers=carriers))


class OfflineBackend:
    """Answers every request with an extractive snapshot of the request's own messages."""

    kind = "offline"
    label = LABEL

    def __init__(self, budget_tokens: int | None = None) -> None:
        self.budget_tokens = budget_tokens

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolDef]) -> ModelReply:
        return ModelReply(content=build_reply(messages, tools, budget_tokens=self.budget_tokens))
