"""Skills recovered after a compaction: SKILL.md files the agent loaded, found in the messages (SPEC §12).

Invariant: only completed rounds of the original context that share no message with what the compaction keeps
are read, newest first, at most ``MAX_SKILLS`` of them; the result is oldest first and a pure function of its inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from .messages import Message
from .tool_results import argument_path, calls_named, last_result_text, message_signature, parse_tool_result

#: The tool openJiuwen's agents load a skill with, and the read tool whose SKILL.md reads count as loading one.
SKILL_TOOL = "skill_tool"
SKILL_READ_TOOL = "read_file"
MAX_SKILLS = 3
SKILL_FILE = "SKILL.md"


def is_skill_path(path: str) -> bool:
    """A path naming a SKILL.md file (any letter case, either slash)."""
    return bool(path) and path.replace("\\", "/").lower().endswith("skill.md")


def might_load_a_skill(message: Message) -> bool:
    """A cheap test: does this assistant message make a call that could load a skill?"""
    for call in message.tool_calls or ():
        if call.name == SKILL_TOOL:
            return True
        if call.name == SKILL_READ_TOOL and "kill.md" in call.arguments.lower():
            return True
    return False


def round_skill(messages: Sequence[Message]) -> str | None:
    """What one round recovers: its first skill_tool load of a SKILL.md, else its first read of one, else None."""
    for call in calls_named(messages, SKILL_TOOL):
        arguments = call.parsed_arguments()
        if str(arguments.get("relative_file_path") or SKILL_FILE) not in ("", SKILL_FILE):
            continue
        result = _as_dict(parse_tool_result(last_result_text(messages, call.id)))
        content = result.get("skill_content")
        directory = result.get("skill_directory")
        name = arguments.get("skill_name") or PurePosixPath(str(directory or "")).name
        if isinstance(content, str) and content.strip():
            return f"Skill: {name}\nPath: {directory}/{SKILL_FILE}\n\n{content.strip()}"
    for call in calls_named(messages, SKILL_READ_TOOL):
        path = argument_path(call.parsed_arguments(), call.arguments)
        if not is_skill_path(path):
            continue
        text = last_result_text(messages, call.id)
        parsed = parse_tool_result(text) if text else None
        # A JSON object gives its "content"; any other JSON value, the raw text; text that is not JSON, nothing.
        found = parsed.get("content") if isinstance(parsed, dict) else (text if parsed is not None else None)
        if isinstance(found, str) and found.strip():
            return f"Skill: {PurePosixPath(path).parent.name}\nPath: {path}\n\n{found.strip()}"
    return None


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def select_skills(
    original: Sequence[Message], rounds: Sequence[tuple[int, int]], kept: Sequence[Message]
) -> tuple[str, ...]:
    """The skill snapshots to recover, oldest first.

    ``rounds`` are the completed rounds of ``original`` (half-open ranges, oldest first); ``kept`` is what the
    compaction keeps (prefix, memory block, tail). A round sharing a message with ``kept`` is skipped, and so is a
    round equal to one already taken, messages being compared as ``role | sanitised text | call ids``.
    """
    candidates = [
        (start, end) for start, end in rounds if any(might_load_a_skill(m) for m in original[start:end])
    ]
    if not candidates:
        return ()
    keep: set[str] | None = None
    taken: set[tuple[str, ...]] = set()
    selected: list[str] = []
    for start, end in reversed(candidates):
        messages = original[start:end]
        snapshot = round_skill(messages)
        if snapshot is None:
            continue
        signatures = tuple(message_signature(m) for m in messages)
        if signatures in taken:
            continue
        if keep is None:
            keep = {message_signature(m) for m in kept}
        if any(signature in keep for signature in signatures):
            continue
        selected.append(snapshot)
        taken.add(signatures)
        if len(selected) >= MAX_SKILLS:
            break
    selected.reverse()
    return tuple(selected)
