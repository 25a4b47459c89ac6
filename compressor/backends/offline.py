"""The offline backend: a deterministic, extractive state snapshot built from the request messages alone, within
a size budget, keeping the evidence first: every file path, the commands run, the errors seen, the identifiers.

Invariant: the same messages and budget always give the same reply — both blocks and all 11 sections, every
secret-looking string replaced by "[redacted]" — and nothing leaves the machine. The snapshot (what a memory
block carries) costs at most the budget in cl100k tokens, unless the 11 headings and a short task alone do not fit.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from ..evidence.ledger import build_ledger
from ..jsontext import encodable
from ..markers import COVERAGE_TAG, SNAPSHOT_TAG
from ..messages import Message, ToolDef
from ..prompt import SNAPSHOT_SECTIONS, extract_summary
from ..tokens import TokenCounter, get_counter
from .base import ModelReply
from .extraction import (
    MAX_ITEMS,
    TIER_COMMANDS,
    TIER_DETAIL,
    TIER_EVIDENCE,
    TIER_NARRATIVE,
    Line,
    conversation_of,
    evidence_lines,
    narrate,
    narrative_lines,
    path_lines,
)
from .redaction import defused, redact

__all__ = [
    "DEFAULT_SHARE",
    "LABEL",
    "MAX_ITEMS",
    "MIN_BUDGET",
    "SNAPSHOT_SECTIONS",
    "OfflineBackend",
    "build_reply",
    "default_budget",
    "offline_summary",
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
#: Tiers in the order the budget is spent (extraction.py): the user's rules, open items and the latest
#: statement, then the evidence (paths and identifiers, commands, errors), the narrative last.
SHORT_COMMAND, LONG_COMMAND = 60, 200  # tokens
#: The share of the commands (the most wanted per token, none longer than LONG_COMMAND) listed right after
#: the paths, before errors and the rest of the evidence compete for the budget.
COMMAND_SHARE = 0.6
#: The share of the budget one line per path may take when not everything fits; beyond it paths go by folder.
PATH_SHARE = 0.2


def default_budget(span_tokens: int) -> int:
    """The snapshot budget when none is given: DEFAULT_SHARE of the span, and at least MIN_BUDGET tokens."""
    return max(int(span_tokens * DEFAULT_SHARE), MIN_BUDGET)


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
    fixed: dict[int, str], chosen: Sequence[Line], left: dict[tuple[int, str], int], calls_hidden: int
) -> str:
    """The snapshot text: fixed text first, then the chosen lines by group, each group saying how many of its
    lines the budget left out; a section with nothing to say says so."""
    blocks = []
    for number, title in enumerate(SNAPSHOT_SECTIONS, start=1):
        lines = [line for line in chosen if line.section == number]
        groups = sorted(
            {line.group for line in lines} | {g for (n, g), count in left.items() if n == number and count}
        )
        rows: list[str] = [fixed[number]] if number in fixed else []
        if number == 3 and calls_hidden and lines:
            rows.append(f"- ({calls_hidden} earlier items not listed)")
        for group in groups:
            if group:
                rows.append(group)
            rows.extend(
                line.text
                for line in sorted((ln for ln in lines if ln.group == group), key=lambda ln: ln.order)
            )
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
    single, grouped, root = path_lines(ledger.of("paths"), len(body))
    rest = [*evidence_lines(ledger, body, found), *narrative_lines(found, tools, ledger)]
    candidates = [*single, *rest]
    # One line per path, unless everything does not fit and those lines alone would take over PATH_SHARE of it.
    path_cost = sum(counter.tok_many([line.text + "\n" for line in single]))
    if (
        path_cost > PATH_SHARE * budget
        and path_cost + sum(counter.tok_many([ln.text + "\n" for ln in rest])) > budget
    ):
        candidates = [*grouped, *rest]
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
    return redact(
        f"<{COVERAGE_TAG}>\n{coverage}\n</{COVERAGE_TAG}>\n\n<{SNAPSHOT_TAG}>\n{snapshot}\n</{SNAPSHOT_TAG}>"
    )


def _snapshot(fixed: dict[int, str], chosen: Sequence[Line], candidates: Sequence[Line], hidden: int) -> str:
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


def _tiers(candidates: Sequence[Line], costs: Sequence[int]) -> list[int]:
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
            tiers.append(
                TIER_EVIDENCE
                if cost <= SHORT_COMMAND
                else TIER_DETAIL
                if cost <= LONG_COMMAND
                else TIER_NARRATIVE
            )
    return tiers


def _rank(line: Line, cost: int, tier: int) -> tuple[int, float, str]:
    """Tier first; inside the command and evidence tiers the most wanted per token first (more short items
    beat one long), elsewhere the most wanted first."""
    wanted = line.priority / max(cost, 1) if tier in (TIER_COMMANDS, TIER_EVIDENCE) else line.priority
    return (tier, -wanted, line.text)


def _choose(
    counter: TokenCounter, fixed: dict[int, str], candidates: Sequence[Line], budget: int, hidden: int
) -> list[Line]:
    """The lines that fit the budget, taken by tier then priority; checked on the real text and trimmed."""
    costs = counter.tok_many([line.text + "\n" for line in candidates])
    tiers = _tiers(candidates, costs)
    ranked = [
        (line, cost)
        for line, cost, _ in sorted(zip(candidates, costs, tiers, strict=True), key=lambda row: _rank(*row))
    ]
    labels = {line.group: counter.tok(line.group + "\n") for line in candidates if line.group}
    room = budget - counter.tok(_snapshot(fixed, [], candidates, hidden))
    chosen: list[Line] = []
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
        # A quoted tool argument may decode to a lone surrogate: the summary must print, log and show on a page.
        return ModelReply(content=encodable(build_reply(messages, tools, budget_tokens=self.budget_tokens)))
