"""Harbor's trace export (``harbor traces export``; the ``*.traces.json`` its tests keep): rows of one agent episode
each, ``{conversations: [{role, content}], agent, model, model_provider, date, task, episode, run_id, trial_name,
result}``, as a JSON array or as JSONL (the dataset's ``to_json``). One conversation a trial.

Invariant: the rows of a trial are read in episode order as the windows of its calls: a row that extends the window
before adds only its new messages; a row that opens a window rebuilt from a summary is a recorded compaction.

Schema: Harbor ``src/harbor/utils/traces_utils.py`` (the module's row schema; ``extract_conversations_from_trajectory``
and ``_extract_single_episode_conversation``, read at harbor 0.1.31 and 0.26.0): each row is the ATIF trajectory up
to one agent step; ``system`` and ``user`` steps become ``user`` messages, an agent step one ``assistant`` message
(reasoning as ``<think>…</think>``, tool calls as ``<tool_call>`` JSON in the text) followed, unless it is the
row's last, by its observation results joined in one ``user`` message; tool definitions are written into the first
message (``<tools>…</tools>``) unless the export was told not to, then they are the row's ``tool_definitions``.
Rows of a subagent or another ``trace_source`` are trials of their own.

Roles. The first message is the task prompt, a real request; a user message right after an assistant message is
that step's observation: a ``tool`` result of a call ``harbor-<n>`` the assistant message gets (reading
``tool_calls_from_text``; the action stays in the text, the call's arguments are empty, so nothing is counted
twice); any other user message is the harness's: internal. When a row does not extend the window before, the window
was rebuilt (Terminus 2's ``_summarize``): its first message after what the two windows share carries the summary
(a recorded compaction, no token counts: the export keeps no usage). ``model`` (with ``model_provider``) → metadata.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from compressor.formats.building import build_tools
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, short, type_name
from compressor.formats.runs import RunBuilder
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation, Reading

SOURCE_FORMAT = "harbor-traces"
ROLES = ("system", "user", "assistant")
EPISODE = re.compile(r"^episode-(\d+)$")
#: Row fields kept in the metadata (the model goes under ``model``).
ROW_FIELDS = ("agent", "task", "trial_name", "run_id", "result", "model_provider", "trace_source")
#: The fields that name a trial: rows alike in them are one trial's episodes.
TRIAL_KEYS = ("run_id", "trial_name", "task", "agent", "trace_source")
TOOLS_OPENING = "<tools>\n"

Window = list[tuple[Loc, dict[str, Any]]]


def _is_row(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("conversations"), list)
        and isinstance(value.get("episode"), str)
        and EPISODE.match(value["episode"]) is not None
        and "trial_name" in value
    )


def looks_like(shape: Shape) -> bool:
    return shape.container != "object" and bool(shape.objects) and _is_row(shape.objects[0])


def _window(row: dict[str, Any], loc: Loc) -> Window:
    where = loc.key("conversations")
    out: Window = []
    for index, item in enumerate(expect_list(row["conversations"], where, "conversations")):
        at = where.key(index)
        message = expect_dict(item, at, "a message")
        if message.get("role") not in ROLES:
            raise FormatProblem(
                at.key("role"),
                f"unknown role {short(message.get('role'))} (expected user, assistant or system)",
            )
        if not isinstance(message.get("content"), str):
            raise FormatProblem(
                at.key("content"), f"must be a string, got {type_name(message.get('content'))}"
            )
        out.append((at, message))
    return out


def _shared(window: Window, before: Window) -> int:
    """How many leading messages two windows share."""
    count = 0
    for (_, mine), (_, theirs) in zip(window, before, strict=False):
        if (mine["role"], mine["content"]) != (theirs["role"], theirs["content"]):
            break
        count += 1
    return count


#: How a message came into the trial: new in its episode, the summary a rebuilt window opens on, or the rest of what
#: that window was rebuilt with before the call's reply (Terminus 2's questions and the handoff).
Kind = Literal["new", "summary", "copied"]


class _Trial:
    """One trial's messages, gathered window by window, then added with the roles their neighbours give them."""

    def __init__(self, run: RunBuilder) -> None:
        self.run = run
        self.window: Window = []
        self.entries: list[tuple[Loc, dict[str, Any], Kind]] = []
        self.calls = 0

    def episode(self, window: Window) -> None:
        shared = _shared(window, self.window)
        if shared == len(window):
            self.run.skip("episodes repeating a window before")
            return
        rebuilt = shared < len(self.window)
        if rebuilt and window[shared][1]["role"] == "assistant":
            raise FormatProblem(
                window[shared][0], "a window that neither extends the one before nor opens on a summary"
            )
        last = len(window) - 1
        for at in range(shared, len(window)):
            kind: Kind = "new"
            if rebuilt and at < last:
                kind = "summary" if at == shared else "copied"
            self.entries.append((window[at][0], window[at][1], kind))
        self.window = window

    def finish(self) -> None:
        waiting = False  # the message before was an assistant message given a call
        for position, (loc, message, kind) in enumerate(self.entries):
            later = self.entries[position + 1] if position + 1 < len(self.entries) else None
            role, content = message["role"], message["content"]
            if role == "assistant":
                data: dict[str, Any] = {"role": "assistant", "content": content}
                waiting = (
                    kind != "copied"
                    and later is not None
                    and later[1]["role"] == "user"
                    and later[2] == "new"
                )
                if waiting:
                    self.calls += 1
                    call = {
                        "id": f"harbor-{self.calls}",
                        "type": "function",
                        "name": "action",
                        "arguments": "{}",
                    }
                    data["tool_calls"] = [call]
                self.run.add(data, loc)
                continue
            if role == "system":
                self.run.add({"role": "system", "content": content}, loc)
            elif kind == "summary":
                self.run.add({"role": "user", "content": content, "internal": True}, loc)
                self.run.record_compaction(content)
            elif waiting:
                self.run.add(
                    {"role": "tool", "tool_call_id": f"harbor-{self.calls}", "content": content}, loc
                )
            else:
                self.run.add(
                    {"role": "user", "content": content, **({"internal": True} if self.run.messages else {})},
                    loc,
                )
            waiting = False


def _trial_key(row: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(row.get(key)) for key in TRIAL_KEYS)


def _episode(row: dict[str, Any]) -> int:
    found = EPISODE.match(str(row.get("episode")))
    return int(found.group(1)) if found else -1


def _metadata(row: dict[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {key: row[key] for key in ROW_FIELDS if row.get(key) not in (None, "")}
    if isinstance(row.get("model"), str) and row["model"]:
        metadata["model"] = row["model"]
    return metadata


def _read_trial(rows: list[tuple[Loc, dict[str, Any]]], name: str) -> Conversation:
    first_loc, first = rows[0]
    run = RunBuilder(name=name, source_format=SOURCE_FORMAT, metadata=_metadata(first))
    trial = _Trial(run)
    for loc, row in sorted(rows, key=lambda item: _episode(item[1])):
        trial.episode(_window(row, loc))
    trial.finish()
    definitions = first.get("tool_definitions")
    opening = run.messages[0].content if run.messages else None
    if isinstance(definitions, list) and not (isinstance(opening, str) and opening.startswith(TOOLS_OPENING)):
        run.tools = build_tools(definitions, first_loc.key("tool_definitions"))
    if trial.calls:
        run.extra_readings.append(Reading(code="tool_calls_from_text", count=trial.calls))
    return run.conversation(first_loc)


def read(shape: Shape) -> list[Conversation]:
    trials: dict[tuple[str, ...], list[tuple[Loc, dict[str, Any]]]] = {}
    for loc, value in shape.located():
        row = expect_dict(value, loc, "a trace row")
        if not _is_row(row):
            raise FormatProblem(
                loc, "not a Harbor trace row (conversations, episode 'episode-<n>', trial_name)"
            )
        trials.setdefault(_trial_key(row), []).append((loc, row))
    groups = list(trials.values())
    if len(groups) == 1:
        return [_read_trial(groups[0], shape.stem)]
    return [_read_trial(group, f"{shape.stem} #{index}") for index, group in enumerate(groups)]


READER = Reader(name=SOURCE_FORMAT, looks_like=looks_like, read=read)
