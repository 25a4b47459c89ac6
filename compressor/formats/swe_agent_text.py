"""Legacy SWE-agent trajectories (``.traj`` without function calling): the model writes its command as text, the
environment answers with an observation in the next user turn.

Invariant: an assistant turn whose ``action`` is answered by the observation after it gets one tool call (named by
the action's first word, ``{"command": action}``), its fenced command leaves the content, and the observation is
the ``tool`` message answering it; demonstration turns (``is_demo``) are left out. Function-calling trajectories
(``tool_calls``, ``tool`` observations) are not this format: ``swe_agent`` reads them.

Schema: SWE-agent/SWE-agent ``sweagent/types.py`` (``HistoryItem``: ``role``, ``content``, ``message_type``,
``agent``, ``is_demo``, ``thought``, ``action``) and ``sweagent/agent/agents.py`` (``add_step_to_history``,
``_add_templated_messages_to_history``, ``_add_demonstration_to_history``); SWE-agent 0.x files write
``is_demo: "True"`` as a string and no ``message_type``.

Roles. SWE-agent runs alone: the first user turn (the issue, rendered by the instance template) is the only real
request; a user turn right after an answered action is that action's observation; any other user turn is the
harness's (a format-error requery, a cost-limit notice): internal. Usage: the file keeps only run totals
(``info.model_stats``, kept in the metadata), so windows are counted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from compressor.formats.building import build_message, indexed
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, type_name
from compressor.formats.shape import Reader
from compressor.formats.tally import Tally, assemble
from compressor.messages import Conversation, Message

SOURCE_FORMAT = "swe-agent-text"
#: How a command is set off from the thought in the model's output (thought_action and xml_thought_action parsers).
FENCES = (("```", "```"), ("<command>", "</command>"))
#: What may stand between an opening fence and the command: a language tag (```bash) and whitespace.
_LANGUAGE = re.compile(r"[A-Za-z]*\s*")
#: Run fields kept in the conversation's metadata.
INFO_FIELDS = ("exit_status", "model_stats")


def is_demo(item: Any) -> bool:
    flag = item.get("is_demo") if isinstance(item, dict) else None
    return flag is True or (isinstance(flag, str) and flag.strip().lower() == "true")


def _function_calling(item: Any) -> bool:
    return isinstance(item, dict) and (item.get("role") == "tool" or bool(item.get("tool_calls")))


def looks_like_text_trajectory(value: Any) -> bool:
    history = value.get("history") if isinstance(value, dict) else None
    if not isinstance(history, list) or any(_function_calling(item) for item in history):
        return False
    return any(
        isinstance(item, dict) and item.get("role") == "assistant" and isinstance(item.get("action"), str)
        for item in history
    )


def _action(item: dict[str, Any], loc: Loc) -> str | None:
    action = item.get("action")
    if action is None:
        return None
    if not isinstance(action, str):
        raise FormatProblem(loc.key("action"), f"must be a string, got {type_name(action)}")
    return action if action.strip() else None


def without_command(content: str, action: str) -> str | None:
    """The model's output without its fenced command, or None when the command is not found set off in it."""
    command = action.strip()
    at = content.rfind(command)
    if at < 0:
        return None
    before, after = content[:at], content[at + len(command) :]
    for opening, closing in FENCES:
        start = before.rstrip().rfind(opening)
        if (
            start < 0
            or not _LANGUAGE.fullmatch(before[start + len(opening) :])
            or not after.lstrip().startswith(closing)
        ):
            continue
        end = at + len(command) + (len(after) - len(after.lstrip())) + len(closing)
        return (content[:start] + content[end:]).strip()
    return None


def from_trajectory(value: dict[str, Any], base: Loc, *, name: str) -> Conversation:
    history_loc = base.key("history")
    items = expect_list(value.get("history"), history_loc, "history")
    tally = Tally()
    located: list[tuple[Loc, dict[str, Any]]] = []
    for loc, item in indexed(items, history_loc):
        data = expect_dict(item, loc, "a history item")
        if is_demo(data):
            tally.add("demonstration_turns_skipped")
        else:
            located.append((loc, data))
    messages: list[Message] = []
    seen_request = False
    for position, (loc, data) in enumerate(located):
        role = data.get("role")
        rest = {
            key: value
            for key, value in data.items()
            if key not in ("tool_calls", "thinking_blocks", "is_demo")
        }
        if role == "assistant":
            messages.append(_assistant(rest, loc, position, located, tally))
        elif role == "user" and messages and messages[-1].role == "assistant" and messages[-1].tool_calls:
            call = messages[-1].tool_calls[-1]
            tally.add("tool_results_from_user_text")
            messages.append(
                build_message({**rest, "role": "tool", "tool_call_id": call.id, "name": call.name}, loc)
            )
        elif role == "user":
            internal = seen_request
            seen_request = True
            tally.add("internal_user_turns", int(internal))
            messages.append(build_message({**rest, "internal": internal}, loc))
        else:
            messages.append(build_message(rest, loc))
    info: Any = value.get("info")
    info = info if isinstance(info, dict) else {}
    metadata: dict[str, Any] = {"agent": "swe-agent", **{k: info[k] for k in INFO_FIELDS if k in info}}
    return assemble(
        messages,
        [],
        name=name,
        source_format=SOURCE_FORMAT,
        loc=base,
        metadata=metadata,
        readings=tally.readings(),
    )


def _assistant(
    data: dict[str, Any], loc: Loc, position: int, located: list[tuple[Loc, dict[str, Any]]], tally: Tally
) -> Message:
    action = _action(data, loc)
    answered = position + 1 < len(located) and located[position + 1][1].get("role") == "user"
    if action is None or not answered:
        return build_message(data, loc)
    content = data.get("content")
    stripped = without_command(content, action) if isinstance(content, str) else None
    call = {
        "id": f"swe_action_{position}",
        "type": "function",
        "name": action.split()[0],
        "arguments": json.dumps({"command": action.strip()}, ensure_ascii=False),
    }
    tally.add("tool_calls_from_text")
    update = {"content": stripped} if stripped is not None else {}
    return build_message({**data, **update, "tool_calls": [call]}, loc)


READER = Reader(
    name=SOURCE_FORMAT,
    looks_like=lambda shape: shape.container == "object" and looks_like_text_trajectory(shape.raw),
    read=lambda shape: [from_trajectory(shape.raw, Loc(), name=shape.stem)],
)
