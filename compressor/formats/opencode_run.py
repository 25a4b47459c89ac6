"""OpenCode's headless output (``opencode run --format json "…" > run.jsonl``): one event a line, ``{type, timestamp,
sessionID, part}``, where ``part`` is the message part OpenCode just stored (``step-start``, ``text``, ``reasoning``,
``tool`` with its final ``state``, ``step-finish`` with ``tokens``), naming its ``messageID``.

Invariant: the parts of each assistant message (by ``messageID``, in the order first printed) are read by the storage
reader (``opencode.SessionReader``), so a run reads as the same session stored in ``opencode.db`` would, minus the
prompt: OpenCode does not print it, so an empty request stands for it (with a reading). One conversation per
``sessionID``.

Schema: sst/opencode ``packages/opencode/src/cli/cmd/run.ts`` (the ``--format json`` events ``step_start``,
``text``, ``reasoning``, ``tool_use`` — printed once the tool completed or failed —, ``step_finish``, ``error``), parts
as in ``session/message-v2.ts``. ``error`` events (a failed model call: OpenCode leaves its message out of later
prompts) are skipped, counted in a reading.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compressor.formats.opencode import SessionReader, StoredMessage
from compressor.formats.problems import Loc, expect_dict
from compressor.formats.runs import RunBuilder
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation, Reading

SOURCE_FORMAT = "opencode-run"
#: The event types ``opencode run --format json`` prints with a part.
PART_EVENTS = ("step_start", "text", "reasoning", "tool_use", "step_finish")
#: What stands for the prompt, which the output does not print.
PROMPT_METADATA = {"stands_for": "the prompt opencode run was given (not in its output)"}


def is_event(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") in PART_EVENTS
        and isinstance(value.get("part"), dict)
        and isinstance(value.get("sessionID"), str)
    )


class _Session:
    """The assistant messages of one session, their parts in the order printed."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.messages: dict[str, StoredMessage] = {}
        self.errors = 0

    def part(self, event: dict[str, Any], loc: Loc) -> None:
        part = expect_dict(event.get("part"), loc.key("part"), "a message part")
        message_id = str(part.get("messageID") or f"line-{loc.line}")
        message = self.messages.get(message_id)
        if message is None:
            created = event.get("timestamp")
            info = {"id": message_id, "role": "assistant", "time": {"created": created}}
            message = self.messages[message_id] = StoredMessage(info=info, parts=[], loc=loc)
        message.parts.append((loc.key("part"), part))

    def conversation(self, name: str) -> Conversation:
        run = RunBuilder(name=name, source_format=SOURCE_FORMAT, metadata={"agent": "opencode"})
        run.metadata["session_id"] = self.session_id
        run.add({"role": "user", "content": "", "metadata": dict(PROMPT_METADATA)}, Loc())
        run.extra_readings.append(Reading(code="prompts_not_recorded", count=1))
        for _ in range(self.errors):
            run.skip("error events")
        return SessionReader(run).read(self.messages.values())


def from_lines(located: Iterable[tuple[Loc, Any]], *, name: str) -> list[Conversation]:
    sessions: dict[str, _Session] = {}
    for loc, value in located:
        event = expect_dict(value, loc, "an opencode run event")
        session_id = event.get("sessionID")
        if not isinstance(session_id, str):
            continue
        session = sessions.setdefault(session_id, _Session(session_id))
        if event.get("type") in PART_EVENTS:
            session.part(event, loc)
        elif event.get("type") == "error":
            session.errors += 1
    many = len(sessions) > 1
    return [
        session.conversation(f"{name}:{session.session_id}" if many else name)
        for session in sessions.values()
        if session.messages
    ]


def _looks_like(shape: Shape) -> bool:
    return shape.container == "lines" and any(map(is_event, shape.objects[:50]))


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=_looks_like,
    read=lambda shape: from_lines(shape.located(), name=shape.stem),
)
