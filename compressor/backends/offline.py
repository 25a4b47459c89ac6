"""The offline backend: a deterministic, extractive state snapshot built from the request messages alone.

Invariant: the same messages always give the same reply — both blocks and all 11 sections, every section
capped, every secret-looking string replaced by "[redacted]" — and nothing leaves the machine.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..markers import COVERAGE_TAG, SNAPSHOT_TAG
from ..messages import Message, ToolDef
from ..prompt import SNAPSHOT_SECTIONS
from .base import ModelReply
from .extraction import MAX_ITEMS, conversation_of, extract
from .redaction import redact

__all__ = ["LABEL", "MAX_ITEMS", "SNAPSHOT_SECTIONS", "OfflineBackend", "build_reply"]

LABEL = "offline (extractive)"
#: Characters kept of the user's request.
TASK_CHARS = 1200

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
    body = conversation_of(messages)
    found = extract(body)
    task = found.task or "No user request is among the compacted messages; follow the latest one kept."
    if len(task) > TASK_CHARS:
        task = task[: TASK_CHARS - 1] + "…"
    # Quoted, so a heading inside the user's text cannot pass for a section of the snapshot.
    task = "\n".join(f"> {line}".rstrip() for line in task.splitlines())
    explicit = found.explicit_files
    mentioned = [p for p in found.mentioned_files if p not in explicit]
    room = max(MAX_ITEMS - len(explicit), 0)
    files = explicit + mentioned[len(mentioned) - room :] if room else list(explicit)  # the newest mentions
    # A bare file name adds nothing when a longer path to the same name is listed.
    files = [p for p in files if "/" in p or not any(o.endswith(f"/{p}") for o in files)]
    facts = found.commands + found.facts
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
        _bullets(found.constraints, "none stated in the compacted messages"),
        _bullets(found.calls, "no tool calls in the compacted messages", total=found.calls_total),
        _bullets(found.statements, "no assistant statements in the compacted messages"),
        found.resume,
        _bullets(
            found.pending,
            "continue the active task from the resume point above",
        ),
        _bullets(facts, "no commands or findings recorded"),
        _bullets(files, "no files mentioned"),
        _bullets(found.errors, "no errors seen in tool results"),
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
            f"- Tool calls: {found.calls_total}; commands: {found.commands_total}; files: {len(files)}; "
            f"error lines: {found.errors_total}.",
            "- Secret-looking values are replaced by [redacted].",
        )
    )
    return redact(
        f"<{COVERAGE_TAG}>\n{coverage}\n</{COVERAGE_TAG}>\n\n<{SNAPSHOT_TAG}>\n{snapshot}\n</{SNAPSHOT_TAG}>"
    )


class OfflineBackend:
    """Answers every request with an extractive snapshot of the request's own messages."""

    kind = "offline"
    label = LABEL

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolDef]) -> ModelReply:
        return ModelReply(content=build_reply(messages, tools))
