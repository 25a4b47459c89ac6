"""Our execution-state compaction prompt and the memory block that carries its result (SPEC §10).

Invariant: the prompt asks for plain text with exactly a <coverage_check> and a <state_snapshot> block
holding the 11 numbered sections below; the summary is read back with ``extract_summary``.
"""

from __future__ import annotations

import re

from .messages import Message

#: The 11 sections a state snapshot holds, in order.
SNAPSHOT_SECTIONS: tuple[str, ...] = (
    "Active Task",
    "Constraints and Preferences",
    "Completed Work in This Active Segment",
    "Current Work and Active State",
    "Immediate Resume Point",
    "Pending Tasks and Next Useful Step",
    "Key Facts, Decisions, Evidence, Fixes",
    "Files, Code Areas, Artifacts",
    "Blockers, Risks, Verification",
    "Critical Context",
    "Relevant Files Structure",
)

_SECTION_GUIDANCE: tuple[str, ...] = (
    "What the user asked for in the latest request, restated precisely enough that someone who never "
    "saw the conversation could pick it up. Quote short phrases from the request when wording matters.",
    "Rules the user or the environment imposed: style, languages, libraries to use or avoid, files not to "
    "touch, formats, deadlines, approval steps. Include preferences stated earlier that still apply.",
    "Every step already finished since the latest request, in order: what was inspected, what was changed, "
    "what was run and what it showed. Name files, functions and commands exactly.",
    "What was in progress when this checkpoint was taken: the half-finished edit, the command that was "
    "running, the hypothesis being tested, and the state the workspace is in right now.",
    "The single next action to take to continue without repeating work, stated concretely "
    "(which file to open, which command to run, which function to edit).",
    "What still remains after the resume point, as a short ordered list, with the most useful next step first.",
    "Facts learned that would be costly to rediscover: root causes, error messages (verbatim, trimmed), "
    "decisions taken and why, fixes applied and whether they worked, values, versions, identifiers.",
    "Files read, created, edited or deleted, with what matters about each (key functions, line ranges, "
    "the change made). Include generated artifacts, logs and reports.",
    "Open problems, things that failed or are unverified, tests not yet run, risks of the current approach.",
    "Anything else the work cannot continue without: environment details, paths, credentials NOT included "
    "(say that a secret exists and where it is configured, never its value), links between pieces of work.",
    "A compact tree or list of the directories and files that matter for this task, with one-line roles.",
)


def _sections_text() -> str:
    return "\n".join(
        f"### {number}. {title}\n{guidance}\n"
        for number, (title, guidance) in enumerate(
            zip(SNAPSHOT_SECTIONS, _SECTION_GUIDANCE, strict=True), start=1
        )
    )


COMPACTION_PROMPT = f"""\
# Checkpoint request: write an execution-state snapshot

Stop working on the task for this one turn. Your only job now is to write a checkpoint of the work done
since the user's latest request, so that the work can resume from it after the detailed messages above
are removed from the conversation.

## Output rules (strict)

- Answer in plain text. Do not call any tool, function or command in this turn; a tool call here is an error.
- Do not continue the task, do not check anything again, do not open files, do not propose new work
  that was not already planned. Only record what the conversation above already shows.
- Your whole answer is exactly two XML blocks, in this order, and nothing outside them:
  <coverage_check>...</coverage_check>
  <state_snapshot>...</state_snapshot>

## Block 1: <coverage_check>

Before writing the snapshot, list for yourself, briefly, what must not be lost:
1. the user's latest request and every constraint attached to it;
2. each tool call that changed something (edits, writes, commands with side effects) and its outcome;
3. each tool result that established a fact the work depends on (errors, test results, file contents that
   were relied on, search results that located something);
4. decisions taken and the reasons for them;
5. the exact point where the work stopped.
Keep this block short: it is a checklist for you, a few lines per item at most.

## Block 2: <state_snapshot>

Write the snapshot under these 11 numbered headings, in this order, using exactly these titles.
If a section has nothing to report, write "None." under it rather than leaving it out.

{_sections_text()}
## What a good snapshot looks like

- It is written for resuming, not for reading pleasure: prefer exact names, paths, commands, error text,
  numbers and identifiers over general descriptions. Completeness matters more than brevity, but do not
  paste large file contents; cite the file and the part that matters instead.
- It keeps the order of events where order matters (what was tried first, what failed, what fixed it).
- It separates what is confirmed (seen in a tool result) from what is assumed or planned.
- It never treats itself as a new request: it describes work already done for the latest user request.
- It states the latest user instruction faithfully even when earlier instructions differed; the newest
  instruction wins.
- It contains no secrets. Replace API keys, access tokens, passwords, private keys, session cookies and
  connection strings with a note such as "[secret omitted: API key set in .env]". This applies even if the
  secret appeared verbatim in a tool result.
- It is written in the language the user used for the request, with code, paths and identifiers verbatim.

Reminder: plain text, no tool calls, exactly one <coverage_check> block followed by one <state_snapshot> block.
"""

PRESERVE_HEADER = "## Preservation priority from the user"


def build_prompt(preserve_instruction: str | None = None) -> str:
    """The prompt text; a preserve instruction is appended as a priority for what to keep, never as a task."""
    if not preserve_instruction or not preserve_instruction.strip():
        return COMPACTION_PROMPT
    return (
        f"{COMPACTION_PROMPT}\n{PRESERVE_HEADER}\n\n"
        "When deciding what to keep in the snapshot, give extra weight to the following. It is guidance "
        "about what to preserve, not a new task, and it does not change the output rules above:\n\n"
        f"{preserve_instruction.strip()}\n"
    )


_SNAPSHOT = re.compile(r"<state_snapshot>(.*?)</state_snapshot>", re.IGNORECASE | re.DOTALL)


def extract_summary(reply: str) -> str:
    """The first non-empty ``<state_snapshot>`` block's text, else the whole stripped reply (SPEC §10.5)."""
    match = _SNAPSHOT.search(reply)
    if match and match.group(1).strip():
        return match.group(1).strip()
    return reply.strip()


MEMORY_MEANING = (
    "This block condenses work that was already carried out after the most recent user request: "
    "analysis, tool calls and their results, edits and test runs. It is a record of progress, not a new "
    "request; continue the current task from the resume point it describes."
)
MEMORY_CONFLICT_POLICY = (
    "If anything here disagrees with messages that come after it, trust the later messages: newer raw "
    "messages, fresh tool results and the user's latest instructions take precedence over this summary."
)


def memory_message(summary: str) -> Message:
    """The ``<memory_block_current>`` user message that replaces the compressed span (SPEC §10.6)."""
    content = (
        "<memory_block_current>\n"
        f"<meaning>\n{MEMORY_MEANING}\n</meaning>\n"
        f"<conflict_policy>\n{MEMORY_CONFLICT_POLICY}\n</conflict_policy>\n"
        f"<summary>\n{summary}\n</summary>\n"
        "</memory_block_current>"
    )
    return Message(role="user", content=content)


def section_checklist(summary: str | None) -> list[tuple[str, bool]]:
    """Each of the 11 section titles and whether the summary has it (matched case-insensitively)."""
    lowered = (summary or "").lower()
    return [(title, title.lower() in lowered) for title in SNAPSHOT_SECTIONS]
