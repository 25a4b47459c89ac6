"""SWE-agent trajectories (``.traj``): the ``history`` list is the conversation the model saw.

Invariant: tool messages answer the first id of their ``tool_call_ids`` list (as SWE-agent itself sends
them); ``thought``, ``action``, ``agent`` and ``message_type`` stay on the messages as extra fields.
"""

from __future__ import annotations

from typing import Any

from compressor.formats.building import build_conversation, build_tools, indexed
from compressor.formats.chat import convert_messages
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list
from compressor.formats.shape import Reader
from compressor.messages import Conversation


def looks_like_trajectory(value: dict[str, Any]) -> bool:
    return isinstance(value.get("history"), list)


def from_trajectory(value: dict[str, Any], base: Loc, *, name: str) -> Conversation:
    history_loc = base.key("history")
    located: list[tuple[Loc, Any]] = []
    for loc, item in indexed(expect_list(value.get("history"), history_loc, "history"), history_loc):
        data = expect_dict(item, loc, "a message")
        if data.get("role") == "tool" and not data.get("tool_call_id"):
            ids = data.get("tool_call_ids")
            if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
                raise FormatProblem(loc, "tool message without tool_call_ids")
            data = {**data, "tool_call_id": ids[0]}
        located.append((loc, data))
    messages = convert_messages(located, anthropic_blocks=False)
    tools = build_tools(value.get("tools"), base.key("tools"))
    return build_conversation(messages, tools, name=name, source_format="swe-agent", loc=base)


READER = Reader(
    name="swe-agent",
    looks_like=lambda shape: shape.container == "object" and looks_like_trajectory(shape.raw),
    read=lambda shape: [from_trajectory(shape.raw, Loc(), name=shape.stem)],
)
